/// Codex's app-server daemon, as a hook's ancestor: Codex 0.163.0 (`daemon_auto_start = true`, the
/// default) copies itself to `~/.codex/packages/app-server-daemon/releases/<version>/bin/codex` and
/// starts it as `codex app-server --listen unix:// [--analytics-default-enabled] --managed-daemon`; that
/// one process runs the hooks and `notify` of every Codex of the user, with the environment of the
/// Codex that started it (seen: docs/agents.md). So a hook it runs finds `TMUX_PANE` naming the
/// starter's pane, whichever Codex asked.
package enum CodexDaemon {
    /// The program's name (`comm`) a process must have before its arguments are read.
    package static let command = "codex"

    /// Whether a process is worth reading the arguments of: named `codex` (the kernel names a script
    /// after its file too). Other agents' hooks read no more of /proc than the walk's `stat` files.
    package static func mayBe(_ stat: ProcessStat) -> Bool { stat.command == command }

    /// Whether `arguments` (a process's argv) are the managed daemon's: the program (or the script an
    /// interpreter runs) is named `codex`, and `app-server` and `--managed-daemon` are among its
    /// arguments as whole words. `codex app-server daemon pid-update-loop`, its sibling, runs no hooks.
    package static func isDaemon(_ arguments: [String]) -> Bool {
        guard arguments.count >= 3, arguments.count <= 4096,
              arguments.prefix(2).contains(where: { FileSystem.fileName(of: $0) == command }) else { return false }
        let rest = arguments.dropFirst()
        return rest.contains("app-server") && rest.contains("--managed-daemon")
    }

    /// The Codex home a process with `environment` uses (`CODEX_HOME`, else `~/.codex`): Codex runs one
    /// daemon per home, so only the Codexes of one home share a daemon and its environment.
    package static func home(_ environment: [String: String]) -> String? {
        if let home = environment["CODEX_HOME"], !home.isEmpty { return trimmed(home) }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return trimmed(home) + "/.codex"
    }

    /// `path` with its symlinks, `.`, `..` and repeated slashes resolved, as Codex resolves its home; a path
    /// that does not exist (yet) with `.`, `..` and repeated slashes taken out. Nil when it is relative.
    package static func canonical(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        guard let resolved = realpath(path, nil) else { return ProjectIdentity.normalized(path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}

/// `reply`'s rule for a board row whose pane a hook named from an inherited environment
/// (`TmuxLocation.paneInherited`: the hook ran in Codex's app-server daemon). Such a pane is the daemon
/// starter's, so text, keys and choices (a push's buttons too) go to it only when it cannot be another
/// session's: no other session recorded in that pane is still on the board (the daemon fires no
/// `SessionEnd`, so a session that quit stays there until `hookctl dismiss`; and a dialog with the same
/// options may be another session's), and exactly one Codex of this Codex home runs in the foreground of
/// a terminal on this host, the recorded pane's.
package struct InheritedPane {
    /// The programs that count as the agent (its manifest's `detect` names).
    package var names: [String]
    /// This user's Codex home (`CodexDaemon.home`), nil when unknown.
    package var codexHome: String?

    /// Interpreters an agent may run under (`node …/codex.js`): their arguments are read too.
    package static let interpreters: Set<String> = ["node", "nodejs", "bun", "deno", "python", "python3"]

    /// The terminals (`tty_nr`) whose foreground runs one of `names` now, with one pid each. Left out: the
    /// daemon and anything without a terminal, a stopped (Ctrl-Z) or background process (what is typed
    /// goes to the foreground: its shell, say), and a process whose environment names another Codex home
    /// once both homes resolve (one that cannot be read or resolved counts: it might share this one).
    /// A process's arguments are read only when its name (`comm`, cut at 15 bytes: `codex-x86_64-un` for
    /// the release binary) is the agent's or an interpreter's. Read from /proc, at most `limit` processes.
    package func agentTerminals(limit: Int = 1 << 16) -> [Int32: Int32] {
        var terminals: [Int32: Int32] = [:]
        let ours = codexHome.flatMap(CodexDaemon.canonical)
        for pid in ProcessStat.all(limit: limit) where pid != getpid() {
            guard let stat = ProcessStat.read(pid), stat.isAlive, stat.terminal != 0, terminals[stat.terminal] == nil,
                  stat.state != UInt8(ascii: "T"), stat.state != UInt8(ascii: "t"), stat.group == stat.foregroundGroup else { continue }
            let named = names.contains { !$0.isEmpty && stat.command.hasPrefix(String($0.prefix(15))) }
            guard named || Self.interpreters.contains(stat.command) else { continue }
            let arguments = ProcessStat.arguments(pid)
            let program = arguments.prefix(2).map { FileSystem.fileName(of: $0) }
            guard named || names.contains(where: { name in !name.isEmpty && program.contains { $0.hasPrefix(name) } }) else { continue }
            // Codex's own helpers (`app-server …`) run no turn of a user's; they hold no dialog.
            if arguments.dropFirst().contains("app-server") { continue }
            if let ours, let environment = ProcessStat.environment(pid),
               let theirs = CodexDaemon.home(environment).flatMap(CodexDaemon.canonical), theirs != ours { continue }
            terminals[stat.terminal] = pid
        }
        return terminals
    }

    /// Other sessions recorded in the same pane that are still on the board (any agent), and those ended as
    /// `replaced` with their question kept (boards written before inherited panes stopped replacing). One
    /// whose recorded agent process has exited is gone and left out (a Codex restarted in the same pane:
    /// the daemon fired no `SessionEnd` for the one before); one with no processes recorded (a daemon whose
    /// starter has exited records none) cannot be told gone and counts. The terminal count still decides.
    package static func othersInPane(of entry: BoardEntry, board: BoardState) -> [BoardEntry] {
        guard let tmux = entry.tmux else { return [] }
        return board.entries.filter { other in
            guard other.key != entry.key, other.tmux?.pane == tmux.pane, other.tmux?.socket == tmux.socket,
                  other.state != .ended || (other.endReason == .replaced && other.question != nil) else { return false }
            if let processes = other.processes {
                guard let agent = ProcessStat.read(processes.agent), agent.isAlive, agent.start == processes.agentStart else { return false }
            }
            return true
        }
    }

    /// Refuses (`AnswerError.paneUncertain`, exit 69, nothing typed or pressed) unless the row is the only
    /// one recorded in its pane and the recorded pane is the one terminal running the agent. `board`: the
    /// whole board. `choice`: a choice (the message says "pressed").
    package func check(_ access: PaneAccess, board: BoardState, choice: Bool) throws {
        let entry = access.entry
        let name = Event.displayName(entry.agent)
        let others = Self.othersInPane(of: entry, board: board)
        if !others.isEmpty {
            let keys = others.prefix(4).map { AnswerText.forTerminal($0.key) }
            throw AnswerError.paneUncertain(
                key: entry.key, pane: access.pane, agent: name,
                reason: Text.join(keys, separator: ", ") + (others.count > 4 ? " and \(others.count - 4) more" : "")
                    + " \(others.count == 1 ? "is" : "are") recorded in the same pane and still on the board, so the pane may show "
                    + "another session (one that quit stays on the board: 'hookctl dismiss KEY' takes it off)",
                choice: choice)
        }
        if let why = try uncertainty(access) {
            throw AnswerError.paneUncertain(key: entry.key, pane: access.pane, agent: name, reason: why, choice: choice)
        }
    }

    /// Why the recorded pane may not be the agent's (nil when it is the one terminal running the agent).
    package func uncertainty(_ access: PaneAccess) throws -> String? {
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
