/// Doctor's agent checks: every agent is asked of its own installer. "Registered and current" means
/// setup would change nothing; when it would, the installer says why (`doctorFindings`); then the
/// installer's own checks of the agent's conditions (`doctorChecks`: Codex trust and feature flag,
/// Cursor's event names) and the manifest's notes (trust, an off switch).
extension Doctor {
    package func installerChecks(manifest: AgentManifest, layout: HookLayout, installed: Bool) -> [DoctorCheck] {
        let name = manifest.displayName
        let path = manifest.settings.resolve(environment: environment)
        let fix = "hookctl setup --agents \(manifest.agent)"
        let text: String?
        do { text = try FileSystem.readString(path) } catch {
            return [DoctorCheck(name: name, status: .broken, message: "cannot read \(short(path)): \(error)")]
        }
        let context = InstallerContext(environment: environment, layout: layout, state: SetupState(paths: paths), resources: resources)
        let installer = makeInstaller(for: manifest, context: context)
        // The agent's own conditions are worth telling even when hookctl's hooks are not in yet.
        let own = installed || text != nil ? installer.doctorChecks(self) : []
        let plan: AgentFilePlan
        do { plan = try installer.install() } catch let error as SetupError {
            var message = error.description
            if case .malformedSettings = error { message += "; the agent may ignore all its settings" }
            return [DoctorCheck(name: name, status: .broken, message: message, fix: "fix \(short(path))")] + own
        } catch let error as HookctlError {
            return [DoctorCheck(name: name, status: .broken, message: error.description, fix: "fix \(short(path))")] + own
        } catch {
            return [DoctorCheck(name: name, status: .broken, message: "\(error)")] + own
        }
        guard plan.hadEntries else {
            return [installed
                ? DoctorCheck(name: name, status: .warning, message: "\(short(path)) has no hookctl hooks: this agent will not notify", fix: fix)
                : DoctorCheck(name: name, status: .info, message: Doctor.absentAgentMessage)] + own
        }
        var checks: [DoctorCheck] = []
        if let changed = plan.changes.first(where: { $0.status != .unchanged }) {
            let findings = installer.doctorFindings(path: changed.path, text: changed.before)
            let what = findings.isEmpty ? "hookctl's hooks are missing or outdated" : findings.joined(separator: "; ")
            checks.append(DoctorCheck(name: name, status: .broken, message: "\(short(changed.path)): \(what)", fix: fix))
        } else {
            let leftOut = manifest.events.contains { $0.requiresSchema != nil } ? ProgramSchemas.leftOut(manifest, environment: environment) : []
            let events = manifest.events.map(\.name).filter { !leftOut.contains($0) }.joined(separator: ", ")
            let unknown = leftOut.isEmpty ? "" : "; not \(leftOut.joined(separator: ", ")): this \(name) does not know \(leftOut.count == 1 ? "it" : "them")"
            checks.append(DoctorCheck(name: name, status: .ok, message: "\(short(path)): hookctl registered (\(events))\(unknown)"))
        }
        return checks + own + manifestNotes(manifest: manifest, settingsText: text) + loadedHooks(manifest: manifest, installer: installer)
    }

    /// What the installed agent says it loaded (`doctor_list_hooks`: `agy -p /hooks`), compared with what
    /// setup wrote: each of hookctl's events should be on a line of the listing with hookctl's script.
    /// The listing is agent text: only its first line is quoted, cleaned and cut.
    package func loadedHooks(manifest: AgentManifest, installer: any AgentInstaller) -> [DoctorCheck] {
        guard !manifest.doctorListHooks.isEmpty,
              let program = manifest.detect.lazy.compactMap({ AgentManifest.findProgram($0, environment: environment) }).first else { return [] }
        let command = ([manifest.detect.first ?? program] + manifest.doctorListHooks).joined(separator: " ")
        guard let result = try? Subprocess(executable: program, arguments: manifest.doctorListHooks, environment: environment,
                                           input: [], timeout: 10).run() else {
            return [DoctorCheck(name: manifest.displayName, status: .info, message: "'\(command)' did not run")]
        }
        let text = result.outputText + result.errorText
        let lines = text.split(separator: "\n").map(String.init)
        let missing = manifest.events.map(\.name).filter { event in
            !lines.contains { $0.contains(event) && $0.contains(HookLayout.scriptName) }
        }
        if result.status == 0, missing.isEmpty {
            return [DoctorCheck(name: manifest.displayName, status: .ok,
                                message: "'\(command)' lists hookctl's hooks (\(manifest.events.map(\.name).joined(separator: ", ")))")]
        }
        let said = OutgoingText.clean(Text.truncate(Text.trimmed(lines.first ?? ""), characters: 160))
        return [DoctorCheck(name: manifest.displayName, status: .warning,
                            message: "'\(command)' does not list hookctl's \(missing.joined(separator: ", ")) (setup wrote them): "
                                + "it may have refused or dropped them" + (said.isEmpty ? "" : "; it said: \(said)"),
                            fix: "hookctl setup --agents \(manifest.agent), then restart agy")]
    }

