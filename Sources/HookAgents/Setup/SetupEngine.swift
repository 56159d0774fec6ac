/// What happened (or would happen) to one agent.
package struct AgentReport: Sendable {
    package enum Status: String, Sendable {
        case installed, updated, unchanged, skipped, failed, removed
        case nothingToRemove = "nothing_to_remove"
    }

    package var agent: String
    package var displayName: String
    package var status: Status
    package var reason: String?
    package var files: [FileChange]
    package var error: (any HookctlError)?

    package var json: JSONValue {
        var object = JSONObject()
        object["agent"] = .string(agent)
        object["display_name"] = .string(displayName)
        object["status"] = .string(status.rawValue)
        if let reason { object["reason"] = .string(reason) }
        object["files"] = .array(files.map { file in
            .object(JSONObject([("path", .string(file.path)), ("status", .string(file.status.rawValue))]))
        })
        return .object(object)
    }
}

/// The outcome of `setup` or `uninstall`: hookctl's own files, then each agent.
package struct SetupReport: Sendable {
    package var dryRun: Bool
    package var notifyURL: String?
    package var warnings: [String] = []
    package var ownFiles: [FileChange] = []
    package var agents: [AgentReport] = []
    package var notes: [String] = []

    /// 65 when a settings file could not be edited, 0 otherwise.
    package var exitCode: ExitCode {
        agents.compactMap(\.error).first?.exitCode ?? .ok
    }

    package var json: JSONValue {
        var object = JSONObject()
        object["dry_run"] = .bool(dryRun)
        object["notify_url"] = notifyURL.map { .string(Text.redactURL($0)) } ?? .null
        object["files"] = .array(ownFiles.map { file in
            .object(JSONObject([("path", .string(file.path)), ("status", .string(file.status.rawValue))]))
        })
        object["agents"] = .array(agents.map(\.json))
        object["warnings"] = .array(warnings.map { .string($0) })
        object["notes"] = .array(notes.map { .string($0) })
        object["ok"] = .bool(exitCode == .ok)
        return .object(object)
    }
}

