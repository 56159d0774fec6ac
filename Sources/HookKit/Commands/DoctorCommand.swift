/// `hookctl doctor`: checks the binary, config, each agent's hooks, tmux, the sinks (reachability only,
/// nothing is sent) and the outbox; says how to fix each problem; exits 78 when the config is broken,
/// 69 when anything else is.
public enum DoctorCommand: Command {
    public static let spec = CommandSpec(
        path: ["doctor"], summary: "Check the binary, config, agent hooks, tmux and sinks, and say how to fix each problem.",
        usage: "[--json]",
        discussion: "Nothing is sent: sinks are only checked for reachability. Exit status 78 when the config is broken, 69 when something else is, 0 otherwise (warnings included).",
        options: [.flag("json", help: "Print the checks as JSON.")])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let checks = Doctor(environment: context.environment, paths: context.paths(arguments)).run()
        let broken = checks.contains { $0.status == .broken }
        if arguments.flag("json") {
            var object = JSONObject()
            object["ok"] = .bool(!broken)
            object["checks"] = .array(checks.map(\.json))
            context.printJSON(.object(object), pretty: true)
        } else {
            for check in checks {
                let mark: String
                switch check.status {
                case .ok: mark = "ok  "
                case .info: mark = "--  "
                case .warning: mark = "warn"
                case .broken: mark = "FAIL"
                }
                // Wrapped to fit an 80-column terminal, continuation lines under the message column.
                let indent = String(repeating: " ", count: 22)
                let message = Text.wrap(check.message, width: 58)
                context.print("\(mark)  \(SetupOutput.pad(check.name, 16))\(message[0])")
                message.dropFirst().forEach { context.print(indent + $0) }
                // A fix is a command to paste: never wrapped, whatever its length.
                if let fix = check.fix, check.status != .ok { context.print(indent + "fix: " + fix) }
            }
            let warnings = checks.filter { $0.status == .warning }.count
            context.print(broken ? "\nSomething is broken: see the FAIL lines above."
                : warnings > 0 ? "\nNothing is broken, but see the \(warnings) warn line\(warnings == 1 ? "" : "s") above." : "\nNo problems.")
        }
        guard broken else { return .ok }
        return checks.contains { $0.status == .broken && $0.name == "config" } ? .config : .unavailable
    }
}
