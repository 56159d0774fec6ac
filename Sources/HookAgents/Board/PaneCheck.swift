import Synchronization

/// Checks the board against tmux: which of the panes the agents ran in still exist.
///
/// A pane lives as long as the process tmux started in it, so once a check has learned that
/// process (pid and start time, guarding against pid reuse) a look at /proc answers for it. Only
/// sessions without a known live pane process cost one `tmux list-panes -a` per tmux server
/// (socket), bounded by a timeout.
package struct PaneCheck: Sendable {
    /// What one tmux server said.
    package enum Answer: Sendable, Equatable {
        /// The server runs and has these panes (`%3` → the pid of the process in it).
        case panes([String: Int32])
        /// No server on that socket: every pane it had is gone.
        case serverGone
        /// tmux is missing, hung or refused: nothing can be concluded.
        case unknown
    }

    /// What a check found: sessions whose pane is gone, whose agent exited, whose dialog was refused
    /// without a hook (their pane shows it), and pane processes learned for the others.
    package struct Outcome: Sendable {
        package var gone: [BoardEntry] = []
        package var learned: [(entry: BoardEntry, pid: Int32, start: UInt64)] = []
        package var exited: [BoardEntry] = []
        package var settled: [(entry: BoardEntry, reason: SettleReason)] = []
    }

    package var environment: [String: String]
    package var timeout: Double = 2
    /// The screen facts of an agent (from its manifest), for the sessions whose pane is read.
    package var screenFacts: @Sendable (String) -> ScreenFacts? = { _ in nil }
    /// A dialog younger than this is not judged by its pane: the hook fires before the dialog is drawn.
    package static let settleAfter = 3.0

    package func check(_ board: BoardState, now: Double = WallClock.nowEpoch()) -> Outcome {
        var outcome = Outcome()
        // Sessions are looked at in place and copied only when found: copying each (thirty fields) to
        // ask two questions of it cost more than the questions.
        for index in board.entries.indices where board.entries[index].state != .ended
            && (board.entries[index].processes != nil || board.entries[index].state == .needsInput || board.entries[index].state == .working) {
            let entry = board.entries[index]
            // The agent's own process is gone while its pane lives on (its shell is back): it exited.
            if let processes = entry.processes, processes.agent != processes.pane,
               PaneCheck.processStart(processes.agent) != processes.agentStart,
               PaneCheck.processStart(processes.pane) == processes.paneStart {
                outcome.exited.append(entry)
                continue
            }
            // A dialog refused or cancelled on the screen (Esc, No) fires no hook: its pane tells. So does
            // a reply's own `working` (the session's last event) after which the agent is back at its
            // prompt without a hook: a choice that refused, or aider after a question was answered.
            let replied = entry.state == .working && BoardState.isReply(entry.agentEvent)
            guard entry.state == .needsInput || replied, now - entry.since >= PaneCheck.settleAfter, let tmux = entry.tmux,
                  let facts = screenFacts(entry.agent), !facts.interrupted.isEmpty || !facts.idlePrompt.isEmpty else { continue }
            // A server whose socket is gone has no pane to read (the check below ends its sessions).
            if let socket = tmux.socket, !socket.isEmpty, !FileSystem.exists(socket) { continue }
            guard let lines = ScreenQuestion.capture(tmux, environment: environment, timeout: timeout) else { continue }
            // After text the agent works on, an older `Interrupted` may still show: only a choice or keys count.
            if !replied || !entry.message.hasPrefix(Reply.textReplyPrefix), facts.showsInterrupted(lines) {
                outcome.settled.append((entry, .interrupted))
            } else if facts.showsIdlePrompt(lines) {
                outcome.settled.append((entry, .atPrompt))
            }
        }
        let unknown = board.entries.filter { entry in
            guard entry.state != .ended, entry.tmux != nil else { return false }
            guard let pid = entry.panePID, let start = entry.panePIDStart else { return true }
            return PaneCheck.processStart(pid) != start
        }
        var answers: [String: Answer] = [:]
        for entry in unknown {
            guard let tmux = entry.tmux else { continue }
            let socket = tmux.socket ?? ""
            let answer = answers[socket] ?? ask(socket: tmux.socket)
            answers[socket] = answer
            switch answer {
            case .panes(let panes):
                if let pid = panes[tmux.pane] {
                    if let start = PaneCheck.processStart(pid) { outcome.learned.append((entry, pid, start)) }
                } else {
                    outcome.gone.append(entry)
                }
            case .serverGone: outcome.gone.append(entry)
            case .unknown: break
            }
        }
        return outcome
    }

    /// The check `status`, `peek` and `reply` run: the agents' screen facts from their manifests,
    /// read once and only when a session waits on a dialog.
    package static func forBoard(environment: [String: String], paths: Paths) -> PaneCheck {
        let resources = Resources(environment: environment, paths: paths)
        let manifests = Mutex<[AgentManifest]?>(nil)
        return PaneCheck(environment: environment, screenFacts: { agent in
            manifests.withLock { loaded in
                if loaded == nil { loaded = (try? resources.manifests()) ?? [] }
                return loaded?.first { $0.agent == agent }?.screen
            }
        })
    }

    /// Asks the tmux server on `socket` (the default server when nil) for its panes.
    package func ask(socket: String?) -> Answer {
        if let socket, !socket.isEmpty, !FileSystem.exists(socket) { return .serverGone }
        // PATH as the shell would use it; the usual places only when there is no PATH at all.
        let fallback = environment["PATH"] == nil ? ["/usr/bin", "/usr/local/bin", "/bin"] : []
        guard let tmux = Subprocess.findExecutable("tmux", path: environment["PATH"], extraDirectories: fallback) else {
            return .unknown
        }
        var arguments: [String] = []
        if let socket, !socket.isEmpty { arguments += ["-S", socket] }
        arguments += ["list-panes", "-a", "-F", "#{pane_id} #{pane_pid}"]
        guard let result = try? Subprocess(executable: tmux, arguments: arguments, environment: environment,
                                           timeout: timeout).run() else { return .unknown }
        if result.status == 0 {
            var panes: [String: Int32] = [:]
            for line in result.outputText.split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard let pane = parts.first else { continue }
                panes[String(pane)] = parts.count > 1 ? Int32(parts[1]) ?? 0 : 0
            }
            return .panes(panes)
        }
        let message = result.errorText
        if message.contains("no server running") || message.contains("No such file or directory")
            || message.contains("Connection refused") {
            return .serverGone
        }
        return .unknown
    }

    /// When a process started (clock ticks since boot); nil when it is gone or has exited.
    package static func processStart(_ pid: Int32) -> UInt64? {
        guard let stat = ProcessStat.read(pid), stat.isAlive else { return nil }
        return stat.start
    }
}

