/// The facts of one agent's manifest that every hook needs: its display name and which of its events
/// become which event kind. They live in the manifests (`hooks/*.json`) only; the EmbedResources build
/// step turns the built-in manifests into `BuiltinResources.hookFacts`, so a hook reads no manifest
/// file and parses no JSON for them. A test holds them equal to what `AgentManifest` reads.
struct HookFacts: Sendable, Equatable {
    struct EventFact: Sendable, Equatable {
        var kind: EventKind
        /// The tool the registration is limited to (`AskUserQuestion`, `^ask_user$`): another tool's
        /// payload for the same event is not this fact's.
        var matcher: String? = nil
        /// A payload field (dotted path) whose value refines the kind through `kinds`.
        var detail: String? = nil
        var kinds: [String: EventKind] = [:]
        /// The event is recorded for the board, never pushed (the user caused it at the terminal).
        var quiet = false
    }

    var displayName: String
    var events: [String: EventFact]
    /// One push per finished turn: the agent reports a turn by more than one channel (Codex `notify`
    /// and its `Stop` hook), and the payloads carry the turn's id.
    var onePushPerTurn = false

    /// The built-in manifests' facts by agent name.
    static var builtIn: [String: HookFacts] { BuiltinResources.hookFacts }

    /// The kind an agent's event becomes: its own manifest's word, else Claude Code's for the same event
    /// name (the shape most agents copy: Copilot CLI's PascalCase `Stop`, an agent without a manifest).
    static func kind(agent: String, event: String, object: JSONObject) -> EventKind? {
        if let own = BuiltinResources.hookFacts[agent], own.events[event] != nil {
            return own.kind(event: event, object: object)
        }
        return BuiltinResources.hookFacts["claude"]?.kind(event: event, object: object)
    }

    /// The manifest's fact for this payload: the event's, if its matcher (if any) takes the payload's tool.
    func fact(event: String, object: JSONObject) -> EventFact? {
        guard let fact = events[event] else { return nil }
        if let matcher = fact.matcher, let tool = object["tool_name"]?.stringValue,
           !HookFacts.matches(matcher, tool: tool) {
            return nil
        }
        return fact
    }

    /// The kind the manifest gives the payload, refined by its detail field; nil when it says nothing.
    func kind(event: String, object: JSONObject) -> EventKind? {
        guard let fact = fact(event: event, object: object) else { return nil }
        if let field = fact.detail, let value = AgentManifest.value(at: field, in: object)?.scalarText,
           let refined = fact.kinds[value] {
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
        for event in self.events {
            events[event.name] = HookFacts.EventFact(kind: event.kind, matcher: event.matcher, detail: event.detailField,
                                                     kinds: event.kinds, quiet: event.quiet)
        }
        if let notifyKind, let name = notifyEvent { events[name] = HookFacts.EventFact(kind: notifyKind) }
        return HookFacts(displayName: displayName, events: events, onePushPerTurn: onePushPerTurn)
    }
}

/// The push decisions an agent's manifest makes before `PushPolicy`: events it marks `quiet`, and the
/// second report of a turn for agents with `one_push_per_turn` (built-in manifests: the hook path
/// reads no manifest file).
enum AgentPushFacts {
    static func decide(_ event: Event, paths: Paths) -> PushDecision? {
        guard let facts = HookFacts.builtIn[event.agent] else { return nil }
        if facts.events[event.agentEvent]?.quiet == true { return .recordOnly(.byUser) }
        if facts.onePushPerTurn, event.kind == .done, let turn = event.detail, !turn.isEmpty,
           !TurnClaim.claim(agent: event.agent, session: event.sessionID, turn: turn, paths: paths, now: event.time) {
            return .recordOnly(.sameTurn)
        }
        return nil
    }
}
