/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum TestCommand: Command {
    public static let spec = CommandSpec(path: ["test"], summary: "Send a test event through the sinks and report each result.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
