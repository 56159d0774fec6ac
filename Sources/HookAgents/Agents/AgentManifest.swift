/// One agent as a manifest in `hooks/` describes it: where its settings live, which installer
/// (settings format) writes them, and which of its events to hook as which hookctl event kind.
package struct AgentManifest: Sendable, Equatable {
    /// One agent event to hook.
    package struct HookedEvent: Sendable, Equatable {
        package var name: String
        package var kind: EventKind
        /// Always seconds in the manifest; the installer converts to the agent's unit.
        package var timeoutSeconds: Int?
        package var matcher: String?
        /// The registered command names the event (`--event NAME`): for agents whose payloads do not.
        package var eventArgument = false
        /// A payload field whose value refines the kind through `kinds` (e.g. Cursor's stop `status`).
        package var detailField: String?
        /// `detail value → kind` overrides of `kind`.
        package var kinds: [String: EventKind] = [:]
        /// Payload fields holding the message, first present wins.
        package var messageFields: [String] = []
        /// The message when the payload has none (aider sends no payload).
        package var defaultMessage: String?
        /// Recorded for the board, never pushed (`quiet`: Codex `Interrupt`, the user pressed Esc).
        package var quiet = false
        /// Registered only when the agent's program holds this string (`requires_schema`: the name of
        /// the event's input schema, which Codex builds into its binary; an older Codex lacks it).
        package var requiresSchema: String?

        /// Whether this entry describes the payload itself (then it decides kind and message, not only
        /// events hookctl's own parser does not know).
        package var describesPayload: Bool { detailField != nil || !messageFields.isEmpty || defaultMessage != nil }
    }

    /// A file location that an environment variable can move (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`).
    package struct Location: Sendable, Equatable {
        package var path: String
        package var overrideEnvironment: String?
        package var overrideFile: String?

        /// The file for this environment: `$VAR/overrideFile` when the variable is set, else `path` with `~` expanded.
        package func resolve(environment: [String: String]) -> String {
            if let name = overrideEnvironment, let file = overrideFile,
               let directory = environment[name], !directory.isEmpty {
                let base = expandPath(directory, environment: environment)
                return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/" + file
            }
            return expandPath(path, environment: environment)
        }
    }

    package enum TimeoutUnit: String, Sendable { case seconds, milliseconds }

    package var agent: String
    package var displayName: String
    package var detect: [String]
    package var settings: Location
    /// The installer: `claude-json` or `codex-toml`.
    package var format: String
    package var timeoutUnit: TimeoutUnit
    /// A `name` written on every handler (Gemini CLI shows and filters hooks by name).
    package var handlerName: String?
    /// Whether the registered command checks the gate variable in the shell itself.
    package var commandGate: Bool
    /// The fields only some formats and agents use: plugin files, hook lists, Aider (ManifestExtensions.swift).
    package var extras = Extras()
    package var events: [HookedEvent]
    /// codex-toml: the kind the `notify` program's event becomes (nil: no notify), and that event's name.
    package var notifyKind: EventKind?
    package var notifyEvent: String?
    /// One push per finished turn, by the turn id the payloads carry (`one_push_per_turn`).
    package var onePushPerTurn = false
    /// codex-toml: the agent's `hooks.json`.
    package var hooksFile: Location?
    /// Where the manifest came from (`built-in`, or a file path), for doctor and errors.
    package var source: String
    /// How the agent's prompts are answered by typing into its pane (`reply`), each fact with its source.
    package var answer = AnswerFacts()
    /// Events that only remind the user the agent is idle (`idle_reminders`: Claude's `idle_prompt`).
    package var idleReminders: [IdleReminder] = []
    /// How to follow the agent where its hooks are silent (`screen`): see `ScreenFacts`.
    package var screen = ScreenFacts()

    package static let knownFormats = ["claude-json", "codex-toml"]

    /// The kind an agent event becomes, per this manifest.
    package func kind(forEvent name: String) -> EventKind? {
        if let hooked = events.first(where: { $0.name == name }) { return hooked.kind }
        if name == notifyEvent { return notifyKind }
        return nil
    }

    /// Reads a manifest; throws `ManifestError` naming the source and the field at fault.
    package init(json: JSONValue, source: String) throws {
        func fail(_ why: String) -> ManifestError { ManifestError(source: source, message: why) }
        guard let object = json.objectValue else { throw fail("a manifest is a JSON object") }
        guard let agent = object["agent"]?.stringValue, AgentManifest.isValidName(agent) else {
            throw fail("'agent' must be a short name (letters, digits, '-', '_')")
        }
        guard let settings = object["settings"]?.objectValue,
              let path = settings["path"]?.stringValue, !path.isEmpty else { throw fail("'settings.path' is required") }
        guard let format = settings["format"]?.stringValue, AgentManifest.allFormats.contains(format) else {
            throw fail("'settings.format' must be one of \(AgentManifest.allFormats.joined(separator: ", "))")
        }
        self.agent = agent
        self.source = source
        self.format = format
        displayName = object["display_name"]?.stringValue ?? (agent.prefix(1).uppercased() + agent.dropFirst())
        detect = object["detect"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.settings = Location(path: path, overrideEnvironment: settings["override_env"]?.stringValue,
                                 overrideFile: settings["override_file"]?.stringValue)
        let unitText = object["timeout_unit"]?.stringValue ?? "seconds"
        guard let unit = TimeoutUnit(rawValue: unitText) else { throw fail("'timeout_unit' must be seconds or milliseconds") }
        timeoutUnit = unit
        handlerName = object["handler_name"]?.stringValue
        commandGate = object["command_gate"]?.boolValue ?? true
        var events: [HookedEvent] = []
        for (index, item) in (object["events"]?.arrayValue ?? []).enumerated() {
            guard let name = item["name"]?.stringValue, AgentManifest.isValidName(name, allowingDots: true) else {
                throw fail("events[\(index)].name must be the agent's event name")
            }
            guard let kindText = item["kind"]?.stringValue, let kind = EventKind(rawValue: kindText) else {
                throw fail("events[\(index)].kind must be one of \(EventKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if events.contains(where: { $0.name == name }) { throw fail("event \(name) is listed twice") }
            var event = HookedEvent(name: name, kind: kind, timeoutSeconds: item["timeout"]?.intValue,
                                    matcher: item["matcher"]?.stringValue)
            event.eventArgument = item["event_argument"]?.boolValue ?? false
            event.detailField = item["detail"]?.stringValue
            event.messageFields = item["message"]?.arrayValue?.compactMap(\.stringValue) ?? []
            event.defaultMessage = item["default_message"]?.stringValue
            event.quiet = item["quiet"]?.boolValue ?? false
            event.requiresSchema = item["requires_schema"]?.stringValue
            for (value, kindValue) in item["kinds"]?.objectValue?.entries ?? [] {
                guard let text = kindValue.stringValue, let refined = EventKind(rawValue: text) else {
                    throw fail("events[\(index)].kinds.\(value) must be an event kind")
                }
                event.kinds[value] = refined
            }
            events.append(event)
        }
        self.events = events
        try readExtensions(object, fail: fail)
        notifyKind = object["notify"]?["kind"]?.stringValue.flatMap(EventKind.init(rawValue:))
        if notifyKind != nil { notifyEvent = object["notify"]?["event"]?.stringValue ?? "agent-turn-complete" }
        onePushPerTurn = object["one_push_per_turn"]?.boolValue ?? false
        if let hooks = object["hooks_file"]?.objectValue, let hooksPath = hooks["path"]?.stringValue {
            hooksFile = Location(path: hooksPath, overrideEnvironment: hooks["override_env"]?.stringValue,
                                 overrideFile: hooks["override_file"]?.stringValue)
        }
        for (index, item) in (object["idle_reminders"]?.arrayValue ?? []).enumerated() {
            guard let event = item["event"]?.stringValue, !event.isEmpty else {
                throw fail("idle_reminders[\(index)].event must be the agent's event name")
            }
            idleReminders.append(IdleReminder(event: event, detail: item["detail"]?.stringValue))
        }
        if format == "claude-json", events.isEmpty { throw fail("'events' lists no event to hook") }
        if let facts = object["answer"] { answer = try AnswerFacts(json: facts, fail: fail) }
        if let facts = object["screen"] { screen = try ScreenFacts(json: facts, fail: fail) }
    }

    package static func isValidName(_ name: String, allowingDots: Bool = false) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.unicodeScalars.allSatisfy {
            $0.isASCIILetterOrDigit || $0 == "-" || $0 == "_" || (allowingDots && $0 == ".")
        }
    }

    /// Whether the agent looks installed: one of its programs on `PATH`, or its settings directory
    /// (or a `detect_paths` entry, or the folder its override variable names) present.
    package func isInstalled(environment: [String: String]) -> Bool {
        if let paths = detectPaths {
            if paths.contains(where: { FileSystem.exists(expandPath($0, environment: environment)) }) { return true }
            if let name = settings.overrideEnvironment, let directory = environment[name], !directory.isEmpty,
               FileSystem.isDirectory(expandPath(directory, environment: environment)) { return true }
        } else if FileSystem.isDirectory(installMarker(environment: environment)) { return true }
        return detect.contains { AgentManifest.findProgram($0, environment: environment) != nil }
    }

    /// The file or folder whose presence says the agent is installed: its first `detect_paths` entry,
    /// else its settings folder (what `isInstalled` looks at, for the message when it is not).
    package func installMarker(environment: [String: String]) -> String {
        detectPaths?.first.map { expandPath($0, environment: environment) }
            ?? FileSystem.parentDirectory(of: settings.resolve(environment: environment))
    }

    /// The first executable named `name` on the environment's `PATH`.
    package static func findProgram(_ name: String, environment: [String: String]) -> String? {
        if name.contains("/") { return FileSystem.isExecutable(name) ? name : nil }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}

/// A manifest that does not describe an agent hookctl can install.
package struct ManifestError: HookctlError {
    package var source: String
    package var message: String
    package var exitCode: ExitCode { .config }
    package var description: String { "agent manifest \(source): \(message)" }
}
