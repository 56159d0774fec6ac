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
