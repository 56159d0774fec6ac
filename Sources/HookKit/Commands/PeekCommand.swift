/// `hookctl peek`: what a board agent's pane shows now, as plain text, without attaching.
public enum PeekCommand: Command {
    public static let defaultLines = 40
    public static let mostLines = 5000

    public static let spec = CommandSpec(
        path: ["peek"], summary: "Show an agent's tmux pane as text (the screen and recent history).",
        usage: "TARGET | --next [--lines N] [--json]",
        discussion: """
        TARGET is an agent on the board: its key (claude:<session id>), its session id, or a tmux target
        (session, session:window, %pane) where exactly one agent runs. --next takes the agent waiting
        longest for input. Prints the visible screen plus up to N lines of history, wrapped lines joined,
        colours and control characters removed, trailing blank lines trimmed. Only panes recorded on the
        board are read, and only while they run the recorded agent (else exit 69). --json prints
        {"key", "agent": {board entry}, "lines": [...], "menu": [{"n", "label", "focused"}] | null},
        menu being the numbered options a dialog shows now.
        """,
        options: [
            .flag("next", help: "The agent that has waited longest for input."),
            .value("lines", "N", help: "Lines of history above the screen (default 40, at most 5000)."),
            .flag("json", help: "Print one JSON document (for apps)."),
        ],
        positionals: [("TARGET", "An agent key, session id, or tmux target.")])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let history = try arguments.int("lines") ?? defaultLines
        guard (0...mostLines).contains(history) else {
            throw UsageError(message: "--lines must be from 0 to \(mostLines), got \(history)", command: spec.path)
        }
        let session = try AnswerSession.open(arguments, context: context, command: spec.path)
        let lines = try session.capture(history: history)
        let menu = PaneText.menu(Array(lines.suffix(60)), expected: session.recordedLabels)
        if arguments.flag("json") {
            context.printJSON(.object(JSONObject([
                ("key", .string(session.entry.key)),
                ("agent", session.entryJSON),
                ("lines", .array(lines.map(JSONValue.string))),
                ("menu", menu.map { items in .array(items.map(AnswerSession.menuJSON)) } ?? .null),
            ])))
            return .ok
        }
        var text = lines.map(AnswerText.forTerminal).joined(separator: "\n")
        if !text.isEmpty { text += "\n" }
        context.standardOutput.write(text)
        return .ok
    }
}
