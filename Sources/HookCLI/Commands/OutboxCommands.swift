/// Shared by the outbox commands: the config, its sinks and the engine.
package enum OutboxSupport {
    /// The engine over the sinks that can be built; each one that cannot is reported (its entries wait).
    /// What changes when the config file is edited (its inode, size and mtime): a long-lived sender or
    /// listener starts over with the new sinks when it changes.
    package static func configStamp(_ paths: Paths) -> @Sendable () -> String? {
        {
            FileSystem.status(paths.configFile, followSymlinks: true).map {
                "\($0.st_ino) \($0.st_size) \($0.st_mtim.tv_sec) \($0.st_mtim.tv_nsec)"
            }
        }
    }

    package static func engine(context: CommandContext, quiet: Bool = false) throws -> (DeliveryEngine, EventLog) {
        let paths = context.paths()
        let config = try Config.load(paths, environment: context.environment) ?? Config()
        let usable = SinkRegistry.makeUsableSinks(config: config)
        if !quiet { usable.broken.forEach { context.warn("sink '\($0.name)' skipped: \($0.problem); its events wait for it") } }
        let engine = DeliveryEngine(usable: usable, outbox: Outbox(paths: paths), defaults: config.defaults,
                                    answers: AnswerSigner(paths: paths, environment: context.environment))
        let log = EventLog(paths: paths, maxLogSize: config.defaults.logMaxSize, keptGenerations: config.defaults.logKeep)
        return (engine, log)
    }

    package static func entryJSON(_ entry: OutboxEntry, dead: Bool) -> JSONValue {
        var object = JSONObject()
        object["event_id"] = .string(entry.event.id)
        object["sink"] = .string(entry.sink)
        object["kind"] = .string(entry.event.kind.rawValue)
        object["agent"] = .string(entry.event.agent)
        object["title"] = .string(entry.event.title)
        object["attempts"] = .int(entry.attempts)
        object["created"] = .string(WallClock.iso8601(entry.created))
        if dead {
            object["dead_reason"] = .string(entry.deadReason ?? "")
        } else {
            object["next_attempt"] = .string(WallClock.iso8601(entry.nextAttempt))
        }
        if let error = entry.lastError { object["last_error"] = .string(error) }
        if let newer = entry.supersededBy { object["superseded_by"] = .string(newer) }
        return .object(object)
    }
}

/// `hookctl outbox list`.
package enum OutboxListCommand: Command {
    package static let path = ["outbox", "list"]
    package static let spec = CommandSpec(path: path, summary: "List undelivered events waiting in the outbox, and dead letters.",
        usage: "[--json] [--width N]", options: [Options.json, Options.width])

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print one JSON document.")
        package static let width = Option.width()

        package var json: Bool
        package var width: Int?

        package init(parsing arguments: ParsedArguments) throws {
            json = arguments.flag(Self.json)
            width = try arguments.value(Self.width)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let outbox = Outbox(paths: context.paths())
        var problems: [String] = []
        let pending = try outbox.pending(problems: &problems)
        let dead = try outbox.dead(problems: &problems)
        let superseded = try outbox.superseded(problems: &problems)
        problems.forEach { context.warn("unreadable outbox entry: \($0)") }
        // Endpoints left alone after failures, and for how long still (the sender probes them then).
        let health = SinkHealthStore(paths: context.paths())
        let backoffs = Set(pending.map(\.sink)).sorted().compactMap { sink in
            health.load(sink: sink).flatMap(\.probeAt).map { (sink, $0 - WallClock.nowEpoch()) }
        }.filter { $0.1 > 0 }
        if !problems.isEmpty {
            context.warn("what cannot be read or claimed is set aside in \(outbox.deadDirectory) (look at it, then remove it)")
        }
        if options.json {
            context.printJSON(.object(JSONObject([
                ("pending", .array(pending.map { OutboxSupport.entryJSON($0, dead: false) })),
                ("dead", .array(dead.map { OutboxSupport.entryJSON($0, dead: true) })),
                ("superseded", .array(superseded.map { OutboxSupport.entryJSON($0, dead: true) })),
                ("backoff", .object(JSONObject(backoffs.map { ($0.0, .string(WallClock.iso8601(WallClock.nowEpoch() + $0.1))) }))),
            ])))
            return .ok
        }
        if pending.isEmpty && dead.isEmpty && superseded.isEmpty {
            context.layout(width: options.width).paragraph("The outbox is empty: nothing waits to be delivered and no dead letters.")
                .forEach(context.print)
            return .ok
        }
        for (sink, seconds) in backoffs {
            context.layout(width: options.width).paragraph("\(HumanViews.inert(sink)): the endpoint failed and is left alone for "
                + "\(DurationText.format(seconds.rounded(.up))) more; then one request probes it").forEach(context.print)
        }
        context.print(HumanViews.outbox(pending: pending, dead: dead, superseded: superseded, now: WallClock.nowEpoch(),
                                        layout: context.layout(width: options.width)))
        return .ok
    }
}

