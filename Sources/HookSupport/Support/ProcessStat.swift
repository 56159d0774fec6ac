/// One process as `/proc/PID/stat` describes it: the one reader of that file.
package struct ProcessStat: Sendable, Equatable {
    package var pid: Int32
    /// The command name (`comm`, at most 15 bytes), for messages.
    package var command: String
    /// `R`, `S`, `Z`…
    package var state: UInt8
    package var parent: Int32
    package var group: Int32
    /// The controlling terminal's device number (`tty_nr`), 0 without one: two processes on one
    /// terminal (one tmux pane) share it.
    package var terminal: Int32 = 0
    /// The foreground process group of the process's controlling terminal (-1 without one).
    package var foregroundGroup: Int32
    /// Clock ticks since boot: with the pid, it names one process for good (pids are reused).
    package var start: UInt64

    /// A zombie (exited, not yet reaped) or dead process no longer runs anything.
    package var isAlive: Bool { state != UInt8(ascii: "Z") && state != UInt8(ascii: "X") }

    /// The process's arguments (`/proc/PID/cmdline`, at most 64 KiB), empty when it cannot be read.
    package static func arguments(_ pid: Int32) -> [String] {
        guard pid > 0, let bytes = (try? FileSystem.read("/proc/\(pid)/cmdline", limit: 64 << 10)) ?? nil else { return [] }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The process's environment (`/proc/PID/environ`, at most `limit` bytes): nil when it cannot be
    /// read (another user's process, or one that made itself undumpable), or when it is longer.
    package static func environment(_ pid: Int32, limit: Int = 256 << 10) -> [String: String]? {
        guard pid > 0, let bytes = (try? FileSystem.read("/proc/\(pid)/environ", limit: limit + 1)) ?? nil,
              bytes.count <= limit else { return nil }
        var values: [String: String] = [:]
        for entry in bytes.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            values[String(decoding: entry[..<equals], as: UTF8.self)] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
        }
        return values
    }

    /// The pids of every process /proc lists now (at most `limit`).
    package static func all(limit: Int = 1 << 16) -> [Int32] {
        let names = (try? FileSystem.list("/proc")) ?? []
        return names.lazy.compactMap { Int32($0) }.filter { $0 > 0 }.prefix(limit).map { $0 }
    }

    /// A decimal number as /proc writes it (an optional minus, digits); nil for anything else.
    package static func decimal(_ text: ArraySlice<UInt8>) -> Int64? {
        var digits = text
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    package static func read(_ pid: Int32) -> ProcessStat? {
        guard pid > 0, let bytes = (try? FileSystem.read("/proc/\(pid)/stat", limit: 4096)) ?? nil,
              let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close else { return nil }
        // After "pid (comm)" come fields 3 (state) onwards: 4 ppid, 5 pgrp, 7 tty_nr, 8 tpgid, 22 starttime. Scanned
        // in place up to the last one needed (reply and peek read this for every pane they touch).
        var state: UInt8?, parent: Int64?, group: Int64?, terminal: Int64?, foreground: Int64?, startTicks: Int64?
        var field = 0, index = close + 1
        while field <= 19, index < bytes.count {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
            let begin = index
            while index < bytes.count, bytes[index] != UInt8(ascii: " "), bytes[index] != UInt8(ascii: "\n") { index += 1 }
            guard index > begin else { break }
            let text = bytes[begin..<index]
            switch field {
            case 0: state = text.first
            case 1: parent = decimal(text)
            case 2: group = decimal(text)
            case 4: terminal = decimal(text)
            case 5: foreground = decimal(text)
            case 19: startTicks = decimal(text)
            default: break
            }
            field += 1
        }
        guard let state, let parent, let group, let terminal, let foreground, let startTicks, startTicks >= 0 else { return nil }
        let start = UInt64(startTicks)
        return ProcessStat(pid: pid, command: String(decoding: bytes[(open + 1)..<close], as: UTF8.self), state: state,
                           parent: Int32(truncatingIfNeeded: parent), group: Int32(truncatingIfNeeded: group),
                           terminal: Int32(truncatingIfNeeded: terminal),
                           foregroundGroup: Int32(truncatingIfNeeded: foreground), start: start)
    }
}
