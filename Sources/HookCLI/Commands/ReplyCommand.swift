/// `hookctl reply`: answers a board agent by typing into its exact pane: text as one paste then
/// Enter, a numbered option matched by its label, or allowlisted keys.
package enum ReplyCommand: Command {
    package static let path = ["reply"]
    package static let spec = CommandSpec(path: path, summary: "Answer an agent: type text, pick an option, or press keys in its pane.",
        usage: "TARGET | --next [TEXT | -] [--key KEY]... [--choice N|LABEL]... [--no-enter] [--raw] [--json]",
        discussion: """
        TARGET is an agent on the board, as for 'peek'. TEXT (or - for standard input, at most 64 KiB)
        is pasted as one bracketed paste through a private tmux buffer loaded from standard input, so
        nothing in it is read as tmux syntax or key names; then, after the agent's pause, Enter is
        pressed on its own, and once more only if the screen stayed exactly as it was with no dialog
        drawn. 'Replied' is said only when the screen changed after Enter. --choice answers the dialog
        the pane shows now: a label (or its beginning), or a number as the push showed it, matched
        against the rows on the screen; a numbered row's digit is pressed (no Enter: a digit selects at
        once), an unnumbered menu's row (Claude Code's auto-mode 'No / Yes') is reached with the arrow
        keys, checked on the pane after each, then Enter. No menu on the screen: nothing is pressed and
        the exit code is 69. Several --choice toggle the options of a multi-select question, then its
        Submit row is pressed. --choice Other TEXT (or the row's own name, 'Type something.') picks the
        free-text row and types TEXT into it in the same call. --key sends keys: Enter, Escape, Tab,
        BTab, Space, BSpace, Up, Down, Left, Right, 0-9, y, n, and C-c only when named. Only panes
        recorded on the board, while they run the recorded agent (else exit 69). The reply is recorded
        as an event (agent event 'reply') right before the key that submits it, so the agent's own next
        event (its Stop) comes after it and the board follows the agent. TEXT the agent would run as a
        command instead of taking it as an answer (Codex, opencode and Gemini CLI: a leading '!' runs a
        shell command, '/' a slash command; its manifest's answer.command_prefixes) is refused (exit 65)
        unless --raw. A pane Codex's app-server daemon named (marked '?' by status: it may be another
        Codex's) gets TEXT, --key and --choice only while no other session recorded there is on the
        board (dismiss one that quit) and it is the one terminal whose foreground runs Codex (else exit
        69, pane_uncertain).
        """,
        options: [AnswerTargetOptions.next, Options.key, Options.choice, Options.noEnter, Options.raw, Options.json],
        positionals: [("TARGET", "An agent key, session id, or tmux target."), ("TEXT", "The text to type; - reads standard input.")])

    package struct Options: CommandOptions {
        package static let key = Option<String>("key", "KEY", repeatable: true, help: "Press KEY (after TEXT, if any); repeat for several.")
        package static let choice = Option<String>("choice", "N|LABEL", repeatable: true, help: "Pick the option with this label or recorded number.")
        package static let noEnter = Flag("no-enter", help: "Type TEXT without pressing Enter.")
        package static let json = Flag("json", help: "Print what was sent as one JSON document.")
        package static let raw = Flag("raw", help: "Type TEXT even when the agent would run it as a command ('!', '/').")

        package var target: AnswerTargetOptions
        /// Keys by their canonical tmux names.
        package var keys: [String]
        package var choices: [String]
        /// TEXT as given: "-" reads standard input.
        package var text: String?
        package var noEnter: Bool
        package var raw = false
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.path) }
            keys = try arguments.all(Self.key).map { name -> String in
                guard let key = ReplyKeys.canonical(name) else {
                    throw fail("--key '\(AnswerText.forTerminal(name))' is not a key reply sends; use one of "
                               + ReplyKeys.allowed.joined(separator: " "))
                }
                return key
            }
            if keys.count > Reply.mostKeys { throw fail("at most \(Reply.mostKeys) --key") }
            choices = try arguments.all(Self.choice)
            text = arguments.flag(AnswerTargetOptions.next) ? arguments.positionals.first : arguments.positionals.dropFirst().first
            noEnter = arguments.flag(Self.noEnter)
            raw = arguments.flag(Self.raw)
            json = arguments.flag(Self.json)
            if !choices.isEmpty, !keys.isEmpty {
                throw fail("--choice answers on its own; send --key in another reply")
            }
            if !choices.isEmpty, text != nil, choices.count > 1 || noEnter {
                throw fail("TEXT goes with one --choice, the free-text option (Other), and is submitted")
            }
            // Which agent first: `hookctl reply` alone lacks the target before it lacks the text.
            target = try AnswerTargetOptions(arguments, command: spec.path, hasText: true)
            if text == nil, keys.isEmpty, choices.isEmpty { throw fail("nothing to send: give TEXT, --choice or --key") }
            if let text, text != "-" { try Self.check(text) }
        }

        /// TEXT within the limit, and not empty.
        @discardableResult
        package static func check(_ text: String) throws -> String {
            guard text.utf8.count <= Reply.textLimit else { throw AnswerError.textTooLarge(limit: Reply.textLimit) }
            guard !text.isEmpty else { throw UsageError(message: "TEXT is empty; to press Enter use --key Enter", command: spec.path) }
            return text
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let keys = options.keys
        let choices = options.choices
        let text = try options.text.map { $0 == "-" ? try Options.check(Reply.readText(context.standardInput)) : $0 }
        if let remote = try options.target.remote(context: context) {
            // The same reply there; its text on ssh's standard input, never on a command line.
            var rest = text == nil ? [] : ["-"]
            for key in keys { rest += ["--key", key] }
            for choice in choices { rest += ["--choice", choice] }
            if options.noEnter { rest.append("--no-enter") }
            if options.raw { rest.append("--raw") }
            if options.json { rest.append("--json") }
            return try remote.relay(try remote.run("reply", rest, input: text.map { Array($0.utf8) }), json: options.json, context: context)
        }
        let session = try options.target.open(context: context)
        let reply = Reply(keys: keys, choices: choices, text: text, noEnter: options.noEnter, raw: options.raw)
        let outcome = try reply.perform(in: session, warn: context.warn)
        if options.json {
            context.printJSON(.object(outcome.json))
        } else {
            context.print("\(AnswerText.forTerminal(outcome.entry.key)) (\(AnswerText.forTerminal(BoardView.place(outcome.entry)))): "
                          + AnswerText.forTerminal(outcome.message))
        }
        return .ok
    }
}
