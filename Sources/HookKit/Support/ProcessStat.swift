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
        // After "pid (comm)" come fields 3 (state) onwards: 4 ppid, 5 pgrp, 8 tpgid, 22 starttime.
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        func number(_ index: Int) -> Int64? { Int64(String(decoding: fields[index], as: UTF8.self)) }
        guard fields.count > 19, let state = fields[0].first, let parent = number(1), let group = number(2),
              let foreground = number(5), let start = UInt64(String(decoding: fields[19], as: UTF8.self)) else { return nil }
        return ProcessStat(pid: pid, command: String(decoding: bytes[(open + 1)..<close], as: UTF8.self), state: state,
                           parent: Int32(truncatingIfNeeded: parent), group: Int32(truncatingIfNeeded: group),
                           foregroundGroup: Int32(truncatingIfNeeded: foreground), start: start)
    }
}
