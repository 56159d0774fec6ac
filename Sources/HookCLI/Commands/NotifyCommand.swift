/// `hookctl notify`: called by the agents' hooks. Builds the event, records it, and delivers it to the
/// matching sinks within a bounded budget. Prints nothing on stdout; exits 0 unless `--strict`.
package enum NotifyCommand: Command {
    package static let path = ["notify"]
    package static let spec: CommandSpec = {
        var spec = CommandSpec(
            path: path,
            summary: "Deliver an agent hook event to the configured sinks (called by the hooks).",
            usage: "[--agent A] [--event E] [--title T] [--message M] [--priority P] [--force] [--strict] [--budget DURATION] [PAYLOAD]",
            discussion: """
            Reads the agent's hook payload as JSON from stdin, or from the last argument (Codex 'notify').
            Does nothing unless the gate variable (SSHIDO_SESSION by default) is set and non-empty, or --force;
            a call without --agent (a person's: every registered hook passes --agent) or with a terminal on
            stderr is told so on stderr, a hook's call stays silent.
            Writes nothing to stdout and exits 0 even when delivery fails, so an agent is never disturbed;
            problems go to stderr and the event stays in the outbox to be retried. --strict reports them in
            the exit code: 64 an option was set aside or --event is unknown, 65 bad payload, 75 not delivered
            yet (queued), 69 a sink refused it for good, 73 not queued, 78 config or a sink that cannot be used.
            By hand: 'hookctl notify --force --message "deploy finished"' (or the words as the argument)
            pushes a 'done' event from hookctl to the sinks.
            """,
            options: [Options.agent, Options.event, Options.title, Options.message, Options.priority,
                      Options.force, Options.strict, Options.budget],
            positionals: [("PAYLOAD", "The payload JSON as an argument (Codex 'notify' appends it).")])
        // On the hook path a bad option must not cost the event: it is reported and set aside.
        spec.lenient = true
        return spec
    }()

    /// Nothing here throws: on the hook path a bad value is the pipeline's to report (and set aside),
    /// never a reason to lose the event.
    package struct Options: CommandOptions {
        package static let agent = Option<String>("agent", "A", completes: .agents, help: "The agent: claude, codex, gemini, or another name (detected from the payload when absent).")
        package static let event = Option<String>("event", "E", help: "The agent's event name (Stop, Notification…) or an event kind (needs_input, done, failed…).")
        package static let title = Option<String>("title", "T", help: "Use this title instead of the generated one.")
        package static let message = Option<String>("message", "M", help: "Use this message instead of the payload's.")
        package static let priority = Option<String>("priority", "P", help: "low, normal or high (default: from the event kind).")
        package static let force = Flag("force", help: "Deliver even when the gate variable is not set.")
        package static let strict = Flag("strict", help: "Exit non-zero when the payload is bad or delivery did not succeed.")
        package static let budget = Option<String>("budget", "DURATION", help: "How long to spend delivering before leaving the rest to the outbox (default: config, 2s).")

        package var request = NotifyRequest()
        package var strict: Bool

        package init(parsing arguments: ParsedArguments) throws {
            request.agent = try arguments.value(Self.agent)
            request.event = try arguments.value(Self.event)
            request.title = try arguments.value(Self.title)
            request.message = try arguments.value(Self.message)
            request.priority = try arguments.value(Self.priority)
            request.budget = try arguments.value(Self.budget)
            request.force = arguments.flag(Self.force)
            request.payloadArgument = arguments.positionals.last
            request.ignoredOptions = arguments.ignored
            strict = arguments.flag(Self.strict)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        var request = options.request
        // The flusher notify may start gets the same --config.
        request.configOverride = context.configOverride
        let pipeline = NotifyPipeline(paths: context.paths(), environment: context.environment,
                                      workingDirectory: context.workingDirectory, standardInput: context.standardInput)
        let result = pipeline.run(request)
        if result.gated, isPersonsCall(request, context: context) {
            let gate = Config.gateVariable(configFile: context.paths().configFile)
            context.note("nothing sent: \(gate) is not set, so notify only acts inside a phone session (the gate); "
                         + "add --force to send anyway: hookctl notify --force \"deploy finished\"")
        }
        for (severity, text) in result.messages {
            switch severity {
            case .warning: context.warn(text)
            case .error: context.printError(text)
            case .note: context.note(text)
            }
        }
        return options.strict ? result.strictExit : .ok
    }

    /// Whether a person, not an agent's hook, ran this notify: every registered hook passes `--agent`
    /// (and checks the gate in the shell before hookctl starts), so a call without it, or with a
    /// terminal on stderr, is a person's, who is told why nothing was sent. A hook's call stays silent.
    package static func isPersonsCall(_ request: NotifyRequest, context: CommandContext) -> Bool {
        request.agent == nil || (context.standardError === FileDescriptorStream.standardError && isatty(STDERR_FILENO) != 0)
    }
}
