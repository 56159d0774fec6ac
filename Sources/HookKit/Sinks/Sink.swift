/// An HTTP request a sink wants sent. The delivery engine sends every sink's request concurrently.
struct HTTPRequest: Sendable {
    var method: String = "POST"
    var url: String
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var timeout: Double = 10
    var connectTimeout: Double = 5

    /// A readable rendering with the URL redacted and the given secrets scrubbed (for `test` and logs).
    func redacted(secrets: [String]) -> String {
        var lines = ["\(method) \(Text.scrub(Text.redactURL(url), secrets: secrets))"]
        for (name, value) in headers {
            let lower = name.lowercased()
            let hidden = lower == "authorization" || lower.contains("token") || lower.contains("signature")
                || lower.contains("secret") || lower == "cookie"
            lines.append("\(name): \(hidden ? Text.redactSecret(value) : Text.scrub(value, secrets: secrets))")
        }
        lines.append("")
        lines.append(Text.scrub(String(decoding: body, as: UTF8.self), secrets: secrets))
        return lines.joined(separator: "\n")
    }
}

/// What came back: a status with headers and body, or a transport error before any answer.
struct HTTPResponse: Sendable {
    /// 0 when no HTTP answer arrived.
    var status: Int
    /// Header names in lower case.
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    /// The transport error (connection refused, timeout…), when there was one.
    var error: String? = nil
    var duration: Double = 0

    func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.0 == lower })?.1
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// `Retry-After` in seconds (delta-seconds or an HTTP date), through the one clamp every server hint
    /// takes (`RetryHint.clamp`: 0 to 1 hour): it never crashes hookctl, never makes it hammer the
    /// server, and never parks an event forever.
    var retryAfter: Double? {
        guard let value = header("retry-after").map(Text.trimmed) else { return nil }
        return RetryHint.clamp(Double(value) ?? HTTPDate.parse(value).map { $0 - WallClock.nowEpoch() })
    }
}

/// How one delivery attempt ended.
enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Try again later (network error, 408, 429, 5xx, exec exit 75); `after` is the server's wait hint.
    case retry(after: Double?, reason: String)
    /// Never retry (other 4xx, bad request, exec failure): the delivery is dead.
    case failed(reason: String)
    /// The endpoint no longer exists (404/410 from a webhook): dead, and the sink needs fixing.
    case gone(reason: String)

    /// The same outcome with `secrets` replaced in its reason (see `Text.scrub`).
    func scrubbed(_ secrets: [String]) -> DeliveryOutcome {
        guard !secrets.isEmpty else { return self }
        switch self {
        case .delivered: return self
        case .retry(let after, let reason): return .retry(after: after, reason: Text.scrub(reason, secrets: secrets))
        case .failed(let reason): return .failed(reason: Text.scrub(reason, secrets: secrets))
        case .gone(let reason): return .gone(reason: Text.scrub(reason, secrets: secrets))
        }
    }

    /// The outcome in words. `retried` false: nothing will try this delivery again (a test, an event
    /// that could not be queued), so a temporary failure says what a queued event would do instead.
    func summary(retried: Bool = true) -> String {
        switch self {
        case .delivered: return "delivered"
        case .retry(_, let reason):
            return retried ? "will retry: \(reason)" : "not delivered (temporary: a queued event would be retried): \(reason)"
        case .failed(let reason): return retried ? "failed: \(reason)" : "not delivered: \(reason)"
        case .gone(let reason): return retried ? "endpoint gone: \(reason)" : "not delivered, the endpoint is gone: \(reason)"
        }
    }
}

/// What a sink does with an event: send an HTTP request (concurrently with the others) or act locally.
/// A local action gets the deadline it must finish by.
enum Delivery: Sendable {
    case http(HTTPRequest)
    case local(@Sendable (_ deadline: ContinuousClock.Instant) -> DeliveryOutcome)
}

/// A notification sink: the plugin point every built-in type implements.
protocol Sink: Sendable {
    var name: String { get }
    var type: String { get }
    var settings: SinkSettings { get }
    /// Values that must never appear in any output or log (tokens, secret URLs).
    var secrets: [String] { get }
    /// What to send for `event`; `attempt` counts from 1 (a per-attempt timestamp may change, the event id never does).
    func delivery(for event: Event, attempt: Int) throws -> Delivery
    /// Classifies an HTTP answer. The default follows the status code and `Retry-After`.
    func outcome(for response: HTTPResponse) -> DeliveryOutcome
    /// A readable description of what would be sent, secrets redacted (for `hookctl test`).
    func preview(for event: Event) -> String
    /// Where the sink sends, for doctor's reachability check (nil for local sinks).
    var endpoint: String? { get }
}

extension Sink {
    func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        HTTPClassifier.classify(response, secrets: secrets)
    }

    func preview(for event: Event) -> String {
        do {
            switch try outgoingDelivery(for: event, attempt: 1) {
            case .http(let request): return request.redacted(secrets: secrets)
            case .local: return "(\(type) sink: delivered locally)"
            }
        } catch {
            return "(cannot build the request: \(error))"
        }
    }

    var endpoint: String? { nil }

    /// The one way a delivery is asked of a sink: agent text first goes through `OutgoingText.clean`
    /// (`Event.outgoing`), so no control character, escape sequence or bidi override reaches any sink.
    func outgoingDelivery(for event: Event, attempt: Int) throws -> Delivery {
        try delivery(for: event.outgoing, attempt: attempt)
    }

    func accepts(_ event: Event) -> Bool { settings.accepts(event) }
}

/// The standard reading of an HTTP answer (as GitHub, Stripe and Svix treat webhook answers): 2xx delivered; network errors, 408, 425, 429
/// and 5xx retried (honouring Retry-After); 404/410 gone; any other 4xx (and 3xx) permanent.
enum HTTPClassifier {
    static func classify(_ response: HTTPResponse, secrets: [String]) -> DeliveryOutcome {
        if let error = response.error, response.status == 0 {
            return .retry(after: nil, reason: Text.scrub(error, secrets: secrets))
        }
        let status = response.status
        // Scrub before cutting: a secret cut in half would no longer match and would be printed.
        let snippet = Text.truncate(Text.scrub(Text.singleLine(response.bodyText), secrets: secrets), characters: 160)
        let detail = snippet.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(snippet)"
        switch status {
        case 200..<300: return .delivered
        case 408, 425, 429, 500..<600: return .retry(after: response.retryAfter, reason: detail)
        case 404, 410: return .gone(reason: detail)
        case 401, 403: return .failed(reason: detail + " (check the sink's credentials)")
        case 300..<400: return .failed(reason: detail + " (redirects are not followed: update the URL)")
        default: return .failed(reason: detail)
        }
    }
}

/// HTTP-date (RFC 9110 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, let day = Int32(parts[1]), (1...31).contains(day),
              let year = Int32(parts[3]), (1970...9999).contains(year) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        return Double(WallClock.epoch(year: Int(year), month: month + 1, day: Int(day), hour: Int(clock[0]),
                                      minute: Int(clock[1]), second: Int(clock[2])))
    }
}
