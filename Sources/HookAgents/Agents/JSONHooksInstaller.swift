/// Edits settings files of the `claude-json` shape (Claude Code, Gemini CLI, Codex `hooks.json`):
/// `hooks` → event name → matcher groups `{matcher?, hooks: [handler]}` → handlers.
///
/// It merges: unrelated keys, the user's own groups and handlers and their order stay as they were;
/// hookctl's handlers are the ones whose command runs the generated `hookctl-hook` script, so they are
/// found again, replaced in place, and removed by uninstall.
package struct JSONHooksInstaller: Sendable {
    package var manifest: AgentManifest
    /// The command string registered for every hooked event (see `HookLayout.command`).
    package var command: String

    /// The handler hookctl registers for one event, fields in the order the agents' docs show them.
    package func handler(for event: AgentManifest.HookedEvent) -> JSONValue {
        var object = JSONObject()
        if let name = manifest.handlerName { object["name"] = .string(name) }
        object["type"] = .string("command")
        object["command"] = .string(command)
        if let seconds = event.timeoutSeconds {
            object["timeout"] = .int(manifest.timeoutUnit == .milliseconds ? seconds * 1000 : seconds)
        }
        return .object(object)
    }

    package func group(for event: AgentManifest.HookedEvent) -> JSONValue {
        var object = JSONObject()
        if let matcher = event.matcher { object["matcher"] = .string(matcher) }
        object["hooks"] = .array([handler(for: event)])
        return .object(object)
    }

    package static func isOurs(_ handler: JSONValue) -> Bool {
        handler["command"]?.stringValue.map(HookLayout.isHookctlCommand) ?? false
    }

    /// The file with hookctl's hooks added or brought up to date; `nil` text means the file does not exist.
    package func install(into text: String?, path: String) throws -> String {
        var document = try JSONSettingsDocument(text: text, path: path)
        var hooks = try document.hooksObject()
        let hooked = Set(manifest.events.map(\.name))
        for event in manifest.events {
            var groups = try JSONSettingsDocument.groups(hooks[event.name], event: event.name, path: path)
            let desired = group(for: event)
            // A group holding only hookctl's handlers is replaced in place; stray hookctl handlers elsewhere go.
            let pureIndex = groups.firstIndex { group in
                let handlers = group["hooks"]?.arrayValue ?? []
                return !handlers.isEmpty && handlers.allSatisfy(JSONHooksInstaller.isOurs)
            }
            var result: [JSONValue] = []
            for (index, group) in groups.enumerated() {
                if index == pureIndex { result.append(desired); continue }
                if let stripped = JSONHooksInstaller.strip(group) { result.append(stripped) }
            }
            if pureIndex == nil { result.append(desired) }
            groups = result
            hooks[event.name] = .array(groups)
        }
        // Events an older manifest hooked and this one does not: hookctl's handlers there go.
        for key in hooks.keys where !hooked.contains(key) {
            if let updated = try JSONHooksInstaller.removeOurs(from: hooks[key], event: key, path: path) {
                hooks[key] = updated.isEmpty ? nil : .array(updated)
            }
        }
        document.root["hooks"] = .object(hooks)
        return document.serialize()
    }

    /// The file without hookctl's handlers; groups, event keys and `hooks` that only held them go too.
    package static func uninstall(from text: String, path: String) throws -> String {
        var document = try JSONSettingsDocument(text: text, path: path)
        guard let hooksValue = document.root["hooks"], var hooks = hooksValue.objectValue else { return text }
        var changed = false
        for key in hooks.keys {
            if let updated = try removeOurs(from: hooks[key], event: key, path: path) {
                hooks[key] = updated.isEmpty ? nil : .array(updated)
                changed = true
            }
        }
        guard changed else { return text }
        document.root["hooks"] = hooks.isEmpty ? nil : .object(hooks)
        return document.serialize()
    }

    /// Whether the file holds any hookctl handler.
    package static func containsOurs(_ text: String?) -> Bool {
        guard let text, let root = try? JSON.parse(text), let hooks = root["hooks"]?.objectValue else { return false }
        return hooks.entries.contains { entry in
            (entry.value.arrayValue ?? []).contains { group in (group["hooks"]?.arrayValue ?? []).contains(where: isOurs) }
        }
    }

    /// The registered commands of hookctl's handlers, by event (for doctor).
    package static func registeredEvents(_ text: String?) -> [String: [String]] {
        guard let text, let root = try? JSON.parse(text), let hooks = root["hooks"]?.objectValue else { return [:] }
        var result: [String: [String]] = [:]
        for entry in hooks.entries {
            for group in entry.value.arrayValue ?? [] {
                for handler in group["hooks"]?.arrayValue ?? [] where isOurs(handler) {
                    result[entry.key, default: []].append(handler["command"]?.stringValue ?? "")
                }
            }
        }
        return result
    }

    /// Events whose hookctl handlers sit in a group with another matcher than the manifest gives
    /// (a tool hook without its matcher would run for every tool call), for doctor.
    package static func mismatchedMatchers(_ text: String?, manifest: AgentManifest) -> [String] {
        guard let text, let root = try? JSON.parse(text), let hooks = root["hooks"]?.objectValue else { return [] }
        return manifest.events.compactMap { event in
            let groups = hooks[event.name]?.arrayValue ?? []
            let wrong = groups.contains { group in
                (group["hooks"]?.arrayValue ?? []).contains(where: isOurs) && group["matcher"]?.stringValue != event.matcher
            }
            return wrong ? event.name : nil
        }
    }

    /// An event's groups without hookctl's handlers; nil when there was nothing of hookctl's.
    package static func removeOurs(from value: JSONValue?, event: String, path: String) throws -> [JSONValue]? {
        guard let value, let groups = value.arrayValue else { return nil }
        var changed = false
        var result: [JSONValue] = []
        for group in groups {
            let stripped = strip(group)
            if stripped != group { changed = true }
            if let stripped { result.append(stripped) }
        }
        return changed ? result : nil
    }

    /// A group without hookctl's handlers; nil when only hookctl's handlers were in it.
    package static func strip(_ group: JSONValue) -> JSONValue? {
        guard var object = group.objectValue, let handlers = object["hooks"]?.arrayValue else { return group }
        let kept = handlers.filter { !isOurs($0) }
        if kept.count == handlers.count { return group }
        if kept.isEmpty { return nil }
        object["hooks"] = .array(kept)
        return .object(object)
    }
}

