/// `hookctl test`: sends a clearly marked test event through every sink (or one) right now, without
/// the outbox, and reports each result with its timing.
package enum TestCommand: Command {
    package static let path = ["test"]
    package static let spec = CommandSpec(path: path, summary: "Send a test event through the sinks and report each result.",
        usage: "[--sink NAME] [--json] [--width N]",
        discussion: "The event is marked as a test (kind 'test'). It ignores the sinks' kind and agent filters and is not queued: a failure is reported, not retried later.",
        options: [Options.sink, Options.json, Options.width])

    package struct Options: CommandOptions {
        package static let sink = Option<String>("sink", "NAME", completes: .sinks, help: "Only this sink.")
        package static let json = Flag("json", help: "Print the results as JSON.")
        package static let width = Option.width()

        package var sink: String?
        package var json: Bool
        package var width: Int?

        package init(parsing arguments: ParsedArguments) throws {
            sink = try arguments.value(Self.sink)
            json = arguments.flag(Self.json)
            width = try arguments.value(Self.width)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let paths = context.paths()
        guard let config = try Config.load(paths, environment: context.environment), !config.sinks.isEmpty else {
            throw TestError.noSinks(config: paths.configFile)
        }
        var sinks = try SinkRegistry.makeSinks(config: config)
        if let name = options.sink {
            guard let sink = sinks.first(where: { $0.name == name }) else {
                throw UsageError(message: "no sink named '\(name)'\(Suggest.hint(for: name, in: sinks.map(\.name))); sinks: \(sinks.map(\.name).joined(separator: ", "))")
            }
            sinks = [sink]
        }
        let host = shortHostName()
        let event = Event(agent: "hookctl", kind: .test, agentEvent: "test", title: "hookctl test",
                          message: "Test notification from hookctl on \(host): if you can read this, notifications work.",
                          host: host, cwd: context.workingDirectory)
        let engine = DeliveryEngine(sinks: sinks, outbox: Outbox(paths: paths), defaults: config.defaults)
        let budget = config.defaults.timeout + config.defaults.connectTimeout + 1
        // One attempt per sink, one sink after the other: a test reports what happened, it does not retry,
        // and each timing is that sink's alone.
        let reports = sinks.map { sink -> DeliveryReport in
            let start = ContinuousClock.now
            let outcome = engine.attempt([(sink, event, 1)], deadline: start + .seconds(clampingSeconds: budget))[0]
            engine.noteTry(sink: sink.name, outcome)
            return DeliveryReport(sink: sink.name, eventID: event.id, outcome: outcome, attempts: 1,
                                  duration: (ContinuousClock.now - start).inSeconds, pending: false)
        }
        let secrets = sinks.flatMap(\.secrets)
        let results = reports.map { report in
            let sink = sinks.first { $0.name == report.sink }
            return HumanViews.TestResult(
                sink: report.sink, type: sink?.type ?? "", milliseconds: Int((report.duration * 1000).rounded()),
                delivered: report.outcome == .delivered, result: Text.scrub(report.outcome.summary(retried: false), secrets: secrets),
                preview: sink.map { Text.scrub($0.preview(for: event), secrets: secrets) })
        }
        let failed = results.filter { !$0.delivered }
        if options.json {
            var object = JSONObject()
            object["ok"] = .bool(failed.isEmpty)
            object["event_id"] = .string(event.id)
            object["results"] = .array(results.map(\.json))
            context.printJSON(.object(object), pretty: true)
        } else {
            context.print(HumanViews.test(results, layout: context.layout(width: options.width)))
        }
        return failed.isEmpty ? .ok : .unavailable
    }
}

/// Why `hookctl test` cannot run.
package enum TestError: HookctlError {
    case noSinks(config: String)

    package var exitCode: ExitCode { .config }
    package var description: String {
        switch self {
        case .noSinks(let config):
            return "no sinks are configured in \(config), so there is nothing to test; add the relay with: hookctl setup --notify-url-file - (paste the notify URL, then Enter)"
        }
    }
}
