/// `hooks-list-json`: settings files whose `hooks` map each event straight to a list of handlers, with
/// a `version` beside it: Cursor's `~/.cursor/hooks.json` (`{"command": …}`) and GitHub Copilot CLI's
/// hook files (`{"type": "command", "bash": …, "timeoutSec": …}`). The manifest's `handler` names the
/// keys. Merging works as for `claude-json`: the user's handlers, keys and order stay; hookctl's are
/// those whose command runs `hookctl-hook`.
package struct HooksListInstaller: AgentInstaller {
    package var manifest: AgentManifest
    package var context: InstallerContext

    package var path: String { manifest.settings.resolve(environment: context.environment) }

    package func command(for event: AgentManifest.HookedEvent) -> String {
        context.layout.command(manifest: manifest, event: event)
    }

    package func handler(for event: AgentManifest.HookedEvent) -> JSONValue {
        var object = manifest.handler.fields
        object[manifest.handler.commandKey] = .string(command(for: event))
        if let seconds = event.timeoutSeconds {
            object[manifest.handler.timeoutKey] = .int(manifest.timeoutUnit == .milliseconds ? seconds * 1000 : seconds)
        }
        if let matcher = event.matcher { object["matcher"] = .string(matcher) }
        return .object(object)
    }

    package func isOurs(_ handler: JSONValue) -> Bool {
        handler[manifest.handler.commandKey]?.stringValue.map(HookLayout.isHookctlCommand) ?? false
    }

    package func install() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(path)
        var document = try JSONSettingsDocument(text: before, path: path)
        plan.hadEntries = HooksListInstaller.registered(in: document.root, isOurs: isOurs)
        // The file's own fields (`"version": 1`) first in a new file, kept as they are in an existing one.
        var root = JSONObject()
        for (key, value) in manifest.fileFields.entries where document.root[key] == nil { root[key] = value }
        for (key, value) in document.root.entries { root[key] = value }
        var hooks = try document.hooksObject()
        for event in manifest.events {
            let handlers = try JSONSettingsDocument.groups(hooks[event.name], event: event.name, path: path)
            var result: [JSONValue] = []
            var placed = false
            for existing in handlers {
                guard isOurs(existing) else { result.append(existing); continue }
                if !placed { result.append(handler(for: event)); placed = true }
            }
            if !placed { result.append(handler(for: event)) }
            hooks[event.name] = .array(result)
        }
        let hooked = Set(manifest.events.map(\.name))
        for key in hooks.keys where !hooked.contains(key) {
            guard let handlers = hooks[key]?.arrayValue, handlers.contains(where: isOurs) else { continue }
            let kept = handlers.filter { !isOurs($0) }
            hooks[key] = kept.isEmpty ? nil : .array(kept)
        }
        root["hooks"] = .object(hooks)
        document.root = root
        plan.install(path: path, before: before, after: document.serialize(), context: context)
        return plan
    }

    package func uninstall() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        guard let before = try FileSystem.readString(path) else { return plan }
        var document = try JSONSettingsDocument(text: before, path: path)
        plan.hadEntries = HooksListInstaller.registered(in: document.root, isOurs: isOurs)
        guard plan.hadEntries, var hooks = document.root["hooks"]?.objectValue else { return plan }
        for key in hooks.keys {
            guard let handlers = hooks[key]?.arrayValue, handlers.contains(where: isOurs) else { continue }
            let kept = handlers.filter { !isOurs($0) }
            hooks[key] = kept.isEmpty ? nil : .array(kept)
        }
        document.root["hooks"] = .object(hooks)
        var stripped = document.root
        // What is left when only hookctl's additions were in the file: an empty `hooks` and the file fields.
        if hooks.isEmpty { stripped["hooks"] = nil }
        for (key, value) in manifest.fileFields.entries where stripped[key] == value { stripped[key] = nil }
        var after: String? = document.serialize()
        var restored = false
        if let original = context.state.original(for: path) {
            if original.existed, let content = original.content {
                let value = Text.trimmed(content).isEmpty ? JSONValue.object(JSONObject()) : try? JSON.parse(content)
                if value == .object(document.root) || (value == .object(stripped) && stripped.isEmpty) {
                    after = content
                    restored = true
                }
            } else if stripped.isEmpty {
                after = nil
                restored = true
            }
        }
        plan.uninstall(path: path, before: before, after: after, restored: restored, context: context)
        return plan
    }

    package static func registered(in root: JSONObject, isOurs: (JSONValue) -> Bool) -> Bool {
        (root["hooks"]?.objectValue?.entries ?? []).contains { ($0.value.arrayValue ?? []).contains(where: isOurs) }
    }

    /// hookctl's registered commands by event, for doctor.
    package func registeredEvents(_ text: String?) -> [String: String] {
        guard let text, let root = try? JSON.parse(text), let hooks = root["hooks"]?.objectValue else { return [:] }
        var result: [String: String] = [:]
        for (event, handlers) in hooks.entries {
            for handler in handlers.arrayValue ?? [] where isOurs(handler) {
                result[event] = handler[manifest.handler.commandKey]?.stringValue
            }
        }
        return result
    }
}

extension HookLayout {
    /// The command for one event; `event` adds `--event NAME` for agents whose payloads do not name it.
    package func command(agent: String, gated: Bool, event: String?) -> String {
        let base = command(agent: agent, gated: gated)
        guard let event else { return base }
        return base + " --event " + Shell.quoteIfNeeded(event)
    }

    /// The command a manifest's event is registered with: through a shell (gated, `exec`), or, for an
    /// agent that may split the command itself (`command_shell: false`), the script and its arguments only.
    package func command(manifest: AgentManifest, event: AgentManifest.HookedEvent) -> String {
        let name = event.eventArgument ? event.name : nil
        guard !manifest.commandShell else { return command(agent: manifest.agent, gated: manifest.commandGate, event: name) }
        var words = [Shell.quote(scriptPath), Shell.quoteIfNeeded(manifest.agent)]
        if let name { words += ["--event", Shell.quoteIfNeeded(name)] }
        return words.joined(separator: " ")
    }
}
