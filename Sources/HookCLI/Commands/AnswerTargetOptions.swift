/// TARGET or `--next`, as `peek` and `reply` take them: the board agent a command line names.
package struct AnswerTargetOptions: Sendable {
    package static let next = Flag("next", help: "The agent that has waited longest for input.")

    /// The agent named on the command line; nil: `--next`, the one that has waited longest.
    package var target: String?

    /// `hasText`: whether a second positional (reply's TEXT) may follow the target.
    package init(_ arguments: ParsedArguments, command: [String], hasText: Bool = false) throws {
        let next = arguments.flag(Self.next)
        if next, arguments.positionals.count > (hasText ? 1 : 0) {
            throw UsageError(message: "give either TARGET or --next, not both", command: command)
        }
        target = next ? nil : arguments.positionals.first
        if !next, target == nil {
            throw UsageError(message: "name the agent: TARGET (its tmux pane such as %7, or claude:SESSION_ID; 'hookctl status' "
                             + "lists them) or --next, the one waiting longest", command: command)
        }
    }

    /// The agent on another host, when TARGET is `HOST:TARGET` for a host of the config, or `--next`
    /// finds the longest-waiting agent there; nil: on this host.
    package func remote(context: CommandContext) throws -> RemoteTarget? {
        guard let target else { return try RemoteTarget.next(context: context) }
        return try RemoteTarget.route(target, context: context)
    }

    /// Reads the board, resolves the agent and checks its pane.
    package func open(context: CommandContext) throws -> AnswerSession {
        try AnswerSession.open(target: target, paths: context.paths(), environment: context.environment, warn: context.warn)
    }
}
