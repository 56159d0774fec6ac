/// What the agents' manifests decide at hook time beyond `HookFacts`: a manifest's facts as the build
/// step derives them, the push decisions manifests make, and Codex's notify beside its Stop hook.
extension AgentManifest {
    /// This manifest's hook facts, as the build step derives them from the same file.
    package var hookFacts: HookFacts {
        var events: [String: HookFacts.EventFact] = [:]
        var kinds: [String: [String: EventKind]] = [:]
        for event in self.events {
            events[event.name] = HookFacts.EventFact(kind: event.kind, matcher: event.matcher, detail: event.detailField, quiet: event.quiet)
            if !event.kinds.isEmpty { kinds[event.name] = event.kinds }
        }
        if let notifyKind, let name = notifyEvent { events[name] = HookFacts.EventFact(kind: notifyKind) }
        return HookFacts(displayName: displayName, events: events, kinds: kinds, onePushPerTurn: onePushPerTurn)
    }
}

/// The push decisions an agent's manifest makes before `PushPolicy`: events it marks `quiet`, and the
/// second report of a turn for agents with `one_push_per_turn` (built-in manifests: the hook path
/// reads no manifest file).
package enum AgentPushFacts {
    package static func decide(_ event: Event, paths: Paths, environment: [String: String] = [:]) -> PushDecision? {
        if BuiltinResources.eventFact(event.agent, event.agentEvent)?.quiet == true { return .recordOnly(.byUser) }
        if event.agent == "codex", event.agentEvent == CodexNotify.event, CodexNotify.stopHookTrusted(environment: environment) {
            return .recordOnly(.besideStopHook)
        }
        if event.kind == .done, BuiltinResources.onePushPerTurn(event.agent), let turn = event.turn, !turn.isEmpty,
           !TurnClaim.claim(agent: event.agent, session: event.sessionID, turn: turn, paths: paths, now: event.time) {
            return .recordOnly(.sameTurn)
        }
        return nil
    }
}

/// Codex runs its `notify` program for every finished turn of every thread, also for the side thread
/// that gives a new thread its title (seen on 0.163.0: a second "finished" on the first turn, its message
/// the title as JSON, its thread id one no hook ever names), and runs the `Stop` hook for the user's
/// turns only. Once the user trusted hookctl's `Stop` hook (its `[hooks.state."<hooks.json>:stop:G:H"]`
/// table in config.toml holds a `trusted_hash`), Stop reports every turn and notify is only recorded;
/// before, notify is the only report and pushes (docs/agents.md).
package enum CodexNotify {
    package static let event = "agent-turn-complete"

    package static func stopHookTrusted(environment: [String: String]) -> Bool {
        let codexHome: String
        if let explicit = environment["CODEX_HOME"], !explicit.isEmpty { codexHome = explicit }
        else if let home = environment["HOME"], !home.isEmpty { codexHome = home + "/.codex" }
        else { return false }
        let hooksPath = codexHome + "/hooks.json"
        guard let hooks = (try? FileSystem.read(hooksPath, limit: 1 << 20)) ?? nil,
              let config = (try? FileSystem.read(codexHome + "/config.toml", limit: 1 << 20)) ?? nil else { return false }
        let keys = Doctor.codexTrustKeys(hooksPath: hooksPath, hooksText: String(decoding: hooks, as: UTF8.self))
            .filter { $0.hasPrefix(hooksPath + ":stop:") }
        guard !keys.isEmpty else { return false }
        let trusted = Doctor.codexTrustedKeys(configText: String(decoding: config, as: UTF8.self))
        return keys.allSatisfy(trusted.contains)
    }
}
