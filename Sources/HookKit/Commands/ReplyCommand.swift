/// `hookctl reply`: answers a board agent by typing into its exact pane: text as one paste then
/// Enter, a numbered option matched by its label, or allowlisted keys.
enum ReplyCommand: Command {
    /// The most text `reply` types (an argument or standard input).
    static let textLimit = 64 << 10
    static let mostKeys = 16
    /// How long a dialog stands before a reply types into it (from the hook that reported it).
    static let dialogSettle = 0.8
    /// How the event of a text reply begins (`Replied: …`): the board's pane check tells it from a choice.
    static let textReplyPrefix = "Replied: "

    static let path = ["reply"]
    static let spec = CommandSpec(
        path: path, summary: "Answer an agent: type text, pick an option, or press keys in its pane.",
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

    struct Options: CommandOptions {
        static let key = Option<String>("key", "KEY", repeatable: true, help: "Press KEY (after TEXT, if any); repeat for several.")
        static let choice = Option<String>("choice", "N|LABEL", repeatable: true, help: "Pick the option with this label or recorded number.")
        static let noEnter = Flag("no-enter", help: "Type TEXT without pressing Enter.")
        static let json = Flag("json", help: "Print what was sent as one JSON document.")
        static let raw = Flag("raw", help: "Type TEXT even when the agent would run it as a command ('!', '/').")

        var target: AnswerTargetOptions
        /// Keys by their canonical tmux names.
        var keys: [String]
        var choices: [String]
        /// TEXT as given: "-" reads standard input.
        var text: String?
        var noEnter: Bool
        var raw = false
        var json: Bool
        /// Set by the answer listener: the push channel the answer came from (`ntfy`, `telegram`).
        var channel: String?

        /// One choice for the agent `target` (a board key), as the answer listener presses it.
        init(target: String, choice: String, channel: String) {
            self.target = AnswerTargetOptions(target: target)
            keys = []
            choices = [choice]
            text = nil
            noEnter = false
            json = true
            self.channel = channel
        }

        init(parsing arguments: ParsedArguments) throws {
            func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.path) }
            keys = try arguments.all(Self.key).map { name -> String in
                guard let key = ReplyKeys.canonical(name) else {
                    throw fail("--key '\(AnswerText.forTerminal(name))' is not a key reply sends; use one of "
                               + ReplyKeys.allowed.joined(separator: " "))
                }
                return key
            }
            if keys.count > mostKeys { throw fail("at most \(mostKeys) --key") }
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
        static func check(_ text: String) throws -> String {
            guard text.utf8.count <= textLimit else { throw AnswerError.textTooLarge(limit: textLimit) }
            guard !text.isEmpty else { throw UsageError(message: "TEXT is empty; to press Enter use --key Enter", command: spec.path) }
            return text
        }
    }

