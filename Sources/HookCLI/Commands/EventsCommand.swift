/// `hookctl events`: the event log, and with `--follow` a live stream of it (inotify, no polling),
/// so one long-lived SSH channel serves a live board and a reconnecting client resumes with `--since`.
package enum EventsCommand: Command {
    /// How many events the human listing shows when neither --since nor --limit is given.
    package static let defaultHumanLimit = 50
    /// How many recent events `--follow` shows before the new ones (as `tail -f`).
    package static let followBacklog = 10

    package static let path = ["events"]
    package static let spec = CommandSpec(path: path, summary: "Print the event log, or follow it as JSON lines.",
        usage: "[--follow] [--since ID] [--limit N] [--agent A] [--kind K] [--session S] [--project P] [--json] [--width N]",
        discussion: """
        Events are numbered by 'seq', global and increasing across log rotations. --since SEQ prints
        the events after SEQ (an event id works too), across rotated files; a client that reconnects
        with the last seq it saw misses nothing. --limit N prints the first N events after --since, or
        the last N without it; without either, the listing shows the last \(defaultHumanLimit) (all with --json).
        --follow shows the last \(followBacklog) (or --limit N, or those after --since), then keeps printing
        new events as they are recorded (JSON lines with --json), until interrupted or the output
        closes. Corrupt log lines are skipped with a warning. Below 60 columns each event is a card of
        two lines; readable lines are cut to fit only on a terminal or with --width.
        --agent, --kind, --session (tmux session name or $id, or the agent's session id) and --project
        keep only matching events (each comma-separated or repeated; --limit counts matches). An event
        recorded but not pushed is marked with the rule that held it ("not pushed: repeat"; "quiet" in
        the JSON): \(QuietReason.allCases.map(\.rawValue).joined(separator: ", ")).
        """,
        options: [Options.follow, Options.since, Options.limit, Options.agent, Options.kind, Options.session,
                  Options.project, Options.json, Options.width])

    package struct Options: CommandOptions {
        package static let follow = Flag("follow", short: "f", help: "Keep printing new events as they are recorded.")
        package static let since = Option<String>("since", "ID", help: "Only events after this seq number (or event id).")
        package static let limit = Option.int("limit", "N", help: "At most N events from the log (the first N after --since, else the last N).")
        package static let json = Flag("json", help: "One JSON object per line, the documented event format.")
        package static let width = Option.width(help: "Fit readable lines to N columns (default: COLUMNS, the terminal, or 80).")
        package static let agent = Option<String>("agent", "AGENT", repeatable: true, completes: .agents, help: "Only events of these agents (comma-separated).")
        package static let kind = Option<String>("kind", "KIND", repeatable: true, completes: .kinds,
                                         help: "Only events of these kinds (comma-separated): needs_input, done, failed, …")
        package static let session = Option<String>("session", "NAME", repeatable: true, completes: .sessions,
                                            help: "Only events from this tmux session (name or $id), or with this agent session id.")
        package static let project = Option<String>("project", "NAME", repeatable: true, help: "Only events from this project (repository or directory name).")

        package var follow: Bool
        package var filter: EventFilter
        /// A seq number or an event id, resolved against the log.
        package var since: String?
        package var limit: Int?
        package var json: Bool
        package var width: Int?

        package init(parsing arguments: ParsedArguments) throws {
            json = arguments.flag(Self.json)
            limit = try arguments.value(Self.limit)
            if let limit, limit < 1 { throw UsageError(message: "--limit must be at least 1, got \(limit)", command: spec.path) }
            since = try arguments.value(Self.since)
            width = try arguments.value(Self.width)
            follow = arguments.flag(Self.follow)
            filter = EventFilter(agents: arguments.list(Self.agent) ?? [], kinds: arguments.list(Self.kind) ?? [],
                                 sessions: arguments.list(Self.session) ?? [], projects: arguments.list(Self.project) ?? [])
            let kindNames = EventKind.allCases.map(\.rawValue)
            for kind in filter.kinds where !kindNames.contains(kind) {
                throw UsageError(message: "unknown kind '\(kind)'\(Suggest.hint(for: kind, in: kindNames)); use one of "
                                 + kindNames.joined(separator: ", "), command: spec.path)
            }
        }
    }

    /// `--agent`, `--kind`, `--session`, `--project`: which events to show (each list: any of its values).
    package struct EventFilter {
        package var agents: [String] = []
        package var kinds: [String] = []
        package var sessions: [String] = []
        package var projects: [String] = []

        package var isEmpty: Bool { agents.isEmpty && kinds.isEmpty && sessions.isEmpty && projects.isEmpty }

        package func matches(_ event: Event) -> Bool {
            if !agents.isEmpty, !agents.contains(event.agent) { return false }
            if !kinds.isEmpty, !kinds.contains(event.kind.rawValue) { return false }
            if !sessions.isEmpty {
                let names = [event.tmux?.session, event.tmux?.sessionID, event.sessionID].compactMap { $0 }
                if !sessions.contains(where: names.contains) { return false }
            }
            if !projects.isEmpty {
                let project = event.project?.name ?? event.cwd.map(FileSystem.fileName(of:))
                if !projects.contains(where: { $0 == project }) { return false }
            }
            return true
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let json = options.json
        let limit = options.limit
        let log = EventLog(paths: context.paths())
        let files = log.files
        let since = try options.since.map { try resolveSince($0, files: files) }

        let realOutput = context.standardOutput === FileDescriptorStream.standardOutput
        let layout = context.layout(width: options.width)
        let color = context.usesColor
        if realOutput, options.follow { signal(SIGPIPE, SIG_IGN) }
        // Each event is written with write(2) at once: a follower's reader sees it without delay.
        var printed = 0
        let filter = options.filter
        // Pushes a newer event of the same session replaced before they went out (the outbox's mark).
        let superseded = Outbox(paths: context.paths()).supersededEventIDs()
        func print(_ line: LogLine, _ event: Event) -> Bool {
            printed += 1
            var event = event
            let marked = event.quietReason == nil && superseded.contains(event.id)
            if marked { event.quietReason = .superseded }
            // The log's line as it is, unless an older hookctl wrote it with raw C1 or bidi controls.
            let text = json ? (marked || JSON.holdsRawUnicodeEscapes(line.bytes) ? JSON.serialize(event.json) : line.text) + "\n"
                : BoardView.eventLines(event, layout: layout).map { $0.rendered(color: color) + "\n" }.joined()
            guard realOutput else { context.standardOutput.write(text); return true }
            return (try? FileDescriptor.standardOutput.writeAll(Array(text.utf8))) != nil
        }

        var lastSeq = since ?? 0
        var firstShown: Int?
        if let since {
            if !options.follow {
                var shown = 0
                try files.read(after: since, warn: context.warn) { line, event in
                    if firstShown == nil { firstShown = event.seq }
                    lastSeq = event.seq ?? lastSeq
                    guard filter.matches(event) else { return true }
                    shown += 1
                    return print(line, event) && shown < (limit ?? Int.max)
                }
            }
        } else {
            // Taken before the backlog is read: an event recorded meanwhile is then followed, not skipped.
            lastSeq = options.follow ? newestSeq(files) : 0
            let count = limit ?? (options.follow ? followBacklog : (json ? nil : defaultHumanLimit))
            if let count, filter.isEmpty {
                for (line, event) in try files.last(count, warn: context.warn) {
                    lastSeq = event.seq ?? lastSeq
                    if !print(line, event) { return .ok }
                }
            } else if let count {
                // The last `count` matches: the whole log is read, keeping only the newest matches.
                var kept: [(LogLine, Event)] = []
                try files.read(after: nil, warn: context.warn) { line, event in
                    if !options.follow { lastSeq = event.seq ?? lastSeq }
                    if filter.matches(event) {
                        kept.append((line, event))
                        if kept.count > 2 * count { kept.removeFirst(kept.count - count) }
                    }
                    return true
                }
                for (line, event) in kept.suffix(count) where !print(line, event) { return .ok }
            } else if !options.follow {
                try files.read(after: nil, warn: context.warn) { line, event in filter.matches(event) ? print(line, event) : true }
            }
        }
        if let since, let firstShown, since > 0, firstShown > since + 1 {
            context.warn("events \(since + 1)…\(firstShown - 1) are not in the log any more (rotated away)")
        }
        guard options.follow else {
            if printed == 0, !json {
                let what = !filter.isEmpty ? "No events match." : since == nil
                    ? "No events recorded yet: every agent hook call records one." : "No events after \(since!)."
                layout.paragraph(what).forEach(context.print)
            }
            return .ok
        }

        var follower = EventFollower(files: files, after: lastSeq, hangupDescriptor: realOutput ? STDOUT_FILENO : nil)
        var warnedGap = since == nil
        try follower.run(warn: context.warn) { line, event in
            if !warnedGap, let seq = event.seq, let since {
                warnedGap = true
                if since > 0, seq > since + 1 {
                    context.warn("events \(since + 1)…\(seq - 1) are not in the log any more (rotated away)")
                }
            }
            return filter.matches(event) ? print(line, event) : true
        }
        return .ok
    }

    /// `--since`: a seq number, or the id of an event still in the log.
    package static func resolveSince(_ value: String, files: LogFiles) throws -> Int {
        if let seq = Int(value) {
            guard seq >= 0 else { throw UsageError(message: "--since expects a seq number or an event id, got '\(value)'", command: spec.path) }
            return seq
        }
        var found: Int?
        try files.read(after: nil, warn: { _ in }) { _, event in
            if event.id == value { found = event.seq }
            return found == nil
        }
        guard let found else {
            throw EventLogError.unknownEvent(value)
        }
        return found
    }

    /// The seq of the newest event on disk (0 for an empty log).
    package static func newestSeq(_ files: LogFiles) -> Int {
        for path in files.all().reversed() {
            if let seq = LogFiles.lastSeq(of: path) { return seq }
        }
        return 0
    }
}

/// Errors from reading the event log.
package enum EventLogError: HookctlError {
    case unknownEvent(String)

    package var exitCode: ExitCode { .dataError }

    package var description: String {
        switch self {
        case .unknownEvent(let id):
            return "no event with id '\(id)' in the log (it may have been rotated away); resume with --since SEQ instead"
        }
    }
}