/// `hookctl outbox flush`.
package enum OutboxFlushCommand: Command {
    package static let path = ["outbox", "flush"]
    package static let spec = CommandSpec(path: path, summary: "Deliver what is waiting in the outbox now.",
        usage: "[--json] [--background [--linger DURATION]] [--width N]",
        discussion: "Tries every pending entry now, regardless of its schedule. With --background (what notify starts), keeps following the retry schedule until the outbox is empty.",
        options: [Options.json, Options.background, Options.linger, Options.width])

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print one JSON document.")
        package static let background = Flag("background", help: "Keep delivering on the retry schedule until the outbox is empty (one per user).")
        package static let linger = Option<String>("linger", "DURATION",
                                           help: "With --background: how long to stay, connections open, once nothing waits (default 30s).")
        package static let width = Option.width()

        package var json: Bool
        package var background: Bool
        package var linger = BackgroundFlusher.idleLinger
        package var width: Int?

        package init(parsing arguments: ParsedArguments) throws {
            json = arguments.flag(Self.json)
            background = arguments.flag(Self.background)
            width = try arguments.value(Self.width)
            if let text = try arguments.value(Self.linger) {
                guard let seconds = DurationText.parse(text), seconds >= 0 else {
                    throw UsageError(message: "--linger expects a duration such as 0s or 30s, got '\(text)'")
                }
                linger = seconds
            }
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        // A full disk or `ulimit -f` is a write error to report (EFBIG), never a death by SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        let engine: DeliveryEngine, log: EventLog
        do {
            (engine, log) = try OutboxSupport.engine(context: context, quiet: options.background)
        } catch where options.background {
            // A broken config: nothing is delivered until it is fixed, but the event log still catches up
            // (with the default log settings) on what hooks kept for it.
            var problems: [String] = []
            let paths = context.paths()
            LogCatchUp.runAfterHooks(outbox: Outbox(paths: paths), log: EventLog(paths: paths), hooksUntil: .after(seconds: 5), seconds: 5,
                                     problems: &problems)
            throw error
        }
        if options.background {
            // Hooks come first: an agent waits for them, while a push a few milliseconds later is the same push.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            // …and a hook's commit never waits for the sender it wakes: a batch task does not preempt the task
            // that woke it (on a 2-core server the sender's pass otherwise ran on the hook's core before the
            // hook could exit, 1–2 ms of the hook's wall time). Unprivileged, and still a fair share of the CPU.
            var batch = sched_param(sched_priority: 0)
            sched_setscheduler(0, 3 /* SCHED_BATCH, a GNU name the Swift Glibc module does not show */, &batch)
            if engine.sinks.contains(where: { $0.endpoint != nil }) { HTTPClient.preload() }
            let paths = context.paths()
            let stamp = OutboxSupport.configStamp(paths)
            var current = (engine, log)
            // A changed config: start over with its sinks (a config that no longer loads ends the sender).
            while BackgroundFlusher.run(engine: current.0, log: current.1, paths: paths, configStamp: stamp, linger: options.linger) {
                current = try OutboxSupport.engine(context: context, quiet: true)
            }
            return .ok
        }
        // One owner per entry: a running sender is asked to do it (and waited for), else this process holds the
        // sender's lock while it flushes, so no sender starts beside it.
        let paths = context.paths()
        let result: FlushResult
        var shown: Int?
        switch FlushHandOver.ask(paths: paths, deadline: .after(seconds: FlushHandOver.senderDeadline + 15), progress: { left in
            if left != shown { context.note("the running sender is delivering: \(left) waiting") }
            shown = left
        }) {
        case .answered(let answer):
            result = answer
        case .timedOut:
            let left = engine.outbox.scan(now: 9_999_999_999).pending
            context.warn("the running sender is still delivering (\(left) waiting); it goes on, and 'hookctl outbox list' shows what is left")
            return .temporaryFailure
        case .own(let lock):
            var problems: [String] = []
            var busy = 0
            NewestNews().supersede(engine.outbox)
            let reports = engine.flush(deadline: .after(seconds: 30), force: true, busy: &busy, problems: &problems)
            // Events the log could not take (or that a crashed hook never logged) are added now.
            LogCatchUp.run(outbox: engine.outbox, log: log, deadline: .after(seconds: 5), problems: &problems)
            lock.unlock()
            // What is left, and what hooks committed meanwhile (they saw the lock held), is the sender's.
            if engine.outbox.hasPending() || engine.outbox.hasUnlogged() {
                BackgroundFlusher.start(paths: paths, configOverride: context.configOverride, environment: context.environment)
            }
            result = FlushResult(reports: reports, busy: busy, problems: problems)
        }
        result.problems.forEach { context.warn($0) }
        if options.json {
            context.printJSON(result.json)
        } else {
            context.print(HumanViews.flush(result, layout: context.layout(width: options.width)))
        }
        let (pending, busy, failed) = (result.pending, result.busy, result.failed)
        return pending > 0 || busy > 0 ? .temporaryFailure : (failed > 0 ? .unavailable : .ok)
    }
}

