/// `hookctl notify`: called by the agents' hooks. Builds the event, records it, and delivers it to the
/// matching sinks within a bounded budget. Prints nothing on stdout; exits 0 unless `--strict`.
public enum NotifyCommand: Command {
    public static let spec: CommandSpec = {
        var spec = CommandSpec(
            path: ["notify"],
            summary: "Deliver an agent hook event to the configured sinks (called by the hooks).",
            usage: "[--agent A] [--event E] [--title T] [--message M] [--priority P] [--force] [--strict] [PAYLOAD]",
            discussion: """
            Reads the agent's hook payload as JSON from stdin, or from the last argument (Codex 'notify').
            Does nothing unless the gate variable (SSHIDO_SESSION by default) is set and non-empty, or --force.
            Writes nothing to stdout and exits 0 even when delivery fails, so an agent is never disturbed;
            problems go to stderr and the event stays in the outbox to be retried. --strict reports them in
            the exit code: 64 an option was set aside, 65 bad payload, 75 not delivered yet (queued), 69 a sink
            refused it for good, 78 config.
            """,
            options: [
                .value("agent", "A", help: "The agent: claude, codex, gemini, or another name (detected from the payload when absent)."),
                .value("event", "E", help: "The agent's event name (Stop, Notification…) or an event kind (needs_input, done, failed…)."),
                .value("title", "T", help: "Use this title instead of the generated one."),
                .value("message", "M", help: "Use this message instead of the payload's."),
                .value("priority", "P", help: "low, normal or high (default: from the event kind)."),
                .flag("force", help: "Deliver even when the gate variable is not set."),
                .flag("strict", help: "Exit non-zero when the payload is bad or delivery did not succeed."),
                .value("budget", "DURATION", help: "How long to spend delivering before leaving the rest to the outbox (default: config, 2s)."),
            ],
            positionals: [("PAYLOAD", "The payload JSON as an argument (Codex 'notify' appends it).")])
        // On the hook path a bad option must not cost the event: it is reported and set aside.
        spec.lenient = true
        return spec
    }()

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let strict = arguments.flag("strict")
        let paths = context.paths(arguments)
        // The config decides the gate variable; a broken config must not lose the event, so keep the error for later.
        var config: Config?
        var configError: HookctlError?
        do { config = try Config.load(path: paths.configFile, environment: context.environment) } catch let error as HookctlError {
            configError = error
        }
        let gate = config?.defaults.gate ?? Defaults().gate
        guard arguments.flag("force") || !(context.environment[gate] ?? "").isEmpty else { return .ok }

        // Option mistakes are reported, never fatal here: the event is still recorded and sent.
        var usageProblems = arguments.ignored.map { "ignored '\($0)': not an option of notify, or missing its value" }
        var priority: Priority?
        if let text = arguments.value("priority") {
            priority = Priority(rawValue: text)
            if priority == nil { usageProblems.append("--priority must be low, normal or high, got '\(text)'; using the event's own") }
        }
        var budget = config?.defaults.budget ?? Defaults().budget
        if let text = arguments.value("budget") {
            if let seconds = Duration.parse(text), seconds > 0 { budget = seconds } else {
                usageProblems.append("--budget expects a duration such as 2s or 500ms, got '\(text)'; using \(Duration.format(budget))")
            }
        }
        usageProblems.forEach { context.warn($0) }

        let (payload, raw, inputProblem) = readPayload(arguments, context: context)
        let host = shortHostName()
        var event = PayloadParser.event(
            payload: payload,
            overrides: EventOverrides(agent: arguments.value("agent"), event: arguments.value("event"),
                                      title: arguments.value("title"), message: arguments.value("message"), priority: priority),
            host: host, tmux: TmuxContext.locate(environment: context.environment),
            fallbackCWD: context.environment["PWD"] ?? context.workingDirectory)
        if event.tmux != nil { event.process = PaneProcesses.ofCaller(environment: context.environment) }
        if event.kind == .info, arguments.value("event").flatMap(EventKind.init(rawValue:)) == nil,
           !PayloadParser.builtInAgents.contains(event.agent) {
            applyManifestKind(to: &event, priority: priority, keepTitle: arguments.value("title") != nil,
                              resources: Resources(environment: context.environment, paths: paths))
        }
        if inputProblem != nil, event.message.isEmpty, !raw.isEmpty, arguments.value("message") == nil {
            // Not JSON: keep what was sent as the message, so nothing the agent said is lost.
            let text = String(decoding: raw.prefix(PayloadParser.messageLimit * 4), as: UTF8.self)
            event.message = Text.truncate(Text.trimmed(text), characters: PayloadParser.messageLimit)
        }
        if let inputProblem { context.warn(inputProblem.description + "; the event was still recorded and sent") }

