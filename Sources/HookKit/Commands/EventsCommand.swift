/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum EventsCommand: Command {
    public static let spec = CommandSpec(path: ["events"], summary: "Print the event log, or follow it as JSON lines.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
