/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum NotifyCommand: Command {
    public static let spec = CommandSpec(path: ["notify"], summary: "Deliver an agent hook event to the configured sinks (called by the hooks).")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
