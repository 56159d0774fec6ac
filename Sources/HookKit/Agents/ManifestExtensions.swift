/// The manifest fields for the installer formats beyond `claude-json` and `codex-toml`, for agents that
/// run other agents' hooks, and for payloads that are not shaped like Claude Code's (hooks/README.md).
extension AgentManifest {
    /// `knownFormats` and the installer formats added beside them.
    static let allFormats = knownFormats + ["hooks-list-json", "plugin-file", "aider-yaml"]

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
        switch format {
        case "hooks-list-json":
            if events.isEmpty { throw fail("'events' lists no event to hook") }
        case "plugin-file":
            guard let template, !template.contains("/"), !template.isEmpty else {
                throw fail("'template' must name a file in templates/ (plugin-file)")
            }
        case "aider-yaml":
            if events.count != 1 { throw fail("aider-yaml hooks exactly one event (the notifications command)") }
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
