/// The manifest fields for the installer formats beyond `claude-json` and `codex-toml`, for agents that
/// run other agents' hooks, and for payloads that are not shaped like Claude Code's (hooks/README.md).
extension AgentManifest {
    mutating func readExtensions(_ object: JSONObject, fail: (String) -> ManifestError) throws {
        if let paths = object["detect_paths"] {
            guard let list = paths.arrayValue?.compactMap(\.stringValue) else { throw fail("'detect_paths' must be a list of paths") }
            detectPaths = list
        }
        if let shape = object["handler"] {
            guard let shape = shape.objectValue else { throw fail("'handler' must be an object") }
            handler.commandKey = shape["command_key"]?.stringValue ?? handler.commandKey
            handler.timeoutKey = shape["timeout_key"]?.stringValue ?? handler.timeoutKey
            handler.fields = shape["fields"]?.objectValue ?? JSONObject()
        }
        fileFields = object["file_fields"]?.objectValue ?? JSONObject()
        template = object["template"]?.stringValue
        for (name, value) in object["payload_keys"]?.objectValue?.entries ?? [] {
            guard let sources = value.arrayValue?.compactMap(\.stringValue), !sources.isEmpty else {
                throw fail("payload_keys.\(name) must be a list of payload fields")
            }
            payloadKeys.append(PayloadKey(name: name, sources: sources))
        }
        callerEnvironment = object["caller_env"]?.arrayValue?.compactMap(\.stringValue) ?? []
        runsHooksOf = object["runs_hooks_of"]?.arrayValue?.compactMap(\.stringValue) ?? []
        disableKey = object["disable_key"]?.stringValue
        doctorNote = object["doctor_note"]?.stringValue
        prompts = object["prompts"]
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
    public func normalize(_ object: JSONObject) -> JSONObject {
        var result = object
        for key in payloadKeys where result[key.name] == nil {
            if let found = key.sources.lazy.compactMap({ AgentManifest.value(at: $0, in: object) }).first(where: { $0 != .null }) {
                result[key.name] = found
            }
        }
        return result
    }
}
