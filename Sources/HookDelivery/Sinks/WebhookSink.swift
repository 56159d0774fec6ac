/// A generic JSON webhook, a format hookctl defines: `POST` (or `PUT`) of the event envelope, or of a body template,
/// with custom headers, `Idempotency-Key`, and an optional Standard Webhooks signature: `webhook-id` (the
/// event id, the same on every retry), `webhook-timestamp` (per attempt) and `webhook-signature:
/// v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; optionally GitHub's `X-Hub-Signature-256` too.
///
/// Keys: `url` / `url_env` / `url_file`; `method` (POST or PUT); `headers` (a mapping); `body` (a template:
/// values are JSON-escaped for JSON bodies, `{json}` is the default envelope, `{event_json}` the event);
/// `secret` / `secret_env` / `secret_file` (`whsec_<base64>` per Standard Webhooks, else the raw bytes);
/// `github_signature: true`.
package struct WebhookSink: Sink, SinkType {
    package static let type = "webhook"
    package static let keys = SinkKeys.names(of: type)

    package let name: String
    package let settings: SinkSettings
    package let url: SinkURL
    package let method: String
    package let headers: [(String, String)]
    package let bodyTemplate: String?
    /// The HMAC key: the base64-decoded part after `whsec_`, or the secret's own bytes.
    package let signingKey: [UInt8]?
    package let secretText: String?
    package let githubSignature: Bool
    /// The per-attempt clock (epoch seconds); tests pin it.
    package var now: @Sendable () -> Double = WallClock.nowEpoch

    package var endpoint: String? { url.text }
    package var secrets: [String] {
        var values = url.secrets
        if let secretText { values.append(secretText) }
        for (name, value) in headers where Self.isSecretHeader(name) { values.append(value) }
        return values
    }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        let url = try config.url()!
        let method = (try config.string("method") ?? "POST").uppercased()
        guard method == "POST" || method == "PUT" else {
            throw config.error(config.node["method"], "'method' must be POST or PUT, got '\(method)'")
        }
        let headers = try config.stringMap("headers") ?? []
        for (headerName, value) in headers {
            guard SinkText.isValidHeaderName(headerName) else {
                throw config.error(config.node["headers"], "'headers' has an invalid header name '\(headerName)'")
            }
            guard SinkText.isValidHeaderValue(value) else {
                throw config.error(config.node["headers"], "the header '\(headerName)' must be on one line")
            }
        }
        let secret = try config.secret("secret", required: false)
        var key: [UInt8]?
        if let secret {
            if secret.hasPrefix("whsec_") {
                guard let decoded = Base64.decode(String(secret.dropFirst("whsec_".count))), !decoded.isEmpty else {
                    throw config.error(config.node["secret"] ?? config.node["secret_env"] ?? config.node["secret_file"],
                                       "a 'whsec_' secret must be followed by base64 (Standard Webhooks)")
                }
                key = decoded
            } else {
                key = Array(secret.utf8)
            }
        }
        let githubSignature = try config.bool("github_signature") ?? false
        if githubSignature, key == nil {
            throw config.error(config.node["github_signature"], "'github_signature' needs a 'secret' (or 'secret_env' / 'secret_file')")
        }
        return WebhookSink(name: config.name, settings: try SinkSettings(config: config), url: url, method: method,
                           headers: headers, bodyTemplate: try config.string("body"), signingKey: key,
                           secretText: secret, githubSignature: githubSignature)
    }

    package init(name: String, settings: SinkSettings, url: SinkURL, method: String = "POST", headers: [(String, String)] = [],
         bodyTemplate: String? = nil, signingKey: [UInt8]? = nil, secretText: String? = nil, githubSignature: Bool = false) {
        self.name = name
        self.settings = settings
        self.url = url
        self.method = method
        self.headers = headers
        self.bodyTemplate = bodyTemplate
        self.signingKey = signingKey
        self.secretText = secretText
        self.githubSignature = githubSignature
    }

    package static func isSecretHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["authorization", "token", "secret", "key", "signature", "cookie", "password"].contains(where: lower.contains)
    }

    package var contentType: String {
        headers.first(where: { $0.0.lowercased() == "content-type" })?.1 ?? "application/json"
    }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        let body = Array(self.body(for: event).utf8)
        var requestHeaders: [(String, String)] = []
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            requestHeaders.append(("Content-Type", "application/json"))
        }
        requestHeaders.append(("User-Agent", Product.userAgent))
        requestHeaders.append(("Idempotency-Key", event.id))
        requestHeaders.append(("webhook-id", event.id))
        let timestamp = String(Int(now()))
        requestHeaders.append(("webhook-timestamp", timestamp))
        if let signingKey {
            requestHeaders.append(("webhook-signature", Self.standardSignature(key: signingKey, id: event.id, timestamp: timestamp, body: body)))
            if githubSignature {
                requestHeaders.append(("X-Hub-Signature-256", "sha256=" + Base64.hex(HMAC.sha256(key: signingKey, message: body))))
            }
        }
        requestHeaders += headers
        return .http(HTTPRequest(method: method, url: url.text, headers: requestHeaders, body: body,
                                 timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    /// `v1,<base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}"))>`, over exactly the bytes sent.
    package static func standardSignature(key: [UInt8], id: String, timestamp: String, body: [UInt8]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Base64.encode(HMAC.sha256(key: key, message: signed))
    }

    /// The body template filled in (values JSON-escaped when the body is JSON; `{json}` is the default
    /// envelope and `{event_json}` the event), or the default envelope.
    package func body(for event: Event) -> String {
        let envelope = JSON.serialize(Self.envelope(event, settings: settings))
        guard let bodyTemplate else { return envelope }
        let isJSON = contentType.lowercased().contains("json")
        var values = event.templateValues
        values["title"] = settings.title(for: event)
        values["message"] = settings.markdownMessage(for: event)
        values["message_plain"] = settings.message(for: event)
        if isJSON { values = values.mapValues(SinkText.jsonEscaped) }
        values["json"] = envelope
        values["event_json"] = JSON.serialize(event.json)
        return renderTemplate(bodyTemplate, values: values)
    }

    /// The Standard Webhooks envelope with Apprise-compatible fields (`version`, `title`, `message`), the raw
    /// Markdown in `message` and the plain text in `message_plain`.
    package static func envelope(_ event: Event, settings: SinkSettings) -> JSONValue {
        var data = JSONObject()
        data["id"] = .string(event.id)
        data["agent"] = .string(event.agent)
        data["kind"] = .string(event.kind.rawValue)
        data["agent_event"] = .string(event.agentEvent)
        data["host"] = .string(event.host)
        data["session"] = .string(event.tmux?.session ?? "")
        if let pane = event.tmux?.pane { data["pane"] = .string(pane) }
        data["cwd"] = .string(event.cwd ?? "")
        if let sessionID = event.sessionID { data["session_id"] = .string(sessionID) }
        data["priority"] = .string(settings.priority(for: event) { $0.priority.rawValue })
        data["summary"] = .string(Text.truncate(Text.singleLine(settings.message(for: event)), characters: 200))
        if let detail = event.detail { data["detail"] = .string(detail) }
        return .object(JSONObject([
            ("type", .string("agent.\(event.kind.rawValue)")),
            ("timestamp", .string(WallClock.iso8601(event.time))),
            ("data", .object(data)),
            ("version", .string("1.0")),
            ("title", .string(settings.title(for: event))),
            ("message", .string(settings.markdownMessage(for: event))),
            ("message_plain", .string(settings.message(for: event))),
        ]))
    }
}