    /// The manifest's note (trust and the like) once hookctl's hooks are in, and its off switch.
    package func manifestNotes(manifest: AgentManifest, settingsText text: String?) -> [DoctorCheck] {
        guard let text, text.contains(HookLayout.scriptName) else { return [] }
        var checks: [DoctorCheck] = []
        if let key = manifest.disableKey, (try? JSON.parse(text))?[key]?.boolValue == true {
            checks.append(DoctorCheck(name: manifest.displayName, status: .warning,
                                      message: "\"\(key)\": true in \(short(manifest.settings.resolve(environment: environment))) turns every hook off",
                                      fix: "remove \"\(key)\" or set it to false"))
        }
        if let settled = manifest.doctorNoteSettledBy, manifest.format == "codex-toml",
           CodexConfigText.featureFlags(text, names: [settled.flag])[settled.flag] == false {
            checks.append(DoctorCheck(name: manifest.displayName, status: .ok, message: settled.message))
        } else if let note = manifest.doctorNote {
            checks.append(DoctorCheck(name: manifest.displayName, status: .info, message: note))
        }
        return checks
    }
}

/// What an installer tells doctor about its agent's file beyond the plan; nothing by default.
extension AgentInstaller {
    /// Why the file (its text before setup) is not as setup would write it, in words.
    package func doctorFindings(path: String, text: String?) -> [String] { [] }
    /// Checks of the agent's own conditions for running the hooks.
    package func doctorChecks(_ doctor: Doctor) -> [DoctorCheck] { [] }
}

extension JSONSettingsInstaller {
    package func doctorFindings(path: String, text: String?) -> [String] {
        let registered = JSONHooksInstaller.registeredEvents(text)
        let missing = manifest.events.map(\.name).filter { registered[$0] == nil }
        let stale = registered.filter { $0.value.contains { $0 != command } }.keys.sorted()
        let unmatched = JSONHooksInstaller.mismatchedMatchers(text, manifest: manifest)
        var parts: [String] = []
        if !unmatched.isEmpty { parts.append("hooks with the wrong matcher for \(unmatched.joined(separator: ", "))") }
        if !missing.isEmpty { parts.append("missing hooks for \(missing.joined(separator: ", "))") }
        if !stale.isEmpty { parts.append("outdated hook commands for \(stale.joined(separator: ", "))") }
        return parts
    }
}

extension HooksListInstaller {
    /// One unknown event name voids Cursor's whole file, the user's own hooks included: every name in
    /// it is checked against the manifest's `known_events`.
    package func doctorChecks(_ doctor: Doctor) -> [DoctorCheck] {
        guard !manifest.knownEvents.isEmpty, let text = (try? FileSystem.readString(path)) ?? nil,
              let hooks = (try? JSON.parse(text))?["hooks"]?.objectValue else { return [] }
        let known = Set(manifest.knownEvents)
        let unknown = hooks.keys.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return [] }
        let names = unknown.map { "\"\(OutgoingText.clean(Text.truncate($0, characters: 40)))\"" }.joined(separator: ", ")
        return [DoctorCheck(name: manifest.displayName, status: .broken,
                            message: "\(doctor.short(path)) names events \(manifest.displayName) does not know (\(names)): it ignores the whole file, your own hooks too",
                            fix: "rename or remove them in \(doctor.short(path))")]
    }
}