        var exit: ExitCode = !usageProblems.isEmpty ? .usage : inputProblem == nil ? .ok : .dataError
        do {
            let defaults = config?.defaults ?? Defaults()
            try EventLog(paths: paths, maxLogSize: defaults.logMaxSize, keptGenerations: defaults.logKeep).append(&event)
        } catch {
            context.warn("cannot record the event in the event log: \(error)")
            exit = .cannotCreate
        }

        // The delivery budget starts now that the event is built: a slow stdin must not eat it.
        let deadline = monotonicSeconds() + budget
        let outbox = Outbox(paths: paths)
        if let configError {
            // Keep the event until the config is fixed: the next successful run delivers it.
            context.printError(configError.description)
            context.note("the event was kept in the outbox and will be delivered once the config is fixed")
            do { try outbox.add(OutboxEntry(event: event, sink: OutboxEntry.anySink)) } catch {
                context.printError("cannot queue the event either: \(error)")
            }
            return strict ? configError.exitCode : .ok
        }
        guard let config else { return strict ? exit : .ok }
        let sinks: [any Sink]
        do { sinks = try SinkRegistry.makeSinks(config: config) } catch let error as HookctlError {
            context.printError(error.description)
            try? outbox.add(OutboxEntry(event: event, sink: OutboxEntry.anySink))
            return strict ? error.exitCode : .ok
        }
        let engine = DeliveryEngine(sinks: sinks, outbox: outbox, defaults: config.defaults)
        var problems: [String] = []
        // Events kept while the config was broken go out with this one.
        let kept = engine.expandWaitingEntries(problems: &problems)
        let reports = engine.deliver(event, alsoNow: kept, deadline: deadline, problems: &problems)
        problems.forEach { context.warn($0) }
        let secrets = sinks.flatMap(\.secrets)
        for report in reports where report.eventID == event.id {
            switch report.outcome {
            case .delivered: continue
            case .retry:
                context.warn(Text.scrub("sink '\(report.sink)': \(report.outcome.summary); queued in the outbox", secrets: secrets))
                if exit == .ok { exit = .temporaryFailure }
            case .failed, .gone:
                context.printError(Text.scrub("sink '\(report.sink)': \(report.outcome.summary)", secrets: secrets))
                if exit == .ok || exit == .temporaryFailure { exit = .unavailable }
            }
        }
        if reports.contains(where: \.pending) || outbox.hasPending() {
            BackgroundFlusher.start(paths: paths, configOverride: arguments.value("config"), environment: context.environment)
        }
        return strict ? exit : .ok
    }

    /// The payload: the last argument (Codex notify), else stdin, bounded in size and time. Text that is
    /// not a JSON object is still salvaged for what it says, with the problem reported.
    static func readPayload(_ arguments: ParsedArguments, context: CommandContext) -> (JSONValue?, [UInt8], EventError?) {
        var problem: EventError?
        var raw: [UInt8]
        if let argument = arguments.positionals.last {
            raw = Array(argument.utf8)
        } else {
            let reader = PayloadReader()
            let input = reader.read(fd: context.standardInput)
            raw = input.bytes
            if input.truncated { problem = .payloadTooLarge(limit: reader.limit) }
        }
        guard !raw.isEmpty else { return (nil, raw, problem) }
        do {
            let payload = try JSON.parse(raw)
            if payload.objectValue == nil, problem == nil { problem = .payloadNotObject }
            return (payload.objectValue == nil ? nil : payload, raw, problem)
        } catch let error as JSONParseError {
            if problem == nil { problem = .payloadNotJSON(error) }
        } catch {}
        return (PayloadParser.salvage(raw), raw, problem)
    }

    /// An agent added by a manifest: its manifest says what each of its events means.
    static func applyManifestKind(to event: inout Event, priority: Priority?, keepTitle: Bool, resources: Resources) {
        let manifests = (try? resources.manifests()) ?? []
        guard let kind = manifests.first(where: { $0.agent == event.agent })?.kind(forEvent: event.agentEvent) else { return }
        event.kind = kind
        event.priority = priority ?? kind.defaultPriority
        if !keepTitle {
            event.title = PayloadParser.defaultTitle(agent: event.agent, kind: kind, detail: event.detail,
                                                     place: event.tmux?.session ?? event.cwd.map(FileSystem.fileName(of:)))
        }
    }
}
