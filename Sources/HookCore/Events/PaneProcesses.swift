/// The processes an agent runs as in its tmux pane, recorded with each event a hook sends from there:
/// the tmux server, the process tmux started in the pane, and the agent (the pane process's child the
/// hook descends from, or the pane process itself). `reply` and `peek` act on a pane only while these
/// are still the same processes (pid and start time).
package struct PaneProcesses: Sendable, Equatable {
    package var server: Int32
    package var pane: Int32
    package var paneStart: UInt64
    package var agent: Int32
    package var agentStart: UInt64

    package init(
        server: Int32,
        pane: Int32,
        paneStart: UInt64,
        agent: Int32,
        agentStart: UInt64
    ) {
        self.server = server
        self.pane = pane
        self.paneStart = paneStart
        self.agent = agent
        self.agentStart = agentStart
    }
}

/// The event's `process` object and the board's `processes` (outside the type's body, so that the
/// compiler still writes the memberwise initializer).
extension PaneProcesses {
    package var json: JSONValue {
        .object(JSONObject([
            ("tmux_server_pid", .int(Int(server))),
            ("pane_pid", .int(Int(pane))), ("pane_pid_start", .string(String(paneStart))),
            ("agent_pid", .int(Int(agent))), ("agent_pid_start", .string(String(agentStart))),
        ]))
    }

    package init?(json: JSONValue) {
        guard let server = json["tmux_server_pid"]?.intValue, let pane = json["pane_pid"]?.intValue,
              let paneStart = json["pane_pid_start"]?.stringValue.flatMap({ UInt64($0) }),
              let agent = json["agent_pid"]?.intValue,
              let agentStart = json["agent_pid_start"]?.stringValue.flatMap({ UInt64($0) }) else { return nil }
        self.init(server: Int32(truncatingIfNeeded: server), pane: Int32(truncatingIfNeeded: pane), paneStart: paneStart,
                  agent: Int32(truncatingIfNeeded: agent), agentStart: agentStart)
    }
}
