/// `hookctl present-watch`: started by notify; pushes held questions once you leave the keyboard.
package enum PresentWatchCommand: Command {
    package static let path = ["present-watch"]
    package static let spec = CommandSpec(path: path, summary: "Push questions held while you were at the keyboard once you leave (notify starts it).",
        usage: "",
        discussion: """
        A question an agent asks while you sit at its tmux session (attached, typing within quiet.present)
        is recorded with "quiet": "present" and held. This watcher, one per user, checks each held question
        every few seconds: answered (the session left needs_input) or gone, it is dropped; you detached or
        stopped typing for quiet.present, it is pushed then. It exits when nothing is held.
        """)

    package struct Options: CommandOptions {
        package init(parsing arguments: ParsedArguments) throws {}
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        PresenceHold.watch(paths: context.paths(), environment: context.environment)
        return .ok
    }
}