/// A JSON settings file read for editing: the parsed root plus the formatting to write it back with
/// (indent unit and whether it ended with a newline), so a rewrite only changes what hookctl changed.
package struct JSONSettingsDocument {
    package var root: JSONObject
    package var indent: String
    package var trailingNewline: Bool
    package let path: String

    package init(text: String?, path: String) throws {
        self.path = path
        guard let text, !Text.trimmed(text).isEmpty else {
            root = JSONObject()
            indent = "  "
            trailingNewline = true
            return
        }
        let value: JSONValue
        do { value = try JSON.parse(text) } catch let error as JSONParseError {
            throw SetupError.malformedSettings(path: path, line: error.line, column: error.column, reason: "invalid JSON: \(error.message)")
        }
        guard let object = value.objectValue else {
            throw SetupError.unsupportedSettings(path: path, reason: "the top level is not a JSON object")
        }
        root = object
        indent = JSONSettingsDocument.detectIndent(text)
        trailingNewline = text.hasSuffix("\n")
    }

    package func hooksObject() throws -> JSONObject {
        guard let value = root["hooks"] else { return JSONObject() }
        guard let object = value.objectValue else {
            throw SetupError.unsupportedSettings(path: path, reason: "\"hooks\" is not an object of event names")
        }
        return object
    }

    package static func groups(_ value: JSONValue?, event: String, path: String) throws -> [JSONValue] {
        guard let value else { return [] }
        guard let array = value.arrayValue else {
            throw SetupError.unsupportedSettings(path: path, reason: "\"hooks\".\"\(event)\" is not a list of matcher groups")
        }
        return array
    }

    package func serialize() -> String {
        JSON.serializePretty(.object(root), indent: indent) + (trailingNewline ? "\n" : "")
    }

    /// The indent unit of the first indented line: a tab, or that many spaces (2 when nothing is indented).
    package static func detectIndent(_ text: String) -> String {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst() {
            if line.first == "\t" { return "\t" }
            let spaces = line.prefix { $0 == " " }.count
            if spaces > 0, spaces < line.count { return String(repeating: " ", count: spaces) }
        }
        return "  "
    }
}