    static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let keys = options.keys
        let choices = options.choices
        var text = try options.text.map { $0 == "-" ? try Options.check(readText(context.standardInput)) : $0 }
        // An answer from a push is for an agent of this host's board (its token names one), never relayed.
        if options.channel == nil, let remote = try options.target.remote(context: context) {
            // The same reply there; its text on ssh's standard input, never on a command line.
            var rest = text == nil ? [] : ["-"]
            for key in keys { rest += ["--key", key] }
            for choice in choices { rest += ["--choice", choice] }
            if options.noEnter { rest.append("--no-enter") }
            if options.raw { rest.append("--raw") }
            if options.json { rest.append("--json") }
            return try remote.relay(try remote.run("reply", rest, input: text.map { Array($0.utf8) }), json: options.json, context: context)
        }
        var session = try options.target.open(context: context)
        if let channel = options.channel { session.channel = channel }
        let entry = session.entry
        // The agent's answer facts (its manifest) matter only for text and choices: keys go as they are.
        let facts = text != nil || !choices.isEmpty ? session.facts : AnswerFacts()
        var warnings: [String] = []
        let warn = { (line: String) in
            warnings.append(line)
            context.warn(line)
        }
        if !facts.keysKnown, !choices.isEmpty {
            warn("\(Event.displayName(entry.agent))'s prompt keys are not known (its manifest "
                 + (facts == AnswerFacts() ? "has no answer facts" : "marks them unconfirmed") + "): "
                 + (facts.digitSelects == true ? "a choice's digit is pressed as its manifest's sources report"
                    : "a choice moves the cursor with the arrow keys, checked on the pane, then presses Enter")
                 + "; look with 'hookctl peek' first")
        }
        if entry.state != .needsInput, choices.isEmpty {
            warn("\(AnswerText.forTerminal(entry.key)) is \(entry.state.rawValue), not waiting for input; sending anyway")
            if entry.state == .working, text != nil, !facts.letterShortcuts.isEmpty {
                warn("\(Event.displayName(entry.agent)) takes the letters \(facts.letterShortcuts.joined(separator: " ")) "
                     + "as answers if a prompt appears while it works: check with 'hookctl peek' first")
            }
        }
        if let given = text, !options.raw, let prefix = facts.commandPrefix(of: given) {
            throw AnswerError.runsAsCommand(agent: Event.displayName(entry.agent), prefix: prefix)
        }
        if let given = text {
            let (cleaned, removed) = cleanText(given)
            if removed { warn("removed bracketed-paste markers (ESC[200~ / ESC[201~) from the text: they would end the paste early") }
            text = cleaned
        }
        // Text and keys go blind: a pane an inherited environment named must be the agent's own. A choice
        // (also a push's) presses only a row the pane shows among the recorded options, unless another
        // session recorded in that pane may show a dialog of its own there.
        try session.checkInheritedPane(choice: !choices.isEmpty)
        if let pid = try session.access.confirmWithTmux() { try session.accept(panePID: pid) }
        // Claude Code 2.1.332 ignores keys in a dialog's first moments, or takes a digit only as a move
        // (observed): a reply that comes right after the push waits until the dialog has stood a while.
        if entry.state == .needsInput {
            let wait = entry.since + dialogSettle - WallClock.nowEpoch()
            if wait > 0 { sleepSeconds(min(wait, dialogSettle)) }
        }

