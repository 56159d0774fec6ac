/// `hookctl events`: the event log, and with `--follow` a live stream of it (inotify, no polling),
/// so one long-lived SSH channel serves a live board and a reconnecting client resumes with `--since`.
enum EventsCommand: Command {
    /// How many events the human listing shows when neither --since nor --limit is given.
    static let defaultHumanLimit = 50
    /// How many recent events `--follow` shows before the new ones (as `tail -f`).
    static let followBacklog = 10

    static let spec = CommandSpec(
        path: ["events"], summary: "Print the event log, or follow it as JSON lines.",
        usage: "[--follow] [--since ID] [--limit N] [--json] [--width N]",
        discussion: """
        Events are numbered by 'seq', global and increasing across log rotations. --since SEQ prints
        the events after SEQ (an event id works too), across rotated files; a client that reconnects
        with the last seq it saw misses nothing. --limit N prints the first N events after --since, or
        the last N without it; without either, the listing shows the last \(defaultHumanLimit) (all with --json).
        --follow shows the last \(followBacklog) (or --limit N, or those after --since), then keeps printing
        new events as they are recorded (JSON lines with --json), until interrupted or the output
        closes. Corrupt log lines are skipped with a warning. Below 60 columns each event is a card of
        two lines; readable lines are cut to fit only on a terminal or with --width.
        """,
        options: [Options.follow, Options.since, Options.limit, Options.json, Options.width])

    struct Options: CommandOptions {
        static let follow = Flag("follow", short: "f", help: "Keep printing new events as they are recorded.")
        static let since = Option<String>("since", "ID", help: "Only events after this seq number (or event id).")
        static let limit = Option.int("limit", "N", help: "At most N events from the log (the first N after --since, else the last N).")
        static let json = Flag("json", help: "One JSON object per line, the documented event format.")
        static let width = Option.width(help: "Fit readable lines to N columns (default: COLUMNS, the terminal, or 80).")

        var follow: Bool
        /// A seq number or an event id, resolved against the log.
        var since: String?
        var limit: Int?
        var json: Bool
        var width: Int?

        init(parsing arguments: ParsedArguments) throws {
            json = arguments.flag(Self.json)
            limit = try arguments.value(Self.limit)
            if let limit, limit < 1 { throw UsageError(message: "--limit must be at least 1, got \(limit)", command: spec.path) }
            since = try arguments.value(Self.since)
            width = try arguments.value(Self.width)
            follow = arguments.flag(Self.follow)
        }
    }

    static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
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
        func print(_ line: LogLine, _ event: Event) -> Bool {
            printed += 1
            // The log's line as it is, unless an older hookctl wrote it with raw C1 or bidi controls.
            let text = json ? (JSON.holdsRawUnicodeEscapes(line.bytes) ? JSON.serialize(event.json) : line.text) + "\n"
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
                    shown += 1
                    lastSeq = event.seq ?? lastSeq
                    return print(line, event) && shown < (limit ?? Int.max)
                }
            }
        } else {
            // Taken before the backlog is read: an event recorded meanwhile is then followed, not skipped.
            lastSeq = options.follow ? newestSeq(files) : 0
            let count = limit ?? (options.follow ? followBacklog : (json ? nil : defaultHumanLimit))
            if let count {
                for (line, event) in try files.last(count, warn: context.warn) {
                    lastSeq = event.seq ?? lastSeq
                    if !print(line, event) { return .ok }
                }
            } else if !options.follow {
                try files.read(after: nil, warn: context.warn) { line, event in print(line, event) }
            }
        }
        if let since, let firstShown, since > 0, firstShown > since + 1 {
            context.warn("events \(since + 1)…\(firstShown - 1) are not in the log any more (rotated away)")
        }
        guard options.follow else {
            if printed == 0, !json {
                context.print(since == nil ? "No events recorded yet: every agent hook call records one." : "No events after \(since!).")
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
            return print(line, event)
        }
        return .ok
    }

    /// `--since`: a seq number, or the id of an event still in the log.
    static func resolveSince(_ value: String, files: LogFiles) throws -> Int {
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
    static func newestSeq(_ files: LogFiles) -> Int {
        for path in files.all().reversed() {
            if let seq = LogFiles.lastSeq(of: path) { return seq }
        }
        return 0
    }
}

/// Errors from reading the event log.
enum EventLogError: HookctlError {
    case unknownEvent(String)

    var exitCode: ExitCode { .dataError }

    var description: String {
        switch self {
        case .unknownEvent(let id):
            return "no event with id '\(id)' in the log (it may have been rotated away); resume with --since SEQ instead"
        }
    }
}
