/// What happened to an agent, in hookctl's own terms: the board states and what pushes.
package enum EventKind: String, Sendable, CaseIterable, Codable {
    /// The agent waits for the user (permission prompt, idle prompt, a question).
    case needsInput = "needs_input"
    /// The agent finished its turn.
    case done
    /// The turn ended in an error (rate limit, API failure…).
    case failed
    /// A session started.
    case started
    /// The user gave the agent work (prompt submitted): it is busy.
    case working
    /// The session ended.
    case ended
    /// A test event from `hookctl test`.
    case test
    /// Anything else an agent reported that hookctl has no better name for.
    case info
    /// The agent tells the user something on its own (Claude Code's `push_notification`, "build is
    /// green"): pushed at normal priority, and the board's state stays as it was.
    case notice

    /// Kinds that push by default; the rest are only recorded for the board.
    package var pushesByDefault: Bool {
        switch self {
        case .needsInput, .done, .failed, .test, .notice: return true
        default: return false
        }
    }

    /// The relay's two-level priority: `high` for what needs the user now.
    package var defaultPriority: Priority {
        switch self {
        case .needsInput, .failed: return .high
        case .done, .test, .notice: return .normal
        default: return .low
        }
    }
}

/// How urgent an event is, before a sink maps it to its own scale.
package enum Priority: String, Sendable, CaseIterable, Codable {
    case low, normal, high
}

/// Where in tmux the event came from: the exact pane the agent runs in (from `TMUX_PANE`), not the active one.
package struct TmuxLocation: Sendable, Equatable {
    package var session: String?
    package var sessionID: String?
    /// The window's index (`#{window_index}`).
    package var window: String?
    package var pane: String
    package var socket: String?
    /// The window's name, and whether tmux chose it (`automatic-rename`: the running program's name)
    /// rather than the user; titles show only a name the user gave.
    package var windowName: String? = nil
    package var windowNameIsAutomatic = false
    /// The pane was named by an environment the hook inherited rather than its own (Codex's app-server
    /// daemon runs every Codex's hooks with the `TMUX_PANE` of the Codex that started it): it may be
    /// another agent's pane. `reply` types text into it only when it cannot be (`InheritedPane`).
    package var paneInherited = false

    package init(session: String? = nil, sessionID: String? = nil, window: String? = nil, pane: String, socket: String? = nil,
                windowName: String? = nil, windowNameIsAutomatic: Bool = false, paneInherited: Bool = false) {
        self.session = session
        self.sessionID = sessionID
        self.window = window
        self.pane = pane
        self.socket = socket
        self.windowName = windowName
        self.windowNameIsAutomatic = windowNameIsAutomatic
        self.paneInherited = paneInherited
    }

    /// The window's name when the user gave it one (nil for tmux's automatic name).
    package var chosenWindowName: String? {
        guard let windowName, !windowName.isEmpty, !windowNameIsAutomatic else { return nil }
        return windowName
    }

    /// The `tmux` object, the one encoding of a location: the event log, `events --json`, exec plugins,
    /// the board's stored sessions and `status --json` all write it through here, in this order.
    /// `fixedShape` (`status --json`, whose readers index a fixed set of keys) writes an absent name as
    /// null and an unset flag as false, where the event leaves the key out.
    package func jsonFields(fixedShape: Bool = false) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        func name(_ key: String, _ value: String?) {
            if let value { fields.append((key, .string(value))) } else if fixedShape { fields.append((key, .null)) }
        }
        func flag(_ key: String, _ value: Bool) {
            if value || fixedShape { fields.append((key, .bool(value))) }
        }
        name("session", session)
        name("session_id", sessionID)
        name("window", window)
        name("window_name", windowName)
        flag("window_name_automatic", windowName != nil && windowNameIsAutomatic)
        fields.append(("pane", .string(pane)))
        name("socket", socket)
        flag("pane_inherited", paneInherited)
        return fields
    }

    package var json: JSONValue { .object(JSONObject(uniqueKeys: jsonFields())) }

    /// Reads the `tmux` object back; nil without a pane.
    package init?(json: JSONValue) {
        guard let pane = json["pane"]?.stringValue else { return nil }
        self.init(session: json["session"]?.stringValue, sessionID: json["session_id"]?.stringValue,
                  window: json["window"]?.stringValue, pane: pane, socket: json["socket"]?.stringValue,
                  windowName: json["window_name"]?.stringValue,
                  windowNameIsAutomatic: json["window_name_automatic"]?.boolValue ?? false,
                  paneInherited: json["pane_inherited"]?.boolValue ?? false)
    }
}

