/// `plugin-file`: a file of hookctl's own rendered from `templates/` (opencode's plugin in
/// `~/.config/opencode/plugin/`). Setup writes it whole; uninstall removes it and the folder setup
/// created for it. A file at that path that hookctl did not write is never overwritten.
package struct PluginFileInstaller: AgentInstaller {
    package var manifest: AgentManifest
    package var context: InstallerContext

    package var path: String { manifest.settings.resolve(environment: context.environment) }

    /// The plugin text: `@HOOK@` and `@GATE@` become JSON string literals, `@AGENT@` the agent name.
    package func render() throws -> String {
        guard let name = manifest.template, let resources = context.resources else {
            throw SetupError.missingResource("templates/\(manifest.template ?? "?")")
        }
        return try resources.template(name)
            .replacing("@HOOK@", with: JSON.quote(context.layout.scriptPath))
            .replacing("@GATE@", with: JSON.quote(context.layout.gate))
            .replacing("@AGENT@", with: JSON.quote(manifest.agent))
    }

    package static func isOurs(_ text: String?) -> Bool { text?.contains(HookLayout.scriptName) ?? false }

    package func install() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(path)
        if let before, !PluginFileInstaller.isOurs(before) {
            throw SetupError.unsupportedSettings(path: path, reason: "this file was not written by hookctl; move it away to let setup write its plugin here")
        }
        plan.hadEntries = before != nil
        let change = FileChange(path: path, before: before, after: try render(), mode: 0o644)
        plan.changes.append(change)
        if before == nil { plan.state.append(context.state.originalRecord(path: path, content: nil)) }
        return plan
    }

    package func uninstall() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(path)
        guard PluginFileInstaller.isOurs(before) else { return plan }
        plan.hadEntries = true
        plan.uninstall(path: path, before: before, after: nil, restored: false, context: context)
        return plan
    }
}
