/// The reply algorithm: what `hookctl reply` and an answer from a push (`PushAnswer`) both do once the
/// agent's session is open (`AnswerSession`): text pasted then Enter checked, a choice matched against
/// the rows the pane shows (`DialogAnswer`), or allowlisted keys, each recorded as the reply's event
/// right before the key that submits it. No output of its own: the caller prints `Reply.Outcome`.
package struct Reply {
    /// The most text a reply types (an argument or standard input).
    package static let textLimit = 64 << 10
    package static let mostKeys = 16
    /// How long a dialog stands before a reply types into it (from the hook that reported it).
    package static let dialogSettle = 0.8
    /// How the event of a text reply begins (`Replied: …`): the board's pane check tells it from a choice.
    package static let textReplyPrefix = "Replied: "

    /// Keys by their canonical tmux names.
    package var keys: [String] = []
    package var choices: [String] = []
    /// The text to type, already read (not "-").
    package var text: String?
    package var noEnter = false
    /// Type text even when the agent would run it as a command.
    package var raw = false

    /// What a reply did: the JSON `reply --json` prints and the line it prints otherwise.
    package struct Outcome {
        package var entry: BoardEntry
        package var message: String
        package var confirmed: Bool
        package var json: JSONObject
    }

    /// Types the reply into the session's pane. `outerWarn` gets each warning as it comes (they are in
    /// the outcome's JSON too).
    package func perform(in session: AnswerSession, warn outerWarn: @escaping (String) -> Void) throws -> Outcome {
        var text = self.text
        let entry = session.entry
        // The agent's answer facts (its manifest) matter only for text and choices: keys go as they are.
        let facts = text != nil || !choices.isEmpty ? session.facts : AnswerFacts()
        var warnings: [String] = []
        let warn = { (line: String) in
            warnings.append(line)
            outerWarn(line)
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
        if let given = text, !raw, let prefix = facts.commandPrefix(of: given) {
            throw AnswerError.runsAsCommand(agent: Event.displayName(entry.agent), prefix: prefix)
        }
        if let given = text {
            let (cleaned, removed) = Self.cleanText(given)
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
            let wait = entry.since + Self.dialogSettle - WallClock.nowEpoch()
            if wait > 0 { sleepSeconds(min(wait, Self.dialogSettle)) }
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
                if keys.isEmpty, !noEnter {
                    sleepSeconds(facts.enterDelay)
                    try recordSubmission(Self.textReplyPrefix + Text.truncate(Text.singleLine(text), characters: 80))
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
                    outerWarn("the reply was recorded as \(AnswerText.forTerminal(message)) while tmux sent the key, which failed")
                    throw error
                }
            }
            if !keys.isEmpty { result["keys"] = .array(keys.map(JSONValue.string)) }
            if event == nil { event = try session.record(submitted: false, message: message) }
        }
        result["confirmed"] = .bool(confirmed)
        result["key"] = .string(entry.key)
        result["agent"] = session.entryJSON
        if let event {
            result["event"] = .object(JSONObject([("id", .string(event.id)), ("seq", event.seq.map(JSONValue.int) ?? .null),
                                                  ("kind", .string(event.kind.rawValue))]))
        }
        result["warnings"] = .array(warnings.map(JSONValue.string))
        if text != nil || !choices.isEmpty { result["prompt_keys_known"] = .bool(facts.keysKnown) }
        return Outcome(entry: entry, message: message, confirmed: confirmed, json: result)
    }

    /// Standard input as the reply, at most `textLimit` bytes.
    package static func readText(_ fd: Int32) throws -> String {
        // Waits for input rather than read once: standard input may be non-blocking (EAGAIN).
        let input = FileDescriptor(rawValue: fd)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count: Int?
            do throws(Errno) { count = try input.read(into: &buffer, until: nil) } catch { throw error.at("standard input") }
            guard let count, count > 0 else { break }
            bytes += buffer[0..<count]
            guard bytes.count <= Self.textLimit else { throw AnswerError.textTooLarge(limit: Self.textLimit) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw AnswerError.textNotUTF8 }
        // A here-string or echo ends with one newline; it is not part of the answer.
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }


    /// CR LF and CR become LF (one paste, newlines inside it); the bracketed-paste end and start
    /// markers are removed: inside a paste they would end it and turn the rest into keystrokes.
    package static func cleanText(_ text: String) -> (String, Bool) {
        var cleaned = text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
        var removed = false
        for marker in ["\u{1B}[200~", "\u{1B}[201~"] where cleaned.contains(marker) {
            cleaned = cleaned.replacing(marker, with: "")
            removed = true
        }
        return (cleaned, removed)
    }

    package init(
        keys: [String] = [],
        choices: [String] = [],
        text: String? = nil,
        noEnter: Bool = false,
        raw: Bool = false
    ) {
        self.keys = keys
        self.choices = choices
        self.text = text
        self.noEnter = noEnter
        self.raw = raw
    }
}
