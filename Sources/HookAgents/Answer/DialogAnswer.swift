/// How `reply` answers what an agent's pane shows: a choice matched by label against the rows the
/// screen shows now (never a number or key taken from a payload), free text into the dialog's
/// free-text row, text pasted then submitted with a checked Enter. Every submission is announced to
/// `beforeSubmit` right before the key that submits it, so the board records the reply before the
/// agent can answer it (a fast `Stop` is never overwritten by the reply's own `working`).
package struct DialogAnswer {
    package var session: AnswerSession
    package var facts: AnswerFacts
    package var driver: PaneDriver
    package var warn: (String) -> Void

    /// What was pressed, for the JSON report and the event.
    package struct Picked {
        package var items: [JSONValue] = []
        package var summary = ""
        /// The answer was submitted (a single choice, a multi-select's Submit row, or Enter after TEXT).
        package var submitted = false
        package var changed = false
        package var submit: JSONValue?
        package var enter: JSONValue?
        package var cursorKeys: [String] = []
    }

    /// Keys were pressed, but the answer could not be finished: the error, and what was pressed.
    package struct ChoiceFailure: Error {
        package var error: any Error
        /// What was sent, for the event the board records.
        package var sent: String
    }

    /// The result of Enter after typed text.
    package struct EnterResult: Equatable {
        /// Enter was pressed a second time (the first left the typed text in the input).
        package var retried: Bool
        /// The screen changed after Enter: the agent took the text.
        package var confirmed: Bool

        package var json: JSONValue {
            .object(JSONObject([("sent", .bool(true)), ("retried", .bool(retried)), ("confirmed", .bool(confirmed))]))
        }
    }

    /// Answers the dialog on the pane. Each choice is a label (or a number: the recorded question's
    /// option of that number when its numbers are the screen's, else the screen's row of that number),
    /// matched against the rows the pane shows now: a numbered row by its digit when the agent's digits
    /// select, else the cursor is moved with the arrow keys, checked on the pane after each key, and
    /// Enter pressed. No menu on the pane: nothing is pressed (`noMenu`).
    package func choose(_ choices: [String], freeText: String?, beforeSubmit: (String) throws -> Void) throws -> Picked {
        let entry = session.entry
        let recorded = entry.state == .needsInput ? entry.question : nil
        let screen = PaneText.lines(try driver.capture(history: 0).text)
        guard let menu = ScreenMenu.read(Array(screen.suffix(60)), expected: session.recordedLabels) else {
            throw AnswerError.noMenu(key: entry.key)
        }
        let multi = recorded?.multiSelect ?? false
        if choices.count > 1, !multi {
            throw UsageError(message: "several --choice only for a question that allows several answers", command: ["reply"])
        }
        if multi, facts.digitSelects != true || !menu.numbered {
            throw AnswerError.keysUnknown(key: entry.key, what: "how \(Event.displayName(entry.agent)) toggles the options of a multi-select question")
        }
        if let count = recorded?.count, count > 1 {
            warn("the dialog holds \(count) questions: this answers the one on the pane; look with 'hookctl peek' for the next")
        }
        var picked = Picked()
        // The wait ends as soon as the cursor moves: a long one costs only when it does not (a slow machine).
        var cursor = DialogCursor(driver: driver, settle: max(facts.enterCheckDelay, 1.0))
        var labels: [String] = []
        for (index, choice) in choices.enumerated() {
            let row = try rowFor(choice, menu: menu, recorded: recorded)
            let takesText = facts.freeTextLabels.contains { PaneText.matches(row.label, $0) != .none }
            if freeText != nil, !takesText {
                throw UsageError(message: "TEXT goes with --choice only for the free-text option ("
                                 + facts.freeTextLabels.map(AnswerText.forTerminal).joined(separator: ", ")
                                 + "), not '\(AnswerText.forTerminal(row.label))'; send TEXT in another reply",
                                 command: ["reply"])
            }
            if index > 0 { sleepSeconds(0.1) }
            let shown = menu.numbered ? "\(row.n). \(row.label)" : row.label
            labels.append(shown)
            var item = JSONObject([("label", .string(row.label)), ("matched_on", .string("pane"))])
            if menu.numbered { item["n"] = .int(row.n) }
            // The last key of a single choice submits it, unless free text follows.
            let submits = !multi && freeText == nil
            if menu.numbered, facts.digitSelects == true {
                if submits { try beforeSubmit("Answered: " + shown) }
                let (pressed, reached) = try pressDigit(row, menu: menu, submits: submits, takesText: freeText != nil)
                item["pressed"] = pressed.count == 1 ? .string(pressed[0]) : .array(pressed.map(JSONValue.string))
                if freeText != nil, !reached {
                    // The free-text field is not focused: a paste into the list would be read as keys
                    // (its opening ESC cancels the dialog), so nothing more is sent.
                    throw ChoiceFailure(error: AnswerError.cursorNotReached(key: entry.key, row: row.label),
                                        sent: "Pressed: " + pressed.joined(separator: " "))
                }
            } else {
                let before = cursor.pressed.count
                let reached = try cursor.move(to: { $0.label == row.label || ($0.n != nil && $0.n == (menu.numbered ? row.n : nil)) },
                                              key: { focus in menu.numbered ? DialogCursor.toward(row.n, from: focus)
                                                  : DialogCursor.toward(row: row, in: menu, from: focus) },
                                              limit: menu.rows.count + 2)
                picked.cursorKeys = cursor.pressed
                guard reached != nil else {
                    let error = AnswerError.cursorNotReached(key: entry.key, row: row.label)
                    if cursor.pressed.isEmpty { throw error }
                    throw ChoiceFailure(error: error, sent: "Pressed: " + cursor.pressed.joined(separator: " "))
                }
                if submits || freeText != nil {
                    if submits { try beforeSubmit("Answered: " + shown) }
                    try driver.press("Enter")
                }
                item["pressed"] = .array(cursor.pressed[before...].map(JSONValue.string)
                                         + (submits || freeText != nil ? [.string("Enter")] : []))
            }
            picked.items.append(.object(item))
        }
        picked.summary = labels.joined(separator: ", ")
        picked.submitted = !multi
        if let freeText {
            // The free-text row has the focus now: the text goes in as a reply's does.
            _ = waitForChange(from: screen, within: facts.enterCheckDelay)
            try driver.paste(freeText)
            sleepSeconds(facts.enterDelay)
            try beforeSubmit("Answered: " + picked.summary + ": " + Text.truncate(Text.singleLine(freeText), characters: 80))
            let enter = try pressEnterChecked(typed: freeText)
            picked.enter = enter.json
            picked.changed = enter.confirmed
            picked.submitted = true
            return picked
        }
        if multi {
            guard let submit = facts.multiSelectSubmit else {
                warn("several answers may be chosen: the options are toggled, not submitted, since how "
                     + "\(Event.displayName(entry.agent)) submits them is not known; submit with --key")
                picked.changed = waitForChange(from: screen, within: facts.enterCheckDelay)
                return picked
            }
            _ = waitForChange(from: screen, within: facts.enterCheckDelay)
            let before = cursor.pressed.count
            let isSubmit = { (focus: PaneText.Focus) in focus.n == nil && submit.rows.contains { PaneText.matches(focus.label, $0) != .none } }
            let reached = try cursor.move(to: isSubmit, key: { _ in submit.move }, limit: menu.rows.count + 4)
            picked.cursorKeys = cursor.pressed
            guard let row = reached else {
                throw ChoiceFailure(error: AnswerError.submitNotReached(key: entry.key, rows: submit.rows),
                                    sent: "Toggled: " + picked.summary + "; not submitted")
            }
            let shown = PaneText.lines(try driver.capture(history: 0).text)
            try beforeSubmit("Answered: " + picked.summary)
            try driver.press(submit.press)
            picked.changed = waitForChange(from: shown, within: facts.enterCheckDelay)
            picked.submit = .object(JSONObject([("row", .string(row.label)),
                                                ("pressed", .array((cursor.pressed[before...] + [submit.press]).map(JSONValue.string))),
                                                ("confirmed", .bool(picked.changed))]))
            picked.submitted = true
            return picked
        }
        picked.changed = waitForChange(from: screen, within: facts.enterCheckDelay)
        return picked
    }

    /// Presses a numbered row's digit and checks the screen: the dialog gone (the digit selected it),
    /// or the cursor on that row. Claude Code 2.1.332 reads keys in a dialog's first moments as moves
    /// only, or not at all (observed): a digit that only moved the cursor to the row is followed by
    /// Enter, which selects the focused row, now known to be the wanted one; a digit that did nothing
    /// is pressed once more. The keys pressed, in order, and whether the row was reached.
    package func pressDigit(_ row: PaneText.MenuItem, menu: ScreenMenu, submits: Bool, takesText: Bool) throws -> (pressed: [String], reached: Bool) {
        var pressed: [String] = []
        let screenBefore = PaneText.lines(try driver.capture(history: 0).text)
        for _ in 0..<2 {
            try driver.type(digits: String(row.n))
            pressed.append(String(row.n))
            let settle = max(facts.enterCheckDelay, 0.6)
            // Wait for the screen to change beyond the cursor's place (the row was selected or toggled).
            let outcome: Bool? = driver.poll(within: settle) {
                guard let lines = try? PaneText.lines(driver.capture(history: 0).text) else { return nil }
                return DialogAnswer.dialogPart(lines) != DialogAnswer.dialogPart(screenBefore) ? true : nil
            }
            if outcome == true { return (pressed, true) }
            if try focusIs(row, in: menu) {
                guard submits, !takesText else { return (pressed, true) }
                try driver.press("Enter")
                pressed.append("Enter")
                return (pressed, true)
            }
        }
        return (pressed, false)
    }

    /// The dialog on a screen, from its first numbered row down, cursor glyphs blanked: two screens
    /// whose dialog parts are equal show the same dialog, unanswered (a spinner above it may turn).
    /// With no numbered row, the whole screen.
    package static func dialogPart(_ lines: [String]) -> [String] {
        guard let first = PaneText.line(of: 1, in: lines) else { return withoutCursor(lines) }
        return withoutCursor(Array(lines[first...]))
    }

    /// The screen with the dialog's cursor glyphs blanked: two screens that differ only in where the
    /// cursor stands are the same dialog, unanswered.
    package static func withoutCursor(_ lines: [String]) -> [String] {
        lines.map { line in
            var rest = Substring(line)
            var lead = ""
            while let first = rest.first, first == " " || first == "│" || first == "┃" { lead.append(first); rest = rest.dropFirst() }
            guard let first = rest.first, PaneText.cursorGlyphs.contains(first) else { return line }
            return lead + " " + rest.dropFirst()
        }
    }

    /// Whether the dialog's cursor rests on `row` now.
    package func focusIs(_ row: PaneText.MenuItem, in menu: ScreenMenu) throws -> Bool {
        let lines = PaneText.lines(try driver.capture(history: 0).text)
        guard let now = ScreenMenu.read(Array(lines.suffix(60))) else { return false }
        return now.rows.first(where: \.focused).map { $0.n == row.n } ?? false
    }

    /// The screen row a choice names. A number is the recorded question's option of that number (as its
    /// push showed it), found on the screen by its label; else the screen's row of that number.
    package func rowFor(_ choice: String, menu: ScreenMenu, recorded: Question?) throws -> PaneText.MenuItem {
        guard let number = Int(choice), choice.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return try menu.find(choice, freeTextLabels: facts.freeTextLabels)
        }
        // The number the push showed means that option, found by its label wherever the screen has it now.
        if let option = recorded?.options.first(where: { $0.n == number }) {
            return try menu.find(option.label, freeTextLabels: facts.freeTextLabels)
        }
        guard menu.numbered, let row = menu.rows.first(where: { $0.n == number }) else {
            throw AnswerError.choiceNotShown(choice: choice, options: menu.listed)
        }
        return row
    }

    /// Enter after typed text: captured before, pressed, compared after. Pressed once more only when
    /// the screen stayed exactly as it was for twice the agent's check delay and shows no dialog (the
    /// Enter was swallowed, not slow): a second Enter never lands in a dialog the first one opened.
    package func pressEnterChecked(typed: String) throws -> EnterResult {
        let before = try driver.captureThenEnter()
        if waitForChange(fromRaw: before, within: facts.enterCheckDelay * 2) { return EnterResult(retried: false, confirmed: true) }
        let lines = PaneText.lines(try driver.capture(history: 0).text)
        guard ScreenMenu.read(Array(lines.suffix(60))) == nil || ScreenMenu.read(Array(PaneText.lines(before).suffix(60))) != nil
        else { return EnterResult(retried: false, confirmed: false) }
        let now = try driver.capture(history: 0).text
        guard now == before else { return EnterResult(retried: false, confirmed: true) }
        try driver.press("Enter")
        return EnterResult(retried: true, confirmed: waitForChange(fromRaw: before, within: facts.enterCheckDelay))
    }

    /// Whether the pane's screen differs from `lines` within `seconds` (read every 30 ms).
    package func waitForChange(from lines: [String], within seconds: Double) -> Bool {
        driver.poll(within: seconds) {
            (try? driver.capture(history: 0).text).flatMap { PaneText.lines($0) != lines ? true : nil }
        } ?? false
    }

    package func waitForChange(fromRaw text: String, within seconds: Double) -> Bool {
        driver.poll(within: seconds) {
            (try? driver.capture(history: 0).text).flatMap { $0 != text ? true : nil }
        } ?? false
    }
}