extension EventLog {
    /// Records what a pane check found: sessions that ended without telling (their tmux pane is gone)
    /// and the pane processes learned for the others, unless newer events arrived for them meanwhile.
    /// Only panes of a known tmux server (socket) are remembered: pane ids repeat across servers.
    package func record(_ outcome: PaneCheck.Outcome, at time: Double) throws {
        let gone = outcome.gone.filter { $0.tmux?.socket != nil }
        let learned = outcome.learned.filter { $0.entry.tmux?.socket != nil }
        // Readers (`status`, `peek`) record what they found only when the lock is free at once: they
        // never wait for a writer; the next reader finds the same again.
        guard !gone.isEmpty || !learned.isEmpty || !outcome.exited.isEmpty || !outcome.settled.isEmpty,
              let lock = try FileLock(path: lockFile, wait: false) else { return }
        defer { lock.unlock() }
        var (board, changed) = try synchronizedBoard(warn: { _ in })
        for entry in gone where board.end(key: entry.key, reason: .paneGone, at: time, ifLastSeq: entry.lastSeq) { changed = true }
        for entry in outcome.exited where board.end(key: entry.key, reason: .agentExited, at: time, ifLastSeq: entry.lastSeq) {
            changed = true
        }
        for (entry, reason) in outcome.settled where board.settle(key: entry.key, reason: reason, at: time, ifLastSeq: entry.lastSeq) {
            changed = true
        }
        for (entry, pid, start) in learned {
            guard let index = board.entries.firstIndex(where: { $0.key == entry.key }),
                  board.entries[index].lastSeq == entry.lastSeq else { continue }
            board.entries[index].panePID = pid
            board.entries[index].panePIDStart = start
            changed = true
        }
        if changed { try saveBoard(BoardFile(board)) }
    }
}
