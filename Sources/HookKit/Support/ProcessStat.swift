/// One process as `/proc/PID/stat` describes it: the one reader of that file.
struct ProcessStat: Sendable, Equatable {
    var pid: Int32
    /// The command name (`comm`, at most 15 bytes), for messages.
    var command: String
    /// `R`, `S`, `Z`…
    var state: UInt8
    var parent: Int32
    var group: Int32
    /// The foreground process group of the process's controlling terminal (-1 without one).
    var foregroundGroup: Int32
    /// Clock ticks since boot: with the pid, it names one process for good (pids are reused).
    var start: UInt64

    /// A zombie (exited, not yet reaped) or dead process no longer runs anything.
    var isAlive: Bool { state != UInt8(ascii: "Z") && state != UInt8(ascii: "X") }

    /// The process's arguments (`/proc/PID/cmdline`, at most 64 KiB), empty when it cannot be read.
    static func arguments(_ pid: Int32) -> [String] {
        guard pid > 0, let bytes = (try? FileSystem.read("/proc/\(pid)/cmdline", limit: 64 << 10)) ?? nil else { return [] }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    static func read(_ pid: Int32) -> ProcessStat? {
        guard pid > 0, let bytes = (try? FileSystem.read("/proc/\(pid)/stat", limit: 4096)) ?? nil,
              let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close else { return nil }
        // After "pid (comm)" come fields 3 (state) onwards, separated by spaces: 4 ppid, 5 pgrp, 8 tpgid,
        // 22 starttime (here 0, 1, 2, 5 and 19). Walked in place: no array of fields (a hook reads its own).
        var state: UInt8?
        var parent: Int64?, group: Int64?, foreground: Int64?, start: Int64?
        var field = 0
        var fieldStart = close + 1
        var index = close + 1
        while index <= bytes.count, field <= 19 {
            if index == bytes.count || bytes[index] == UInt8(ascii: " ") {
                if index > fieldStart {
                    let text = bytes[fieldStart..<index]
                    switch field {
                    case 0: state = text.first
                    case 1: parent = decimal(text)
                    case 2: group = decimal(text)
                    case 5: foreground = decimal(text)
                    case 19: start = text.first == UInt8(ascii: "-") ? nil : decimal(text)
                    default: break
                    }
                    field += 1
                }
                fieldStart = index + 1
            }
            index += 1
        }
        guard field > 19, let state, let parent, let group, let foreground, let start else { return nil }
        return ProcessStat(pid: pid, command: String(decoding: bytes[(open + 1)..<close], as: UTF8.self), state: state,
                           parent: Int32(truncatingIfNeeded: parent), group: Int32(truncatingIfNeeded: group),
                           foregroundGroup: Int32(truncatingIfNeeded: foreground), start: UInt64(start))
    }

    /// A decimal number with an optional sign, as `Int64(_: String)` reads it; nil for anything else.
    private static func decimal(_ text: ArraySlice<UInt8>) -> Int64? {
        var digits = text[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (scaled, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? scaled.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                : scaled.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return value
    }
}
