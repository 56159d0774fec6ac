/// `hookctl setup`: writes the config (with a `relay` sink when a URL is given), generates the gated
/// hook script and registers it with each agent found. Idempotent; `--dry-run` shows the diffs.
public enum SetupCommand: Command {
    public static let spec = CommandSpec(
        path: ["setup"], summary: "Install the agents' hooks, gated on SSHIDO_SESSION, and write the config.",
        usage: "[--notify-url URL | --notify-url-file FILE|-] [--agents claude,codex,gemini] [--dry-run] [--json]",
        discussion: """
        Agents started inside a phone session (SSHIDO_SESSION set) then push when they need input, finish
        or fail; everywhere else the hooks exit in the shell before starting anything. Without
        --notify-url, events are only recorded locally (hookctl status, hookctl events).
        Settings are merged, never replaced: your own hooks and keys stay as they are, the previous file
        is kept as FILE.hookctl-backup, and a second run changes nothing. Undo with 'hookctl uninstall'.
        Agents that are not installed are skipped unless named in --agents. Your own agent manifests go
        in ~/.config/hookctl/agents/*.json (see hooks/README.md).
        """,
        options: [
            .value("notify-url", "URL", help: "The phone's push relay URL (https://HOST/n/TOKEN); kept in the config, never printed in full."),
            .value("notify-url-file", "FILE", help: "Read the URL from FILE's one line, or from standard input for '-': it stays out of process lists and shell history."),
            .value("agents", "LIST", repeatable: true, help: "Only these agents (comma-separated), even when they look uninstalled."),
            .flag("dry-run", help: "Show the changes as diffs and write nothing."),
            .flag("json", help: "Print the result as JSON."),
        ])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        // The URL is checked before anything is read or written.
        let url = try notifyURL(arguments, context: context)
        let paths = context.paths(arguments)
        let engine = SetupEngine(environment: context.environment, paths: paths)
        let report = try engine.setup(url: url, agents: arguments.list("agents"), dryRun: arguments.flag("dry-run"),
                                      hookctlPath: engine.resources.executable)
        if arguments.flag("json") {
            context.printJSON(report.json, pretty: true)
        } else {
            for warning in report.warnings { context.warn(warning) }
            SetupOutput.print(report, engine: engine, context: context)
            if !report.dryRun {
                context.print("")
                if let url = report.notifyURL {
                    context.print("Relay: \(Text.redactURL(url))")
                    context.print(engine.resources.message("setup.next.url", fallback: "Try: hookctl test"))
                } else if let kept = ConfigEditor.relayURL(in: report.ownFiles.first?.after) {
                    context.print("Relay: \(Text.redactURL(kept)) (kept from the config)")
                } else {
                    context.print(engine.resources.message("setup.next.local", fallback: "Nothing is pushed until you run: hookctl setup --notify-url URL"))
                }
                if report.agents.contains(where: { $0.status == .installed || $0.status == .updated }) {
                    context.print(engine.resources.message("setup.restart", fallback: "Restart running agent sessions."))
                }
                context.print(engine.resources.message("setup.undo", fallback: "To undo: hookctl uninstall"))
            }
        }
        for agent in report.agents where agent.error != nil {
            if !arguments.flag("json") { context.printError(agent.reason ?? "") }
        }
        return report.exitCode
    }

    /// `--notify-url URL` or `--notify-url-file FILE|-`, checked before anything is read or written.
    static func notifyURL(_ arguments: ParsedArguments, context: CommandContext, command: [String] = spec.path) throws -> NotifyURL? {
        if let file = arguments.value("notify-url-file") {
            if arguments.value("notify-url") != nil {
                throw UsageError(message: "give --notify-url or --notify-url-file, not both", command: command)
            }
            return try NotifyURL.read(file: file, standardInput: context.standardInput, workingDirectory: context.workingDirectory)
        }
        return try arguments.value("notify-url").map(NotifyURL.init)
    }
}

/// The human summary of setup and uninstall: one line per file of hookctl's and per agent.
enum SetupOutput {
    static func print(_ report: SetupReport, engine: SetupEngine, context: CommandContext) {
        if report.dryRun {
            var any = false
            for file in report.ownFiles + report.agents.flatMap(\.files) where file.status != .unchanged {
                context.standardOutput.write(file.diff())
                any = true
            }
            if !any { context.print("No changes.") }
            context.print("(dry run: nothing was written)")
        }
        for file in report.ownFiles {
            context.print(pad(label(for: file.path, engine: engine), 14) + pad(file.status.rawValue, 11) + engine.tildePath(file.path))
        }
        for agent in report.agents {
            var line = pad(agent.displayName, 14) + pad(agent.status.rawValue.replacing("_", with: " "), 11)
            if agent.status == .skipped || agent.status == .failed {
                if agent.status == .skipped { line += agent.reason ?? "" } else { line += "see the error below" }
            } else {
                line += agent.files.filter { agent.status == .unchanged || $0.status != .unchanged }
                    .map { engine.tildePath($0.path) }.joined(separator: ", ")
            }
            context.print(line)
        }
        for note in report.notes { context.print("Note: " + note) }
    }

    static func label(for path: String, engine: SetupEngine) -> String {
        path == engine.paths.configFile ? "config" : "hook script"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