/// The one normalized event every agent payload becomes. The same JSON goes to `exec` plugins,
/// `file` sinks, the event log and `events --json`.
package struct Event: Sendable, Equatable {
    /// The agent event of an answer from a push that was refused (`PushAnswer`): recorded, never a change
    /// of the board.
    package static let pushReplyRefused = "push_reply_refused"

    /// Unique per event, reused for every retry and every sink: the idempotency key.
    package var id: String
    /// Position in the event log, assigned when the event is recorded (nil before).
    package var seq: Int?
    /// Epoch seconds (UTC).
    package var time: Double
    /// `claude`, `codex`, `gemini`, or whatever agent name a manifest or `--agent` gives.
    package var agent: String
    package var kind: EventKind
    /// The agent's own name for what happened: `Stop`, `Notification`, `agent-turn-complete`…
    package var agentEvent: String
    package var title: String
    /// Plain text (Markdown already removed).
    package var message: String
    package var priority: Priority
    package var host: String
    package var tmux: TmuxLocation?
    package var cwd: String?
    /// The agent's own session (thread) id, to group events of one agent run.
    package var sessionID: String?
    /// A finer reason: Claude's `notification_type`, the StopFailure error, Codex's turn id…
    package var detail: String?
    /// The agent's own id of the turn (one prompt and the work it started) the event belongs to:
    /// Claude Code's `prompt_id`, Codex's `turn-id`. Two events of one turn may repeat each other;
    /// events of different turns never do (`PushPolicy`).
    package var turn: String? = nil
    /// The agent's original Markdown, when it differs from the plain `message` (for sinks that render it).
    package var markdown: String?
    /// What the agent asks, when the payload says (`needs_input` events): see `Question`.
    package var question: Question? = nil
    /// The agent's processes in its tmux pane (recorded by `notify` from a hook): see `PaneProcesses`.
    package var process: PaneProcesses? = nil
    /// The project the agent works in (git repository and branch, else the directory), from `cwd`.
    package var project: ProjectIdentity? = nil
    /// Why this event was recorded but not pushed (`PushPolicy`); nil when it pushes as usual.
    package var quietReason: QuietReason? = nil
    /// Appended to the log after it happened (kept while the log's lock was held, then caught up), so
    /// possibly after a newer event of its session: the board does not let it undo that one's state.
    package var late: Bool = false
    /// How an answer was given from hookctl (`reply`, or a button of a push: `push_reply`): its channel
    /// and the option pressed, for the board and for sinks that show "answered: …".
    package var answer: EventAnswer? = nil
    /// The replace id of the question this event pushes (`AnsweredPushes.replaceID(of:)`), set by `outgoing`
    /// from the event as it was recorded, since the board's entry (and so the follow-up) knows that one: the
    /// cleaned text would hash to another id. Never stored.
    package var replaceID: String? = nil

    package init(id: String = Event.newID(), seq: Int? = nil, time: Double = WallClock.nowEpoch(), agent: String,
                kind: EventKind, agentEvent: String, title: String, message: String, priority: Priority? = nil,
                host: String, tmux: TmuxLocation? = nil, cwd: String? = nil, sessionID: String? = nil, detail: String? = nil,
                markdown: String? = nil) {
        self.id = id
        self.seq = seq
        self.time = time
        self.agent = agent
        self.kind = kind
        self.agentEvent = agentEvent
        self.title = title
        self.message = message
        self.priority = priority ?? kind.defaultPriority
        self.host = host
        self.tmux = tmux
        self.cwd = cwd
        self.sessionID = sessionID
        self.detail = detail
        self.markdown = markdown
    }

    /// A random UUID (v4), lower case.
    package static func newID() -> String { UUID().uuidString.lowercased() }

    /// The event as JSON, with stable snake_case keys (the documented event format).
    package var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        if let seq { object["seq"] = .int(seq) }
        object["time"] = .string(WallClock.iso8601(time))
        object["agent"] = .string(agent)
        object["kind"] = .string(kind.rawValue)
        object["agent_event"] = .string(agentEvent)
        object["title"] = .string(title)
        object["message"] = .string(message)
        object["priority"] = .string(priority.rawValue)
        object["host"] = .string(host)
        if let tmux { object["tmux"] = tmux.json }
        if let cwd { object["cwd"] = .string(cwd) }
        if let sessionID { object["session_id"] = .string(sessionID) }
        if let detail { object["detail"] = .string(detail) }
        if let turn { object["turn"] = .string(turn) }
        if let markdown { object["markdown"] = .string(markdown) }
        if let question { object["question"] = question.json }
        if let process { object["process"] = process.json }
        if let project {
            object["project"] = .string(project.name)
            if project.isRepository { object["repo"] = .string(project.name) }
            if let branch = project.branch { object["branch"] = .string(branch) }
        }
        if let quietReason { object["quiet"] = .string(quietReason.rawValue) }
        if late { object["late"] = .bool(true) }
        if let answer { object["answer"] = answer.json }
        return .object(object)
    }

    /// Reads an event back from its JSON (event log lines, outbox entries). Throws on a missing id, kind or agent.
    package init(json: JSONValue) throws {
        guard case .object(let object) = json,
              let id = object["id"]?.stringValue,
              let kindText = object["kind"]?.stringValue,
              let agent = object["agent"]?.stringValue else {
            throw EventError.malformedRecord("an event needs id, agent and kind")
        }
        self.id = id
        seq = object["seq"]?.intValue
        time = object["time"]?.stringValue.flatMap(WallClock.parseISO8601) ?? 0
        self.agent = agent
        kind = EventKind(rawValue: kindText) ?? .info
        agentEvent = object["agent_event"]?.stringValue ?? ""
        title = object["title"]?.stringValue ?? ""
        message = object["message"]?.stringValue ?? ""
        priority = object["priority"]?.stringValue.flatMap(Priority.init(rawValue:)) ?? kind.defaultPriority
        host = object["host"]?.stringValue ?? ""
        tmux = object["tmux"].flatMap(TmuxLocation.init(json:))
        cwd = object["cwd"]?.stringValue
        sessionID = object["session_id"]?.stringValue
        detail = object["detail"]?.stringValue
        turn = object["turn"]?.stringValue
        markdown = object["markdown"]?.stringValue
        question = object["question"].flatMap(Question.init(json:))
        process = object["process"].flatMap(PaneProcesses.init(json:))
        if let name = object["project"]?.stringValue {
            project = ProjectIdentity(name: name, branch: object["branch"]?.stringValue, isRepository: object["repo"] != nil)
        }
        quietReason = object["quiet"]?.stringValue.flatMap(QuietReason.init(rawValue:))
        late = object["late"]?.boolValue == true
        answer = object["answer"].flatMap(EventAnswer.init(json:))
    }

    /// Values templates can use: `{title}`, `{message}`, `{agent}`, `{kind}`, `{host}`, `{session}`, …
    package var templateValues: [String: String] {
        var values: [String: String] = [
            "id": id, "agent": agent, "Agent": Event.displayName(agent), "kind": kind.rawValue,
            "event": agentEvent, "title": title, "message": message, "priority": priority.rawValue,
            "host": host, "time": WallClock.iso8601(time),
        ]
        values["session"] = tmux?.session ?? ""
        values["pane"] = tmux?.pane ?? ""
        values["cwd"] = cwd ?? ""
        values["project"] = project?.name ?? cwd.map(FileSystem.fileName(of:)) ?? ""
        values["repo"] = project?.isRepository == true ? project!.name : ""
        values["branch"] = project?.branch ?? ""
        values["window"] = tmux?.window ?? ""
        values["window_name"] = tmux?.windowName ?? ""
        values["session_id"] = sessionID ?? ""
        values["detail"] = detail ?? ""
        values["seq"] = seq.map(String.init) ?? ""
        return values
    }

    /// `claude` → `Claude Code`, for titles: the manifest's `display_name` (built-in manifests only: a
    /// hook reads no manifest file), else the name capitalized.
    package static func displayName(_ agent: String) -> String {
        BuiltinResources.displayName(agent) ?? (agent.prefix(1).uppercased() + agent.dropFirst())
    }
}

