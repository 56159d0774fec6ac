/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum SessionEnsureCommand: Command {
    public static let spec = CommandSpec(path: ["session", "ensure"], summary: "Create or reuse the phone's tmux session and print its exact target.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
