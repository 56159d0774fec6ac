/// What an agent asks the user, as its hook payload says it: the question, its numbered options and
/// whether several may be picked. Kept on the board (`status --json` → `question`) and said in the push.
///
/// Read from Claude Code's `PreToolUse` / `PermissionRequest` for `AskUserQuestion`
/// (`tool_input.questions[]`), its `PermissionRequest` for other tools, its `Notification` with
/// `permission_prompt`, and Gemini CLI's `BeforeTool` for `ask_user` (same `questions[]` shape).
/// Sources: Claude Code's AskUserQuestion tool prompt v2.0.66 (shcv/claude-investigations
/// `archive/claude-code/prompts/v2.0.66/tool/tool-askuserquestion.md`), docs.rs
/// `claude_codes::io::PermissionSuggestion`, rubydoc `ClaudeAgentSDK::PermissionRequestHookInput`,
/// code.claude.com/docs/en/hooks (`Notification`); google-gemini/gemini-cli `docs/hooks/reference.md`
/// and `docs/tools/ask-user.md`. The agent's text is untrusted: it is cut to bounded sizes here and
/// made inert wherever a terminal shows it.
package struct Question: Sendable, Equatable {
    package struct Option: Sendable, Equatable {
        /// The option's number as the agent's screen shows it (1-based), nil when that number is not
        /// known (a permission dialog whose rows the payload does not list): a number in a push always
        /// means the same row on the screen.
        package var n: Int?
        package var label: String
        package var description: String?

        package init(
            n: Int? = nil,
            label: String,
            description: String? = nil
        ) {
            self.n = n
            self.label = label
            self.description = description
        }
    }

    package var text: String
    /// Claude's short tab title for the question (`header`, at most 12 characters there).
    package var header: String?
    package var options: [Option]
    package var multiSelect: Bool
    /// How many questions the dialog holds; only the first is described here.
    package var count: Int
    /// The options were read off the agent's pane (their numbers are the screen's), not from the payload.
    package var fromScreen: Bool

    package init(text: String, header: String? = nil, options: [Option] = [], multiSelect: Bool = false, count: Int = 1,
         fromScreen: Bool = false) {
        self.text = text
        self.header = header
        self.options = options
        self.multiSelect = multiSelect
        self.count = count
        self.fromScreen = fromScreen
    }

    package static let textLimit = 1000
    package static let labelLimit = 200
    package static let descriptionLimit = 300
    package static let optionLimit = 20

    /// The tools whose calls are questions to the user: Claude Code's, Gemini CLI's and Codex's
    /// (`request_user_input`, same `questions[]` shape, with an `id` per question: seen on 0.163.0).
    package static let askingTools: Set<String> = ["AskUserQuestion", "ask_user", "request_user_input"]

    /// The question a hook payload carries, or nil when it asks nothing.
    package static func parse(agent: String, agentEvent: String, object: JSONObject) -> Question? {
        let tool = object["tool_name"]?.stringValue
        switch agentEvent {
        case "PreToolUse", "PermissionRequest", "BeforeTool":
            if let tool, askingTools.contains(tool) {
                return fromQuestions(object["tool_input"]?["questions"]?.arrayValue ?? [], agent: agent)
            }
            guard agentEvent == "PermissionRequest" else { return nil }
            return permission(agent: agent, tool: tool, input: object["tool_input"],
                              suggested: !(object["permission_suggestions"]?.arrayValue ?? []).isEmpty)
        case "Notification":
            let type = object["notification_type"]?.stringValue
            guard type == "permission_prompt" || type == "ToolPermission" else { return nil }
            var text = Question.clean(object["message"]?.stringValue ?? "")
            if let command = object["details"]?["command"]?.stringValue { text += ": " + Question.clean(command) }
            if text.isEmpty { text = "\(Event.displayName(agent)) asks for permission" }
            return Question(text: Text.truncate(text, characters: textLimit))
        default:
            return nil
        }
    }

    /// `questions[]` of AskUserQuestion / ask_user: `{question, header, options[]: {label, description}, multiSelect}`.
    package static func fromQuestions(_ questions: [JSONValue], agent: String) -> Question {
        guard let first = questions.first else {
            return Question(text: "\(Event.displayName(agent)) asks a question", count: 0)
        }
        let header = first["header"]?.stringValue.map { Text.truncate(Question.clean($0), characters: 40) }
        var text = Question.clean(first["question"]?.stringValue ?? "")
        if text.isEmpty { text = header ?? "\(Event.displayName(agent)) asks a question" }
        var options: [Option] = []
        for item in (first["options"]?.arrayValue ?? []).prefix(optionLimit) {
            let label = Question.clean(item["label"]?.stringValue ?? item.stringValue ?? "")
            guard !label.isEmpty else { continue }
            let description = item["description"]?.stringValue.map { Text.truncate(Question.clean($0), characters: descriptionLimit) }
            options.append(Option(n: options.count + 1, label: Text.truncate(label, characters: labelLimit),
                                  description: description?.isEmpty == false ? description : nil))
        }
        return Question(text: Text.truncate(text, characters: textLimit), header: header, options: options,
                        multiSelect: first["multiSelect"]?.boolValue ?? false, count: questions.count)
    }

    /// A permission dialog: the tool and what it would do. Its rows vary with the command and the
    /// settings, and the payload does not list them (Claude Code 2.1.332 draws `1. Yes`, `2. Yes, and
    /// always allow access to <dir> from this project`, `3. Yes, and switch to auto mode`, `4. No` for
    /// one Bash call: shared/reference/real-agents.md), so only the two rows every such dialog has are
    /// named, without numbers; the pane's own rows replace them once it shows them (`ScreenQuestion`).
    package static func permission(agent: String, tool: String?, input: JSONValue?, suggested: Bool) -> Question {
        if tool == "ExitPlanMode" {
            // A plan approval, not a tool permission: 2.1.332 draws `Exit plan mode?` with `1. Yes, and
            // switch to default (ask each time) for this session` / `2. No` (observed); the plan itself
            // is in the payload's `plan` (older builds) or in a plan file.
            let plan = input?["plan"]?.stringValue.map { Text.truncate(Question.clean($0), characters: 300) } ?? ""
            let text = plan.isEmpty ? "Approve the plan and leave plan mode?" : "Approve the plan and leave plan mode? \(plan)"
            return Question(text: Text.truncate(text, characters: textLimit),
                            options: agent == "claude" ? [Option(n: nil, label: "Yes"), Option(n: nil, label: "No")] : [])
        }
        let what = input.map(inputSummary) ?? ""
        let name = tool ?? "a tool"
        let text = what.isEmpty ? "Allow \(name)?" : "Allow \(name): \(what)?"
        var options: [Option] = []
        // Codex 0.163.0 draws its dialog only after the PermissionRequest hook returned (seen: the hook
        // never finds it on the pane), with rows `1. Yes, proceed (y)`, sometimes a `Yes, and don't ask
        // again …` row, and `No, and tell Codex what to do differently (esc)` last (docs/agents.md).
        if agent == "claude" || agent == "codex" { options = [Option(n: nil, label: "Yes"), Option(n: nil, label: "No")] }
        return Question(text: Text.truncate(text, characters: textLimit), options: options)
    }

    /// The part of a tool's input a person decides on: the command, the file, the URL.
    package static func inputSummary(_ input: JSONValue) -> String {
        for key in ["command", "file_path", "path", "url", "pattern", "query", "prompt"] {
            if let value = input[key]?.stringValue, !value.isEmpty {
                var summary = Question.clean(value)
                if key == "command", let why = input["description"]?.stringValue, !why.isEmpty {
                    summary += " (\(Question.clean(why)))"
                }
                return Text.truncate(summary, characters: 300)
            }
        }
        guard input.objectValue?.isEmpty == false else { return "" }
        return Text.truncate(Question.clean(JSON.serialize(input)), characters: 300)
    }

    /// One line of the agent's text through `OutgoingText.clean` (no controls, escape sequences or
    /// bidi overrides): a question is shown on terminals (status, peek's JSON in apps) and in pushes,
    /// never as terminal input.
    package static func clean(_ text: String) -> String {
        Text.singleLine(OutgoingText.clean(text))
    }

    /// The push's message: the question, then one line per option.
    package var message: String {
        var lines = [count > 1 ? "\(text) (1 of \(count) questions)" : text]
        for option in options {
            lines.append((option.n.map { "\($0). " } ?? "• ") + option.label + (option.description.map { " - \($0)" } ?? ""))
        }
        if options.contains(where: { $0.n == nil }) { lines.append("(more choices on the screen)") }
        if multiSelect, !options.isEmpty { lines.append("(several may be chosen)") }
        return Text.join(lines, separator: "\n")
    }

    /// One line for the board's table: `Which database? [1 Postgres · 2 SQLite]`.
    package var short: String {
        guard !options.isEmpty else { return text }
        return text + " [" + Text.join(options.map { ($0.n.map { "\($0) " } ?? "") + $0.label }, separator: " · ") + "]"
    }

    package var json: JSONValue {
        .object(JSONObject([
            ("text", .string(text)),
            ("header", header.map(JSONValue.string) ?? .null),
            ("options", .array(options.map { option in
                .object(JSONObject([("n", option.n.map(JSONValue.int) ?? .null), ("label", .string(option.label)),
                                    ("description", option.description.map(JSONValue.string) ?? .null)]))
            })),
            ("multi_select", .bool(multiSelect)),
            ("count", .int(count)),
            ("from_screen", .bool(fromScreen)),
        ]))
    }

    package init?(json: JSONValue) {
        guard let text = json["text"]?.stringValue else { return nil }
        self.text = text
        header = json["header"]?.stringValue
        options = (json["options"]?.arrayValue ?? []).compactMap { item in
            guard let label = item["label"]?.stringValue else { return nil }
            return Option(n: item["n"]?.intValue, label: label, description: item["description"]?.stringValue)
        }
        multiSelect = json["multi_select"]?.boolValue ?? false
        count = json["count"]?.intValue ?? 1
        fromScreen = json["from_screen"]?.boolValue ?? false
    }
}
