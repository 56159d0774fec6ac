/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum OutboxListCommand: Command {
    public static let spec = CommandSpec(path: ["outbox", "list"], summary: "List undelivered events waiting in the outbox.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
