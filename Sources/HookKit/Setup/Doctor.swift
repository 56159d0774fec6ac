/// One finding of `hookctl doctor`: what was checked, how it stands, and how to fix it.
public struct DoctorCheck: Sendable {
    public enum Status: String, Sendable { case ok, info, warning, broken }

    public var name: String
    public var status: Status
    public var message: String
    public var fix: String?

    public var json: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        object["status"] = .string(status.rawValue)
        object["message"] = .string(message)
        if let fix { object["fix"] = .string(fix) }
        return .object(object)
    }
}

/// The checks behind `hookctl doctor`. Nothing here sends a notification or writes a file.
public struct Doctor {
    public var environment: [String: String]
    public var paths: Paths
    public var resources: Resources

    public init(environment: [String: String], paths: Paths) {
        self.environment = environment
        self.paths = paths
        resources = Resources(environment: environment, paths: paths)
    }

    var engine: SetupEngine { SetupEngine(environment: environment, paths: paths, resources: resources) }
    func short(_ path: String) -> String { engine.tildePath(path) }

    public func run(reachabilityTimeout: Double = 5) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let configText = (try? FileSystem.readString(paths.configFile)) ?? nil
        let layout = HookLayout(paths: paths, gate: ConfigEditor.gate(in: configText) ?? HookLayout.defaultGate)
        checks += binaryChecks(layout: layout)
        let config = configChecks(&checks)
        checks += agentChecks(layout: layout)
        checks.append(tmuxCheck())
        if let config { checks += sinkChecks(config: config, timeout: reachabilityTimeout) }
        checks += outboxChecks()
        return checks
    }

    // MARK: binary and hook script

    /// The hookctl path baked into the generated script (`exec '/path/hookctl' notify …`).
    static func scriptTarget(_ script: String) -> String? {
        for line in script.split(separator: "\n") {
            let trimmed = line.trimmingSpaces()
            guard trimmed.hasPrefix("exec '"), trimmed.contains("' notify") else { continue }
            var rest = trimmed.dropFirst(5)
            var result = ""
            // Undo Shell.quote: '…' segments joined by \' .
            while let first = rest.first {
                if first == "'" {
                    rest = rest.dropFirst()
                    guard let close = rest.firstIndex(of: "'") else { return nil }
                    result += rest[..<close]
                    rest = rest[rest.index(after: close)...]
                } else if rest.hasPrefix("\\'") {
                    result += "'"
                    rest = rest.dropFirst(2)
                } else {
                    break
                }
            }
            return result
        }
        return nil
    }

    func binaryChecks(layout: HookLayout) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let onPath = AgentManifest.findProgram("hookctl", environment: environment)
        if let onPath {
            checks.append(DoctorCheck(name: "binary", status: .ok, message: "hookctl on PATH: \(short(onPath))"))
        } else {
            checks.append(DoctorCheck(name: "binary", status: .warning, message: "hookctl is not on PATH (the hooks do not need it: they use an absolute path)",
                                      fix: "add ~/.local/bin to PATH, e.g. echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> ~/.profile"))
        }
        guard let script = (try? FileSystem.readString(layout.scriptPath)) ?? nil else {
            checks.append(DoctorCheck(name: "hook script", status: .warning, message: "\(short(layout.scriptPath)) does not exist: no hooks are installed",
                                      fix: "hookctl setup"))
            return checks
        }
        guard FileSystem.isExecutable(layout.scriptPath) else {
            checks.append(DoctorCheck(name: "hook script", status: .broken, message: "\(short(layout.scriptPath)) is not executable", fix: "hookctl setup"))
            return checks
        }
        guard let target = Doctor.scriptTarget(script) else {
            checks.append(DoctorCheck(name: "hook script", status: .broken, message: "\(short(layout.scriptPath)) was changed by hand: it no longer runs hookctl",
                                      fix: "hookctl setup (rewrites it from the template)"))
            return checks
        }
        if !FileSystem.isExecutable(target) {
            checks.append(DoctorCheck(name: "hook script", status: .broken, message: "the hooks run \(short(target)), which does not exist any more",
                                      fix: "hookctl setup (points the script at the hookctl you run it with)"))
        } else if let onPath, FileSystem.resolveSymlinks(onPath) != FileSystem.resolveSymlinks(target) {
            checks.append(DoctorCheck(name: "hook script", status: .warning,
                                      message: "the hooks run \(short(target)), but hookctl on PATH is \(short(onPath))",
                                      fix: "run 'hookctl setup' with the hookctl you want the hooks to use"))
        } else {
            checks.append(DoctorCheck(name: "hook script", status: .ok, message: "\(short(layout.scriptPath)) runs \(short(target))"))
        }
        if let template = try? resources.template("hook.sh"), layout.script(template: template, hookctl: target) != script {
            checks.append(DoctorCheck(name: "hook script", status: .warning, message: "the hook script is older than this hookctl's template",
                                      fix: "hookctl setup"))
        }
        return checks
    }

    // MARK: config and sinks

    func configChecks(_ checks: inout [DoctorCheck]) -> Config? {
        do {
            guard let config = try Config.load(path: paths.configFile, environment: environment) else {
                checks.append(DoctorCheck(name: "config", status: .info, message: "no config at \(short(paths.configFile)): events are only recorded locally",
                                          fix: "hookctl setup --notify-url URL, to push to the phone"))
                return nil
            }
            var mode = stat()
            if stat(paths.configFile, &mode) == 0, mode.st_mode & 0o077 != 0 {
                checks.append(DoctorCheck(name: "config", status: .warning, message: "\(short(paths.configFile)) is readable by others (it holds the notify URL)",
                                          fix: "chmod 600 \(short(paths.configFile))"))
            }
            do {
                let sinks = try SinkRegistry.makeSinks(config: config)
                let names = sinks.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
                checks.append(DoctorCheck(name: "config", status: .ok,
                                          message: "\(short(paths.configFile)) is valid; sinks: \(sinks.isEmpty ? "none (events are only recorded)" : names)"))
            } catch let error as HookctlError {
                checks.append(DoctorCheck(name: "config", status: .broken, message: error.description, fix: "fix the sink in \(short(paths.configFile))"))
                return nil
            }
            return config
        } catch let error as HookctlError {
            checks.append(DoctorCheck(name: "config", status: .broken, message: error.description, fix: "fix \(short(paths.configFile)) at the line named"))
        } catch {
            checks.append(DoctorCheck(name: "config", status: .broken, message: "\(error)"))
        }
        return nil
    }

    func sinkChecks(config: Config, timeout: Double) -> [DoctorCheck] {
        guard let sinks = try? SinkRegistry.makeSinks(config: config) else { return [] }
        return sinks.compactMap { sink -> DoctorCheck? in
            // A sink whose last event was given up (a deleted webhook's 404/410, a revoked token) is dead
            // even when its host still answers.
            var problems: [String] = []
            if let last = ((try? Outbox(paths: paths).dead(problems: &problems)) ?? []).filter({ $0.sink == sink.name })
                .max(by: { $0.created < $1.created }), let reason = last.deadReason {
                return DoctorCheck(name: "sink \(sink.name)", status: .broken,
                                   message: Text.scrub("the last event for this sink was given up: \(reason)", secrets: sink.secrets),
                                   fix: "fix the sink, check it with 'hookctl test --sink \(sink.name)', then clear it with 'hookctl outbox drop --dead'")
            }
            guard let endpoint = sink.endpoint else {
                return DoctorCheck(name: "sink \(sink.name)", status: .ok, message: "\(sink.type) sink (local, nothing to reach)")
            }
            let shown = Text.redactURL(endpoint)
            if let why = HTTPClient.checkReachable(url: endpoint, timeout: timeout) {
                return DoctorCheck(name: "sink \(sink.name)", status: .broken,
                                   message: Text.scrub("\(shown) is not reachable: \(why)", secrets: sink.secrets),
                                   fix: "check the network and the URL; 'hookctl test --sink \(sink.name)' sends a test notification")
            }
            return DoctorCheck(name: "sink \(sink.name)", status: .ok, message: "\(shown) is reachable (nothing was sent)")
        }
    }

    func outboxChecks() -> [DoctorCheck] {
        var problems: [String] = []
        let outbox = Outbox(paths: paths)
        let pending = (try? outbox.pending(problems: &problems)) ?? []
        let dead = (try? outbox.dead(problems: &problems)) ?? []
        var checks: [DoctorCheck] = []
        if pending.isEmpty {
            checks.append(DoctorCheck(name: "outbox", status: .ok, message: "no undelivered events"))
        } else {
            let oldest = pending.map(\.created).min().map { Duration.format(Clock.nowEpoch() - $0) } ?? "?"
            checks.append(DoctorCheck(name: "outbox", status: .warning, message: "\(pending.count) event(s) waiting for delivery, the oldest from \(oldest) ago",
                                      fix: "hookctl outbox flush (see why with: hookctl outbox list)"))
        }
        if !dead.isEmpty {
            checks.append(DoctorCheck(name: "outbox", status: .warning, message: "\(dead.count) event(s) could not be delivered and were given up",
                                      fix: "see them with 'hookctl outbox list', then remove them with 'hookctl outbox drop --dead'"))
        }
        for problem in problems {
            checks.append(DoctorCheck(name: "outbox", status: .warning, message: problem))
        }
        return checks
    }

    // MARK: agents

    func agentChecks(layout: HookLayout) -> [DoctorCheck] {
        let manifests: [AgentManifest]
        do { manifests = try resources.manifests() } catch let error as HookctlError {
            return [DoctorCheck(name: "agents", status: .broken, message: error.description, fix: "fix or remove the manifest")]
        } catch { return [] }
        var checks: [DoctorCheck] = []
        for manifest in manifests {
            let name = manifest.displayName
            let settings = manifest.settings.resolve(environment: environment)
            let installed = manifest.isInstalled(environment: environment)
            if manifest.format == "codex-toml" {
                checks += codexChecks(manifest: manifest, layout: layout, installed: installed)
                continue
            }
            let text: String?
            do { text = try FileSystem.readString(settings) } catch {
                checks.append(DoctorCheck(name: name, status: .broken, message: "cannot read \(short(settings)): \(error)"))
                continue
            }
            checks.append(jsonHooksCheck(name: name, manifest: manifest, path: settings, text: text,
                                         command: layout.command(agent: manifest.agent, gated: manifest.commandGate), installed: installed))
            if manifest.agent == "gemini", JSONHooksInstaller.containsOurs(text) {
                checks.append(DoctorCheck(name: name, status: .info, message: resources.message("gemini.trust", fallback: "Gemini CLI runs hooks only in trusted folders.")))
            }
        }
        return checks
    }

    func jsonHooksCheck(name: String, manifest: AgentManifest, path: String, text: String?, command: String, installed: Bool) -> DoctorCheck {
        guard let text else {
            return installed
                ? DoctorCheck(name: name, status: .warning, message: "\(short(path)) has no hookctl hooks", fix: "hookctl setup --agents \(manifest.agent)")
                : DoctorCheck(name: name, status: .info, message: "not installed; skipped")
        }
        if case .failure(let error) = Result(catching: { try JSON.parse(text) }), let error = error as? JSONParseError {
            return DoctorCheck(name: name, status: .broken, message: "\(short(path)):\(error.line):\(error.column): invalid JSON: \(error.message); the agent may ignore all its settings",
                               fix: "fix the file at that line")
        }
        let registered = JSONHooksInstaller.registeredEvents(text)
        if registered.isEmpty {
            return installed
                ? DoctorCheck(name: name, status: .warning, message: "\(short(path)) has no hookctl hooks: this agent will not notify", fix: "hookctl setup --agents \(manifest.agent)")
                : DoctorCheck(name: name, status: .info, message: "not installed; skipped")
        }
        let missing = manifest.events.map(\.name).filter { registered[$0] == nil }
        let stale = registered.filter { $0.value.contains { $0 != command } }.keys.sorted()
        let unmatched = JSONHooksInstaller.mismatchedMatchers(text, manifest: manifest)
        if !missing.isEmpty || !stale.isEmpty || !unmatched.isEmpty {
            var parts: [String] = []
            if !unmatched.isEmpty { parts.append("hooks with the wrong matcher for \(unmatched.joined(separator: ", "))") }
            if !missing.isEmpty { parts.append("missing hooks for \(missing.joined(separator: ", "))") }
            if !stale.isEmpty { parts.append("outdated hook commands for \(stale.joined(separator: ", "))") }
            return DoctorCheck(name: name, status: .broken, message: "\(short(path)): " + parts.joined(separator: "; "), fix: "hookctl setup --agents \(manifest.agent)")
        }
        return DoctorCheck(name: name, status: .ok, message: "\(short(path)): \(registered.count) hooks registered (\(manifest.events.map(\.name).joined(separator: ", ")))")
    }

    func codexChecks(manifest: AgentManifest, layout: HookLayout, installed: Bool) -> [DoctorCheck] {
        let name = manifest.displayName
        let configPath = manifest.settings.resolve(environment: environment)
        var checks: [DoctorCheck] = []
        let text = (try? FileSystem.readString(configPath)) ?? nil
        guard let text else {
            return [installed
                ? DoctorCheck(name: name, status: .warning, message: "\(short(configPath)) does not exist: Codex will not notify", fix: "hookctl setup --agents \(manifest.agent)")
                : DoctorCheck(name: name, status: .info, message: "not installed; skipped")]
        }
        do {
            let config = try CodexConfigText(text, path: configPath)
            let notify = try config.notifyArguments()
            if CodexInstaller.isOurs(notify) {
                if notify!.first != layout.scriptPath {
                    checks.append(DoctorCheck(name: name, status: .broken, message: "notify in \(short(configPath)) runs \(notify!.first!), not \(short(layout.scriptPath))",
                                              fix: "hookctl setup --agents codex"))
                } else {
                    let chained = notify!.count > 2 ? "; it also runs your previous notify program (\(notify![2]))" : ""
                    checks.append(DoctorCheck(name: name, status: .ok, message: "\(short(configPath)): notify runs hookctl on turn completion\(chained)"))
                }
            } else if installed || manifest.notifyKind != nil {
                checks.append(DoctorCheck(name: name, status: installed ? .warning : .info,
                                          message: notify == nil ? "no notify program in \(short(configPath))" : "notify in \(short(configPath)) is another program (\(notify![0]))",
                                          fix: "hookctl setup --agents codex (keeps your program and runs it too)"))
            }
            if text.split(separator: "\n").contains(where: { $0.trimmingSpaces().hasPrefix("hooks") && $0.contains("false") }),
               config.tableHeaders.contains("[features]") {
                checks.append(DoctorCheck(name: name, status: .warning, message: "hooks may be turned off in [features] of \(short(configPath))",
                                          fix: "set 'hooks = true' under [features]"))
            }
            let trusted = config.tableHeaders.filter { $0.hasPrefix("[hooks.state") }.count
            if let hooksFile = manifest.hooksFile?.resolve(environment: environment),
               let hooksText = (try? FileSystem.readString(hooksFile)) ?? nil {
                let command = layout.command(agent: manifest.agent, gated: manifest.commandGate)
                let check = jsonHooksCheck(name: name, manifest: manifest, path: hooksFile, text: hooksText, command: command, installed: installed)
                checks.append(check)
                let keys = Doctor.codexTrustKeys(hooksPath: hooksFile, hooksText: hooksText)
                if !keys.isEmpty {
                    let entries = Doctor.codexTrustedKeys(configText: text)
                    let found = keys.filter(entries.contains)
                    let fix = "start codex, type /hooks and trust hookctl's hooks (once: their command strings never change)"
                    if found.count == keys.count {
                        checks.append(DoctorCheck(name: "\(name) trust", status: .ok,
                                                  message: "all \(keys.count) hookctl hooks in hooks.json have a trust entry in config.toml (Codex checks their hashes itself)"))
                    } else {
                        checks.append(DoctorCheck(
                            name: "\(name) trust", status: .info,
                            message: "Codex skips new hooks until you trust them: \(keys.count - found.count) of \(keys.count) hookctl hooks in hooks.json are not trusted yet (\(trusted) trust entries in config.toml). Until then only notify (turn completion) pushes.",
                            fix: fix))
                    }
                }
            }
        } catch let error as HookctlError {
            checks.append(DoctorCheck(name: name, status: .broken, message: error.description, fix: "fix \(short(configPath))"))
        } catch {}
        return checks
    }

    /// Codex keys hook trust by `<hooks.json path>:<event in snake_case>:<group index>:<handler index>`.
    static func codexTrustKeys(hooksPath: String, hooksText: String) -> [String] {
        guard let root = try? JSON.parse(hooksText), let hooks = root["hooks"]?.objectValue else { return [] }
        var keys: [String] = []
        for (event, groups) in hooks.entries {
            for (groupIndex, group) in (groups.arrayValue ?? []).enumerated() {
                for (handlerIndex, handler) in (group["hooks"]?.arrayValue ?? []).enumerated() where JSONHooksInstaller.isOurs(handler) {
                    keys.append("\(hooksPath):\(snakeCase(event)):\(groupIndex):\(handlerIndex)")
                }
            }
        }
        return keys
    }

    /// The keys of `[hooks.state."KEY"]` tables in config.toml that hold a `trusted_hash`.
    static func codexTrustedKeys(configText: String) -> Set<String> {
        var result: Set<String> = []
        var current: String?
        for line in configText.split(separator: "\n") {
            let trimmed = line.trimmingSpaces()
            if trimmed.hasPrefix("[") {
                current = nil
                let prefix = "[hooks.state."
                if trimmed.hasPrefix(prefix), trimmed.hasSuffix("]") {
                    let quoted = String(trimmed.dropFirst(prefix.count).dropLast()).trimmingSpaces()
                    if quoted.hasPrefix("\""), let parsed = try? JSON.parse(quoted) { current = parsed.stringValue }
                    else { current = quoted.unquotedKey() }
                }
                continue
            }
            if let key = current, trimmed.hasPrefix("trusted_hash") { result.insert(key) }
        }
        return result
    }

    /// `UserPromptSubmit` → `user_prompt_submit`.
    static func snakeCase(_ name: String) -> String {
        var output = ""
        for (index, character) in name.enumerated() {
            if character.isUppercase {
                if index > 0 { output += "_" }
                output += character.lowercased()
            } else {
                output.append(character)
            }
        }
        return output
    }

    // MARK: tmux

    func tmuxCheck() -> DoctorCheck {
        guard let tmux = AgentManifest.findProgram("tmux", environment: environment) else {
            return DoctorCheck(name: "tmux", status: .warning, message: "tmux is not installed: phone sessions cannot be kept across reconnects",
                               fix: "apt-get install tmux")
        }
        guard let result = try? Subprocess(executable: tmux, arguments: ["-V"], environment: environment, timeout: 3).run(), result.status == 0 else {
            return DoctorCheck(name: "tmux", status: .broken, message: "\(tmux) -V failed", fix: "reinstall tmux")
        }
        let version = Text.trimmed(result.outputText)
        let number = Double(version.split(separator: " ").last.map { String($0.prefix { $0.isNumber || $0 == "." }) } ?? "") ?? 0
        if number > 0, number < 3.0 {
            return DoctorCheck(name: "tmux", status: .warning, message: "\(version) at \(tmux) is old; hookctl expects tmux 3.0 or newer", fix: "upgrade tmux")
        }
        return DoctorCheck(name: "tmux", status: .ok, message: "\(version) at \(tmux)")
    }
}
