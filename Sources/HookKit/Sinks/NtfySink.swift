/// ntfy (ntfy docs/publish.md, binwiederhier/ntfy 81a486ad): a JSON publish to the server root, which carries UTF-8 titles safely:
/// `{"topic","title","message","priority","tags","click","markdown","icon","sequence_id"}`, with the
/// sequence id also in `X-Sequence-ID`. The sequence id is stable per agent session, so a retry or the
/// session's next event replaces the notification instead of adding one (ntfy ≥ 2.16; older servers
/// ignore it). The message is plain text unless `markdown: true`; at most 4096 bytes.
///
/// Keys: `url` / `url_env` / `url_file` (server and topic, `https://ntfy.sh/my-topic`); `token` / `token_env` /
/// `token_file` (Bearer); `tags` (added to the kind's emoji tag); `click` (a URL template, e.g.
/// `ssh://{host}` or an app link); `markdown` (bool); `sequence_id` (a template; empty turns it off); `icon`;
/// `priority` values 1-5 or min/low/default/high/max/urgent.
struct NtfySink: Sink, SinkType {
    static let type = "ntfy"
    static let keys = SinkKeys.names(of: type)
    /// ntfy.sh turns longer messages into attachments.
    static let maximumMessageBytes = 4096
    static let maximumTitleCharacters = 250

    let name: String
    let settings: SinkSettings
    /// The server part of the topic URL (`https://ntfy.sh`, or with a path prefix), without a trailing slash.
    let server: String
    let topic: String
    let token: String?
    let tags: [String]
    let clickTemplate: String?
    let markdown: Bool
    let sequenceTemplate: String?
    let icon: String?

    var endpoint: String? { server + "/" }
    /// The topic is a password on public servers ("the topic is essentially a password").
    var secrets: [String] { [server + "/" + topic, topic] + (token.map { [$0] } ?? []) }

    static func make(_ config: SinkConfig) throws -> any Sink {
        let url = try config.url()!.text
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        let afterScheme = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard afterScheme.count >= 4, let topic = afterScheme.last, !topic.isEmpty, !topic.contains("?"),
              topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw config.error(config.node["url"], "'url' must be the topic URL, such as https://ntfy.sh/my-topic "
                + "(topic: letters, digits, - and _)")
        }
        let server = String(trimmed.dropLast(topic.count + 1))
        var settings = try SinkSettings(config: config)
        for (kind, value) in settings.priorities {
            guard let number = priorityNumber(value) else {
                throw config.error(config.node["priority"], "ntfy priority for '\(kind.rawValue)' must be 1-5 or "
                    + "min, low, default, high, max or urgent, got '\(value)'")
            }
            settings.priorities[kind] = String(number)
        }
        let token = try config.secret("token", required: false)
        if let token, !SinkText.isValidHeaderValue(token) {
            throw config.error(nil, "the ntfy token must be on one line")
        }
        var sequence = try config.string("sequence_id")
        if config.has("sequence_id"), sequence == nil { sequence = "" }
        return NtfySink(name: config.name, settings: settings, server: server, topic: String(topic), token: token,
                        tags: try config.stringList("tags") ?? [], clickTemplate: try config.string("click"),
                        markdown: try config.bool("markdown") ?? false, sequenceTemplate: sequence,
                        icon: try config.string("icon"))
    }

    init(name: String, settings: SinkSettings, server: String, topic: String, token: String? = nil, tags: [String] = [],
         clickTemplate: String? = nil, markdown: Bool = false, sequenceTemplate: String? = nil, icon: String? = nil) {
        self.name = name
        self.settings = settings
        self.server = server
        self.topic = topic
        self.token = token
        self.tags = tags
        self.clickTemplate = clickTemplate
        self.markdown = markdown
        self.sequenceTemplate = sequenceTemplate
        self.icon = icon
    }

    /// `1`…`5` or ntfy's names for them.
    static func priorityNumber(_ value: String) -> Int? {
        switch value.lowercased() {
        case "1", "min": return 1
        case "2", "low": return 2
        case "3", "default": return 3
        case "4", "high": return 4
        case "5", "max", "urgent": return 5
        default: return nil
        }
    }

    /// On ntfy's 1-5 scale: finished 3 ✅, needs input 4 ❓, failed 4 ❌ (our choice: loud enough to
    /// vibrate for what waits on you, quieter for what is done).
    static func defaultPriority(_ event: Event) -> String {
        switch event.kind {
        case .needsInput, .failed: return "4"
        case .done, .test: return "3"
        default: return "2"
        }
    }

    static func defaultTags(_ kind: EventKind) -> [String] {
        switch kind {
        case .done: return ["white_check_mark"]
        case .needsInput: return ["question"]
        case .failed: return ["x"]
        case .test: return ["test_tube"]
        default: return []
        }
    }

    /// The id that ties an agent session's notifications together: the `sequence_id` template, else the
    /// agent's session id, else the tmux session, else the event (no grouping). Empty disables it.
    func sequenceID(for event: Event) -> String? {
        let raw: String
        if let sequenceTemplate {
            raw = renderTemplate(sequenceTemplate, values: event.templateValues)
        } else if let session = event.sessionID, !session.isEmpty {
            raw = "\(event.agent)-\(session)"
        } else if let session = event.tmux?.session, !session.isEmpty {
            raw = "\(event.agent)-\(event.host)-\(session)-\(event.tmux?.pane ?? "")"
        } else {
            raw = event.id
        }
        let id = SinkText.identifier(raw)
        return id.isEmpty ? nil : id
    }

    func message(for event: Event) -> String {
        if markdown {
            return SinkMarkdown.cutRaw(settings.markdownMessage(for: event), limit: Self.maximumMessageBytes, measure: .utf8)
        }
        return Text.truncate(settings.message(for: event), utf8Bytes: Self.maximumMessageBytes)
    }

    func delivery(for event: Event, attempt: Int) throws -> Delivery {
        let priority = Self.priorityNumber(settings.priority(for: event, fallback: Self.defaultPriority)) ?? 3
        var object = JSONObject()
        object["topic"] = .string(topic)
        object["title"] = .string(settings.title(for: event, limit: Self.maximumTitleCharacters))
        object["message"] = .string(message(for: event))
        object["priority"] = .int(priority)
        let allTags = Self.defaultTags(event.kind) + tags.map { renderTemplate($0, values: event.templateValues) }
        if !allTags.isEmpty { object["tags"] = .array(allTags.map { .string($0) }) }
        if let clickTemplate {
            let click = SinkText.renderURLTemplate(clickTemplate, event: event)
            if !click.isEmpty { object["click"] = .string(click) }
        }
        if markdown { object["markdown"] = .bool(true) }
        if let icon { object["icon"] = .string(icon) }
        var headers = [("Content-Type", "application/json"), ("User-Agent", Product.userAgent)]
        if let sequence = sequenceID(for: event) {
            object["sequence_id"] = .string(sequence)
            headers.append(("X-Sequence-ID", sequence))
        }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return .http(HTTPRequest(method: "POST", url: server + "/", headers: headers,
                                 body: Array(JSON.serialize(.object(object)).utf8),
                                 timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        switch response.status {
        case 413: return .failed(.http(413, "the ntfy server refused the size of the message"))
        default: return HTTPClassifier.classify(response, secrets: secrets)
        }
    }
}
