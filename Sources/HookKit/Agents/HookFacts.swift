/// The facts of one agent's manifest that every hook needs: its display name and which of its events
/// become which event kind. They live in the manifests (`hooks/*.json`) only; the EmbedResources build
/// step turns the built-in manifests into switch functions in `BuiltinResources` (`displayName`,
/// `eventFact`, `refinedKind`, `onePushPerTurn`), so a hook reads no manifest file, parses no JSON and
/// builds no table for them. A test holds them equal to what `AgentManifest` reads.
struct HookFacts: Sendable, Equatable {
    struct EventFact: Sendable, Equatable {
        var kind: EventKind
        /// The tool the registration is limited to (`AskUserQuestion`, `^ask_user$`): another tool's
        /// payload for the same event is not this fact's.
        var matcher: String? = nil
        /// A payload field (dotted path) whose value refines the kind (`refinedKind`, the manifest's `kinds`).
        var detail: String? = nil
        /// The event is recorded for the board, never pushed (the user caused it at the terminal).
        var quiet = false
    }

    var displayName: String
    var events: [String: EventFact]
    /// `event → detail value → kind`: the manifest's `kinds`.
    var kinds: [String: [String: EventKind]]
    /// One push per finished turn: the agent reports a turn by more than one channel (Codex `notify`
    /// and its `Stop` hook), and the payloads carry the turn's id.
    var onePushPerTurn = false

    /// A built-in manifest's facts as one value (tests and doctor; the hook path asks the switches).
    static func builtIn(_ agent: String) -> HookFacts? {
        guard let name = BuiltinResources.displayName(agent) else { return nil }
        var events: [String: EventFact] = [:]
        var kinds: [String: [String: EventKind]] = [:]
        for event in BuiltinResources.eventNames(agent) {
            events[event] = BuiltinResources.eventFact(agent, event)
            for value in BuiltinResources.refinedValues(agent, event) {
                kinds[event, default: [:]][value] = BuiltinResources.refinedKind(agent, event, value)
            }
        }
        return HookFacts(displayName: name, events: events, kinds: kinds, onePushPerTurn: BuiltinResources.onePushPerTurn(agent))
    }

    /// The kind an agent's event becomes: its own manifest's word, else Claude Code's for the same event
    /// name (the shape most agents copy: Copilot CLI's PascalCase `Stop`, an agent without a manifest).
    static func kind(agent: String, event: String, object: JSONObject) -> EventKind? {
        let owner = BuiltinResources.eventFact(agent, event) != nil ? agent : "claude"
        guard let fact = BuiltinResources.eventFact(owner, event) else { return nil }
        // A tool hook for another tool than the registration's (a user's own hook, a wider matcher): the
        // agent is running that tool.
        if let matcher = fact.matcher, let tool = object["tool_name"]?.stringValue, !matches(matcher, tool: tool) {
            return .working
        }
        if let field = fact.detail, let value = AgentManifest.value(at: field, in: object)?.scalarText,
           let refined = BuiltinResources.refinedKind(owner, event, value) {
            return refined
        }
        return fact.kind
    }

    /// A manifest matcher against a tool name: a name, `a|b`, or one anchored name (`^ask_user$`).
    /// Anything else is a pattern hookctl does not evaluate, and matches.
    static func matches(_ matcher: String, tool: String) -> Bool {
        var pattern = Substring(matcher)
        if pattern.hasPrefix("^") { pattern = pattern.dropFirst() }
        if pattern.hasSuffix("$") { pattern = pattern.dropLast() }
        let names = pattern.split(separator: "|", omittingEmptySubsequences: false)
        guard names.allSatisfy({ name in !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } }) else {
            return true
        }
        return names.contains { $0 == tool }
    }
}

extension AgentManifest {
    /// This manifest's hook facts, as the build step derives them from the same file.
    var hookFacts: HookFacts {
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
enum AgentPushFacts {
    static func decide(_ event: Event, paths: Paths, environment: [String: String] = [:]) -> PushDecision? {
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
enum CodexNotify {
    static let event = "agent-turn-complete"

    static func stopHookTrusted(environment: [String: String]) -> Bool {
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
