/// Installs and removes hookctl's hooks for one agent, per its manifest's settings format.
/// The plugin point for settings formats: `claude-json`, `codex-toml`, `hooks-list-json`, `plugin-file`,
/// `aider-yaml` and `named-hooks-json`.
package protocol AgentInstaller {
    /// The files to change so the agent runs hookctl's hooks (empty when they are up to date).
    func install() throws -> AgentFilePlan
    /// The files to change so nothing of hookctl's is left.
    func uninstall() throws -> AgentFilePlan
    /// For doctor (AgentDoctor.swift): why the file (its text) is not as setup would write it.
    func doctorFindings(path: String, text: String?) -> [String]
    /// For doctor: checks of the agent's own conditions for running the hooks.
    func doctorChecks(_ doctor: Doctor) -> [DoctorCheck]
}

/// What an installer wants written: visible settings changes and hookctl's own bookkeeping.
package struct AgentFilePlan {
    package var changes: [FileChange] = []
    package var state: [FileChange] = []
    /// Whether any of the agent's files held hookctl's entries before.
    package var hadEntries = false

    /// A settings file's new text from an installer, with a backup; the first time hookctl's entries
    /// go in, the user's original is kept to restore on uninstall. Returns the change.
    @discardableResult
    package mutating func install(path: String, before: String?, after: String, context: InstallerContext) -> FileChange {
        let change = FileChange(path: path, before: before, after: after, mode: 0o644, backup: true)
        changes.append(change)
        if change.status != .unchanged, !hadEntries {
            state.append(context.state.originalRecord(path: path, content: before))
        }
        return change
    }

    /// A settings file's text after uninstall (nil: the file goes, and its folder when setup made it);
    /// the kept original goes, and the backup too when `restored` (the user's bytes are back).
    package mutating func uninstall(path: String, before: String?, after: String?, restored: Bool, context: InstallerContext) {
        var change = FileChange(path: path, before: before, after: after)
        change.removeEmptyDirectory = context.state.original(for: path)?.directoryExisted == false
        changes.append(change)
        if restored { state.append(context.state.removal(of: path + FileChange.backupSuffix)) }
        state.append(context.state.removal(of: context.state.originalFile(for: path)))
    }

    /// The text uninstall leaves in a JSON settings file whose remaining content is `leftover`: the
    /// user's exact original bytes when it holds just what they had (an empty file reads as `{}`), no
    /// file when setup created it and nothing is left, else `serialized` (`restored` false).
    package static func restoring(path: String, leftover: JSONValue?, serialized: String, context: InstallerContext) -> (after: String?, restored: Bool) {
        guard let original = context.state.original(for: path) else { return (serialized, false) }
        if original.existed, let content = original.content {
            let value = Text.trimmed(content).isEmpty ? JSONValue.object(JSONObject()) : try? JSON.parse(content)
            if let value, value == leftover { return (content, true) }
        } else if !original.existed, leftover == .object(JSONObject()) {
            return (nil, true)
        }
        return (serialized, false)
    }

    /// Takes in the plan for another file of the same agent.
    package mutating func absorb(_ other: AgentFilePlan) {
        changes += other.changes
        state += other.state
        hadEntries = hadEntries || other.hadEntries
    }
}

package struct InstallerContext {
    package var environment: [String: String]
    package var layout: HookLayout
    package var state: SetupState
    /// Templates for the formats that render one (plugin-file).
    package var resources: Resources?
}

package func makeInstaller(for manifest: AgentManifest, context: InstallerContext) -> any AgentInstaller {
    switch manifest.format {
    case "codex-toml": return CodexInstaller(manifest: ProgramSchemas.registrable(manifest, environment: context.environment), context: context)
    case "hooks-list-json": return HooksListInstaller(manifest: manifest, context: context)
    case "plugin-file": return PluginFileInstaller(manifest: manifest, context: context)
    case "aider-yaml": return AiderInstaller(manifest: manifest, context: context)
    case "named-hooks-json": return NamedHooksInstaller(manifest: manifest, context: context)
    default: return JSONSettingsInstaller(manifest: manifest, context: context,
                                          path: manifest.settings.resolve(environment: context.environment))
    }
}

