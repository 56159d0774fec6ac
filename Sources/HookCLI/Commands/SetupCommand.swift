/// `hookctl setup`: writes the config (with a `relay` sink when a URL is given), generates the gated
/// hook script and registers it with each agent found. Idempotent; `--dry-run` shows the diffs.
package enum SetupCommand: Command {
    package static let path = ["setup"]
    package static let spec = CommandSpec(path: path, summary: "Install the agents' hooks, gated on SSHIDO_SESSION, and write the config.",
        usage: "[--notify-url URL | --notify-url-file FILE|-] [--agents LIST] [--dry-run] [--json] [-q] [--width N]",
        discussion: """
        Agents started inside a phone session (SSHIDO_SESSION set) then push when they need input, finish
        or fail; everywhere else the hooks exit in the shell before starting anything. Without
        --notify-url, events are only recorded locally (hookctl status, hookctl events).
        Settings are merged, never replaced: your own hooks and keys stay as they are, the previous file
        is kept as FILE.hookctl-backup, and a second run changes nothing. Undo with 'hookctl uninstall'.
        Agents that are not installed are skipped unless named in --agents. Your own agent manifests go
        in ~/.config/hookctl/agents/*.json (see hooks/README.md).
        """,
        options: [Options.notifyURL, Options.notifyURLFile, Options.agents, SetupChangeOptions.dryRun,
                  SetupChangeOptions.json, Options.quiet, SetupChangeOptions.width])

    package struct Options: CommandOptions {
        package static let notifyURL = Option<String>("notify-url", "URL", help: "The phone's push relay URL (https://HOST/n/TOKEN); kept in the config, never printed in full.")
        package static let notifyURLFile = Option<String>("notify-url-file", "FILE", help: "Read the URL from FILE's one line, or from standard input for '-': it stays out of process lists and shell history.")
        package static let agents = Option<String>("agents", "LIST", repeatable: true, completes: .agents, help: "Only these agents (comma-separated), even when they look uninstalled.")
        package static let quiet = Flag("quiet", short: "q", help: "Print only warnings and errors.")

        package var notifyURL: NotifyURLSource
        package var change: SetupChangeOptions

        package init(parsing arguments: ParsedArguments) throws {
            notifyURL = try NotifyURLSource(arguments, url: Self.notifyURL, file: Self.notifyURLFile, command: spec.path)
            change = try SetupChangeOptions(arguments, agents: Self.agents, quiet: Self.quiet)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        // The URL is checked before anything is read or written.
        let url = try options.notifyURL.read(context: context)
        let paths = context.paths()
        let engine = SetupEngine(environment: context.environment, paths: paths)
        let report = try engine.setup(url: url, agents: options.change.agents, dryRun: options.change.dryRun,
                                      hookctlPath: engine.resources.executable)
        if options.change.json {
            context.printJSON(report.json, pretty: true)
        } else {
            for warning in report.warnings { context.warn(warning) }
            if !options.change.quiet {
                SetupOutput.print(report, engine: engine, context: context, width: options.change.width)
            }
            if !report.dryRun, !options.change.quiet {
                let layout = context.layout(width: options.change.width)
                func say(_ text: String) { context.print(HumanViews.sentence(text, layout: layout)) }
                context.print("")
                if let url = report.notifyURL {
                    say("Relay: \(Text.redactURL(url))")
                    say(engine.resources.message("setup.next.url", fallback: "Try: hookctl test"))
                } else if let kept = ConfigEditor.relayURL(in: report.ownFiles.first?.after) {
                    say("Relay: \(Text.redactURL(kept)) (kept from the config)")
                } else {
                    say(engine.resources.message("setup.next.local", fallback: "Nothing is pushed until you run: hookctl setup --notify-url-file -"))
                }
                if report.agents.contains(where: { $0.status == .installed || $0.status == .updated }) {
                    say(engine.resources.message("setup.restart", fallback: "Restart running agent sessions."))
                }
                say(engine.resources.message("setup.undo", fallback: "To undo: hookctl uninstall"))
            }
        }
        for agent in report.agents where agent.error != nil {
            if !options.change.json { context.printError(agent.reason ?? "") }
        }
        return report.exitCode
    }
}

/// What setup and uninstall both take: which agents, a dry run, and how to report.
package struct SetupChangeOptions: Sendable {
    package static let dryRun = Flag("dry-run", help: "Show the changes as diffs and write nothing.")
    package static let json = Flag("json", help: "Print the result as JSON.")
    package static let width = Option.width()

    package var agents: [String]?
    package var dryRun: Bool
    package var json: Bool
    package var quiet: Bool
    package var width: Int?

    /// `agents` and `quiet`: each command's own declaration (their help differs).
    package init(_ arguments: ParsedArguments, agents: Option<String>, quiet: Flag) throws {
        self.agents = arguments.list(agents)
        dryRun = arguments.flag(Self.dryRun)
        json = arguments.flag(Self.json)
        self.quiet = arguments.flag(quiet)
        width = try arguments.value(Self.width)
    }
}

/// `--notify-url URL` or `--notify-url-file FILE|-` (setup and deploy): one of them, read and checked
/// before anything is written.
package struct NotifyURLSource: Sendable {
    package var url: String?
    package var file: String?

    package init(_ arguments: ParsedArguments, url: Option<String>, file: Option<String>, command: [String]) throws {
        self.url = try arguments.value(url)
        self.file = try arguments.value(file)
        if self.url != nil, self.file != nil {
            throw UsageError(message: "give --notify-url or --notify-url-file, not both", command: command)
        }
    }

    package var given: Bool { url != nil || file != nil }

    package func read(context: CommandContext) throws -> NotifyURL? {
        if let file {
            return try NotifyURL.read(file: file, standardInput: context.standardInput, workingDirectory: context.workingDirectory,
                                      prompt: context.standardError)
        }
        return try url.map(NotifyURL.init)
    }
}

/// The human summary of setup and uninstall: one line per file of hookctl's and per agent.
package enum SetupOutput {
    package static func print(_ report: SetupReport, engine: SetupEngine, context: CommandContext, width: Int?, uninstall: Bool = false) {
        let layout = context.layout(width: width)
        if report.dryRun {
            var any = false
            for file in report.ownFiles + report.agents.flatMap(\.files) where file.status != .unchanged {
                context.print(HumanViews.diff(file.diff()))
                any = true
            }
            if !any { context.print("No changes.") }
            context.print("(dry run: nothing was written)")
        }
        context.print(HumanViews.setup(rows(report, engine: engine, uninstall: uninstall), layout: layout))
        for note in report.notes { context.print(HumanViews.sentence("Note: " + note, layout: layout)) }
    }

    /// What each file and agent became; a dry run says what it would do.
    package static func rows(_ report: SetupReport, engine: SetupEngine, uninstall: Bool) -> [HumanViews.SetupRow] {
        func word(_ done: String, _ planned: String) -> String { report.dryRun ? "would " + planned : done }
        var rows: [HumanViews.SetupRow] = []
        for file in report.ownFiles {
            let status: String
            switch file.status {
            case .created: status = word("created", "create")
            case .updated: status = word("updated", "update")
            case .removed: status = word("removed", "remove")
            case .unchanged: status = "unchanged"
            }
            rows.append(HumanViews.SetupRow(label: label(for: file.path, engine: engine), status: status,
                                            detail: engine.tildePath(file.path), style: file.status == .unchanged ? nil : .green))
        }
        // Agents that are not installed: one line, not one each (about 24 lines on a phone otherwise).
        let skipped = report.agents.filter { $0.status == .skipped }
        if skipped.count > 1 {
            rows.append(HumanViews.SetupRow(label: "not installed", status: "skipped",
                                            detail: skipped.map(\.displayName).joined(separator: ", ")
                                                + " (name one in --agents to set it up anyway)", style: .dim))
        }
        for agent in report.agents where skipped.count < 2 || agent.status != .skipped {
            var status: String
            var style: TerminalStyle?
            switch agent.status {
            case .installed: status = word("installed", "install"); style = .green
            case .updated: status = word("updated", "update"); style = .green
            case .removed: status = word("removed hooks from", "remove hooks from"); style = .green
            case .failed: status = "failed"; style = .boldRed
            case .skipped: status = "skipped"; style = .dim
            case .unchanged: status = "unchanged"
            case .nothingToRemove: status = "nothing to remove"; style = .dim
            }
            let detail: String
            switch agent.status {
            case .skipped: detail = agent.reason ?? ""
            case .failed: detail = "see the error below"
            default:
                detail = agent.files.filter { agent.status == .unchanged || $0.status != .unchanged }
                    .map { engine.tildePath($0.path) }.joined(separator: ", ")
            }
            rows.append(HumanViews.SetupRow(label: agent.displayName, status: status, detail: detail, style: style))
        }
        if uninstall, FileSystem.exists(engine.paths.configFile) {
            rows.append(HumanViews.SetupRow(label: "config", status: "kept", detail: engine.tildePath(engine.paths.configFile)))
        }
        return rows
    }

    package static func label(for path: String, engine: SetupEngine) -> String {
        path == engine.paths.configFile ? "config" : "hook script"
    }
}
