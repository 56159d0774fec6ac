/// `hookctl doctor`: checks the binary, config, each agent's hooks, tmux, the sinks (reachability only,
/// nothing is sent) and the outbox; says how to fix each problem; exits 78 when the config is broken,
/// 69 when anything else is.
package enum DoctorCommand: Command {
    package static let path = ["doctor"]
    package static let spec = CommandSpec(path: path, summary: "Check the binary, config, agent hooks, tmux and sinks, and say how to fix each problem.",
        usage: "[--json] [-q] [--width N]",
        discussion: "Nothing is sent: sinks are only checked for reachability. Exit status 78 when the config is broken, 69 when something else is, 0 otherwise (warnings included).",
        options: [Options.json, Options.quiet, Options.width])

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print the checks as JSON.")
        package static let quiet = Flag("quiet", short: "q", help: "Only print problems (warnings and failures).")
        package static let width = Option.width()

        package var json: Bool
        package var quiet: Bool
        package var width: Int?

        package init(parsing arguments: ParsedArguments) throws {
            json = arguments.flag(Self.json)
            quiet = arguments.flag(Self.quiet)
            width = try arguments.value(Self.width)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let checks = Doctor(environment: context.environment, paths: context.paths()).run()
        let broken = checks.contains { $0.status == .broken }
        if options.json {
            var object = JSONObject()
            object["ok"] = .bool(!broken)
            object["checks"] = .array(checks.map(\.json))
            context.printJSON(.object(object), pretty: true)
        } else {
            context.print(HumanViews.doctor(Doctor.summarizingAbsentAgents(checks), layout: context.layout(width: options.width),
                                            quiet: options.quiet))
        }
        guard broken else { return .ok }
        return checks.contains { $0.status == .broken && $0.name == "config" } ? .config : .unavailable
    }
}
