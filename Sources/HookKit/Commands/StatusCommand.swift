/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum StatusCommand: Command {
    public static let spec = CommandSpec(path: ["status"], summary: "The agent board: every agent session and what it needs.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