/// `hookctl outbox drop`.
package enum OutboxDropCommand: Command {
    package static let path = ["outbox", "drop"]
    package static let spec = CommandSpec(path: path, summary: "Remove entries from the outbox (by event id, or all).",
        usage: "(EVENT_ID... | --all | --dead) [--json]",
        options: [Options.all, Options.dead, Options.json],
        positionals: [("EVENT_ID", "The id of an event to remove.")], maximumPositionals: Int.max)

    package struct Options: CommandOptions {
        package static let all = Flag("all", help: "Remove every pending entry.")
        package static let dead = Flag("dead", help: "Act on the dead letters instead (alone: all of them).")
        package static let json = Flag("json", help: "Print one JSON document.")

        /// The events named; nil: all of them (`--all`, or `--dead` alone).
        package var ids: Set<String>?
        package var dead: Bool
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            dead = arguments.flag(Self.dead)
            guard arguments.flag(Self.all) || dead || !arguments.positionals.isEmpty else {
                throw UsageError(message: "name the events to drop, or --all (pending entries) or --dead (dead letters)")
            }
            ids = arguments.positionals.isEmpty ? nil : Set(arguments.positionals)
            json = arguments.flag(Self.json)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let dead = options.dead
        let ids = options.ids
        let removed = try Outbox(paths: context.paths()).drop(ids: ids, dead: dead)
        if let ids, removed == 0 {
            throw OutboxError.noSuchEntries(Array(ids).sorted(), dead: dead)
        }
        if options.json {
            context.printJSON(.object(JSONObject([("dropped", .int(removed))])))
        } else {
            context.print("dropped \(removed) \(dead ? "dead letter" : "pending entr")\(removed == 1 ? (dead ? "" : "y") : (dead ? "s" : "ies"))")
        }
        return .ok
    }
}

