/// `hookctl doctor`: checks the binary, config, each agent's hooks, tmux, the sinks (reachability only,
/// nothing is sent) and the outbox; says how to fix each problem; exits 78 when the config is broken,
/// 69 when anything else is.
public enum DoctorCommand: Command {
    public static let spec = CommandSpec(
        path: ["doctor"], summary: "Check the binary, config, agent hooks, tmux and sinks, and say how to fix each problem.",
        usage: "[--json] [-q] [--width N]",
        discussion: "Nothing is sent: sinks are only checked for reachability. Exit status 78 when the config is broken, 69 when something else is, 0 otherwise (warnings included).",
        options: [.flag("json", help: "Print the checks as JSON."),
                  .flag("quiet", short: "q", help: "Only print problems (warnings and failures)."),
                  .value("width", "N", help: "Fit the output to N columns (default: COLUMNS, the terminal, or 80).")])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let checks = Doctor(environment: context.environment, paths: context.paths(arguments)).run()
        let broken = checks.contains { $0.status == .broken }
        if arguments.flag("json") {
            var object = JSONObject()
            object["ok"] = .bool(!broken)
            object["checks"] = .array(checks.map(\.json))
            context.printJSON(.object(object), pretty: true)
        } else {
            context.print(HumanViews.doctor(checks, layout: context.layout(width: try arguments.int("width")),
                                            quiet: arguments.flag("quiet")))
        }
        guard broken else { return .ok }
        return checks.contains { $0.status == .broken && $0.name == "config" } ? .config : .unavailable
    }
}
