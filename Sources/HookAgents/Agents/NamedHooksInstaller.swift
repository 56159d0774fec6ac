/// `named-hooks-json`: a hooks file whose top-level keys are hook names, each a block of its own
/// (`{"enabled": true, "<Event>": [handler…]}`): Antigravity CLI's `~/.gemini/config/hooks.json`.
/// Lifecycle events take a flat list of handlers; an event with a `matcher` takes matcher groups
/// (`[{"matcher": …, "hooks": [handler]}]`), the shape agy accepts only for its tool events.
///
/// hookctl owns one block, under the manifest's `hook_name`: setup writes it whole and uninstall
/// removes it, every other block staying as it was (key order, fields, values). A block of that name
/// that holds no hookctl command is the user's, and setup refuses to take it over.
package struct NamedHooksInstaller: AgentInstaller {
    package var manifest: AgentManifest
    package var context: InstallerContext

    package var path: String { manifest.settings.resolve(environment: context.environment) }
    package var blockName: String { manifest.hookName ?? "hookctl" }

    package func handler(for event: AgentManifest.HookedEvent) -> JSONValue {
        var object = JSONObject()
        object["type"] = .string("command")
        object["command"] = .string(context.layout.command(manifest: manifest, event: event))
        if let seconds = event.timeoutSeconds {
            object["timeout"] = .int(manifest.timeoutUnit == .milliseconds ? seconds * 1000 : seconds)
        }
        return .object(object)
    }

    /// hookctl's block as setup writes it: the block fields, then each event in manifest order.
    package var block: JSONObject {
        var block = manifest.blockFields
        for event in manifest.events {
            if let matcher = event.matcher {
                var group = JSONObject()
                group["matcher"] = .string(matcher)
                group["hooks"] = .array([handler(for: event)])
                block[event.name] = .array([.object(group)])
            } else {
                block[event.name] = .array([handler(for: event)])
            }
        }
        return block
    }

    /// Whether a block holds a hookctl command anywhere (flat handler or inside a matcher group).
    package static func isOurs(_ block: JSONValue) -> Bool {
        for (_, value) in block.objectValue?.entries ?? [] {
            for item in value.arrayValue ?? [] {
                let handlers = item["hooks"]?.arrayValue ?? [item]
                if handlers.contains(where: { $0["command"]?.stringValue.map(HookLayout.isHookctlCommand) ?? false }) { return true }
            }
        }
        return false
    }

    package func install() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(path)
        var document = try JSONSettingsDocument(text: before, path: path)
        if let existing = document.root[blockName] {
            guard NamedHooksInstaller.isOurs(existing) else {
                throw SetupError.unsupportedSettings(path: path, reason: "a hook named \"\(blockName)\" is already there and is not hookctl's")
            }
            plan.hadEntries = true
        }
        // Replaced in place, so the user's blocks keep their order around it.
        document.root[blockName] = .object(block)
        plan.install(path: path, before: before, after: document.serialize(), context: context)
        return plan
    }

    package func uninstall() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        guard let before = try FileSystem.readString(path) else { return plan }
        var document = try JSONSettingsDocument(text: before, path: path)
        guard let existing = document.root[blockName], NamedHooksInstaller.isOurs(existing) else { return plan }
        plan.hadEntries = true
        document.root[blockName] = nil
        // Back to the exact bytes the user had when nothing else changed since setup.
        let (after, restored) = AgentFilePlan.restoring(path: path, leftover: .object(document.root),
                                                        serialized: document.serialize(), context: context)
        plan.uninstall(path: path, before: before, after: after, restored: restored, context: context)
        return plan
    }

    /// hookctl's registered events, for doctor: the block's event keys that hold its command.
    package func registeredEvents(_ text: String?) -> [String] {
        guard let text, let root = try? JSON.parse(text), let block = root[blockName]?.objectValue,
              NamedHooksInstaller.isOurs(.object(block)) else { return [] }
        return block.entries.compactMap { $0.value.arrayValue == nil ? nil : $0.key }
    }
}
