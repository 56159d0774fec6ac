/// Codex's app-server daemon, as a hook's ancestor: Codex 0.163.0 (`daemon_auto_start = true`, the
/// default) copies itself to `~/.codex/packages/app-server-daemon/releases/<version>/bin/codex` and
/// starts it as `codex app-server --listen unix:// [--analytics-default-enabled] --managed-daemon`; that
/// one process runs the hooks and `notify` of every Codex of the user, with the environment of the
/// Codex that started it (seen: docs/agents.md). So a hook it runs finds `TMUX_PANE` naming the
/// starter's pane, whichever Codex asked.
enum CodexDaemon {
    /// The program's name (`comm`) a process must have before its arguments are read.
    static let command = "codex"

    /// Whether a process is worth reading the arguments of: named `codex` (the kernel names a script
    /// after its file too). Other agents' hooks read no more of /proc than the walk's `stat` files.
    static func mayBe(_ stat: ProcessStat) -> Bool { stat.command == command }

    /// Whether `arguments` (a process's argv) are the managed daemon's: the program (or the script an
    /// interpreter runs) is named `codex`, and `app-server` and `--managed-daemon` are among its
    /// arguments as whole words. `codex app-server daemon pid-update-loop`, its sibling, runs no hooks.
    static func isDaemon(_ arguments: [String]) -> Bool {
        guard arguments.count >= 3, arguments.count <= 4096,
              arguments.prefix(2).contains(where: { FileSystem.fileName(of: $0) == command }) else { return false }
        let rest = arguments.dropFirst()
        return rest.contains("app-server") && rest.contains("--managed-daemon")
    }

    /// The Codex home a process with `environment` uses (`CODEX_HOME`, else `~/.codex`): Codex runs one
    /// daemon per home, so only the Codexes of one home share a daemon and its environment.
    static func home(_ environment: [String: String]) -> String? {
        if let home = environment["CODEX_HOME"], !home.isEmpty { return trimmed(home) }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return trimmed(home) + "/.codex"
    }

    private static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}

/// `reply`'s rule for a board row whose pane a hook named from an inherited environment
/// (`TmuxLocation.paneInherited`: the hook ran in Codex's app-server daemon). Text and keys are typed
/// blind, so they go only where the pane cannot be another Codex's: exactly one Codex of this Codex
/// home runs in a terminal on this host, and that terminal is the recorded pane's. A `--choice` is
/// not held to it: it presses only a row the pane shows now among the recorded question's options.
struct InheritedPane {
    /// The programs that count as the agent (its manifest's `detect` names).
    var names: [String]
    /// This user's Codex home (`CodexDaemon.home`), nil when unknown.
    var codexHome: String?

    /// The terminals (`tty_nr`) that run one of `names` now, with one pid each: the daemon and anything
    /// without a terminal left out, and a process whose environment names another Codex home (one that
    /// cannot be read counts: it might share this one). Read from /proc, at most `limit` processes.
    func agentTerminals(limit: Int = 1 << 16) -> [Int32: Int32] {
        var terminals: [Int32: Int32] = [:]
        for pid in ProcessStat.all(limit: limit) where pid != getpid() {
            guard let stat = ProcessStat.read(pid), stat.isAlive, stat.terminal != 0, terminals[stat.terminal] == nil else { continue }
            let arguments = ProcessStat.arguments(pid)
            let program = arguments.prefix(2).map { FileSystem.fileName(of: $0) }
            guard names.contains(stat.command) || names.contains(where: program.contains) else { continue }
            // Codex's own helpers (`app-server …`) run no turn of a user's; they hold no dialog.
            if arguments.dropFirst().contains("app-server") { continue }
            if let codexHome, let environment = ProcessStat.environment(pid),
               let theirs = CodexDaemon.home(environment), theirs != codexHome { continue }
            terminals[stat.terminal] = pid
        }
        return terminals
    }

    /// Refuses text and keys (`AnswerError.paneUncertain`, exit 69) unless the recorded pane is the one
    /// terminal that runs the agent. One `tmux list-panes -a` on the recorded server names the other panes.
    func check(_ access: PaneAccess) throws {
        guard let why = try uncertainty(access) else { return }
        throw AnswerError.paneUncertain(key: access.entry.key, pane: access.pane, agent: Event.displayName(access.entry.agent),
                                        reason: why, choice: false)
    }

    /// A choice presses only an option the pane shows, but when the pane is uncertain and another session
    /// of the agent recorded in that pane still waits on its own question (or was waiting when this one
    /// took the pane: `replaced` with its question kept), the pane may show that one's dialog with the same
    /// options (two permission dialogs at once): refused too. `board` is the whole board.
    func checkChoice(_ access: PaneAccess, board: BoardState) throws {
        let entry = access.entry
        guard let tmux = entry.tmux else { return }
        let waiting = board.entries.filter { other in
            other.key != entry.key && other.agent == entry.agent && other.tmux?.pane == tmux.pane && other.tmux?.socket == tmux.socket
                && (other.state == .needsInput || (other.state == .ended && other.endReason == .replaced && other.question != nil))
        }
        guard let other = waiting.first, let why = try uncertainty(access) else { return }
        throw AnswerError.paneUncertain(key: entry.key, pane: access.pane, agent: Event.displayName(entry.agent),
                                        reason: why + ", and \(AnswerText.forTerminal(other.key)), recorded in the same pane, "
                                            + "was waiting on its own question, whose dialog the pane may show", choice: true)
    }

    /// Why the recorded pane may not be the agent's (nil when it is the one terminal running the agent).
    func uncertainty(_ access: PaneAccess) throws -> String? {
        let entry = access.entry
        let pane = access.pane
        let listed = try access.driver.run(["list-panes", "-a", "-F", "#{pane_id} #{pane_pid}"]).outputText
        var panes: [(id: String, terminal: Int32)] = []
        for line in listed.split(separator: "\n").prefix(4096) {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let pid = Int32(parts[1]), let stat = ProcessStat.read(pid) else { continue }
            panes.append((String(parts[0]), stat.terminal))
        }
        guard let recorded = panes.first(where: { $0.id == pane }) else {
            throw AnswerError.refused(key: entry.key, reason: "its tmux pane is gone")
        }
        let terminals = agentTerminals()
        if terminals.keys.count == 1, terminals[recorded.terminal] != nil { return nil }
        let here = panes.filter { $0.terminal != 0 && terminals[$0.terminal] != nil }.map(\.id)
        let elsewhere = terminals.keys.filter { terminal in !panes.contains { $0.terminal == terminal } }.count
        var found: [String] = []
        if !here.isEmpty { found.append("\(here.count) pane\(here.count == 1 ? "" : "s") (\(here.joined(separator: ", ")))") }
        if elsewhere > 0 { found.append("\(elsewhere) other terminal\(elsewhere == 1 ? "" : "s")") }
        let name = Event.displayName(entry.agent)
        return found.isEmpty ? "\(name) runs in no terminal now"
            : "\(name) runs in " + found.joined(separator: " and ") + ", so the question may be another \(name)'s"
    }
}
