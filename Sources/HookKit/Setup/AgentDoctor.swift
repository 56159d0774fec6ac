/// Doctor checks for the installer formats beyond `claude-json` and `codex-toml`, and the notes a
/// manifest adds (trust, an off switch). "Registered and current" is asked of the installer itself:
/// the hooks are in place when setup would change nothing.
extension Doctor {
    func installerChecks(manifest: AgentManifest, layout: HookLayout, installed: Bool) -> [DoctorCheck] {
        let name = manifest.displayName
        let path = manifest.settings.resolve(environment: environment)
        let fix = "hookctl setup --agents \(manifest.agent)"
        let text: String?
        do { text = try FileSystem.readString(path) } catch {
            return [DoctorCheck(name: name, status: .broken, message: "cannot read \(short(path)): \(error)")]
        }
        let context = InstallerContext(environment: environment, layout: layout, state: SetupState(paths: paths), resources: resources)
        let plan: AgentFilePlan
        do { plan = try makeInstaller(for: manifest, context: context).install() } catch let error as HookctlError {
            return [DoctorCheck(name: name, status: .broken, message: error.description, fix: "fix \(short(path))")]
        } catch {
            return [DoctorCheck(name: name, status: .broken, message: "\(error)")]
        }
        guard plan.hadEntries else {
            return [installed
                ? DoctorCheck(name: name, status: .warning, message: "\(short(path)) has no hookctl hooks: this agent will not notify", fix: fix)
                : DoctorCheck(name: name, status: .info, message: Doctor.absentAgentMessage)]
        }
        var checks: [DoctorCheck] = []
        if plan.changes.contains(where: { $0.status != .unchanged }) {
            checks.append(DoctorCheck(name: name, status: .broken, message: "\(short(path)): hookctl's hooks are missing or outdated", fix: fix))
        } else {
            let events = manifest.events.map(\.name).joined(separator: ", ")
            checks.append(DoctorCheck(name: name, status: .ok, message: "\(short(path)): hookctl registered (\(events))"))
        }
        return checks + manifestNotes(manifest: manifest, settingsText: text)
    }

    /// The manifest's note (trust and the like) once hookctl's hooks are in, and its off switch.
    func manifestNotes(manifest: AgentManifest, settingsText text: String?) -> [DoctorCheck] {
        guard let text, text.contains(HookLayout.scriptName) else { return [] }
        var checks: [DoctorCheck] = []
        if let key = manifest.disableKey, (try? JSON.parse(text))?[key]?.boolValue == true {
            checks.append(DoctorCheck(name: manifest.displayName, status: .warning,
                                      message: "\"\(key)\": true in \(short(manifest.settings.resolve(environment: environment))) turns every hook off",
                                      fix: "remove \"\(key)\" or set it to false"))
        }
        if let note = manifest.doctorNote {
            checks.append(DoctorCheck(name: manifest.displayName, status: .info, message: note))
        }
        return checks
    }
}
