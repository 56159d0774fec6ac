/// How one agent's prompts are answered by typing into its pane: data from the `answer` block of its
/// manifest (`hooks/*.json`), where every fact is `{"value": …, "source": "…"}` so the evidence
/// travels with it (upstream file, issue, documentation, or "observed"). Agents without the block get
/// the defaults.
package struct AnswerFacts: Sendable, Equatable {
    /// The pause between pasted text and the Enter that submits it: an Enter that arrives sooner is
    /// taken as part of the paste (a newline) by every main agent. Unknown: Claude Code's, the longest.
    package var enterDelay: Double = 0.5
    /// How long after Enter the pane is compared with before; unchanged means the Enter was lost,
    /// and it is pressed once more.
    package var enterCheckDelay: Double = 0.5
    /// A digit selects a numbered option at once (no Enter after it); nil when not known, and then
    /// `reply --choice` moves the dialog's cursor with the arrow keys, checking the pane, before Enter.
    package var digitSelects: Bool? = nil
    /// Whether the agent's prompt keys are known from a source: false for an agent without an
    /// `answer` block, or whose block says `confirmed: false` (reply then warns and stays conservative).
    package var keysKnown = false
    /// Labels of the option that takes typed text (Claude Code's `Other`): `reply --choice Other TEXT`.
    package var freeTextLabels = ["Other"]
    /// How a multi-select answer is submitted after its options are toggled, when known.
    package var multiSelectSubmit: MultiSelectSubmit? = nil

    /// The row that submits a multi-select answer, the key that moves the cursor toward it, the key
    /// that presses it (Claude Code: `Submit`/`Next` after the options, Down, Enter).
    package struct MultiSelectSubmit: Sendable, Equatable {
        package var rows: [String]
        package var move: String
        package var press: String
    }
    /// The key that rejects or cancels a prompt.
    package var rejectKey = "Escape"
    /// Single letters that answer the agent's prompts at once, even from text typed while it works.
    package var letterShortcuts: [String] = []
    /// Where the agent's questions can be read: `hooks` (on the board) or `pane` (only on its screen).
    package var questionSource = "hooks"
    /// Beginnings that make the agent run typed text as a command, not take it as an answer (Codex:
    /// `!` a shell command, `/` a slash command): `reply` refuses such text unless `--raw`.
    package var commandPrefixes: [String] = []

    /// The prefix `text` begins with that the agent would run as a command, leading spaces and tabs
    /// ignored (Gemini CLI trims them), or nil.
    package func commandPrefix(of text: String) -> String? {
        let start = text.drop { $0 == " " || $0 == "\t" }
        return commandPrefixes.first { start.hasPrefix($0) }
    }

    package init() {}

    /// The largest pause a manifest may ask for.
    package static let longestDelay = 5.0

    package init(json: JSONValue, fail: (String) -> ManifestError) throws {
        guard let object = json.objectValue else { throw fail("'answer' must be an object of facts") }
        for entry in object.entries {
            guard let source = entry.value["source"]?.stringValue, !Text.trimmed(source).isEmpty, entry.value["value"] != nil else {
                throw fail("answer.\(entry.key) must be {\"value\": …, \"source\": \"where this is known from\"}")
            }
        }
        func milliseconds(_ key: String) throws -> Double? {
            guard let value = object[key]?["value"] else { return nil }
            guard let number = value.intValue, number >= 0, Double(number) / 1000 <= AnswerFacts.longestDelay else {
                throw fail("answer.\(key).value must be a whole number of milliseconds from 0 to \(Int(AnswerFacts.longestDelay * 1000))")
            }
            return Double(number) / 1000
        }
        keysKnown = true
        if let value = object["confirmed"]?["value"] {
            guard let flag = value.boolValue else { throw fail("answer.confirmed.value must be true or false") }
            keysKnown = flag
        }
        if let delay = try milliseconds("enter_delay_ms") { enterDelay = delay }
        if let delay = try milliseconds("enter_check_ms") { enterCheckDelay = delay }
        if let value = object["digit_selects"]?["value"] {
            guard let flag = value.boolValue else { throw fail("answer.digit_selects.value must be true or false") }
            digitSelects = flag
        }
        if let value = object["reject_key"]?["value"] {
            guard let key = value.stringValue, let canonical = ReplyKeys.canonical(key) else {
                throw fail("answer.reject_key.value must be one of the keys reply may send")
            }
            rejectKey = canonical
        }
        if let value = object["letter_shortcuts"]?["value"] {
            guard let letters = value.arrayValue?.compactMap(\.stringValue), letters.count == value.arrayValue?.count,
                  letters.allSatisfy({ $0.count == 1 }) else {
                throw fail("answer.letter_shortcuts.value must be a list of single letters")
            }
            letterShortcuts = letters
        }
        if let value = object["free_text_labels"]?["value"] {
            guard let labels = value.arrayValue?.compactMap(\.stringValue), labels.count == value.arrayValue?.count,
                  !labels.isEmpty, labels.allSatisfy({ !Text.trimmed($0).isEmpty }) else {
                throw fail("answer.free_text_labels.value must be a list of option labels")
            }
            freeTextLabels = labels
        }
        if let value = object["multi_select_submit"]?["value"] {
            guard let rows = value["rows"]?.arrayValue?.compactMap(\.stringValue), !rows.isEmpty,
                  rows.count == value["rows"]?.arrayValue?.count, rows.allSatisfy({ !Text.trimmed($0).isEmpty }),
                  let move = value["move"]?.stringValue.flatMap(ReplyKeys.canonical), ["Down", "Up", "Tab"].contains(move),
                  let press = value["press"]?.stringValue.flatMap(ReplyKeys.canonical), ["Enter", "Space"].contains(press) else {
                throw fail("answer.multi_select_submit.value must be {\"rows\": [labels], \"move\": \"Down\", \"press\": \"Enter\"}")
            }
            multiSelectSubmit = MultiSelectSubmit(rows: rows, move: move, press: press)
        }
        if let value = object["command_prefixes"]?["value"] {
            guard let prefixes = value.arrayValue?.compactMap(\.stringValue), prefixes.count == value.arrayValue?.count,
                  prefixes.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                throw fail("answer.command_prefixes.value must be a list of non-empty prefixes such as \"!\"")
            }
            commandPrefixes = prefixes
        }
        if let value = object["question_source"]?["value"] {
            guard let text = value.stringValue, ["hooks", "pane"].contains(text) else {
                throw fail("answer.question_source.value must be hooks or pane")
            }
            questionSource = text
        }
    }
}
