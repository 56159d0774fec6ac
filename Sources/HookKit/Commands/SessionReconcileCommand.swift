/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum SessionReconcileCommand: Command {
    public static let spec = CommandSpec(path: ["session", "reconcile"], summary: "Pair the phone's session records (JSON on stdin) with the server's sessions.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
