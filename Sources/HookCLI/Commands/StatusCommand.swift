/// `hookctl status`: the agent board, which agent sessions on this host need the user, from the
/// board state kept on every append, checked against tmux (a session whose pane is gone has ended).
package enum StatusCommand: Command {

    package static let path = ["status"]
    package static let spec = CommandSpec(path: path, summary: "The agent board: every agent session and what it needs.",
        usage: "[--json | --watch | --format table|tmux] [--hosts | --host NAME...] [--timeout DURATION] [--width N] [--session NAME] [--agent AGENT] [--state STATE] [--stale-after DURATION]",
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

        Each agent shows its project (and branch when useful), its window as a target (session:window),
        its age, and when it waits, its whole question with its options, wrapped, never cut. A window
        marked '?' (and "pane_inherited": true in --json) was named by Codex's app-server daemon, which
        runs every Codex's hooks with the pane of the Codex that started it: it may be another Codex's.

        --watch shows the board full screen and redraws it as events arrive: up/down (k/j) select an
        agent, p peeks at its pane, r replies (a number alone picks that option), g jumps to it, q quits.
        --format tmux prints a short summary for tmux's status line, empty when nothing needs you:
        set -g status-right '#(hookctl status --format tmux)'

        --hosts adds every host of 'hookctl hosts' (--host NAME: only those; 'local' is this one): each
        is asked at once over ssh (BatchMode, a kept-alive control master) for its own 'hookctl status
        --json', within --timeout (default 10s) in all. Rows carry a HOST column; a host that did not
        answer is a line 'unreachable: box2 (why)' with the fix. --json adds "host" and "target"
        (box2:claude:…) to every agent and a "hosts" array with each host's state and latency.
        With --format tmux, --hosts adds the other hosts' counts that the last --hosts run or watch
        left (no network on tmux's status line).
        """,
        options: [Options.json, Options.watch, Options.format, Options.hosts, Options.host, Options.timeout, Options.width,
                  Options.session, Options.agent, Options.state, Options.staleAfter])

    /// What `--format` accepts.
    package static let formats = ["table", "tmux"]

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print the board as one JSON document (for apps).")
        package static let watch = Flag("watch", short: "w", help: "A live board, redrawn as events arrive; keys select, peek, reply, jump (q quits).")
        package static let format = Option<String>("format", "FORMAT", completes: .formats, help: "table (default) or tmux: a status-line summary such as ⚑2 ✗1.")
        package static let width = Option.width(help: "Fit the table to N columns (default: COLUMNS, the terminal, or 80).")
        package static let session = Option<String>("session", "NAME", repeatable: true, completes: .sessions,
                                            help: "Only agents in this tmux session (name or $id), or with this agent session id.")
        package static let agent = Option<String>("agent", "AGENT", repeatable: true, completes: .agents, help: "Only these agents (comma-separated, e.g. claude,codex).")
        package static let state = Option<String>("state", "STATE", repeatable: true, completes: .states,
                                          help: "Only these states (comma-separated): needs_input, working, failed, done, ended, stale.")
        package static let staleAfter = Option.seconds("stale-after", "DURATION", help: "Mark working agents silent this long as stale (default 30m).")
        package static let hosts = Flag("hosts", help: "Every host of 'hookctl hosts' too, asked over ssh at once.")
        package static let host = Option<String>("host", "NAME", repeatable: true, help: "Only this host ('local' is this one); repeat for several.")
        package static let timeout = Option.seconds("timeout", "DURATION", help: "With --hosts: how long all the hosts may take (default 10s).")

        /// `--format tmux`: the status-line segment (which takes only the filter and --stale-after).
        package var tmuxSegment: Bool
        package var staleAfter: Double
        package var filter: Filter
        package var width: Int?
        package var json: Bool
        package var watch: Bool
        /// `--hosts` or `--host`: the board across hosts; `hostNames` empty means all of them.
        package var acrossHosts: Bool
        package var hostNames: [String]
        package var timeout: Double

        package init(parsing arguments: ParsedArguments) throws {
            func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.path) }
            let format = try arguments.value(Self.format) ?? "table"
            guard formats.contains(format) else { throw fail("--format expects table or tmux, got '\(format)'") }
            tmuxSegment = format == "tmux"
            json = arguments.flag(Self.json)
            watch = arguments.flag(Self.watch)
            hostNames = try arguments.all(Self.host)
            acrossHosts = arguments.flag(Self.hosts) || !hostNames.isEmpty
            if arguments.flag(Self.hosts), !hostNames.isEmpty { throw fail("give either --hosts (all) or --host NAME, not both") }
            timeout = try arguments.value(Self.timeout) ?? 10
            guard timeout > 0, timeout <= 600 else { throw fail("--timeout must be from 1ms to 10m") }
            if tmuxSegment {
                filter = try Filter(arguments)
                staleAfter = try arguments.value(Self.staleAfter) ?? BoardView.defaultStaleAfter
                return
            }
            staleAfter = try arguments.value(Self.staleAfter) ?? BoardView.defaultStaleAfter
            width = try arguments.value(Self.width)
            if let width, width < 20 { throw fail("--width must be at least 20, got \(width)") }
            filter = try Filter(arguments)
            if watch, json { throw fail("--watch shows a live board for people; drop --json") }
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        if options.tmuxSegment { return try tmuxSegment(options, context: context) }
        let staleAfter = options.staleAfter
        let filter = options.filter
        if options.acrossHosts, options.watch {
            return try HostsWatch(context: context, options: options).run()
        }
        if options.acrossHosts { return try acrossHosts(options, context: context) }
        if options.watch {
            return try StatusWatch(context: context, paths: context.paths(), filter: filter,
                                   staleAfter: staleAfter, width: options.width).run()
        }

        if options.json {
            context.standardOutput.write(utf8: try jsonDocument(filter: filter, staleAfter: staleAfter, context: context))
            return .ok
        }
        let paths = context.paths()
        let log = EventLog(paths: paths)
        let (board, entries, now) = try snapshot(log, filter: filter, staleAfter: staleAfter, context: context)
        let backlog = backlog(paths: paths, context: context)
        if entries.isEmpty {
            context.print(board.entries.isEmpty ? "No agent sessions recorded yet." : "No agent sessions match.")
        } else {
            context.print(BoardView.statusLines(entries, now: now, staleAfter: staleAfter, layout: context.layout(width: options.width)))
        }
        let layout = context.layout(width: options.width)
        backlog.statusLines(now: now).flatMap(layout.paragraph).forEach { context.print($0) }
        return .ok
    }

    /// Pushes that did not go out: waiting in the outbox, or given up (the config only says for how long).
    package static func backlog(paths: Paths, context: CommandContext) -> PushBacklog {
        PushBacklog.load(paths: paths, expire: {
            ((try? Config.load(path: paths.configFile, environment: context.environment)) ?? nil)?.defaults.retry.expire
                ?? RetryPolicy().expire
        })
    }

    /// `status --json`'s document, one line (also what `hosts serve` answers another host's link with).
    package static func jsonDocument(filter: Filter, staleAfter: Double, context: CommandContext) throws -> [UInt8] {
        let paths = context.paths()
        let (board, entries, now) = try snapshot(EventLog(paths: paths), filter: filter, staleAfter: staleAfter, context: context)
        let backlog = backlog(paths: paths, context: context)
        var writer = JSONWriter(capacity: 1024 + 768 * entries.count)
        BoardView.writeStatusJSON(entries, board: board, now: now, staleAfter: staleAfter, host: hostName(), into: &writer) {
            $0.key("pushes")
            $0.value(backlog.json)
        }
        writer.endLine()
        return writer.bytes
    }

    /// `--session`, `--agent`, `--state`: which board entries to show.
    package struct Filter {
        package var sessions: [String]
        package var agents: [String]
        package var states: [String]

        package init(_ arguments: ParsedArguments) throws {
            let stateNames = AgentState.allCases.map(\.rawValue) + ["stale"]
            states = arguments.list(Options.state) ?? []
            for state in states where !stateNames.contains(state) {
                throw UsageError(message: "unknown state '\(state)'\(Suggest.hint(for: state, in: stateNames)); "
                                 + "use one of \(stateNames.joined(separator: ", "))", command: spec.path)
            }
            sessions = try arguments.all(Options.session)
            agents = arguments.list(Options.agent) ?? []
        }

        package init(sessions: [String], agents: [String], states: [String]) {
            self.sessions = sessions
            self.agents = agents
            self.states = states
        }

        package static let none = Filter(sessions: [], agents: [], states: [])

        package var isEmpty: Bool { sessions.isEmpty && agents.isEmpty && states.isEmpty }

        package func matches(_ entry: BoardEntry, now: Double, staleAfter: Double) -> Bool {
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
    }

    /// The board checked against tmux (gone panes end their agents), and the entries the filter keeps.
    package static func snapshot(_ log: EventLog, filter: Filter, staleAfter: Double, context: CommandContext,
                         checkPanes: Bool = true, warn: ((String) -> Void)? = nil) throws -> (BoardState, [BoardEntry], Double) {
        var board = try log.board(warn: warn ?? context.warn)
        let now = WallClock.nowEpoch()
        if checkPanes {
            let panes = PaneCheck.forBoard(environment: context.environment, paths: context.paths()).check(board, now: now)
            for entry in panes.gone { board.end(key: entry.key, reason: .paneGone, at: now) }
            for entry in panes.exited { board.end(key: entry.key, reason: .agentExited, at: now) }
            for (entry, reason) in panes.settled { board.settle(key: entry.key, reason: reason, at: now, ifLastSeq: entry.lastSeq) }
            try? log.record(panes, at: now)
        }
        return (board, board.ordered.filter { filter.matches($0, now: now, staleAfter: staleAfter) }, now)
    }

    /// `--format tmux`: `⚑2 ✗1` (needs input, failed) styled for tmux's status line, empty when nothing
    /// needs the user. It reads only the stored board (no tmux call), so it is cheap to run every few
    /// seconds; only counts are printed, never agent text, so nothing in it can carry a tmux format.
    package static func tmuxSegment(_ options: Options, context: CommandContext) throws -> ExitCode {
        let log = EventLog(paths: context.paths())
        let now = WallClock.nowEpoch()
        let entries: [BoardEntry]
        if options.filter.isEmpty {
            // Only the sessions counted are decoded, picked by their line's state field.
            let waiting = Array(AgentState.needsInput.rawValue.utf8), failed = Array(AgentState.failed.rawValue.utf8)
            entries = try log.boardSessions(where: { _, state, _ in state.elementsEqual(waiting) || state.elementsEqual(failed) },
                                            warn: { _ in })
        } else {
            entries = try log.board(warn: { _ in }).entries.filter { options.filter.matches($0, now: now, staleAfter: options.staleAfter) }
        }
        var input = entries.filter { $0.state == .needsInput }.count
        var failed = entries.filter { $0.state == .failed }.count
        var unanswered = 0
        if options.acrossHosts {
            let cached = HostsBoard.cachedCounts(paths: context.paths(), now: now, maxAge: cacheMaxAge)
            input += cached.needsInput
            failed += cached.failed
            unanswered = cached.unanswered
        }
        let styled = context.colorChoice != .never
        var parts: [String] = []
        if input > 0 { parts.append(styled ? "#[fg=yellow,bold]⚑\(input)#[default]" : "⚑\(input)") }
        if failed > 0 { parts.append(styled ? "#[fg=red,bold]✗\(failed)#[default]" : "✗\(failed)") }
        if unanswered > 0 { parts.append(styled ? "#[fg=magenta]?\(unanswered)#[default]" : "?\(unanswered)") }
        context.standardOutput.write(parts.joined(separator: " ") + (parts.isEmpty ? "" : "\n"))
        return .ok
    }

    /// How old the hosts' cache may be for the tmux segment to count it (a watch refreshes it each second).
    package static let cacheMaxAge: Double = 15 * 60

    /// `status --hosts`: this host's board and every other host's, asked at once over ssh.
    package static func acrossHosts(_ options: Options, context: CommandContext) throws -> ExitCode {
        let (local, hosts) = try HostsSupport.select(try HostsSupport.hosts(context: context), names: options.hostNames)
        let runner = try HostsSupport.runner(context: context)
        let boards = collect(local: local, hosts: hosts, runner: runner, options: options, context: context)
        let now = WallClock.nowEpoch()
        HostsBoard.writeCache(boards.filter { $0.name != HostRules.localName }, paths: context.paths(), now: now)
        if options.json {
            context.printJSON(hostsJSON(boards, now: now, staleAfter: options.staleAfter), pretty: false)
            return .ok
        }
        hostsLines(boards, now: now, staleAfter: options.staleAfter, layout: context.layout(width: options.width)).forEach { context.print($0) }
        return .ok
    }

    /// This host's board (when asked for) and each host's, the filter applied to all.
    package static func collect(local: Bool, hosts: [SSHRunner.Host], runner: SSHRunner, options: Options,
                        context: CommandContext) -> [HostBoard] {
        let timeout = options.timeout
        // The local board is read while the hosts answer: it is one more job of the same map.
        let boards = Parallel.map(hosts.count + 1, jobs: hosts.count + 1) { index -> [HostBoard] in
            if index > 0 { return index == 1 ? HostsBoard.ask(hosts, runner: runner, timeout: timeout, warn: context.warn) : [] }
            guard local else { return [] }
            do {
                let log = EventLog(paths: context.paths())
                let (board, _, _) = try snapshot(log, filter: Filter.none, staleAfter: options.staleAfter, context: context, warn: { _ in })
                return [HostBoard(name: HostRules.localName, state: .ok, entries: board.ordered, lastSeq: board.lastSeq)]
            } catch {
                return [HostBoard(name: HostRules.localName, state: .failed, reason: "\(error)")]
            }
        }.flatMap { $0 }
        let now = WallClock.nowEpoch()
        return boards.map { board in
            var board = board
            board.entries = board.entries.filter { options.filter.matches($0, now: now, staleAfter: options.staleAfter) }
            return board
        }
    }

    /// The table (or cards) across hosts, then a line for each host without a board and its fix.
    package static func hostsLines(_ boards: [HostBoard], now: Double, staleAfter: Double, layout: TerminalLayout) -> [TerminalText] {
        let entries = boards.flatMap(\.entries)
        let labels = boards.flatMap { board in board.entries.map { _ in board.name } }
        var lines: [TerminalText] = []
        if entries.isEmpty {
            lines.append(TerminalText("No agent sessions on \(boards.filter { $0.state == .ok }.map(\.name).joined(separator: ", ")).".replacing(" on .", with: ".")))
        } else {
            lines += BoardView.statusLines(entries, now: now, staleAfter: staleAfter, layout: layout, hosts: labels)
        }
        for board in boards {
            guard let line = board.problemLine else { continue }
            lines += layout.paragraph(line).map { TerminalText($0, style: .bold) }
            if let fix = board.fix { lines += layout.paragraph("  fix: " + fix).map { TerminalText($0) } }
        }
        return lines
    }

    /// `status --hosts --json`: the hosts with their state and latency, and every agent with its host and target.
    package static func hostsJSON(_ boards: [HostBoard], now: Double, staleAfter: Double) -> JSONValue {
        var counts = JSONObject()
        for state in AgentState.allCases {
            counts[state.rawValue] = .int(boards.reduce(0) { $0 + $1.entries.filter { $0.state == state }.count })
        }
        var agents: [JSONValue] = []
        for board in boards {
            for entry in board.entries {
                guard case .object(var agent) = BoardView.agentJSON(entry, now: now, staleAfter: staleAfter) else { continue }
                agent["machine"] = .string(entry.host)
                agent["host"] = .string(board.name)
                agent["target"] = .string(board.name == HostRules.localName ? entry.key : board.name + ":" + entry.key)
                agents.append(.object(agent))
            }
        }
        return .object(JSONObject([("generated_at", .string(WallClock.iso8601(now))), ("hosts", .array(boards.map(\.json))),
                                   ("counts", .object(counts)), ("agents", .array(agents))]))
    }

    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
