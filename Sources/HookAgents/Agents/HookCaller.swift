/// What `notify` takes from the agent manifests around hookctl's own payload parser: who really ran
/// the hook, the agent's payload keys under the names the parser reads, and the kinds and messages a
/// manifest gives its events.
///
/// Grok Build runs the hooks in `.claude/settings.json` and `.cursor/hooks.json`, and Cursor runs
/// Claude Code's: a hook registered for one agent then fires inside another. The environment names
/// the real caller (Grok sets `GROK_HOOK_EVENT` in every hook it runs, Cursor `CURSOR_PROJECT_DIR`).
/// One event is recorded per happening: when the real caller has hookctl hooks of its own, those
/// report it and the borrowed hook records nothing; otherwise the borrowed hook reports it under the
/// real caller's name.
package struct HookCaller: Sendable {
    /// The agent the event is recorded for (nil: detect from the payload, as before).
    package var agent: String?
    /// The manifest of that agent, when it is not one hookctl's parser knows by itself.
    package var manifest: AgentManifest?
    /// The payload with the agent's keys copied to the names the parser reads.
    package var payload: JSONValue?
    /// The hook ran inside another agent that reports the same happening through its own hooks.
    package var duplicateOf: String?

    /// Decides who called and prepares the payload. Manifests are read only when they can matter.
    package static func resolve(agent: String?, payload: JSONValue?, environment: [String: String],
                               manifests: () -> [AgentManifest]) -> HookCaller {
        var result = HookCaller(agent: agent, manifest: nil, payload: payload, duplicateOf: nil)
        guard let named = agent else { return result }
        // The common path (a built-in agent's hook, run by that agent) reads no manifest file.
        if PayloadParser.builtInAgents.contains(named),
           !builtInCallerVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) { return result }
        let all = manifests()
        if let real = realCaller(of: named, environment: environment, manifests: all) {
            if hasOwnHooks(real, environment: environment) {
                result.duplicateOf = real.agent
                return result
            }
            result.agent = real.agent
        }
        // hookctl's own parser reads the built-in agents' payloads; a manifest speaks for the others.
        guard let name = result.agent, !PayloadParser.builtInAgents.contains(name),
              let manifest = all.first(where: { $0.agent == name }) else { return result }
        result.manifest = manifest
        if let object = payload?.objectValue, !manifest.payloadKeys.isEmpty {
            result.payload = .object(manifest.normalize(object))
        }
        return result
    }

    /// The most of a payload value kept as an event's detail.
    package static let detailLimit = 64

    /// The variables the built-in manifests name in `caller_env`, listed at build time (this runs in
    /// every hook; a test holds the list equal to what the manifests say).
    package static let builtInCallerVariables: Set<String> = BuiltinResources.callerVariables

    /// The agent whose hook runner ran `agent`'s hook, from the variables it sets in every hook.
    package static func realCaller(of agent: String, environment: [String: String], manifests: [AgentManifest]) -> AgentManifest? {
        manifests.filter { manifest in
            manifest.agent != agent && manifest.runsHooksOf.contains(agent)
                && manifest.callerEnvironment.contains { !(environment[$0] ?? "").isEmpty }
        }
        // Grok runs Cursor's hooks too: the runner of more agents' hooks is the more specific marker.
        .max { $0.runsHooksOf.count < $1.runsHooksOf.count }
    }

    /// Whether hookctl's hooks are registered in the agent's own settings.
    package static func hasOwnHooks(_ manifest: AgentManifest, environment: [String: String]) -> Bool {
        let path = manifest.settings.resolve(environment: environment)
        guard let text = (try? FileSystem.readString(path)) ?? nil else { return false }
        return Text.containsBytes(text, HookLayout.scriptName)
    }

    /// The manifest's word on an event it describes: kind (refined by a payload field), message, detail.
    /// Events the parser recognised (a kind other than `info`, or a detail such as a notification type)
    /// keep its reading unless the manifest describes their payload.
    package func refine(_ event: inout Event, priority: Priority?, keepTitle: Bool) {
        guard let manifest, let hooked = manifest.events.first(where: { $0.name == event.agentEvent })
            ?? (manifest.kind(forEvent: event.agentEvent).map { AgentManifest.HookedEvent(name: event.agentEvent, kind: $0) }) else { return }
        let object = payload?.objectValue ?? JSONObject()
        guard hooked.describesPayload || (event.kind == .info && event.detail == nil) else { return }
        var kind = hooked.kind
        if let field = hooked.detailField, let value = JSONPath.value(at: field, in: object)?.scalarText {
            if let refined = hooked.kinds[value] { kind = refined }
            // Agent text: it goes into titles, so one short line.
            let printable = String(String.UnicodeScalarView(value.unicodeScalars.filter {
                $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
            }))
            event.detail = Text.truncate(Text.singleLine(printable), characters: HookCaller.detailLimit)
        }
        if event.message.isEmpty || hooked.describesPayload {
            // The default message is for a push (opencode's session.status is `done` only when idle).
            let text = hooked.messageFields.lazy.compactMap { JSONPath.value(at: $0, in: object)?.scalarText }
                .first { !$0.isEmpty } ?? (event.message.isEmpty && kind.pushesByDefault ? hooked.defaultMessage : nil)
            if let text {
                event.message = Text.truncate(Markdown.plainText(text), characters: PayloadParser.messageLimit)
            }
        }
        event.kind = kind
        event.priority = priority ?? kind.defaultPriority
        if !keepTitle {
            event.title = PayloadParser.defaultTitle(agent: event.agent, kind: kind, detail: event.detail,
                                                     project: event.project?.name, tmux: event.tmux, name: manifest.displayName)
        }
    }
}
