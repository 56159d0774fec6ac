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

    /// Where the hook that runs this process was called from, as far as its ancestors tell.
    enum Caller: Sendable, Equatable {
        /// A tmux pane's process tree: the processes it runs as.
        case pane(PaneProcesses)
        /// A process that runs hooks with another's environment (Codex's app-server daemon): `TMUX_PANE`
        /// names the pane of the program that started it, not necessarily the one that asked.
        case inheritedEnvironment
        /// Neither (no tmux variables, or a chain that reaches no tmux server and no such runner).
        case unknown
    }

    /// Walks up from this process's parent to the tmux server named in `TMUX` (`socket,server pid,…`):
    /// a few reads of /proc, no tmux call. Nil outside a tmux pane's process tree, and for a hook that
    /// Codex's app-server daemon runs (see `caller`).
    static func ofCaller(environment: [String: String], parent: Int32 = getppid()) -> PaneProcesses? {
        if case .pane(let processes) = caller(environment: environment, parent: parent) { return processes }
        return nil
    }

    /// `ofCaller`, telling a hook Codex's app-server daemon runs apart: the daemon is a child of the Codex
    /// that started it (so the walk may well reach that Codex's tmux server) or of init once that Codex is
    /// gone, and every Codex's hooks run in it with the starter's `TMUX_PANE` (docs/agents.md). The
    /// arguments of an ancestor are read only when its name is `codex`, so other agents' hooks read no
    /// more of /proc than before.
    static func caller(environment: [String: String], parent: Int32 = getppid()) -> Caller {
        guard environment["TMUX_PANE"] != nil, let tmux = environment["TMUX"] else { return .unknown }
        let parts = tmux.split(separator: ",", omittingEmptySubsequences: false)
        let server = parts.count >= 2 ? Int32(parts[1]).flatMap { $0 > 1 ? $0 : nil } : nil
        var current = parent
        var below: ProcessStat?
        for _ in 0..<64 {
            guard current > 1, let stat = ProcessStat.read(current) else { return .unknown }
            if CodexDaemon.mayBe(stat), CodexDaemon.isDaemon(ProcessStat.arguments(current)) { return .inheritedEnvironment }
            if let server, stat.parent == server {
                let agent = below ?? stat
                return .pane(PaneProcesses(server: server, pane: stat.pid, paneStart: stat.start, agent: agent.pid, agentStart: agent.start))
            }
            below = stat
            current = stat.parent
        }
        return .unknown
    }
}

/// The event's `process` object and the board's `processes` (outside the type's body, so that the
/// compiler still writes the memberwise initializer).
extension PaneProcesses {
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
