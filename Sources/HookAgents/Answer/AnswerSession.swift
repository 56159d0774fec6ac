/// What `peek` and `reply` share: the board agent a command line names, the checked right to its
/// pane, and the event that records a reply.
package struct AnswerSession {
    package var entry: BoardEntry
    package var access: PaneAccess
    package var log: EventLog
    package var paths: Paths
    package var environment: [String: String]
    /// `board.state` as the target was resolved on: the reply's event is appended to it unless it changed.
    package var board: EventLog.BoardRead?
    /// Where the answer came from: `reply` (the command line), or a push's button (`ntfy`, `telegram`),
    /// whose event is `push_reply`.
    package var channel = "reply"

    /// Reads the board, resolves `target` (nil: `--next`, the agent waiting longest) and checks the pane.
    package static func open(target: String?, paths: Paths, environment: [String: String], warn: (String) -> Void) throws -> AnswerSession {
        let log = EventLog(paths: paths)
        let (entry, board) = try AgentTarget.resolveReading(target, next: target == nil, log: log, warn: warn)
        let access = try PaneAccess.open(entry, environment: environment)
        return AnswerSession(entry: entry, access: access, log: log, paths: paths, environment: environment, board: board)
    }

    /// The pane as clean lines; when the board knows no process of this agent from its own hooks,
    /// tmux reports the pane's process in the same call (and it is checked, or remembered).
    package func capture(history: Int) throws -> [String] {
        let needsPID = access.confirmPanePID != nil || access.learnPane
        let (text, pid) = try access.driver.capture(history: history, confirm: needsPID ? 0 : nil)
        if needsPID {
            guard let pid else { throw TmuxError.unreadableOutput(command: "display-message", output: "") }
            try accept(panePID: pid)
        }
        return PaneText.lines(text)
    }

    /// Checks a pane process tmux reported against the record, or records it when there was none.
    package func accept(panePID pid: Int32) throws {
        if let expected = access.confirmPanePID, pid != expected {
            throw AnswerError.refused(key: entry.key, reason: "another program now runs in its pane (pid \(pid), recorded \(expected))")
        }
        if access.learnPane, let start = PaneCheck.processStart(pid) {
            var outcome = PaneCheck.Outcome()
            outcome.learned = [(entry, pid, start)]
            try? log.record(outcome, at: WallClock.nowEpoch())
        }
    }

    /// The labels of the question the board holds, while the agent waits on it.
    package var recordedLabels: [String] {
        entry.state == .needsInput ? (entry.question?.options.map(\.label) ?? []) : []
    }

    package var entryJSON: JSONValue {
        BoardView.agentJSON(entry, now: WallClock.nowEpoch(), staleAfter: BoardView.defaultStaleAfter)
    }

    package static func menuJSON(_ item: PaneText.MenuItem) -> JSONValue {
        .object(JSONObject([("n", .int(item.n)), ("label", .string(item.label)), ("focused", .bool(item.focused))]))
    }

    /// The agent's manifest, nil for an agent without one.
    package var manifest: AgentManifest? {
        let manifests = (try? Resources(environment: environment, paths: paths).manifests(only: entry.agent)) ?? []
        return manifests.first { $0.agent == entry.agent }
    }

    /// The agent's answer facts from its manifest (defaults for an agent without them).
    package var facts: AnswerFacts { manifest?.answer ?? AnswerFacts() }

    /// For a row whose pane a hook named from an inherited environment (Codex's app-server daemon): text,
    /// keys and choices alike go only where the pane cannot be another session's (`InheritedPane.check`);
    /// the whole board is read for that, and only then.
    package func checkInheritedPane(choice: Bool) throws {
        guard entry.tmux?.paneInherited == true else { return }
        try inheritedPane.check(access, board: try log.board(warn: { _ in }), choice: choice)
    }

    private var inheritedPane: InheritedPane {
        let detect = manifest?.detect ?? []
        return InheritedPane(names: detect.isEmpty ? [entry.agent] : detect, codexHome: CodexDaemon.home(environment))
    }

    /// The option an `Answered: 2. Yes` message names, without its number (`Yes`); nil for other messages.
    package static func answeredOption(_ message: String) -> String? {
        guard message.hasPrefix("Answered: ") else { return nil }
        var rest = Substring(message.dropFirst("Answered: ".count))
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty, rest.dropFirst(digits.count).hasPrefix(". ") { rest = rest.dropFirst(digits.count + 2) }
        return String(rest)
    }

    /// Records what was sent as an event of this agent's session (agent event `reply`), so the board
    /// and `events --follow` show it: `working` when it answered, `info` when it only moved or typed.
    package func record(submitted: Bool, message: String) throws -> Event {
        let config = (try? Config.load(path: paths.configFile, environment: environment)) ?? nil
        let defaults = config?.defaults ?? Defaults()
        let pushed = channel != "reply"
        var event = Event(agent: entry.agent, kind: submitted ? .working : .info,
                          agentEvent: pushed ? BoardState.pushReplyEvent : BoardState.replyEvent,
                          title: "\(Event.displayName(entry.agent)) answered from " + (pushed ? "the push (\(channel))" : "hookctl"),
                          message: message, host: shortHostName(), tmux: entry.tmux, cwd: entry.cwd, sessionID: entry.sessionID)
        // The agent's own identity, as its hooks recorded it on the board (a repository's sessions have a
        // branch); read from cwd as `PayloadParser` does only when they recorded none.
        if let project = entry.project, !project.isEmpty {
            event.project = ProjectIdentity(name: project, branch: entry.branch, isRepository: entry.branch != nil)
        } else {
            event.project = entry.cwd.flatMap { $0.isEmpty ? nil : ProjectIdentity.of(directory: $0) }
        }
        if submitted, let option = Self.answeredOption(message) { event.answer = EventAnswer(channel: channel, option: option) }
        try EventLog(paths: paths, maxLogSize: defaults.logMaxSize, keptGenerations: defaults.logKeep)
            .append(&event, knownBoard: board)
        // Replace once answered: the question's push is updated where its sink can (AnsweredPushes).
        _ = AnsweredPushes.queue(after: event, previous: entry, config: config, paths: paths, configOverride: nil,
                                 environment: environment)
        return event
    }
}
