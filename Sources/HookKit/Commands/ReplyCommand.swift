/// `hookctl reply`: answers a board agent by typing into its exact pane: text as one paste then
/// Enter, a numbered option matched by its label, or allowlisted keys.
public enum ReplyCommand: Command {
    /// The most text `reply` types (an argument or standard input).
    public static let textLimit = 64 << 10
    static let mostKeys = 16

    public static let spec = CommandSpec(
        path: ["reply"], summary: "Answer an agent: type text, pick an option, or press keys in its pane.",
        usage: "TARGET | --next [TEXT | -] [--key KEY]... [--choice N|LABEL] [--no-enter] [--json]",
        discussion: """
        TARGET is an agent on the board, as for 'peek'. TEXT (or - for standard input, at most 64 KiB)
        is pasted as one bracketed paste through a private tmux buffer loaded from standard input, so
        nothing in it is read as tmux syntax or key names; then, after the agent's pause, Enter is
        pressed on its own and pressed once more if the pane did not change. --choice answers the
        question on screen: a label (or its beginning) or the number of the recorded question's option,
        matched against the options the pane shows now, whose digit is pressed (no Enter: a digit
        selects at once). --key sends keys: Enter, Escape, Tab, BTab, Space, BSpace, Up, Down, Left,
        Right, 0-9, y, n, and C-c only when named. Only panes recorded on the board, while they run the
        recorded agent (else exit 69); a warning when the agent is not waiting for input. The reply is
        recorded as an event (agent event 'reply'), so the board leaves needs_input.
        """,
        options: [AnswerTargetOptions.next, Options.key, Options.choice, Options.noEnter, Options.json],
        positionals: [("TARGET", "An agent key, session id, or tmux target."), ("TEXT", "The text to type; - reads standard input.")])

    struct Options: CommandOptions {
        static let key = Option<String>("key", "KEY", repeatable: true, help: "Press KEY (after TEXT, if any); repeat for several.")
        static let choice = Option<String>("choice", "N|LABEL", repeatable: true, help: "Pick the option with this label or recorded number.")
        static let noEnter = Flag("no-enter", help: "Type TEXT without pressing Enter.")
        static let json = Flag("json", help: "Print what was sent as one JSON document.")

        var target: AnswerTargetOptions
        /// Keys by their canonical tmux names.
        var keys: [String]
        var choices: [String]
        /// TEXT as given: "-" reads standard input.
        var text: String?
        var noEnter: Bool
        var json: Bool

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
            if !choices.isEmpty, text != nil || !keys.isEmpty {
                throw fail("--choice answers on its own; send TEXT or --key in another reply")
            }
            if text == nil, keys.isEmpty, choices.isEmpty { throw fail("nothing to send: give TEXT, --choice or --key") }
            if let text, text != "-" { try Self.check(text) }
            noEnter = arguments.flag(Self.noEnter)
            json = arguments.flag(Self.json)
            target = try AnswerTargetOptions(arguments, command: spec.path, hasText: true)
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
        let session = try options.target.open(context: context)
        let entry = session.entry
        let facts = session.facts
        var warnings: [String] = []
        if entry.state != .needsInput {
            warnings.append("\(AnswerText.forTerminal(entry.key)) is \(entry.state.rawValue), not waiting for input; sending anyway")
            if entry.state == .working, text != nil, !facts.letterShortcuts.isEmpty {
                warnings.append("\(Event.displayName(entry.agent)) takes the letters \(facts.letterShortcuts.joined(separator: " ")) "
                                + "as answers if a prompt appears while it works: check with 'hookctl peek' first")
            }
        }
        if let given = text {
            let (cleaned, removed) = cleanText(given)
            if removed { warnings.append("removed bracketed-paste markers (ESC[200~ / ESC[201~) from the text: they would end the paste early") }
            text = cleaned
        }
        warnings.forEach { context.warn($0) }
        if let pid = try session.access.confirmWithTmux() { try session.accept(panePID: pid) }

