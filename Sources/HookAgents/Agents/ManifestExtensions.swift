/// The manifest fields for the installer formats beyond `claude-json` and `codex-toml`, for agents that
/// run other agents' hooks, and for payloads that are not shaped like Claude Code's (hooks/README.md).
extension AgentManifest {
    /// `knownFormats` and the installer formats added beside them.
    package static let allFormats = knownFormats + ["hooks-list-json", "plugin-file", "aider-yaml", "named-hooks-json"]

    package struct Extras: Sendable, Equatable {
        /// Paths whose presence means the agent is installed (default: the settings file's folder).
        package var detectPaths: [String]?
        /// hooks-list-json: the handler's command and timeout keys and its fixed fields.
        package var handler = HandlerShape()
        /// hooks-list-json: top-level fields the file needs (`"version": 1`), written when absent.
        package var fileFields = JSONObject()
        /// plugin-file: the template in `templates/` rendered into `settings.path`.
        package var template: String?
        /// Agent payload keys copied to the names hookctl reads (`session_id` ← `sessionId`, `cwd` ←
        /// `workspace_roots.0`) when those are absent.
        package var payloadKeys: [PayloadKey] = []
        /// Environment variables the agent sets in every hook it runs: they name it as the real caller
        /// when it runs another agent's hooks (`runsHooksOf`).
        package var callerEnvironment: [String] = []
        package var runsHooksOf: [String] = []
        /// A settings key that turns all hooks off (doctor warns when it is true).
        package var disableKey: String?
        /// What doctor says about trust or other conditions the agent sets for running hooks.
        package var doctorNote: String?
        /// codex-toml: a `[features]` flag that, set to false, makes the note moot, and what doctor says then
        /// (`doctor_note_settled_by`: Codex's `daemon_auto_start`).
        package var doctorNoteSettledBy: NoteSettledBy?
        /// The arguments that make the agent list the hooks it loaded (`doctor_list_hooks`: agy `-p /hooks`).
        package var doctorListHooks: [String] = []
        /// named-hooks-json: the key of hookctl's block, and the fields the block carries (`"enabled": true`).
        package var hookName: String?
        package var blockFields = JSONObject()
        /// false: the agent may split the command itself instead of running a shell, so the command is
        /// the quoted script path and its arguments only (the script checks the gate).
        package var commandShell = true
        /// Every event name the agent accepts in its file, when one unknown name voids the whole file
        /// (`known_events`: Cursor): doctor checks the user's entries against it.
        package var knownEvents: [String] = []
        /// codex-toml: the version from which the agent reads `hooks.json` without a feature flag, and
        /// the flags that turn it on or off (`hooks_feature`).
        package var hooksFeature: HooksFeature?
    }

    package struct NoteSettledBy: Sendable, Equatable {
        package var flag: String
        package var message: String
    }

    package struct HooksFeature: Sendable, Equatable {
        package var since: String
        /// The flag older versions need (`codex_hooks`).
        package var flag: String
        /// Every `[features]` key that switches the hooks (`hooks`, `codex_hooks`).
        package var flags: [String]
    }

    package struct PayloadKey: Sendable, Equatable {
        package var name: String
        package var sources: [String]
    }

    package struct HandlerShape: Sendable, Equatable {
        package var commandKey = "command"
        package var timeoutKey = "timeout"
        package var fields = JSONObject()
    }

    package var detectPaths: [String]? { extras.detectPaths }
    package var handler: HandlerShape { extras.handler }
    package var fileFields: JSONObject { extras.fileFields }
    package var template: String? { extras.template }
    package var payloadKeys: [PayloadKey] { extras.payloadKeys }
    package var callerEnvironment: [String] { extras.callerEnvironment }
    package var runsHooksOf: [String] { extras.runsHooksOf }
    package var disableKey: String? { extras.disableKey }
    package var doctorNote: String? { extras.doctorNote }
    package var doctorNoteSettledBy: NoteSettledBy? { extras.doctorNoteSettledBy }
    package var doctorListHooks: [String] { extras.doctorListHooks }
    package var hookName: String? { extras.hookName }
    package var blockFields: JSONObject { extras.blockFields }
    package var commandShell: Bool { extras.commandShell }
    package var knownEvents: [String] { extras.knownEvents }
    package var hooksFeature: HooksFeature? { extras.hooksFeature }

    package mutating func readExtensions(_ object: JSONObject, fail: (String) -> ManifestError) throws {
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

    /// The payload with the agent's own keys copied to the names hookctl reads, where those are absent.
    package func normalize(_ object: JSONObject) -> JSONObject {
        var result = object
        for key in payloadKeys where result[key.name] == nil {
            if let found = key.sources.lazy.compactMap({ JSONPath.value(at: $0, in: object) }).first(where: { $0 != .null }) {
                result[key.name] = found
            }
        }
        return result
    }
}

/// A dotted release number (`0.130.0`, `codex-cli 0.152.1`'s number), compared part by part.
package struct AgentVersion: Comparable, Sendable, CustomStringConvertible {
    package var parts: [Int]

    package init?(_ text: String) {
        let parts = text.split(separator: ".").map { Int($0) }
        guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy({ $0 != nil }) else { return nil }
        self.parts = parts.map { $0! }
    }

    /// The first version number in a program's `--version` output (`codex-cli 0.129.0` → 0.129.0).
    package static func first(in output: String) -> AgentVersion? {
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

    package static func < (a: AgentVersion, b: AgentVersion) -> Bool {
        for index in 0..<max(a.parts.count, b.parts.count) {
            let x = index < a.parts.count ? a.parts[index] : 0
            let y = index < b.parts.count ? b.parts[index] : 0
            if x != y { return x < y }
        }
        return false
    }

    package static func == (a: AgentVersion, b: AgentVersion) -> Bool { !(a < b) && !(b < a) }

    package var description: String { parts.map(String.init).joined(separator: ".") }
}
