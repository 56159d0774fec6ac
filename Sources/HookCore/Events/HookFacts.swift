/// The facts of one agent's manifest that every hook needs: its display name and which of its events
/// become which event kind. They live in the manifests (`hooks/*.json`) only; the EmbedResources build
/// step turns the built-in manifests into switch functions in `BuiltinResources` (`displayName`,
/// `eventFact`, `refinedKind`, `onePushPerTurn`), so a hook reads no manifest file, parses no JSON and
/// builds no table for them. A test holds them equal to what `AgentManifest` reads.
package struct HookFacts: Sendable, Equatable {
    package struct EventFact: Sendable, Equatable {
        package var kind: EventKind
        /// The tool the registration is limited to (`AskUserQuestion`, `^ask_user$`): another tool's
        /// payload for the same event is not this fact's.
        package var matcher: String? = nil
        /// A payload field (dotted path) whose value refines the kind (`refinedKind`, the manifest's `kinds`).
        package var detail: String? = nil
        /// The event is recorded for the board, never pushed (the user caused it at the terminal).
        package var quiet = false

        package init(
            kind: EventKind,
            matcher: String? = nil,
            detail: String? = nil,
            quiet: Bool = false
        ) {
            self.kind = kind
            self.matcher = matcher
            self.detail = detail
            self.quiet = quiet
        }
    }

    package var displayName: String
    package var events: [String: EventFact]
    /// `event → detail value → kind`: the manifest's `kinds`.
    package var kinds: [String: [String: EventKind]]
    /// One push per finished turn: the agent reports a turn by more than one channel (Codex `notify`
    /// and its `Stop` hook), and the payloads carry the turn's id.
    package var onePushPerTurn = false

    /// A built-in manifest's facts as one value (tests and doctor; the hook path asks the switches).
    package static func builtIn(_ agent: String) -> HookFacts? {
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
    package static func kind(agent: String, event: String, object: JSONObject) -> EventKind? {
        let owner = BuiltinResources.eventFact(agent, event) != nil ? agent : "claude"
        guard let fact = BuiltinResources.eventFact(owner, event) else { return nil }
        // A tool hook for another tool than the registration's (a user's own hook, a wider matcher): the
        // agent is running that tool.
        if let matcher = fact.matcher, let tool = object["tool_name"]?.stringValue, !matches(matcher, tool: tool) {
            return .working
        }
        if let field = fact.detail, let value = JSONPath.value(at: field, in: object)?.scalarText,
           let refined = BuiltinResources.refinedKind(owner, event, value) {
            return refined
        }
        return fact.kind
    }

    /// A manifest matcher against a tool name: a name, `a|b`, or one anchored name (`^ask_user$`).
    /// Anything else is a pattern hookctl does not evaluate, and matches.
    package static func matches(_ matcher: String, tool: String) -> Bool {
        var pattern = Substring(matcher)
        if pattern.hasPrefix("^") { pattern = pattern.dropFirst() }
        if pattern.hasSuffix("$") { pattern = pattern.dropLast() }
        let names = pattern.split(separator: "|", omittingEmptySubsequences: false)
        guard names.allSatisfy({ name in !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } }) else {
            return true
        }
        return names.contains { $0 == tool }
    }

    package init(
        displayName: String,
        events: [String: EventFact],
        kinds: [String: [String: EventKind]],
        onePushPerTurn: Bool = false
    ) {
        self.displayName = displayName
        self.events = events
        self.kinds = kinds
        self.onePushPerTurn = onePushPerTurn
    }
}
