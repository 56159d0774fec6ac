/// ntfy (ntfy docs/publish.md, binwiederhier/ntfy 81a486ad): a JSON publish to the server root, which carries UTF-8 titles safely:
/// `{"topic","title","message","priority","tags","click","markdown","icon","sequence_id"}`, with the
/// sequence id also in `X-Sequence-ID`. The sequence id is stable per agent session, so a retry or the
/// session's next event replaces the notification instead of adding one (ntfy ≥ 2.16; older servers
/// ignore it). The message is plain text unless `markdown: true`; at most 4096 bytes.
///
/// Keys: `url` / `url_env` / `url_file` (server and topic, `https://ntfy.sh/my-topic`); `token` / `token_env` /
/// `token_file` (Bearer); `tags` (added to the kind's emoji tag); `click` (a URL template, e.g.
/// `ssh://{host}` or an app link); `markdown` (bool); `sequence_id` (a template; empty turns it off); `icon`;
/// `priority` values 1-5 or min/low/default/high/max/urgent; `reply_topic` / `reply_topic_env` /
/// `reply_topic_file` and `actions` (on by default with a reply topic): a `needs_input` push carries up
/// to three action buttons (ntfy docs/publish.md "Action buttons": `action`, `label`, `url`, `method`,
/// `headers`, `body`, `clear`), an `http` POST of `{"answer": TOKEN}` to the reply topic on the same server
/// per offered option (`AnswerSigner.offered`), and a `view` "Open" button when `click` is set.
package struct NtfySink: Sink, SinkType {
    package static let type = "ntfy"
    package static let keys = SinkKeys.names(of: type)
    /// ntfy.sh turns longer messages into attachments.
    package static let maximumMessageBytes = 4096
    package static let maximumTitleCharacters = 250

    package let name: String
    package let settings: SinkSettings
    /// The server part of the topic URL (`https://ntfy.sh`, or with a path prefix), without a trailing slash.
    package let server: String
    package let topic: String
    package let token: String?
    package let tags: [String]
    package let clickTemplate: String?
    package let markdown: Bool
    package let sequenceTemplate: String?
    package let icon: String?
    /// The topic the phone posts answers to (a secret, like the topic); nil: no buttons.
    package let replyTopic: String?

    /// ntfy shows at most three action buttons.
    package static let maximumActions = 3

    package var endpoint: String? { server + "/" }
    /// The topic is a password on public servers ("the topic is essentially a password").
    package var secrets: [String] {
        [server + "/" + topic, topic] + (token.map { [$0] } ?? []) + (replyTopic.map { [server + "/" + $0, $0] } ?? [])
    }

    /// A topic name as ntfy takes it: letters, digits, - and _.
    package static func isTopic<S: StringProtocol>(_ text: S) -> Bool {
        !text.isEmpty && text.count <= 64 && text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
    }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        let url = try config.url()!.text
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        let afterScheme = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard afterScheme.count >= 4, let topic = afterScheme.last, !topic.contains("?"), isTopic(topic) else {
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
        let replyTopic = try config.secret("reply_topic", required: false)
        if let replyTopic {
            guard isTopic(replyTopic) else {
                throw config.error(config.node["reply_topic"], "'reply_topic' must be a topic name on the same server (letters, digits, - and _)")
            }
            guard replyTopic != String(topic) else {
                throw config.error(config.node["reply_topic"], "'reply_topic' must differ from the topic the pushes go to")
            }
        }
        let actions = try config.bool("actions") ?? true
        if config.has("actions"), actions, replyTopic == nil {
            throw config.error(config.node["actions"], "'actions: on' needs reply_topic (or reply_topic_env / reply_topic_file): the topic answers are posted to")
        }
        let answering = actions ? replyTopic : nil
        return NtfySink(name: config.name, settings: settings, server: server, topic: String(topic), token: token,
                        tags: try config.stringList("tags") ?? [], clickTemplate: try config.string("click"),
                        markdown: try config.bool("markdown") ?? false, sequenceTemplate: sequence,
                        icon: try config.string("icon"), replyTopic: answering)
    }

    package init(name: String, settings: SinkSettings, server: String, topic: String, token: String? = nil, tags: [String] = [],
         clickTemplate: String? = nil, markdown: Bool = false, sequenceTemplate: String? = nil, icon: String? = nil,
         replyTopic: String? = nil) {
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
        self.replyTopic = replyTopic
    }

    /// `1`…`5` or ntfy's names for them.
    package static func priorityNumber(_ value: String) -> Int? {
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
    package static func defaultPriority(_ event: Event) -> String {
        switch event.kind {
        case .needsInput, .failed: return "4"
        case .done, .test: return "3"
        default: return "2"
        }
    }

    package static func defaultTags(_ kind: EventKind) -> [String] {
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
    package func sequenceID(for event: Event) -> String? {
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

    package func message(for event: Event) -> String {
        if markdown {
            return SinkMarkdown.cutRaw(settings.markdownMessage(for: event), limit: Self.maximumMessageBytes, measure: .utf8)
        }
        return Text.truncate(settings.message(for: event), utf8Bytes: Self.maximumMessageBytes)
    }

    package var answerButtons: Int { replyTopic == nil ? 0 : Self.maximumActions - 1 }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        try delivery(for: event, attempt: attempt, answers: [])
    }

    package func delivery(for event: Event, attempt: Int, answers: [AnswerButton]) throws -> Delivery {
        let priority = Self.priorityNumber(settings.priority(for: event, fallback: Self.defaultPriority)) ?? 3
        var object = JSONObject()
        object["topic"] = .string(topic)
        object["title"] = .string(settings.title(for: event, limit: Self.maximumTitleCharacters))
        object["message"] = .string(message(for: event))
        object["priority"] = .int(priority)
        let allTags = Self.defaultTags(event.kind) + tags.map { renderTemplate($0, values: event.templateValues) }
        if !allTags.isEmpty { object["tags"] = .array(allTags.map { .string($0) }) }
        var click = ""
        if let clickTemplate {
            click = SinkText.renderURLTemplate(clickTemplate, event: event)
            if !click.isEmpty { object["click"] = .string(click) }
        }
        let actions = self.actions(answers, click: click)
        if !actions.isEmpty { object["actions"] = .array(actions) }
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

    /// The action buttons of a `needs_input` push: one `http` POST of `{"answer": TOKEN}` to the reply
    /// topic per offered option (its label as the screen shows it, with its number), then "Open".
    package func actions(_ answers: [AnswerButton], click: String) -> [JSONValue] {
        guard let replyTopic, !answers.isEmpty else { return [] }
        var actions: [JSONValue] = answers.prefix(Self.maximumActions - 1).map { answer in
            .object(JSONObject([
                ("action", .string("http")),
                ("label", .string(Text.truncate(Text.singleLine(answer.option.label), characters: 40))),
                ("url", .string(server + "/" + replyTopic)),
                ("method", .string("POST")),
                ("headers", .object(JSONObject([("Content-Type", .string("application/json"))]))),
                ("body", .string(JSON.serialize(.object(JSONObject([("answer", .string(answer.token))]))))),
                ("clear", .bool(true)),
            ]))
        }
        if !click.isEmpty {
            actions.append(.object(JSONObject([("action", .string("view")), ("label", .string("Open")), ("url", .string(click))])))
        }
        return actions
    }

    /// As the request would go, with placeholders for the answer tokens (a preview mints none).
    package func preview(for event: Event) -> String {
        do {
            guard case .http(let request) = try outgoingDelivery(for: event, attempt: 1, signer: .preview) else { return "" }
            return request.redacted(secrets: secrets)
        } catch {
            return "(cannot build the request: \(Text.scrub("\(error)", secrets: secrets)))"
        }
    }

    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        switch response.status {
        case 413: return .failed(.http(413, "the ntfy server refused the size of the message"))
        default: return HTTPClassifier.classify(response, secrets: secrets)
        }
    }
}

/// Replace once answered (`AnsweredPushes`): the question's notification is published again under its
/// sequence id ("answered: Yes"), which ntfy ≥ 2.16 shows in place of the question; quiet (priority 2), no
/// click or actions. Off with the sequence id (`sequence_id: ""`): nothing then ties the update to the question.
extension NtfySink {
    package var canReplace: Bool { sequenceTemplate != "" }

    package func answeredDelivery(for followUp: Event, receipt: String?) throws -> Delivery? {
        guard let sequence = sequenceID(for: followUp) else { return nil }
        var object = JSONObject()
        object["topic"] = .string(topic)
        object["title"] = .string(Text.truncate(followUp.title, characters: Self.maximumTitleCharacters))
        object["message"] = .string(Text.truncate(followUp.message, utf8Bytes: Self.maximumMessageBytes))
        object["priority"] = .int(2)
        object["tags"] = .array([.string("white_check_mark")])
        object["sequence_id"] = .string(sequence)
        var headers = [("Content-Type", "application/json"), ("User-Agent", Product.userAgent), ("X-Sequence-ID", sequence)]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return .http(HTTPRequest(method: "POST", url: server + "/", headers: headers, body: Array(JSON.serialize(.object(object)).utf8),
                                 timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }
}
