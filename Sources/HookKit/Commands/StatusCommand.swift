/// `hookctl status`: the agent board, which agent sessions on this host need the user, from the
/// board state kept on every append, checked against tmux (a session whose pane is gone has ended).
public enum StatusCommand: Command {
    public static let defaultStaleAfter: Double = 30 * 60

    public static let spec = CommandSpec(
        path: ["status"], summary: "The agent board: every agent session and what it needs.",
        usage: "[--json] [--width N] [--session NAME] [--agent AGENT] [--state STATE] [--stale-after DURATION]",
        discussion: """
        One row per agent session seen on this host, grouped by what it needs: needs_input first, then
        working, failed, done, ended. 'done' also covers a session that started and waits for its first
        prompt. A session whose tmux pane no longer exists is ended; a working one silent for longer than
        --stale-after is marked stale. --json prints one document: {"generated_at", "host", "last_seq",
        "counts", "agents": [{"agent", "state", "stale", "since", "tmux", "cwd", "message", ...}],
        "pushes": {"waiting", "given_up", "sinks": [...]}}. Pushes that did not go out are named
        under the board: how many wait per sink, why, and until when they are retried.
        A live board: take 'status --json', then 'events --follow --json --since LAST_SEQ' from its
        last_seq; no event falls between the two.
        """,
        options: [
            .flag("json", help: "Print the board as one JSON document (for apps)."),
            .value("width", "N", help: "Fit the table to N columns (default: COLUMNS, the terminal, or 80)."),
            .value("session", "NAME", repeatable: true,
                   help: "Only agents in this tmux session (name or $id), or with this agent session id."),
            .value("agent", "AGENT", repeatable: true, help: "Only these agents (comma-separated, e.g. claude,codex)."),
            .value("state", "STATE", repeatable: true,
                   help: "Only these states (comma-separated): needs_input, working, failed, done, ended, stale."),
            .value("stale-after", "DURATION", help: "Mark working agents silent this long as stale (default 30m)."),
        ])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let staleAfter = try arguments.seconds("stale-after") ?? defaultStaleAfter
        let width = try arguments.int("width")
        if let width, width < 20 { throw UsageError(message: "--width must be at least 20, got \(width)", command: spec.path) }
        let stateNames = AgentState.allCases.map(\.rawValue) + ["stale"]
        let states = arguments.list("state") ?? []
        for state in states where !stateNames.contains(state) {
            throw UsageError(message: "unknown state '\(state)'\(Suggest.hint(for: state, in: stateNames)); "
                             + "use one of \(stateNames.joined(separator: ", "))", command: spec.path)
        }

        let paths = context.paths(arguments)
        let log = EventLog(paths: paths)
        var board = try log.board(warn: context.warn)
        let now = Clock.nowEpoch()
        let panes = PaneCheck(environment: context.environment).check(board)
        for entry in panes.gone { board.end(key: entry.key, reason: .paneGone, at: now) }
        try? log.record(panes, at: now)

        let sessions = arguments.all("session")
        let agents = arguments.list("agent") ?? []
        let entries = board.ordered.filter { entry in
            if !sessions.isEmpty {
                let names = [entry.tmux?.session, entry.tmux?.sessionID, entry.sessionID].compactMap { $0 }
                if !sessions.contains(where: names.contains) { return false }
            }
            if !agents.isEmpty, !agents.contains(entry.agent) { return false }
            if !states.isEmpty {
                let stale = entry.isStale(now: now, staleAfter: staleAfter)
                if !states.contains(entry.state.rawValue), !(stale && states.contains("stale")) { return false }
            }
            return true
        }

        // Pushes that did not go out: waiting in the outbox, or given up (the config only says for how long).
        let backlog = PushBacklog.load(paths: paths, expire: {
            ((try? Config.load(path: paths.configFile, environment: context.environment)) ?? nil)?.defaults.retry.expire
                ?? RetryPolicy().expire
        })

        if arguments.flag("json") {
            var document = BoardView.statusJSON(entries, board: board, now: now, staleAfter: staleAfter, host: hostName())
            if case .object(var object) = document {
                object["pushes"] = backlog.json
                document = .object(object)
            }
            context.printJSON(document)
            return .ok
        }
        if entries.isEmpty {
            context.print(board.entries.isEmpty ? "No agent sessions recorded yet." : "No agent sessions match.")
        } else {
            let realTerminal = context.standardOutput === FileDescriptorStream.standardOutput ? STDOUT_FILENO : nil
            let columns = BoardView.width(option: width, environment: context.environment, terminal: realTerminal)
            context.standardOutput.write(BoardView.statusTable(entries, now: now, staleAfter: staleAfter, width: columns))
        }
        backlog.statusLines(now: now).forEach { context.print($0) }
        return .ok
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