/// `claude-json`: the manifest's events into one JSON settings file.
package struct JSONSettingsInstaller: AgentInstaller {
    package var manifest: AgentManifest
    package var context: InstallerContext
    package var path: String

    package var command: String { context.layout.command(agent: manifest.agent, gated: manifest.commandGate) }

    package func install() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(path)
        plan.hadEntries = JSONHooksInstaller.containsOurs(before)
        let after = try JSONHooksInstaller(manifest: manifest, command: command).install(into: before, path: path)
        plan.install(path: path, before: before, after: after, context: context)
        return plan
    }

    package func uninstall() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        guard let before = try FileSystem.readString(path) else { return plan }
        plan.hadEntries = JSONHooksInstaller.containsOurs(before)
        guard plan.hadEntries else { return plan }
        let stripped = try JSONHooksInstaller.uninstall(from: before, path: path)
        // Back to the exact bytes the user had when nothing else changed since setup.
        let (after, restored) = AgentFilePlan.restoring(path: path, leftover: try? JSON.parse(stripped), serialized: stripped, context: context)
        plan.uninstall(path: path, before: before, after: after, restored: restored, context: context)
        return plan
    }
}

/// `codex-toml`: the top-level `notify` program in `config.toml` (chaining the user's own), plus the
/// manifest's events in `hooks.json` (Codex runs those only once the user trusts them).
package struct CodexInstaller: AgentInstaller {
    package var manifest: AgentManifest
    package var context: InstallerContext

    package var configPath: String { manifest.settings.resolve(environment: context.environment) }
    package var hooksInstaller: JSONSettingsInstaller? {
        guard let file = manifest.hooksFile, !manifest.events.isEmpty else { return nil }
        return JSONSettingsInstaller(manifest: manifest, context: context, path: file.resolve(environment: context.environment))
    }

    package static func isOurs(_ arguments: [String]?) -> Bool {
        guard let first = arguments?.first else { return false }
        return first.hasSuffix("/" + HookLayout.scriptName)
    }

    package func install() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(configPath)
        if manifest.notifyKind != nil {
            let config = try CodexConfigText(before ?? "", path: configPath)
            let current = try config.notifyArguments()
            var after = before ?? ""
            if CodexInstaller.isOurs(current) {
                plan.hadEntries = true
                let previous = Array(current!.dropFirst(2))
                let desired = context.layout.codexNotifyArguments(previous: previous)
                if desired != current! { after = config.replacingNotify(with: CodexConfigText.notifyLine(desired)) }
            } else {
                let previous = current ?? []
                if let statement = config.notifyStatement {
                    plan.state.append(context.state.codexPreviousNotifyRecord(statement: statement, arguments: previous))
                }
                after = config.replacingNotify(with: CodexConfigText.notifyLine(context.layout.codexNotifyArguments(previous: previous)))
                plan.state.append(context.state.originalRecord(path: configPath, content: before))
            }
            plan.changes.append(FileChange(path: configPath, before: before, after: after, mode: 0o600, backup: true))
        }
        if let hooks = hooksInstaller { plan.absorb(try hooks.install()) }
        return plan
    }

    package func uninstall() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        if let before = try FileSystem.readString(configPath) {
            let config = try CodexConfigText(before, path: configPath)
            let current = try config.notifyArguments()
            if CodexInstaller.isOurs(current) {
                plan.hadEntries = true
                let previous = Array(current!.dropFirst(2))
                var replacement: String?
                if !previous.isEmpty {
                    if let saved = context.state.codexPreviousNotify(), saved.arguments == previous {
                        replacement = saved.statement
                    } else {
                        replacement = CodexConfigText.notifyLine(previous)
                    }
                }
                var after: String? = config.replacingNotify(with: replacement)
                let original = context.state.original(for: configPath)
                if let original, !original.existed, after == "" { after = nil }
                var change = FileChange(path: configPath, before: before, after: after)
                change.removeEmptyDirectory = original?.directoryExisted == false
                plan.changes.append(change)
                if let original, original.content == after {
                    plan.state.append(context.state.removal(of: configPath + FileChange.backupSuffix))
                }
                plan.state.append(context.state.removal(of: context.state.codexPreviousNotifyFile))
                plan.state.append(context.state.removal(of: context.state.originalFile(for: configPath)))
            }
        }
        if let hooks = hooksInstaller { plan.absorb(try hooks.uninstall()) }
        return plan
    }
}