/// The `answer` of an event `reply` or a push's button recorded: `{"channel": "ntfy"|"telegram"|"reply", "option": LABEL}`.
package struct EventAnswer: Sendable, Equatable {
    package var channel: String
    package var option: String

    package var json: JSONValue { .object(JSONObject([("channel", .string(channel)), ("option", .string(option))])) }

    package init(channel: String, option: String) {
        self.channel = channel
        self.option = option
    }

    package init?(json: JSONValue) {
        guard let channel = json["channel"]?.stringValue, let option = json["option"]?.stringValue else { return nil }
        self.init(channel: channel, option: option)
    }
}

/// Errors from reading payloads and records.
package enum EventError: HookctlError {
    case malformedRecord(String)
    case payloadNotJSON(JSONParseError)
    case payloadTooLarge(limit: Int)
    case payloadNotText
    case payloadNotObject

    package var exitCode: ExitCode { .dataError }

    package var description: String {
        switch self {
        case .malformedRecord(let why): return "malformed event record: \(why)"
        case .payloadNotJSON(let error): return "the hook payload is not valid JSON (\(error.description))"
        case .payloadTooLarge(let limit): return "the hook payload is larger than \(limit / 1024) KiB; it was cut off"
        case .payloadNotText: return "the hook payload is not UTF-8 text"
        case .payloadNotObject: return "the hook payload is JSON but not an object (a hook payload is {\"hook_event_name\": …})"
        }
    }
}

/// Fills `{name}` placeholders from `values`; unknown names stay as written, `{{` is a literal brace.
package func renderTemplate(_ template: String, values: [String: String]) -> String {
    guard template.contains("{") else { return template }
    var output = ""
    var index = template.startIndex
    while index < template.endIndex {
        let character = template[index]
        if character == "{" {
            let next = template.index(after: index)
            if next < template.endIndex, template[next] == "{" {
                output.append("{")
                index = template.index(after: next)
                continue
            }
            if let close = template[next...].firstIndex(of: "}") {
                let name = String(template[next..<close])
                if let value = values[name] {
                    output += value
                    index = template.index(after: close)
                    continue
                }
            }
        } else if character == "}" {
            let next = template.index(after: index)
            if next < template.endIndex, template[next] == "}" {
                output.append("}")
                index = template.index(after: next)
                continue
            }
        }
        output.append(character)
        index = template.index(after: index)
    }
    return output
}
