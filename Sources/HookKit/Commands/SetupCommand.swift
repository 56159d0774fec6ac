/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum SetupCommand: Command {
    public static let spec = CommandSpec(path: ["setup"], summary: "Install the agents' hooks, gated on SSHIDO_SESSION, and write the config.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
