/// What the command line says about the event, on top of (or instead of) the payload.
package struct EventOverrides: Sendable {
    package var agent: String? = nil
    package var event: String? = nil
    package var title: String? = nil
    package var message: String? = nil
    package var priority: Priority? = nil
}

/// Turns an agent's hook payload (Claude Code, Codex `notify` and hooks, Gemini CLI) into the normalized
/// event. Unknown or partial payloads still make an event from what is there.
package enum PayloadParser {
    /// Agents whose payloads this parser reads itself; others are read through their manifests.
    package static let builtInAgents: Set<String> = ["claude", "codex", "gemini"]

    /// The most of a message kept in an event; sinks cut further to their own limits.
    package static let messageLimit = 4096

    package static func event(payload: JSONValue?, overrides: EventOverrides, host: String, tmux: TmuxLocation?,
                             fallbackCWD: String?,
                             project: (String) -> ProjectIdentity? = ProjectIdentity.of(directory:)) -> Event {
        let object = payload?.objectValue ?? JSONObject()
        let agent = overrides.agent ?? detectAgent(object)
        let agentEvent = overrides.event.flatMap { EventKind(rawValue: $0) == nil ? $0 : nil }
            ?? object["hook_event_name"]?.stringValue ?? object["type"]?.stringValue ?? overrides.event ?? "notify"
        var (kind, detail, rawMessage) = classify(agent: agent, agentEvent: agentEvent, object: object)
        let question = Question.parse(agent: agent, agentEvent: agentEvent, object: object)
        if let question {
            // A question is a wait for the user, whatever hook carried it; the push says what is asked.
            kind = .needsInput
            if Question.askingTools.contains(object["tool_name"]?.stringValue ?? "") || agentEvent == "PermissionRequest" {
                detail = object["tool_name"]?.stringValue
                rawMessage = question.message
            }
        }
        if let forced = overrides.event.flatMap(EventKind.init(rawValue:)) { kind = forced }
        if let message = overrides.message { rawMessage = message }
        // Controls never enter the Markdown parser (CommonMark turns NUL into U+FFFD); sinks clean again on the way out.
        rawMessage = OutgoingText.clean(rawMessage)
        // Cut before converting: a huge message must not cost the hook its delivery budget.
        if rawMessage.utf8.count > messageLimit * 8 { rawMessage = Text.truncate(rawMessage, utf8Bytes: messageLimit * 8) }
        let plain = Markdown.plainText(rawMessage)
        let message = Text.truncate(plain, characters: messageLimit)
        let markdown = plain == rawMessage ? nil : Text.truncate(rawMessage, characters: messageLimit)
        let cwd = object["cwd"]?.stringValue ?? fallbackCWD
        let sessionID = object["session_id"]?.stringValue ?? object["thread-id"]?.stringValue
        let identity = cwd.flatMap { $0.isEmpty ? nil : project($0) }
        let title = overrides.title ?? defaultTitle(agent: agent, kind: kind, detail: detail, project: identity?.name, tmux: tmux)
        var event = Event(agent: agent, kind: kind, agentEvent: agentEvent, title: title, message: message,
                          priority: overrides.priority, host: host, tmux: tmux, cwd: cwd, sessionID: sessionID,
                          detail: detail, markdown: markdown)
        event.project = identity
        event.turn = (object["prompt_id"] ?? object["turn-id"] ?? object["turn_id"])?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if kind == .needsInput { event.question = question }
        return event
    }

    /// Recovers the fields of a payload that is not valid JSON (cut off at the size cap, or damaged):
    /// every `"key": "string"` it can read, the last one possibly unterminated. Nil when nothing is readable.
    package static func salvage(_ bytes: [UInt8]) -> JSONValue? {
        let text = String(decoding: bytes, as: UTF8.self)
        var object = JSONObject()
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "\"") {
            guard let close = text[text.index(after: open)...].firstIndex(of: "\"") else { break }
            let key = String(text[text.index(after: open)..<close])
            var cursor = text.index(after: close)
            while cursor < text.endIndex, text[cursor] == " " { cursor = text.index(after: cursor) }
            guard cursor < text.endIndex, text[cursor] == ":" else { index = text.index(after: close); continue }
            cursor = text.index(after: cursor)
            while cursor < text.endIndex, text[cursor] == " " { cursor = text.index(after: cursor) }
            guard cursor < text.endIndex, text[cursor] == "\"" else { index = cursor; continue }
            var value = ""
            var position = text.index(after: cursor)
            var escaped = false
            while position < text.endIndex {
                let character = text[position]
                if escaped {
                    value.append(character == "n" ? "\n" : character == "t" ? "\t" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    value.append(character)
                }
                position = text.index(after: position)
            }
            if object[key] == nil, !key.isEmpty, key.count < 64 { object[key] = .string(value) }
            index = position < text.endIndex ? text.index(after: position) : text.endIndex
        }
        return object.isEmpty ? nil : .object(object)
    }

    /// Which agent sent a payload when `--agent` was not given.
    package static func detectAgent(_ object: JSONObject) -> String {
        if object["type"]?.stringValue == "agent-turn-complete" || object["thread-id"] != nil { return "codex" }
        let name = object["hook_event_name"]?.stringValue ?? ""
        if ["AfterAgent", "BeforeAgent", "AfterModel", "BeforeModel", "BeforeTool", "AfterTool", "PreCompress",
            "BeforeToolSelection"].contains(name) || (object["timestamp"] != nil && object["prompt_response"] != nil) {
            return "gemini"
        }
        if object["turn_id"] != nil { return "codex" }
        return name.isEmpty ? "unknown" : "claude"
    }

    /// The event kind, a finer detail, and the (Markdown) message for one payload. The kind is the
    /// agent's manifest's (`HookFacts`); what the payload says (detail, message) is read here, by the
    /// shape of the event: Claude Code's names, which most agents reuse, and Gemini CLI's and Codex's own.
    package static func classify(agent: String, agentEvent: String, object: JSONObject) -> (EventKind, String?, String) {
        let (detail, message) = read(agentEvent: agentEvent, object: object)
        var kind = HookFacts.kind(agent: agent, event: agentEvent, object: object) ?? .info
        if kind == .done, detail == backgroundTasks { kind = .working }
        switch kind {
        case .needsInput where message.isEmpty:
            return (kind, detail, agentEvent == "PermissionRequest" ? "Permission requested" : "Waiting for your input")
        case .failed where message.isEmpty:
            return (kind, detail, "The turn ended with an error: \(detail ?? "unknown")")
        default:
            return (kind, detail, message)
        }
    }

    /// `Event.detail` of a Stop whose background tasks still run: the turn goes on.
    package static let backgroundTasks = "background_tasks"

    /// The detail and the (Markdown) message of one payload, by its event's shape.
    package static func read(agentEvent: String, object: JSONObject) -> (String?, String) {
        let lastMessage = object["last_assistant_message"]?.stringValue ?? object["last-assistant-message"]?.stringValue
            ?? object["prompt_response"]?.stringValue ?? ""
        switch agentEvent {
        case "Notification":
            return (object["notification_type"]?.stringValue, object["message"]?.stringValue ?? "")
        case "PermissionRequest":
            let tool = object["tool_name"]?.stringValue
            return (tool, tool.map { "Permission requested for \($0)" } ?? "")
        case "Stop", "AfterAgent", "agent-turn-complete":
            // Claude Code 2.1.145+: a turn whose background tasks still run is not finished (`classify` keeps
            // it working); a Stop re-entered after a Stop hook made it go on closes the turn the first Stop reported.
            if let tasks = object["background_tasks"]?.arrayValue, !tasks.isEmpty {
                let waiting = "Waiting for \(tasks.count) background task" + (tasks.count == 1 ? "" : "s")
                return (backgroundTasks, lastMessage.isEmpty ? waiting : lastMessage)
            }
            if object["stop_hook_active"]?.boolValue == true { return (PushPolicy.reenteredStop, lastMessage) }
            return (object["turn-id"]?.stringValue ?? object["turn_id"]?.stringValue, lastMessage)
        case "StopFailure":
            let error = object["error"]?.scalarText ?? object["error_type"]?.scalarText ?? "unknown"
            let details = object["error_details"]?.stringValue ?? object["error_message"]?.stringValue
            return (error, Text.join([details, lastMessage.isEmpty ? nil : lastMessage].compactMap { $0 }, separator: "\n"))
        case "SessionStart":
            return (object["source"]?.stringValue, "")
        case "UserPromptSubmit", "BeforeAgent":
            return (nil, object["prompt"]?.stringValue ?? "")
        case "SessionEnd":
            return (object["reason"]?.stringValue, "")
        case "PreToolUse", "PostToolUse", "BeforeTool", "AfterTool":
            return (object["tool_name"]?.stringValue, "")
        default:
            // Agents read through manifests: their notification type is the detail idle reminders match.
            return (object["notification_type"]?.stringValue, object["message"]?.stringValue ?? lastMessage)
        }
    }

    /// The most a default title takes: what a lock screen shows on one line.
    package static let titleLimit = 60

    /// `Claude Code needs your input · api · window 2` (`· 2:build` when the user named the window), cut
    /// to `titleLimit` characters. Outside tmux the session name stands in for nothing: project only.
    package static func defaultTitle(agent: String, kind: EventKind, detail: String?, project: String?, tmux: TmuxLocation?,
                             name: String? = nil) -> String {
        var place: [String] = []
        if let project, !project.isEmpty { place.append(project) }
        // `?`: the pane came from an inherited environment (Codex's daemon) and may be another Codex's, as
        // the board marks it (`BoardView.place`).
        let unsure = tmux?.paneInherited == true ? "?" : ""
        if let window = tmux?.window, !window.isEmpty {
            place.append((tmux?.chosenWindowName.map { "\(window):\($0)" } ?? "window \(window)") + unsure)
        } else if let session = tmux?.session, place.isEmpty {
            place.append(session + unsure)
        }
        // Joined by hand: `joined(separator:)` runs generic here, and its first call costs a hook 0.16 M instructions.
        var joined: String?
        for part in place { joined = joined.map { $0 + " · " + part } ?? part }
        let title = defaultTitle(agent: agent, kind: kind, detail: detail, place: joined, name: name)
        return Text.truncate(title, characters: titleLimit)
    }

    /// `name`: the agent's display name when the caller has its manifest (a user's own), else the built-in one.
    package static func defaultTitle(agent: String, kind: EventKind, detail: String?, place: String?, name: String? = nil) -> String {
        let name = name ?? Event.displayName(agent)
        let what: String
        switch kind {
        case .needsInput: what = "needs your input"
        case .done: what = "finished"
        case .failed: what = "failed" + (detail.map { " (\($0))" } ?? "")
        case .started: what = "started"
        case .working: what = "is working"
        case .ended: what = "session ended"
        case .test: what = "test notification"
        case .info: what = "update"
        case .notice: what = "says"
        }
        return place.map { "\(name) \(what) · \($0)" } ?? "\(name) \(what)"
    }
}