extension CodexInstaller {
    package func doctorFindings(path: String, text: String?) -> [String] {
        if path != configPath { return hooksInstaller?.doctorFindings(path: path, text: text) ?? [] }
        guard manifest.notifyKind != nil, let config = try? CodexConfigText(text ?? "", path: configPath) else { return [] }
        let notify = (try? config.notifyArguments()) ?? nil
        guard let notify, !notify.isEmpty else { return ["no notify program"] }
        guard CodexInstaller.isOurs(notify) else { return ["notify is another program (\(notify[0]))"] }
        return notify[0] == context.layout.scriptPath ? [] : ["notify runs \(notify[0]), not \(context.layout.scriptPath)"]
    }

    package func doctorChecks(_ doctor: Doctor) -> [DoctorCheck] {
        let name = manifest.displayName
        guard let text = (try? FileSystem.readString(configPath)) ?? nil else { return featureChecks(doctor, configText: nil) }
        var checks: [DoctorCheck] = []
        if let config = try? CodexConfigText(text, path: configPath), let notify = (try? config.notifyArguments()) ?? nil,
           CodexInstaller.isOurs(notify), notify.count > 2 {
            checks.append(DoctorCheck(name: name, status: .info, message: "notify also runs your previous notify program (\(notify[2]))"))
        }
        checks += featureChecks(doctor, configText: text)
        if let hooksFile = manifest.hooksFile?.resolve(environment: context.environment),
           let hooksText = (try? FileSystem.readString(hooksFile)) ?? nil {
            let keys = Doctor.codexTrustKeys(hooksPath: hooksFile, hooksText: hooksText)
            if !keys.isEmpty {
                let found = keys.filter(Doctor.codexTrustedKeys(configText: text).contains)
                if found.count == keys.count {
                    checks.append(DoctorCheck(name: "\(name) trust", status: .ok,
                                              message: "all \(keys.count) hookctl hooks in hooks.json have a trust entry in config.toml (Codex checks their hashes itself)"))
                } else {
                    checks.append(DoctorCheck(
                        name: "\(name) trust", status: .warning,
                        message: "Codex skips new hooks until you trust them: \(keys.count - found.count) of \(keys.count) hookctl hooks in hooks.json are not trusted yet. Until then only notify (turn completion) pushes.",
                        fix: "start codex, type /hooks and trust hookctl's hooks (once: their command strings never change)"))
                }
            }
        }
        return checks
    }

    /// Whether this Codex reads `hooks.json` at all: a version before `hooks_feature.since` needs the
    /// feature flag on, and any version can have it turned off in `[features]`.
    package func featureChecks(_ doctor: Doctor, configText: String?) -> [DoctorCheck] {
        guard let feature = manifest.hooksFeature, manifest.hooksFile != nil else { return [] }
        let name = manifest.displayName
        let flags = CodexConfigText.featureFlags(configText ?? "", names: feature.flags)
        if let off = flags.first(where: { $0.value == false }) {
            return [DoctorCheck(name: name, status: .warning, message: "\(off.key) = false in [features] of \(doctor.short(configPath)): Codex runs no hooks.json hook, only notify",
                                fix: "remove it, or set \(off.key) = true under [features]")]
        }
        guard let version = CodexInstaller.installedVersion(manifest: manifest, environment: context.environment),
              let since = AgentVersion(feature.since), version < since else { return [] }
        if flags[feature.flag] == true { return [] }
        return [DoctorCheck(name: name, status: .warning,
                            message: "Codex \(version) reads hooks.json only with \(feature.flag) = true under [features] (on by default since \(feature.since)): only notify pushes",
                            fix: "add '\(feature.flag) = true' under [features] in \(doctor.short(configPath)), or update Codex")]
    }

    /// The installed agent's version from `<program> --version`, nil when it cannot be run or read.
    package static func installedVersion(manifest: AgentManifest, environment: [String: String]) -> AgentVersion? {
        guard let program = manifest.detect.lazy.compactMap({ AgentManifest.findProgram($0, environment: environment) }).first,
              let result = try? Subprocess(executable: program, arguments: ["--version"], environment: environment, timeout: 5).run(),
              result.status == 0 else { return nil }
        return AgentVersion.first(in: result.outputText)
    }
}
