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

/// The processes an agent runs as in its tmux pane, recorded with each event a hook sends from there:
/// the tmux server, the process tmux started in the pane, and the agent (the pane process's child the
/// hook descends from, or the pane process itself). `reply` and `peek` act on a pane only while these
/// are still the same processes (pid and start time).
struct PaneProcesses: Sendable, Equatable {
    var server: Int32
    var pane: Int32
    var paneStart: UInt64
    var agent: Int32
    var agentStart: UInt64

    init(server: Int32, pane: Int32, paneStart: UInt64, agent: Int32, agentStart: UInt64) {
        self.server = server
        self.pane = pane
        self.paneStart = paneStart
        self.agent = agent
        self.agentStart = agentStart
    }

    /// Walks up from this process's parent to the tmux server named in `TMUX` (`socket,server pid,…`):
    /// a few reads of /proc, no tmux call. Nil outside a tmux pane's process tree.
    static func ofCaller(environment: [String: String], parent: Int32 = getppid()) -> PaneProcesses? {
        guard environment["TMUX_PANE"] != nil, let tmux = environment["TMUX"] else { return nil }
        let parts = tmux.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count >= 2, let server = Int32(parts[1]), server > 1 else { return nil }
        var current = parent
        var below: ProcessStat?
        for _ in 0..<64 {
            guard current > 1, let stat = ProcessStat.read(current) else { return nil }
            if stat.parent == server {
                let agent = below ?? stat
                return PaneProcesses(server: server, pane: stat.pid, paneStart: stat.start, agent: agent.pid, agentStart: agent.start)
            }
            below = stat
            current = stat.parent
        }
        return nil
    }

    var json: JSONValue {
        .object(JSONObject([
            ("tmux_server_pid", .int(Int(server))),
            ("pane_pid", .int(Int(pane))), ("pane_pid_start", .string(String(paneStart))),
            ("agent_pid", .int(Int(agent))), ("agent_pid_start", .string(String(agentStart))),
        ]))
    }

    init?(json: JSONValue) {
        guard let server = json["tmux_server_pid"]?.intValue, let pane = json["pane_pid"]?.intValue,
              let paneStart = json["pane_pid_start"]?.stringValue.flatMap({ UInt64($0) }),
              let agent = json["agent_pid"]?.intValue,
              let agentStart = json["agent_pid_start"]?.stringValue.flatMap({ UInt64($0) }) else { return nil }
        self.init(server: Int32(truncatingIfNeeded: server), pane: Int32(truncatingIfNeeded: pane), paneStart: paneStart,
                  agent: Int32(truncatingIfNeeded: agent), agentStart: agentStart)
    }
}
