/// The phone's push relay: `POST` JSON `{title, body, priority, sessionRef, hostRef}`, at most 4 KiB,
/// answered 204. 404 means the subscriber is unknown (the phone unsubscribed), 413 too large.
package struct RelaySink: Sink, SinkType {
    package static let type = "relay"
    package static let keys = SinkKeys.names(of: type)
    /// The relay refuses bodies over 4 KiB.
    package static let maximumBodyBytes = 4096

    package let name: String
    package let settings: SinkSettings
    package let url: SinkURL

    /// The URL is the whole credential: the URL, its last path segment (the token, however short) and
    /// any query.
    package var secrets: [String] {
        var values = url.secrets
        if let last = url.pathSegments.last, !values.contains(String(last)) { values.append(String(last)) }
        return values
    }
    package var endpoint: String? { url.text }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        RelaySink(name: config.name, settings: try SinkSettings(config: config), url: try config.url()!)
    }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        let priority = settings.priority(for: event) { $0.priority == .high ? "high" : "normal" }
        let body = Self.body(title: settings.title(for: event), message: settings.message(for: event), priority: priority,
                             sessionRef: event.tmux?.session ?? "", hostRef: event.host)
        return .http(HTTPRequest(
            method: "POST", url: url.text,
            headers: [("Content-Type", "application/json"), ("Idempotency-Key", event.id),
                      ("User-Agent", Product.userAgent)],
            body: Array(body.utf8), timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    /// The JSON body, with the message (then the title) cut on character boundaries until the whole
    /// body fits in 4 KiB: a long message arrives shortened, never refused.
    package static func body(title: String, message: String, priority: String, sessionRef: String, hostRef: String) -> String {
        func render(_ title: String, _ message: String) -> String {
            JSON.serialize(.object(JSONObject([
                ("title", .string(title)), ("body", .string(message)), ("priority", .string(priority)),
                ("sessionRef", .string(sessionRef)), ("hostRef", .string(hostRef)),
            ])))
        }
        var title = Text.truncate(title, utf8Bytes: 512)
        var message = message
        var text = render(title, message)
        while text.utf8.count > maximumBodyBytes {
            let excess = text.utf8.count - maximumBodyBytes
            if message.utf8.count > 16 {
                // Escapes can make the JSON longer than the text: cut a little more than the excess.
                message = Text.truncate(message, utf8Bytes: max(8, message.utf8.count - excess - 8))
            } else {
                title = Text.truncate(title, utf8Bytes: max(8, title.utf8.count - excess - 8))
            }
            text = render(title, message)
        }
        return text
    }

    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        switch response.status {
        case 404: return .gone(.http(404, "the relay does not know this subscriber (re-run setup with the phone's current notify URL)"))
        case 413: return .failed(.http(413, "the relay refused the size of the notification"))
        default: return HTTPClassifier.classify(response, secrets: secrets)
        }
    }
}
