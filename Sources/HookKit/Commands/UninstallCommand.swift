/// Placeholder until its issue lands: answers with a clear "not available yet" error.
public enum UninstallCommand: Command {
    public static let spec = CommandSpec(path: ["uninstall"], summary: "Remove exactly what setup added.")
    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        context.printError("'hookctl \(spec.fullName)' is not available in this build yet")
        return .unavailable
    }
}
