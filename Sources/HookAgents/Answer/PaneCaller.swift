/// Where a hook was called from: the tmux pane's processes above it, found by walking up /proc
/// (`PaneProcesses` is what the event records of it).
extension PaneProcesses {
    /// What a hook's ancestors tell of where it was called from.
    package struct Caller: Sendable, Equatable {
        /// The tmux pane's processes above the hook (nil when the walk reaches no tmux server).
        package var processes: PaneProcesses?
        /// A process on the way runs hooks with another's environment (Codex's app-server daemon):
        /// `TMUX_PANE` names the pane of the program that started it, not necessarily the one that asked.
        package var inheritedEnvironment = false
    }

    /// Walks up from this process's parent to the tmux server named in `TMUX` (`socket,server pid,…`): a
    /// few reads of /proc, no tmux call; `processes` is nil outside a tmux pane's process tree. It tells a
    /// hook Codex's app-server daemon runs apart: the daemon is a child of the Codex
    /// that started it (so the walk reaches that Codex's pane, the one its `TMUX_PANE` names) or of init
    /// once that Codex is gone, and every Codex's hooks run in it with the starter's environment
    /// (docs/agents.md). Above the daemon the agent is its starter (the pane's process's child on the
    /// way, or the pane's process itself), never the daemon. The arguments of an ancestor are read only
    /// when its name is `codex`, so other agents' hooks read no more of /proc than before.
    package static func caller(environment: [String: String], parent: Int32 = getppid()) -> Caller {
        guard environment["TMUX_PANE"] != nil, let tmux = environment["TMUX"] else { return Caller() }
        let parts = tmux.split(separator: ",", omittingEmptySubsequences: false)
        let server = parts.count >= 2 ? Int32(parts[1]).flatMap { $0 > 1 ? $0 : nil } : nil
        var found = Caller()
        var current = parent
        var below: ProcessStat?
        for _ in 0..<64 {
            guard current > 1, let stat = ProcessStat.read(current) else { return found }
            if !found.inheritedEnvironment, CodexDaemon.mayBe(stat), CodexDaemon.isDaemon(ProcessStat.arguments(current)) {
                found.inheritedEnvironment = true
                below = nil
                current = stat.parent
                continue
            }
            if let server, stat.parent == server {
                let agent = below ?? stat
                found.processes = PaneProcesses(server: server, pane: stat.pid, paneStart: stat.start, agent: agent.pid, agentStart: agent.start)
                return found
            }
            below = stat
            current = stat.parent
        }
        return found
    }
}
