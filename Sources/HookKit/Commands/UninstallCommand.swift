/// `hookctl uninstall`: removes exactly what setup added; the user's own settings go back to what they were.
public enum UninstallCommand: Command {
    public static let spec = CommandSpec(
        path: ["uninstall"], summary: "Remove exactly what setup added.",
        usage: "[--agents LIST] [--dry-run] [--json] [-q] [--width N]",
        discussion: """
        Removes hookctl's hooks from every agent's settings (or only the named agents') and, when no
        agent is named, the generated hook script. Settings files hookctl did not otherwise change get
        their exact previous bytes back. The config file (with your sinks) is kept.
        """,
        options: [Options.agents, Options.dryRun, Options.json, Options.quiet, Options.width])

    struct Options: CommandOptions {
        static let agents = Option<String>("agents", "LIST", repeatable: true, completes: .agents, help: "Only these agents (comma-separated).")
        static let dryRun = Flag("dry-run", help: "Show the changes as diffs and write nothing.")
        static let json = Flag("json", help: "Print the result as JSON.")
        static let quiet = Flag("quiet", short: "q", help: "Print only errors.")
        static let width = Option.width()

        var agents: [String]?
        var dryRun: Bool
        var json: Bool
        var quiet: Bool
        var width: Int?
        var config: String?

        init(parsing arguments: ParsedArguments) throws {
            agents = arguments.list(Self.agents)
            dryRun = arguments.flag(Self.dryRun)
            json = arguments.flag(Self.json)
            quiet = arguments.flag(Self.quiet)
            width = try arguments.value(Self.width)
            config = arguments.config
        }
    }

    static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let engine = SetupEngine(environment: context.environment, paths: context.paths(config: options.config))
        let report = try engine.uninstall(agents: options.agents, dryRun: options.dryRun)
        if options.json {
            context.printJSON(report.json, pretty: true)
        } else {
            if !options.quiet {
                SetupOutput.print(report, engine: engine, context: context, width: options.width, uninstall: true)
            }
            for agent in report.agents where agent.error != nil { context.printError(agent.reason ?? "") }
        }
        return report.exitCode
    }
}