/// `hookctl outbox retry`.
package enum OutboxRetryCommand: Command {
    package static let path = ["outbox", "retry"]
    package static let spec = CommandSpec(path: path, summary: "Queue dead letters again (by event id, or all), due now.",
        usage: "(EVENT_ID... | --all) [--json]",
        discussion: "Once a sink is fixed, its given-up events go out again: each dead letter goes back to the outbox as a fresh entry (no attempts, its expiry counted from now) and the sender is started.",
        options: [Options.all, Options.json],
        positionals: [("EVENT_ID", "The id of an event to queue again.")], maximumPositionals: Int.max)

    package struct Options: CommandOptions {
        package static let all = Flag("all", help: "Queue every dead letter again.")
        package static let json = Flag("json", help: "Print one JSON document.")

        package var ids: Set<String>?
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            guard arguments.flag(Self.all) || !arguments.positionals.isEmpty else {
                throw UsageError(message: "name the dead letters to queue again, or --all; 'hookctl outbox list' shows them")
            }
            ids = arguments.positionals.isEmpty ? nil : Set(arguments.positionals)
            json = arguments.flag(Self.json)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let paths = context.paths()
        let outbox = Outbox(paths: paths)
        var problems: [String] = []
        let dead = try outbox.dead(problems: &problems).filter { options.ids?.contains($0.event.id) ?? true }
        problems.forEach { context.warn("unreadable dead letter: \($0)") }
        if let ids = options.ids, dead.isEmpty { throw OutboxError.noSuchEntries(Array(ids).sorted(), dead: true) }
        var queued = 0
        for letter in dead {
            try outbox.add(OutboxEntry(event: letter.event, sink: letter.sink), sync: true).release()
            unlink(outbox.deadDirectory + "/" + letter.key + ".json")
            queued += 1
        }
        if queued > 0 { BackgroundFlusher.start(paths: paths, configOverride: context.configOverride, environment: context.environment) }
        if options.json {
            context.printJSON(.object(JSONObject([("queued", .int(queued))])))
        } else {
            context.print("queued \(queued) dead letter\(queued == 1 ? "" : "s") again")
        }
        return .ok
    }
}

/// Outbox command errors.
package enum OutboxError: HookctlError {
    case noSuchEntries([String], dead: Bool)

    package var exitCode: ExitCode { .dataError }
    package var description: String {
        switch self {
        case .noSuchEntries(let ids, let dead):
            return "no \(dead ? "dead letter" : "pending entry") for event \(ids.joined(separator: ", ")); 'hookctl outbox list' shows the ids"
        }
    }
}

/// `hookctl outbox listen`: the answer listener (`AnswerListener`), which the sender starts when a push
/// carries answer buttons; one per user.
package enum OutboxListenCommand: Command {
    package static let path = ["outbox", "listen"]
    package static let spec = CommandSpec(path: path, summary: "Follow the reply topics and bots for answers from pushes, and press them (started by the sender).",
        usage: "",
        discussion: """
        Follows each ntfy sink's reply_topic (ntfy's JSON stream from the last message read) and each
        telegram sink with actions (getUpdates), outbound only, while a push's answers may still be used
        (an hour after it was sent). Each answer's token is checked (its HMAC under this user's key, its
        expiry, its single use, the question still the one on the screen) and pressed as 'reply --choice'
        presses it; a refused one presses nothing and is recorded (agent event push_reply_refused, see
        'hookctl events'). One per user; it logs its start and end in listener.log in the state directory.
        """,
        options: [])

    package struct Options: CommandOptions {
        package init(parsing arguments: ParsedArguments) throws {}
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        signal(SIGXFSZ, SIG_IGN)
        let paths = context.paths()
        let stamp = OutboxSupport.configStamp(paths)
        while true {
            let (engine, _) = try OutboxSupport.engine(context: context, quiet: true)
            if engine.sinks.contains(where: { $0.endpoint != nil }) { HTTPClient.preload() }
            guard AnswerListener.run(sinks: engine.sinks, paths: paths, environment: context.environment, configStamp: stamp) else { return .ok }
        }
    }
}