        let driver = session.access.driver
        let dialog = DialogAnswer(session: session, facts: facts, driver: driver, warn: warn)
        var result = JSONObject()
        // The reply is recorded right before the key that submits it: the agent's answer to it (a Stop a
        // moment later) comes after it in the log and stands.
        var event: Event?
        let recordSubmission = { (message: String) throws in
            if event == nil { event = try session.record(submitted: true, message: message) }
        }
        var confirmed = true
        var message: String
        if !choices.isEmpty {
            let picked: DialogAnswer.Picked
            do {
                picked = try dialog.choose(choices, freeText: text, beforeSubmit: recordSubmission)
            } catch let failure as DialogAnswer.ChoiceFailure {
                // Keys were pressed before the answer could be finished: the board records what was sent.
                if event == nil { _ = try? session.record(submitted: false, message: failure.sent) }
                throw failure.error
            }
            result["choice"] = .array(picked.items)
            result["confirmed"] = .bool(picked.changed)
            confirmed = picked.changed
            if let submit = picked.submit { result["submit"] = submit }
            if let enter = picked.enter {
                result["text_bytes"] = .int(text?.utf8.count ?? 0)
                result["enter"] = enter
            }
            if !picked.cursorKeys.isEmpty { result["cursor_keys"] = .array(picked.cursorKeys.map(JSONValue.string)) }
            message = (picked.submitted ? "Answered: " : "Toggled: ") + picked.summary
            if let text { message += ": " + Text.truncate(Text.singleLine(text), characters: 80) }
            if !picked.submitted { event = try session.record(submitted: false, message: message) }
        } else {
            message = ""
            if let text {
                try driver.paste(text)
                result["text_bytes"] = .int(text.utf8.count)
                message = "Typed: " + Text.truncate(Text.singleLine(text), characters: 80)
                if keys.isEmpty, !options.noEnter {
                    sleepSeconds(facts.enterDelay)
                    try recordSubmission(textReplyPrefix + Text.truncate(Text.singleLine(text), characters: 80))
                    let enter = try dialog.pressEnterChecked(typed: text)
                    result["enter"] = enter.json
                    confirmed = enter.confirmed
                    message = (enter.confirmed ? "Replied: " : "Typed (Enter not confirmed: check with 'hookctl peek'): ")
                        + Text.truncate(Text.singleLine(text), characters: 80)
                } else {
                    result["enter"] = .object(JSONObject([("sent", .bool(false))]))
                    if !keys.isEmpty { sleepSeconds(facts.enterDelay) }
                }
            }
            if !keys.isEmpty {
                // Not `joined(separator:)`: its generic form costs a conformance lookup (~160 K instructions) at first use.
                var pressed = "Pressed:"
                for key in keys { pressed += " " + key }
                message += (message.isEmpty ? "" : "; ") + pressed
                if keys.contains(where: ReplyKeys.submits) { try recordSubmission(message) }
            }
            for (index, key) in keys.enumerated() {
                if index > 0 { sleepSeconds(keys[index - 1] == "Escape" ? 0.1 : 0.03) }
                guard index == keys.count - 1, event == nil else {
                    try driver.press(key)
                    continue
                }
                // The last key of a reply that submits nothing (its event is `info`, no change of state):
                // recorded while tmux sends it, not after, so the reply takes no longer than its tmux call.
                let pressing = try driver.startPress(key)
                do {
                    event = try session.record(submitted: false, message: message)
                } catch {
                    _ = try? pressing.finish()
                    throw error
                }
                do { _ = try pressing.finish() } catch {
                    context.warn("the reply was recorded as \(AnswerText.forTerminal(message)) while tmux sent the key, which failed")
                    throw error
                }
            }
            if !keys.isEmpty { result["keys"] = .array(keys.map(JSONValue.string)) }
            if event == nil { event = try session.record(submitted: false, message: message) }
        }
        result["confirmed"] = .bool(confirmed)
        if options.json {
            result["key"] = .string(entry.key)
            result["agent"] = session.entryJSON
            if let event {
                result["event"] = .object(JSONObject([("id", .string(event.id)), ("seq", event.seq.map(JSONValue.int) ?? .null),
                                                      ("kind", .string(event.kind.rawValue))]))
            }
            result["warnings"] = .array(warnings.map(JSONValue.string))
            if text != nil || !choices.isEmpty { result["prompt_keys_known"] = .bool(facts.keysKnown) }
            context.printJSON(.object(result))
        } else {
            context.print("\(AnswerText.forTerminal(entry.key)) (\(AnswerText.forTerminal(BoardView.place(entry)))): "
                          + AnswerText.forTerminal(message))
        }
        return .ok
    }

    /// Standard input as the reply, at most `textLimit` bytes.
    static func readText(_ fd: Int32) throws -> String {
        // Waits for input rather than read once: standard input may be non-blocking (EAGAIN).
        let input = FileDescriptor(rawValue: fd)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count: Int?
            do throws(Errno) { count = try input.read(into: &buffer, until: nil) } catch { throw error.at("standard input") }
            guard let count, count > 0 else { break }
            bytes += buffer[0..<count]
            guard bytes.count <= textLimit else { throw AnswerError.textTooLarge(limit: textLimit) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw AnswerError.textNotUTF8 }
        // A here-string or echo ends with one newline; it is not part of the answer.
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// CR LF and CR become LF (one paste, newlines inside it); the bracketed-paste end and start
    /// markers are removed: inside a paste they would end it and turn the rest into keystrokes.
    static func cleanText(_ text: String) -> (String, Bool) {
        var cleaned = text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
        var removed = false
        for marker in ["\u{1B}[200~", "\u{1B}[201~"] where cleaned.contains(marker) {
            cleaned = cleaned.replacing(marker, with: "")
            removed = true
        }
        return (cleaned, removed)
    }
}
