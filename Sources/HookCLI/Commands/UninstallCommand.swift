/// `hookctl uninstall`: removes exactly what setup added; the user's own settings go back to what they were.
package enum UninstallCommand: Command {
    package static let path = ["uninstall"]
    package static let spec = CommandSpec(path: path, summary: "Remove exactly what setup added.",
        usage: "[--agents LIST] [--dry-run] [--json] [-q] [--width N]",
        discussion: """
        Removes hookctl's hooks from every agent's settings (or only the named agents') and, when no
        agent is named, the generated hook script. Settings files hookctl did not otherwise change get
        their exact previous bytes back. The config file (with your sinks) is kept.
        """,
        options: [Options.agents, SetupChangeOptions.dryRun, SetupChangeOptions.json, Options.quiet, SetupChangeOptions.width])

    package struct Options: CommandOptions {
        package static let agents = Option<String>("agents", "LIST", repeatable: true, completes: .agents, help: "Only these agents (comma-separated).")
        package static let quiet = Flag("quiet", short: "q", help: "Print only errors.")

        package var change: SetupChangeOptions

        package init(parsing arguments: ParsedArguments) throws {
            change = try SetupChangeOptions(arguments, agents: Self.agents, quiet: Self.quiet)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let engine = SetupEngine(environment: context.environment, paths: context.paths())
        let report = try engine.uninstall(agents: options.change.agents, dryRun: options.change.dryRun)
        if options.change.json {
            context.printJSON(report.json, pretty: true)
        } else {
            if !options.change.quiet {
                SetupOutput.print(report, engine: engine, context: context, width: options.change.width, uninstall: true)
            }
            for agent in report.agents where agent.error != nil { context.printError(agent.reason ?? "") }
        }
        return report.exitCode
    }
}
