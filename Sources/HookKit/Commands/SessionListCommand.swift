/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum SessionListCommand: Command {
    public static let spec = CommandSpec(path: ["session", "list"], summary: "List the tmux server's sessions, marking the ones hookctl manages.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
