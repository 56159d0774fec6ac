/// What every sink shares: which events it takes, how it names their priority, and how it words them.
package struct SinkSettings: Sendable {
    /// Keys every sink accepts, whatever its type.
    package static let commonKeys = SinkKeys.commonNames

    package var enabled = true
    /// Event kinds this sink takes; by default the ones that push (needs_input, done, failed, test, notice).
    package var kinds: Set<EventKind> {
        get { chosenKinds ?? Set(EventKind.allCases.filter(\.pushesByDefault)) }
        set { chosenKinds = newValue }
    }
    /// `kinds` when the config or the sink type chose them; nil for the default, which `accepts` checks
    /// without a set (a hook builds no `Set<EventKind>` or `[EventKind]` for a sink that keeps it).
    private var chosenKinds: Set<EventKind>?
    /// Agents this sink takes; nil for all.
    package var agents: Set<String>?
    /// kind → this sink's own priority value (`high`, `5`, `urgent`…).
    package var priorities: [EventKind: String] = [:]
    package var titleTemplate: String?
    package var messageTemplate: String?
    package var maxTitle: Int?
    package var maxMessage: Int?
    package var timeout: Double
    package var connectTimeout: Double

    package init(timeout: Double = 10, connectTimeout: Double = 5) {
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }

    /// Reads the shared keys of one sink.
    package init(config: SinkConfig) throws {
        self.init(timeout: config.defaults.timeout, connectTimeout: config.defaults.connectTimeout)
        enabled = try config.bool("enabled") ?? true
        if let names = try config.stringList("kinds") {
            kinds = try Set(names.map { name in
                guard let kind = EventKind(rawValue: name) else {
                    throw config.error(config.node["kinds"], "unknown event kind '\(name)'"
                        + Suggest.hint(for: name, in: EventKind.allCases.map(\.rawValue)))
                }
                return kind
            })
        }
        if let names = try config.stringList("agents") { agents = Set(names) }
        if let map = try config.stringMap("priority") {
            for (kindName, value) in map {
                guard let kind = EventKind(rawValue: kindName) else {
                    throw config.error(config.node["priority"], "unknown event kind '\(kindName)' in 'priority'"
                        + Suggest.hint(for: kindName, in: EventKind.allCases.map(\.rawValue)))
                }
                priorities[kind] = value
            }
        }
        titleTemplate = try config.string("title")
        messageTemplate = try config.string("message")
        maxTitle = try config.int("max_title")
        maxMessage = try config.int("max_message")
        timeout = try config.duration("timeout") ?? timeout
        connectTimeout = try config.duration("connect_timeout") ?? connectTimeout
    }

    package func accepts(_ event: Event) -> Bool {
        guard enabled, chosenKinds?.contains(event.kind) ?? event.kind.pushesByDefault else { return false }
        if let agents, !agents.contains(event.agent) { return false }
        return true
    }

    /// The title for this sink: its template or the event's, cut to `maxTitle` (and the type's own `limit`).
    package func title(for event: Event, limit: Int? = nil) -> String {
        let text = titleTemplate.map { renderTemplate($0, values: event.templateValues) } ?? event.title
        return cut(text, [maxTitle, limit])
    }

    package func message(for event: Event, limit: Int? = nil) -> String {
        let text = messageTemplate.map { renderTemplate($0, values: event.templateValues) } ?? event.message
        return cut(text, [maxMessage, limit])
    }

    /// The priority value for the event: the sink's mapping, else `fallback(kind/priority)`.
    package func priority(for event: Event, fallback: (Event) -> String) -> String {
        priorities[event.kind] ?? fallback(event)
    }

    package func cut(_ text: String, _ limits: [Int?]) -> String {
        guard let limit = limits.compactMap({ $0 }).min() else { return text }
        return Text.truncate(text, characters: limit)
    }
}

/// A sink type: its name in the config, the keys it adds, and how to build it.
package protocol SinkType: Sendable {
    static var type: String { get }
    static var keys: [String] { get }
    static func make(_ config: SinkConfig) throws -> any Sink
}

extension Sink where Self: SinkType {
    /// A built-in sink's `type` is its type's name.
    package var type: String { Self.type }
}

/// The built-in sink types, and building sinks from the config.
package enum SinkRegistry {
    package static let types: [any SinkType.Type] = [
        RelaySink.self,
        FileSink.self,
        ExecSink.self,
        WebhookSink.self,
        NtfySink.self,
        SlackSink.self,
        DiscordSink.self,
        TelegramSink.self,
        PushoverSink.self,
    ]

    package static var typeNames: [String] { types.map { $0.type } }

    /// The type a sink config names, or an error saying which types there are.
    package static func type(of sinkConfig: SinkConfig) throws -> any SinkType.Type {
        guard let type = types.first(where: { $0.type == sinkConfig.type }) else {
            throw sinkConfig.error(sinkConfig.node["type"], "unknown sink type '\(sinkConfig.type)'"
                + Suggest.hint(for: sinkConfig.type, in: typeNames) + "; known types: \(typeNames.joined(separator: ", "))")
        }
        return type
    }

    /// Checks each sink's type and keys without building it (no secret is resolved): what `setup` checks
    /// before it writes a config, so it never leaves one that `notify` cannot read. Every problem at once.
    package static func checkStructure(config: Config) throws {
        var problems: [ConfigError] = []
        for sinkConfig in config.sinks {
            try collect(&problems) { try sinkConfig.checkKeys(allowed: try type(of: sinkConfig).keys) }
        }
        try ConfigError.throwAll(problems)
    }

    /// Runs `body`, adding the config problems it throws to `problems`; any other error is thrown on.
    package static func collect(_ problems: inout [ConfigError], _ body: () throws -> Void) throws {
        do { try body() } catch let error as ConfigError { problems.append(error) } catch let error as ConfigError.All {
            problems += error.errors
        }
    }

    /// Builds every sink that can be built; each one that cannot (an unset `*_env`, an unreadable
    /// `*_file`, an invalid value) is returned apart with why and how to fix it, so one broken sink
    /// never stops the others.
    /// A broken sink's shared settings come along when they can be read, to know which events it takes.
    package static func makeUsableSinks(config: Config) -> (sinks: [any Sink], broken: [(name: String, problem: String, settings: SinkSettings?)]) {
        var sinks: [any Sink] = []
        var broken: [(String, String, SinkSettings?)] = []
        for sinkConfig in config.sinks {
            do {
                let type = try type(of: sinkConfig)
                try sinkConfig.checkKeys(allowed: type.keys)
                sinks.append(try type.make(sinkConfig))
            } catch {
                var problem = "\(error)"
                if problem.contains("environment variable") {
                    problem += "; hooks run with the agent's environment, not your login shell's: export it where the agent"
                        + " starts, or keep the value in a file and name it with the '_file' key instead (e.g. url_file)"
                }
                broken.append((sinkConfig.name, problem, try? SinkSettings(config: sinkConfig)))
            }
        }
        return (sinks, broken)
    }

    /// Builds every sink of the config, checking each one's keys; every sink's problems at once.
    package static func makeSinks(config: Config) throws -> [any Sink] {
        var sinks: [any Sink] = []
        var problems: [ConfigError] = []
        for sinkConfig in config.sinks {
            try collect(&problems) {
                let type = try type(of: sinkConfig)
                try sinkConfig.checkKeys(allowed: type.keys)
                sinks.append(try type.make(sinkConfig))
            }
        }
        try ConfigError.throwAll(problems)
        return sinks
    }
}
