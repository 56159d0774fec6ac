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
        options: [
            .value("agents", "LIST", repeatable: true, help: "Only these agents (comma-separated)."),
            .flag("dry-run", help: "Show the changes as diffs and write nothing."),
            .flag("json", help: "Print the result as JSON."),
            .flag("quiet", short: "q", help: "Print only errors."),
            .value("width", "N", help: "Fit the output to N columns (default: COLUMNS, the terminal, or 80)."),
        ])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let engine = SetupEngine(environment: context.environment, paths: context.paths(arguments))
        let report = try engine.uninstall(agents: arguments.list("agents"), dryRun: arguments.flag("dry-run"))
        if arguments.flag("json") {
            context.printJSON(report.json, pretty: true)
        } else {
            if !arguments.flag("quiet") {
                SetupOutput.print(report, engine: engine, context: context, width: try arguments.int("width"), uninstall: true)
            }
            for agent in report.agents where agent.error != nil { context.printError(agent.reason ?? "") }
        }
        return report.exitCode
    }
}
