/// The manifest fields for the installer formats beyond `claude-json` and `codex-toml`, for agents that
/// run other agents' hooks, and for payloads that are not shaped like Claude Code's (hooks/README.md).
extension AgentManifest {
    /// `knownFormats` and the installer formats added beside them.
    static let allFormats = knownFormats + ["hooks-list-json", "plugin-file", "aider-yaml", "named-hooks-json"]

    struct Extras: Sendable, Equatable {
        /// Paths whose presence means the agent is installed (default: the settings file's folder).
        var detectPaths: [String]?
        /// hooks-list-json: the handler's command and timeout keys and its fixed fields.
        var handler = HandlerShape()
        /// hooks-list-json: top-level fields the file needs (`"version": 1`), written when absent.
        var fileFields = JSONObject()
        /// plugin-file: the template in `templates/` rendered into `settings.path`.
        var template: String?
        /// Agent payload keys copied to the names hookctl reads (`session_id` ← `sessionId`, `cwd` ←
        /// `workspace_roots.0`) when those are absent.
        var payloadKeys: [PayloadKey] = []
        /// Environment variables the agent sets in every hook it runs: they name it as the real caller
        /// when it runs another agent's hooks (`runsHooksOf`).
        var callerEnvironment: [String] = []
        var runsHooksOf: [String] = []
        /// A settings key that turns all hooks off (doctor warns when it is true).
        var disableKey: String?
        /// What doctor says about trust or other conditions the agent sets for running hooks.
        var doctorNote: String?
        /// codex-toml: a `[features]` flag that, set to false, makes the note moot, and what doctor says then
        /// (`doctor_note_settled_by`: Codex's `daemon_auto_start`).
        var doctorNoteSettledBy: NoteSettledBy?
        /// The arguments that make the agent list the hooks it loaded (`doctor_list_hooks`: agy `-p /hooks`).
        var doctorListHooks: [String] = []
        /// named-hooks-json: the key of hookctl's block, and the fields the block carries (`"enabled": true`).
        var hookName: String?
        var blockFields = JSONObject()
        /// false: the agent may split the command itself instead of running a shell, so the command is
        /// the quoted script path and its arguments only (the script checks the gate).
        var commandShell = true
        /// Every event name the agent accepts in its file, when one unknown name voids the whole file
        /// (`known_events`: Cursor): doctor checks the user's entries against it.
        var knownEvents: [String] = []
        /// codex-toml: the version from which the agent reads `hooks.json` without a feature flag, and
        /// the flags that turn it on or off (`hooks_feature`).
        var hooksFeature: HooksFeature?
    }

    struct NoteSettledBy: Sendable, Equatable {
        var flag: String
        var message: String
    }

    struct HooksFeature: Sendable, Equatable {
        var since: String
        /// The flag older versions need (`codex_hooks`).
        var flag: String
        /// Every `[features]` key that switches the hooks (`hooks`, `codex_hooks`).
        var flags: [String]
    }

    struct PayloadKey: Sendable, Equatable {
        var name: String
        var sources: [String]
    }

    struct HandlerShape: Sendable, Equatable {
        var commandKey = "command"
        var timeoutKey = "timeout"
        var fields = JSONObject()
    }

    var detectPaths: [String]? { extras.detectPaths }
    var handler: HandlerShape { extras.handler }
    var fileFields: JSONObject { extras.fileFields }
    var template: String? { extras.template }
    var payloadKeys: [PayloadKey] { extras.payloadKeys }
    var callerEnvironment: [String] { extras.callerEnvironment }
    var runsHooksOf: [String] { extras.runsHooksOf }
    var disableKey: String? { extras.disableKey }
    var doctorNote: String? { extras.doctorNote }
    var doctorNoteSettledBy: NoteSettledBy? { extras.doctorNoteSettledBy }
    var doctorListHooks: [String] { extras.doctorListHooks }
    var hookName: String? { extras.hookName }
    var blockFields: JSONObject { extras.blockFields }
    var commandShell: Bool { extras.commandShell }
    var knownEvents: [String] { extras.knownEvents }
    var hooksFeature: HooksFeature? { extras.hooksFeature }

