/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum DoctorCommand: Command {
    public static let spec = CommandSpec(path: ["doctor"], summary: "Check the binary, config, agent hooks, tmux and sinks, and say how to fix each problem.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
