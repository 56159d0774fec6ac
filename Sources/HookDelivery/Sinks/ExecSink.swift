/// The plugin point for anything hookctl does not know: runs a program (argv from the config, no shell)
/// with the event JSON on stdin. Exit 0 delivered, 75 (EX_TEMPFAIL) retry later, anything else permanent.
package struct ExecSink: Sink, SinkType {
    package static let type = "exec"
    package static let keys = SinkKeys.names(of: type)

    package let name: String
    package let settings: SinkSettings
    package let argv: [String]
    package let extraEnvironment: [(String, String)]
    package let baseEnvironment: [String: String]

    /// Values given in `env:` are often credentials for the program, and so are the command line's URLs
    /// (`…?auth=TOKEN`), a credential header (`Authorization: …`, `X-…-Token: …`) and the value after
    /// an unambiguous credential flag (`--token T`).
    package var secrets: [String] { extraEnvironment.map(\.1) + argv.indices.filter(argumentIsSecret).map { argv[$0] } }

    package static let credentialFlags: Set<String> = ["--token", "--password", "--auth", "--secret", "--api-key"]

    private func argumentIsSecret(_ index: Int) -> Bool {
        guard index > 0 else { return false }
        let argument = argv[index].lowercased()
        return argument.contains("://") || argument.contains("authorization:") || argument.contains("token:")
            || argument.contains("bearer ") || Self.credentialFlags.contains(argv[index - 1])
    }

    /// The command line as it may be shown: secret arguments redacted (one that is a URL keeps its host).
    package var shownCommand: String {
        argv.indices.map { index in
            guard argumentIsSecret(index) else { return argv[index] }
            return Self.isURL(argv[index]) ? Text.redactURL(argv[index]) : Text.redactSecret(argv[index])
        }.joined(separator: " ")
    }

    /// `scheme://…` and nothing before it (a script that holds a URL is not one).
    package static func isURL(_ argument: String) -> Bool {
        guard let range = argument.firstRange(of: "://"), range.lowerBound > argument.startIndex else { return false }
        let scheme = argument[..<range.lowerBound]
        return scheme.first!.isLetter && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
    }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        guard let command = try config.stringList("command"), let program = command.first, !program.isEmpty else {
            throw config.error(nil, "'command' is required: a list such as [/usr/local/bin/my-notifier, --flag]")
        }
        let expanded = expandPath(program, environment: config.environment)
        guard let resolved = Subprocess.findExecutable(expanded, path: config.environment["PATH"],
                                                       extraDirectories: ["/usr/local/bin", "/usr/bin", "/bin"]) else {
            throw config.error(config.node["command"], "the program '\(program)' was not found or is not executable")
        }
        var settings = try SinkSettings(config: config)
        if !config.has("timeout") { settings.timeout = min(settings.timeout, 30) }
        return ExecSink(name: config.name, settings: settings, argv: [resolved] + command.dropFirst(),
                        extraEnvironment: try config.stringMap("env") ?? [], baseEnvironment: config.environment)
    }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        var environment = baseEnvironment
        environment["HOOKCTL_EVENT_ID"] = event.id
        environment["HOOKCTL_EVENT_KIND"] = event.kind.rawValue
        environment["HOOKCTL_AGENT"] = event.agent
        environment["HOOKCTL_SINK"] = name
        environment["HOOKCTL_ATTEMPT"] = String(attempt)
        for (key, value) in extraEnvironment { environment[key] = value }
        let input = Array((JSON.serialize(FileSink.record(event, settings: settings)) + "\n").utf8)
        let argv = self.argv, timeout = settings.timeout, finalEnvironment = environment
        return .local { deadline in
            let process = Subprocess(executable: argv[0], arguments: Array(argv.dropFirst()), environment: finalEnvironment,
                                     input: input, timeout: max(0.05, min(timeout, deadline.secondsLeft)))
            do {
                let result = try process.run()
                // Scrubbed before it is cut: a program may echo its env: secrets.
                let stderr = Text.truncate(Text.scrub(Text.singleLine(result.errorText), secrets: secrets), characters: 200)
                let detail = stderr.isEmpty ? "" : ": \(stderr)"
                switch result.status {
                case 0: return .delivered
                case 75: return .retry(after: nil, reason: "the program asked to retry later (exit 75)\(detail)")
                default: return .failed(reason: "the program \(result.status)\(detail)")
                }
            } catch let error as SystemError {
                if case .timedOut = error { return .retry(after: nil, reason: error.description) }
                return .failed(reason: error.description)
            } catch {
                return .failed(reason: "\(error)")
            }
        }
    }

    package func preview(for event: Event) -> String {
        "run \(shownCommand) with the event JSON on stdin:\n"
            + JSON.serialize(FileSink.record(event, settings: settings))
    }
}
