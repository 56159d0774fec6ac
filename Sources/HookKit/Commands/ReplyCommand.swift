/// `hookctl reply`: answers a board agent by typing into its exact pane: text as one paste then
/// Enter, a numbered option matched by its label, or allowlisted keys.
enum ReplyCommand: Command {
    /// The most text `reply` types (an argument or standard input).
    static let textLimit = 64 << 10
    static let mostKeys = 16

    static let spec = CommandSpec(
        path: ["reply"], summary: "Answer an agent: type text, pick an option, or press keys in its pane.",
        usage: "TARGET | --next [TEXT | -] [--key KEY]... [--choice N|LABEL]... [--no-enter] [--json]",
        discussion: """
        TARGET is an agent on the board, as for 'peek'. TEXT (or - for standard input, at most 64 KiB)
        is pasted as one bracketed paste through a private tmux buffer loaded from standard input, so
        nothing in it is read as tmux syntax or key names; then, after the agent's pause, Enter is
        pressed on its own and pressed once more if the pane did not change. --choice answers the
        question on screen: a label (or its beginning) or the number of the recorded question's option,
        matched against the options the pane shows now, whose digit is pressed (no Enter: a digit
        selects at once; for an agent whose digits are not known to select, the cursor is moved with
        the arrow keys, checked on the pane, then Enter). Several --choice toggle the options of a
        multi-select question, then its Submit row is pressed. --choice Other TEXT picks the
        free-text option and types TEXT into it as a reply. --key sends keys: Enter, Escape, Tab, BTab, Space, BSpace, Up, Down, Left,
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
            noEnter = arguments.flag(Self.noEnter)
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
        let session = try options.target.open(context: context)
        let entry = session.entry
        let facts = session.facts
        var warnings: [String] = []
        if !facts.keysKnown {
            warnings.append("\(Event.displayName(entry.agent))'s prompt keys are not known (its manifest "
                            + (facts == AnswerFacts() ? "has no answer facts" : "marks them unconfirmed") + "): "
                            + (facts.digitSelects == true ? "a choice's digit is pressed as its manifest's sources report"
                               : "a choice moves the cursor with the arrow keys, checked on the pane, then presses Enter")
                            + "; look with 'hookctl peek' first")
        }
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
            let picked: Picked
            do {
                picked = try choose(choices, freeText: text, session: session, facts: facts, driver: driver, warnings: &warnings)
            } catch let failure as ChoiceFailure {
                // Keys were pressed before the answer could be finished: the board records what was sent.
                _ = try? session.record(submitted: false, message: failure.sent)
                throw failure.error
            }
            result["choice"] = .array(picked.items)
            result["confirmed"] = .bool(picked.changed)
            if let submit = picked.submit { result["submit"] = submit }
            if let enter = picked.enter {
                result["text_bytes"] = .int(text?.utf8.count ?? 0)
                result["enter"] = enter
            }
            if !picked.cursorKeys.isEmpty { result["cursor_keys"] = .array(picked.cursorKeys.map(JSONValue.string)) }
            submitted = picked.submitted
            message = (submitted ? "Answered: " : "Toggled: ") + picked.summary
            if let text { message += ": " + Text.truncate(Text.singleLine(text), characters: 80) }
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
            result["prompt_keys_known"] = .bool(facts.keysKnown)
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
        /// The answer was submitted (a single choice, a multi-select's Submit row, or Enter after TEXT).
        var submitted = false
        var changed = false
        var submit: JSONValue?
        var enter: JSONValue?
        var cursorKeys: [String] = []
    }

    /// Keys were pressed, but the answer could not be finished: the error, and what was pressed.
    struct ChoiceFailure: Error {
        var error: any Error
        /// What was sent, for the event the board records.
        var sent: String
    }

    /// Answers the question on the pane: each choice matched by label (a number means the recorded
    /// question's option of that number, else the pane's row of that number), then selected by its
    /// digit, or by the arrow keys checked on the pane when the agent's digits are not known to
    /// select; a multi-select answer is then submitted on its Submit row, and free text is typed into
    /// the free-text option with the same paste and Enter rules as a text reply.
    static func choose(_ choices: [String], freeText: String?, session: AnswerSession, facts: AnswerFacts, driver: PaneDriver,
                       warnings: inout [String]) throws -> Picked {
        let entry = session.entry
        let recorded = entry.state == .needsInput ? entry.question : nil
        let screen = PaneText.lines(try driver.capture(history: 0).text)
        let menu = PaneText.menu(Array(screen.suffix(60)), expected: session.recordedLabels)
        let multi = recorded?.multiSelect ?? false
        if choices.count > 1, !multi {
            throw UsageError(message: "several --choice only for a question that allows several answers", command: spec.path)
        }
        if multi, facts.digitSelects != true {
            throw AnswerError.keysUnknown(key: entry.key, what: "how \(Event.displayName(entry.agent)) toggles the options of a multi-select question")
        }
        if let count = recorded?.count, count > 1 {
            warnings.append("the dialog holds \(count) questions: this answers the one on the pane; look with 'hookctl peek' for the next")
            session.context.warn(warnings.last!)
        }
        var picked = Picked()
        // The wait ends as soon as the cursor moves: a long one costs only when it does not (a slow machine).
        var cursor = DialogCursor(driver: driver, settle: max(facts.enterCheckDelay, 1.0))
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
            } else if facts.digitSelects == true, let recorded,
                      let option = recorded.options.first(where: { PaneText.matches($0.label, wanted) == .exact })
                        ?? recorded.options.first(where: { PaneText.matches($0.label, wanted) == .prefix }) {
                digit = option.n
                label = option.label
                source = "recorded question"
                warnings.append("the pane shows no numbered options; pressed \(digit), the recorded question's number for '\(AnswerText.forTerminal(label))'")
                session.context.warn(warnings.last!)
            } else {
                throw AnswerError.noMenu(key: entry.key)
            }
            if freeText != nil, !facts.freeTextLabels.contains(where: { PaneText.matches(label, $0) != .none }) {
                throw UsageError(message: "TEXT goes with --choice only for the free-text option ("
                                 + facts.freeTextLabels.map(AnswerText.forTerminal).joined(separator: ", ")
                                 + "), not '\(AnswerText.forTerminal(label))'; send TEXT in another reply", command: spec.path)
            }
            if index > 0 { sleepSeconds(0.1) }
            var item = JSONObject([("label", .string(label)), ("matched_on", .string(source))])
            if facts.digitSelects == true {
                try driver.type(digits: String(digit))
                item["pressed"] = .string(String(digit))
            } else {
                // Digits are not known to select here: move the cursor to the row, checked on the pane.
                let before = cursor.pressed.count
                let reached = try cursor.move(to: { $0.n == digit && PaneText.matches($0.label, label) == .exact },
                                              key: { DialogCursor.toward(digit, from: $0) }, limit: (menu?.count ?? 0) + 2)
                picked.cursorKeys = cursor.pressed
                guard reached != nil else {
                    let error = AnswerError.cursorNotReached(key: entry.key, row: label)
                    if cursor.pressed.isEmpty { throw error }
                    throw ChoiceFailure(error: error, sent: "Pressed: " + cursor.pressed.joined(separator: " "))
                }
                item["pressed"] = .array(cursor.pressed[before...].map(JSONValue.string) + (freeText == nil ? [.string("Enter")] : []))
                if freeText == nil { try driver.press("Enter") }
            }
            labels.append("\(digit). \(label)")
            if let recordedNumber { item["recorded_n"] = .int(recordedNumber) }
            picked.items.append(.object(item))
        }
        picked.summary = labels.joined(separator: ", ")
        picked.submitted = !multi
        if let freeText {
            // The free-text option has the focus now: the text goes in as a reply's does.
            _ = waitForChange(from: screen, driver: driver, within: facts.enterCheckDelay)
            try driver.paste(freeText)
            sleepSeconds(facts.enterDelay)
            let enter = try pressEnterChecked(driver: driver, facts: facts)
            picked.enter = .object(JSONObject([("sent", .bool(true)), ("retried", .bool(enter.retried)), ("confirmed", .bool(enter.changed))]))
            picked.changed = enter.changed
            picked.submitted = true
            return picked
        }
        if multi {
            guard let submit = facts.multiSelectSubmit else {
                warnings.append("several answers may be chosen: the options are toggled, not submitted, since how "
                                + "\(Event.displayName(entry.agent)) submits them is not known; submit with --key")
                session.context.warn(warnings.last!)
                picked.changed = waitForChange(from: screen, driver: driver, within: facts.enterCheckDelay)
                return picked
            }
            _ = waitForChange(from: screen, driver: driver, within: facts.enterCheckDelay)
            let before = cursor.pressed.count
            let isSubmit = { (focus: PaneText.Focus) in focus.n == nil && submit.rows.contains { PaneText.matches(focus.label, $0) != .none } }
            let reached = try cursor.move(to: isSubmit, key: { _ in submit.move }, limit: (menu?.count ?? 0) + 4)
            picked.cursorKeys = cursor.pressed
            guard let row = reached else {
                throw ChoiceFailure(error: AnswerError.submitNotReached(key: entry.key, rows: submit.rows),
                                    sent: "Toggled: " + picked.summary + "; not submitted")
            }
            let shown = PaneText.lines(try driver.capture(history: 0).text)
            try driver.press(submit.press)
            picked.changed = waitForChange(from: shown, driver: driver, within: facts.enterCheckDelay)
            picked.submit = .object(JSONObject([("row", .string(row.label)),
                                                ("pressed", .array((cursor.pressed[before...] + [submit.press]).map(JSONValue.string))),
                                                ("confirmed", .bool(picked.changed))]))
            picked.submitted = true
            return picked
        }
        picked.changed = waitForChange(from: screen, driver: driver, within: facts.enterCheckDelay)
        return picked
    }

    /// Whether the pane's screen differs from `lines` within `seconds` (read every 30 ms).
    static func waitForChange(from lines: [String], driver: PaneDriver, within seconds: Double) -> Bool {
        driver.poll(within: seconds) {
            (try? driver.capture(history: 0).text).flatMap { PaneText.lines($0) != lines ? true : nil }
        } ?? false
    }
}