        let driver = session.access.driver
        var result = JSONObject()
        var submitted = false
        var message: String
        if !choices.isEmpty {
            let picked = try choose(choices, session: session, facts: facts, driver: driver, warnings: &warnings)
            result["choice"] = .array(picked.items)
            result["confirmed"] = .bool(picked.changed)
            submitted = !picked.toggles
            message = "Answered: " + picked.summary
        } else {
            message = ""
            if let text {
                try driver.paste(text)
                result["text_bytes"] = .int(text.utf8.count)
                message = "Replied: " + Text.truncate(Text.singleLine(text), characters: 80)
                if keys.isEmpty, !options.noEnter {
                    sleepSeconds(facts.enterDelay)
                    let enter = try pressEnterChecked(driver: driver, facts: facts)
                    result["enter"] = .object(JSONObject([("sent", .bool(true)), ("retried", .bool(enter.retried)),
                                                          ("confirmed", .bool(enter.changed))]))
                    submitted = true
                } else {
                    result["enter"] = .object(JSONObject([("sent", .bool(false))]))
                    if !keys.isEmpty { sleepSeconds(facts.enterDelay) }
                }
            }
            for (index, key) in keys.enumerated() {
                if index > 0 { sleepSeconds(keys[index - 1] == "Escape" ? 0.1 : 0.03) }
                try driver.press(key)
                if ReplyKeys.submits(key) { submitted = true }
            }
            if !keys.isEmpty {
                result["keys"] = .array(keys.map(JSONValue.string))
                message += (message.isEmpty ? "" : "; ") + "Pressed: " + keys.joined(separator: " ")
            }
        }
        let event = try session.record(submitted: submitted, message: message)
        if options.json {
            result["key"] = .string(entry.key)
            result["agent"] = session.entryJSON
            result["event"] = .object(JSONObject([("id", .string(event.id)), ("seq", event.seq.map(JSONValue.int) ?? .null),
                                                  ("kind", .string(event.kind.rawValue))]))
            result["warnings"] = .array(warnings.map(JSONValue.string))
            context.printJSON(.object(result))
        } else {
            context.print("\(AnswerText.forTerminal(entry.key)) (\(AnswerText.forTerminal(BoardView.place(entry)))): "
                          + AnswerText.forTerminal(message))
        }
        return .ok
    }

    /// Standard input as the reply, at most `textLimit` bytes.
    static func readText(_ fd: Int32) throws -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= textLimit {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        guard bytes.count <= textLimit else { throw AnswerError.textTooLarge(limit: textLimit) }
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

    /// Enter after a paste: captured before, pressed, compared after; pressed once more when nothing changed.
    static func pressEnterChecked(driver: PaneDriver, facts: AnswerFacts) throws -> (retried: Bool, changed: Bool) {
        let before = try driver.captureThenEnter()
        sleepSeconds(facts.enterCheckDelay)
        if try driver.capture(history: 0).text != before { return (false, true) }
        try driver.press("Enter")
        sleepSeconds(facts.enterCheckDelay)
        return (true, try driver.capture(history: 0).text != before)
    }

    struct Picked {
        var items: [JSONValue] = []
        var summary = ""
        var toggles = false
        var changed = false
    }

    /// Presses the digit the pane shows for each choice (matched by label; a number means the recorded
    /// question's option of that number, else the pane's row of that number).
    static func choose(_ choices: [String], session: AnswerSession, facts: AnswerFacts, driver: PaneDriver,
                       warnings: inout [String]) throws -> Picked {
        let entry = session.entry
        let recorded = entry.state == .needsInput ? entry.question : nil
        let multi = recorded?.multiSelect ?? false
        if choices.count > 1, !multi {
            throw UsageError(message: "several --choice only for a question that allows several answers", command: spec.path)
        }
        let screen = PaneText.lines(try driver.capture(history: 0).text)
        let menu = PaneText.menu(Array(screen.suffix(60)), expected: session.recordedLabels)
        var picked = Picked()
        picked.toggles = multi
        var labels: [String] = []
        for (index, choice) in choices.enumerated() {
            var wanted = choice
            var recordedNumber: Int?
            if let number = Int(choice), choice.allSatisfy({ $0.isASCII && $0.isNumber }) {
                if let option = recorded?.options.first(where: { $0.n == number }) {
                    wanted = option.label
                    recordedNumber = number
                } else if let menu, let row = menu.first(where: { $0.n == number }) {
                    wanted = row.label
                } else {
                    let shown = menu.map { $0.map { "\($0.n). \(AnswerText.forTerminal($0.label))" }.joined(separator: "; ") } ?? ""
                    throw AnswerError.choiceNotShown(choice: choice, options: shown)
                }
            }
            let digit: Int
            let label: String
            var source = "pane"
            if let menu {
                let row = try PaneText.find(wanted, in: menu)
                digit = row.n
                label = row.label
            } else if let recorded, let option = recorded.options.first(where: { PaneText.matches($0.label, wanted) == .exact })
                        ?? recorded.options.first(where: { PaneText.matches($0.label, wanted) == .prefix }) {
                digit = option.n
                label = option.label
                source = "recorded question"
                warnings.append("the pane shows no numbered options; pressed \(digit), the recorded question's number for '\(AnswerText.forTerminal(label))'")
                session.context.warn(warnings.last!)
            } else {
                throw AnswerError.noMenu(key: entry.key)
            }
            if index > 0 { sleepSeconds(0.1) }
            try driver.type(digits: String(digit))
            if !facts.digitSelects, !multi { try driver.press("Enter") }
            labels.append("\(digit). \(label)")
            var item = JSONObject([("pressed", .string(String(digit))), ("label", .string(label)), ("matched_on", .string(source))])
            if let recordedNumber { item["recorded_n"] = .int(recordedNumber) }
            picked.items.append(.object(item))
        }
        picked.summary = labels.joined(separator: ", ")
        sleepSeconds(facts.enterCheckDelay)
        let after = PaneText.lines(try driver.capture(history: 0).text)
        picked.changed = after != screen
        if multi { session.context.warn("several answers may be chosen: the options are toggled; submit with the pane's Submit (e.g. --key Tab then --key Enter)") }
        return picked
    }
}