    mutating func readExtensions(_ object: JSONObject, fail: (String) -> ManifestError) throws {
        if let paths = object["detect_paths"] {
            guard let list = paths.arrayValue?.compactMap(\.stringValue) else { throw fail("'detect_paths' must be a list of paths") }
            extras.detectPaths = list
        }
        if let shape = object["handler"] {
            guard let shape = shape.objectValue else { throw fail("'handler' must be an object") }
            extras.handler.commandKey = shape["command_key"]?.stringValue ?? extras.handler.commandKey
            extras.handler.timeoutKey = shape["timeout_key"]?.stringValue ?? extras.handler.timeoutKey
            extras.handler.fields = shape["fields"]?.objectValue ?? JSONObject()
        }
        extras.fileFields = object["file_fields"]?.objectValue ?? JSONObject()
        extras.template = object["template"]?.stringValue
        for (name, value) in object["payload_keys"]?.objectValue?.entries ?? [] {
            guard let sources = value.arrayValue?.compactMap(\.stringValue), !sources.isEmpty else {
                throw fail("payload_keys.\(name) must be a list of payload fields")
            }
            extras.payloadKeys.append(PayloadKey(name: name, sources: sources))
        }
        extras.callerEnvironment = object["caller_env"]?.arrayValue?.compactMap(\.stringValue) ?? []
        extras.runsHooksOf = object["runs_hooks_of"]?.arrayValue?.compactMap(\.stringValue) ?? []
        extras.disableKey = object["disable_key"]?.stringValue
        extras.doctorNote = object["doctor_note"]?.stringValue
        if let settled = object["doctor_note_settled_by"] {
            guard let flag = settled["feature"]?.stringValue, !flag.isEmpty, let message = settled["message"]?.stringValue else {
                throw fail("'doctor_note_settled_by' needs 'feature' (a [features] flag) and 'message'")
            }
            extras.doctorNoteSettledBy = NoteSettledBy(flag: flag, message: message)
        }
        extras.doctorListHooks = object["doctor_list_hooks"]?["value"]?.arrayValue?.compactMap(\.stringValue) ?? []
        extras.hookName = object["hook_name"]?.stringValue
        extras.blockFields = object["block_fields"]?.objectValue ?? JSONObject()
        extras.commandShell = object["command_shell"]?.boolValue ?? true
        extras.knownEvents = object["known_events"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let feature = object["hooks_feature"] {
            guard let since = feature["since"]?.stringValue, AgentVersion(since) != nil,
                  let flag = feature["flag"]?.stringValue else {
                throw fail("'hooks_feature' needs 'since' (a version such as 0.130.0) and 'flag'")
            }
            extras.hooksFeature = HooksFeature(since: since, flag: flag,
                                               flags: feature["flags"]?.arrayValue?.compactMap(\.stringValue) ?? [flag])
        }
        switch format {
        case "hooks-list-json":
            if events.isEmpty { throw fail("'events' lists no event to hook") }
        case "plugin-file":
            guard let template, !template.contains("/"), !template.isEmpty else {
                throw fail("'template' must name a file in templates/ (plugin-file)")
            }
        case "aider-yaml":
            if events.count != 1 { throw fail("aider-yaml hooks exactly one event (the notifications command)") }
        case "named-hooks-json":
            guard let name = extras.hookName, !name.isEmpty else { throw fail("'hook_name' is required (named-hooks-json)") }
            if events.isEmpty { throw fail("'events' lists no event to hook") }
        default: break
        }
    }

    /// The value at a dotted path of a payload (`workspace_roots.0`, `error.message`).
    static func value(at path: String, in object: JSONObject) -> JSONValue? {
        var current: JSONValue = .object(object)
        for part in path.split(separator: ".") {
            if let index = Int(part), let array = current.arrayValue {
                guard index >= 0, index < array.count else { return nil }
                current = array[index]
            } else if let next = current[String(part)] {
                current = next
            } else {
                return nil
            }
        }
        return current
    }

    /// The payload with the agent's own keys copied to the names hookctl reads, where those are absent.
    func normalize(_ object: JSONObject) -> JSONObject {
        var result = object
        for key in payloadKeys where result[key.name] == nil {
            if let found = key.sources.lazy.compactMap({ AgentManifest.value(at: $0, in: object) }).first(where: { $0 != .null }) {
                result[key.name] = found
            }
        }
        return result
    }
}

/// A dotted release number (`0.130.0`, `codex-cli 0.152.1`'s number), compared part by part.
struct AgentVersion: Comparable, Sendable, CustomStringConvertible {
    var parts: [Int]

    init?(_ text: String) {
        let parts = text.split(separator: ".").map { Int($0) }
        guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy({ $0 != nil }) else { return nil }
        self.parts = parts.map { $0! }
    }

    /// The first version number in a program's `--version` output (`codex-cli 0.129.0` → 0.129.0).
    static func first(in output: String) -> AgentVersion? {
        for word in output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            var text = Substring(word)
            if text.hasPrefix("v") { text = text.dropFirst() }
            if let version = AgentVersion(String(text.prefix { $0.isNumber || $0 == "." })), text.first?.isNumber == true,
               version.parts.count >= 2 {
                return version
            }
        }
        return nil
    }

    static func < (a: AgentVersion, b: AgentVersion) -> Bool {
        for index in 0..<max(a.parts.count, b.parts.count) {
            let x = index < a.parts.count ? a.parts[index] : 0
            let y = index < b.parts.count ? b.parts[index] : 0
            if x != y { return x < y }
        }
        return false
    }

    static func == (a: AgentVersion, b: AgentVersion) -> Bool { !(a < b) && !(b < a) }

    var description: String { parts.map(String.init).joined(separator: ".") }
}