/// Plans and applies `setup` and `uninstall`. Planning reads files only; applying writes them under
/// one lock (`<state>/setup/setup.lock`), so two setups at once run one after the other.
package struct SetupEngine {
    package var environment: [String: String]
    package var paths: Paths
    package var resources: Resources

    package init(environment: [String: String], paths: Paths, resources: Resources? = nil) {
        self.environment = environment
        self.paths = paths
        self.resources = resources ?? Resources(environment: environment, paths: paths)
    }

    package var state: SetupState { SetupState(paths: paths) }

    /// The manifests to act on: the named ones (all must exist), else every known one.
    package func selectManifests(_ names: [String]?) throws -> (manifests: [AgentManifest], named: Bool) {
        let all = try resources.manifests()
        guard let names, !names.isEmpty else { return (all, false) }
        var result: [AgentManifest] = []
        for name in names {
            guard let manifest = all.first(where: { $0.agent == name }) else {
                throw SetupError.unknownAgent(name, known: all.map(\.agent))
            }
            if !result.contains(where: { $0.agent == name }) { result.append(manifest) }
        }
        return (result, true)
    }

    package func withLock<T>(dryRun: Bool, _ body: () throws -> T) throws -> T {
        if dryRun { return try body() }
        try FileSystem.makeDirectories(state.directory, mode: 0o700)
        guard let lock = try FileLock(path: state.lockFile) else { return try body() }
        defer { lock.unlock() }
        return try body()
    }

    /// `hookctl setup`.
    package func setup(url: NotifyURL?, agents names: [String]?, dryRun: Bool, hookctlPath: String) throws -> SetupReport {
        let (manifests, named) = try selectManifests(names)
        let configTemplate = try resources.template("config.yaml")
        let scriptTemplate = try resources.template("hook.sh")
        return try withLock(dryRun: dryRun) {
            var report = SetupReport(dryRun: dryRun, notifyURL: url?.text)
            if let warning = url?.warning { report.warnings.append(warning) }

            // The config: add or replace the relay sink, keep everything else.
            let configBefore = try FileSystem.readString(paths.configFile)
            let configAfter = try ConfigEditor.apply(existing: configBefore, url: url?.text, template: configTemplate, path: paths.configFile)
            let config = FileChange(path: paths.configFile, before: configBefore, after: configAfter, mode: 0o600, backup: true, secret: true)

            let layout = HookLayout(paths: paths, gate: Config.gate(in: configAfter) ?? Product.gateVariable)
            let scriptBefore = try FileSystem.readString(layout.scriptPath)
            let script = FileChange(path: layout.scriptPath, before: scriptBefore,
                                    after: layout.script(template: scriptTemplate, hookctl: hookctlPath), mode: 0o755)
            report.ownFiles = [config, script]
            let scriptFolder = FileSystem.parentDirectory(of: layout.scriptPath)
            let frontFiles = LegacyHookFront.leftovers(folder: scriptFolder)
            if !frontFiles.isEmpty {
                report.notes.append("The retired hook front's files go from \(tildePath(scriptFolder)) (\(frontFiles.joined(separator: ", "))): each hook runs hookctl itself now.")
            }

            var pending: [(AgentReport, [FileChange])] = []
            let context = InstallerContext(environment: environment, layout: layout, state: state, resources: resources)
            for manifest in manifests {
                var agent = AgentReport(agent: manifest.agent, displayName: manifest.displayName, status: .unchanged, files: [])
                if !named, !manifest.isInstalled(environment: environment) {
                    agent.status = .skipped
                    let marker = manifest.installMarker(environment: environment)
                    agent.reason = "not installed (no \(manifest.detect.first ?? manifest.agent) on PATH, no \(tildePath(marker))); name it in --agents to set it up anyway"
                    pending.append((agent, []))
                    continue
                }
                pending.append(try Self.plan(agent, { try makeInstaller(for: manifest, context: context).install() }) { agent, plan in
                    let changed = plan.changes.contains { $0.status != .unchanged }
                    agent.status = !changed ? .unchanged : (plan.hadEntries ? .updated : .installed)
                    agent.reason = "\(manifest.events.count + (manifest.notifyKind != nil ? 1 : 0)) hooks"
                })
            }
            report.agents = pending.map(\.0)
            if manifests.contains(where: { $0.format == "codex-toml" }),
               report.agents.contains(where: { $0.agent == "codex" && ($0.status == .installed || $0.status == .updated) }) {
                report.notes.append(resources.message("codex.trust", fallback: "Codex skips new hooks until you trust them with /hooks."))
            }
            // What doctor would warn about the agents set up here (an older Codex that needs a feature
            // flag, an event name that voids Cursor's file): each installer's own checks.
            let doctor = Doctor(environment: environment, paths: paths)
            for manifest in manifests where report.agents.contains(where: { $0.agent == manifest.agent && $0.status != .skipped }) {
                for check in makeInstaller(for: manifest, context: context).doctorChecks(doctor)
                where check.name == manifest.displayName && (check.status == .warning || check.status == .broken) {
                    report.warnings.append(check.message + (check.fix.map { " (\($0))" } ?? ""))
                }
            }
            guard !dryRun else { return report }

            // Write: hookctl's files first (so the hooks never point at a missing script), then each agent.
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: paths.configFile), mode: 0o700)
            try config.apply()
            if config.status == .created { chmod(paths.configFile, 0o600) }
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: layout.scriptPath), mode: 0o700)
            try script.apply()
            // After the script that named it: an old front's files (an old warm server stops with its socket).
            LegacyHookFront.removeLeftovers(folder: FileSystem.parentDirectory(of: layout.scriptPath))
            for (agent, stateChanges) in pending where agent.error == nil {
                for change in stateChanges {
                    try FileSystem.makeDirectories(FileSystem.parentDirectory(of: change.path), mode: 0o700)
                    try change.apply()
                }
                for change in agent.files { try change.apply() }
            }
            return report
        }
    }

    /// `hookctl uninstall`: every agent's hookctl entries, then (when no agent was named) the generated files.
    package func uninstall(agents names: [String]?, dryRun: Bool) throws -> SetupReport {
        let (manifests, named) = try selectManifests(names)
        return try withLock(dryRun: dryRun) {
            var report = SetupReport(dryRun: dryRun, notifyURL: nil)
            let layout = HookLayout(paths: paths)
            let context = InstallerContext(environment: environment, layout: layout, state: state, resources: resources)
            var pending: [(AgentReport, [FileChange])] = []
            for manifest in manifests {
                let agent = AgentReport(agent: manifest.agent, displayName: manifest.displayName, status: .nothingToRemove, files: [])
                pending.append(try Self.plan(agent, { try makeInstaller(for: manifest, context: context).uninstall() }) { agent, plan in
                    if plan.changes.contains(where: { $0.status != .unchanged }) { agent.status = .removed }
                })
            }
            report.agents = pending.map(\.0)
            if !named {
                let before = try FileSystem.readString(layout.scriptPath)
                if before != nil { report.ownFiles.append(FileChange(path: layout.scriptPath, before: before, after: nil)) }
                report.notes.append(resources.message("uninstall.done", fallback: "The config file is kept."))
            }
            guard !dryRun else { return report }
            for (agent, stateChanges) in pending where agent.error == nil {
                for change in agent.files { try change.apply() }
                for change in stateChanges { try change.apply() }
            }
            for file in report.ownFiles { try file.apply() }
            if !named {
                LegacyHookFront.removeLeftovers(folder: FileSystem.parentDirectory(of: layout.scriptPath))
                rmdir(FileSystem.parentDirectory(of: layout.scriptPath))
                rmdir(state.directory + "/originals")
            }
            return report
        }
    }

    /// One agent's installer step (install or uninstall): its files and bookkeeping, with `record`
    /// saying what happened; an agent whose step fails is reported failed and the others go on.
    private static func plan(_ agent: AgentReport, _ step: () throws -> AgentFilePlan,
                             record: (inout AgentReport, AgentFilePlan) -> Void) throws -> (AgentReport, [FileChange]) {
        var agent = agent
        do {
            let plan = try step()
            agent.files = plan.changes
            record(&agent, plan)
            return (agent, plan.state)
        } catch let error as HookctlError {
            agent.status = .failed
            agent.reason = error.description
            agent.error = error
            return (agent, [])
        }
    }

    package func tildePath(_ path: String) -> String {
        path == paths.home ? "~" : path.hasPrefix(paths.home + "/") ? "~" + path.dropFirst(paths.home.count) : path
    }
}
