/// `hookctl peek`: what a board agent's pane shows now, as plain text, without attaching.
package enum PeekCommand: Command {
    package static let defaultLines = 40
    package static let mostLines = 5000

    package static let path = ["peek"]
    package static let spec = CommandSpec(path: path, summary: "Show an agent's tmux pane as text (the screen and recent history).",
        usage: "TARGET | --next [--lines N] [--json]",
        discussion: """
        TARGET is an agent on the board: its key (claude:<session id>), its session id, a tmux target
        (session, session:window by index or name, %pane) where exactly one agent runs, or its project's
        name when one agent works there. --next takes the agent waiting longest for input. Prints one
        header line (agent · project · session:window · state and age), then the visible screen plus
        up to N lines of history, wrapped lines joined,
        colours and control characters removed, trailing blank lines trimmed. Only panes recorded on the
        board are read, and only while they run the recorded agent (else exit 69). --json prints
        {"key", "agent": {board entry}, "lines": [...], "menu": [{"n", "label", "focused"}] | null},
        menu being the numbered options a dialog shows now.
        """,
        options: [AnswerTargetOptions.next, Options.lines, Options.json],
        positionals: [("TARGET", "An agent key, session id, tmux target (session, session:window, %pane) or project name.")])

    package struct Options: CommandOptions {
        package static let lines = Option.int("lines", "N", help: "Lines of history above the screen (default 40, at most 5000).")
        package static let json = Flag("json", help: "Print one JSON document (for apps).")

        package var target: AnswerTargetOptions
        package var history: Int
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            history = try arguments.value(Self.lines) ?? defaultLines
            guard (0...mostLines).contains(history) else {
                throw UsageError(message: "--lines must be from 0 to \(mostLines), got \(history)", command: spec.path)
            }
            target = try AnswerTargetOptions(arguments, command: spec.path)
            json = arguments.flag(Self.json)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        if let remote = try options.target.remote(context: context) {
            let result = try remote.run("peek", ["--lines", String(options.history)] + (options.json ? ["--json"] : []))
            return try remote.relay(result, json: options.json, context: context)
        }
        let session = try options.target.open(context: context)
        if session.entry.tmux?.paneInherited == true {
            context.warn("\(AnswerText.forTerminal(session.entry.key))'s pane was named by \(Event.displayName(session.entry.agent))'s "
                         + "app-server daemon (marked '?'): with several \(Event.displayName(session.entry.agent)) sessions it may show another's screen")
        }
        let history = options.history
        let lines = try session.capture(history: history)
        let menu = PaneText.menu(Array(lines.suffix(60)), expected: session.recordedLabels)
        if options.json {
            context.printJSON(.object(JSONObject([
                ("key", .string(session.entry.key)),
                ("agent", session.entryJSON),
                ("lines", .array(lines.map(JSONValue.string))),
                ("menu", menu.map { items in .array(items.map(AnswerSession.menuJSON)) } ?? .null),
            ])))
            return .ok
        }
        let layout = context.layout(width: nil)
        context.print(BoardView.headline(session.entry, now: WallClock.nowEpoch(), width: layout.width, layout: layout))
        var text = lines.map(AnswerText.forTerminal).joined(separator: "\n")
        if !text.isEmpty { text += "\n" }
        context.standardOutput.write(text)
        return .ok
    }
}