/// The calling pane's tmux session (from `TMUX_PANE` and the socket in `TMUX`), asked of tmux in one call.
package enum TmuxContext {
    package static func locate(environment: [String: String], timeout: Double = 1) -> TmuxLocation? {
        locateWithPresence(environment: environment, timeout: timeout).location
    }

    /// The location, and whether the user sits at that session now (`TmuxPresence`), from the same call.
    /// What `locateWithPresence` finds (a struct, not a tuple: the runtime builds no tuple type for it on the hook path).
    package struct Lookup: Sendable {
        package var location: TmuxLocation?
        package var presence: TmuxPresence?
    }

    package static func locateWithPresence(environment: [String: String], timeout: Double = 1) -> Lookup {
        guard let pane = environment["TMUX_PANE"], pane.hasPrefix("%") else { return Lookup(location: nil, presence: nil) }
        let socket = environment["TMUX"].flatMap { $0.split(separator: ",").first.map(String.init) }
        var location = TmuxLocation(pane: pane, socket: socket)
        // HOOKCTL_TMUX first, like every other tmux call; the usual directories, not the home ones.
        guard let tmux = try? TmuxClient.locate(environment: environment,
                                                usualDirectories: ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]) else {
            return Lookup(location: location, presence: nil)
        }
        var arguments: [String] = []
        if let socket { arguments += ["-S", socket] }
        // One call for everything: window names are sanitized by tmux (no tab or newline); the session name,
        // last, is taken whole.
        arguments += ["display-message", "-p", "-t", pane,
                      "#{session_id}\t#{window_index}\t#{automatic-rename}\t#{window_name}\t#{session_attached}\t#{session_activity}\t#{session_name}"]
        var childEnvironment = environment
        childEnvironment["TMUX"] = nil
        guard let result = try? Subprocess(executable: tmux, arguments: arguments, environment: childEnvironment,
                                           timeout: timeout).run(), result.status == 0 else {
            return Lookup(location: location, presence: nil)
        }
        var line = result.outputText
        if line.hasSuffix("\n") { line.removeLast() }
        let fields = line.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false).map(String.init)
        var presence: TmuxPresence?
        if fields.count == 7 {
            location.sessionID = fields[0]
            location.window = fields[1]
            location.windowNameIsAutomatic = fields[2] != "0"
            location.windowName = fields[3]
            presence = TmuxPresence(attached: fields[4], activity: fields[5])
            location.session = fields[6]
        }
        return Lookup(location: location, presence: presence)
    }
}
