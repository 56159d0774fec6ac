/// The server's wait, as the sinks read it.
extension HTTPResponse {
    /// `Retry-After` in seconds (delta-seconds or an HTTP date), through the one clamp every server hint
    /// takes (`RetryHint.clamp`: 0 to 1 hour): it never crashes hookctl, never makes it hammer the
    /// server, and never parks an event forever.
    package var retryAfter: Double? {
        guard let value = header("retry-after").map(Text.trimmed) else { return nil }
        return RetryHint.clamp(Double(value) ?? HTTPDate.parse(value).map { $0 - WallClock.nowEpoch() })
    }
}

/// Why an attempt did not deliver, as values the engine decides on (the status, the cause, the server's
/// wait); words only where it is shown (`text`: stderr, `outbox list`, health and dead-letter files).
package struct DeliveryProblem: Sendable, Equatable {
    package enum Cause: String, Sendable {
        /// The server answered, with `status`.
        case answered
        /// No answer: refused, unreachable, TLS, the request's own timeout.
        case network
        /// This process stopped waiting at its own deadline: says nothing about the endpoint.
        case cutOff
        /// A local sink: the program, the file; or what hookctl itself could not do.
        case local
    }

    package var cause: Cause
    /// The HTTP status, when the server answered.
    package var status: Int?
    /// How long the server asked to be left alone, through `RetryHint.clamp` (`clamped`).
    package var retryAfter: Double?
    /// The rest in words, secrets scrubbed: a snippet of the server's answer, the transport error, the program's stderr.
    package var detail: String

    package init(_ cause: Cause, status: Int? = nil, retryAfter: Double? = nil, detail: String = "") {
        self.cause = cause
        self.status = status
        self.retryAfter = retryAfter
        self.detail = detail
    }

    /// The server answered `status`; `detail` says more (a snippet of its body, what to do).
    package static func http(_ status: Int, _ detail: String = "", retryAfter: Double? = nil) -> DeliveryProblem {
        DeliveryProblem(.answered, status: status, retryAfter: retryAfter, detail: detail)
    }

    /// `HTTP 503: maintenance`, or the detail alone when no server answered.
    package var text: String {
        guard let status else { return detail }
        return "HTTP \(status)" + (detail.isEmpty ? "" : (detail.hasPrefix("(") ? " " : ": ") + detail)
    }
}

/// How one delivery attempt ended.
package enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Try again later (network error, 408, 429, 5xx, exec exit 75).
    case retry(DeliveryProblem)
    /// Never retry (other 4xx, bad request, exec failure): the delivery is dead.
    case failed(DeliveryProblem)
    /// The endpoint no longer exists (404/410 from a webhook): dead, and the sink needs fixing.
    case gone(DeliveryProblem)

    /// A local failure told in words (file and exec sinks, hookctl's own reasons).
    package static func retry(after: Double?, reason: String) -> DeliveryOutcome { .retry(DeliveryProblem(.local, retryAfter: after, detail: reason)) }
    package static func failed(reason: String) -> DeliveryOutcome { .failed(DeliveryProblem(.local, detail: reason)) }
    package static func gone(reason: String) -> DeliveryOutcome { .gone(DeliveryProblem(.local, detail: reason)) }

    /// Why it did not deliver; nil when it did.
    package var problem: DeliveryProblem? {
        switch self {
        case .delivered: return nil
        case .retry(let problem), .failed(let problem), .gone(let problem): return problem
        }
    }

    /// The same outcome with its problem changed by `change`.
    package func with(_ change: (inout DeliveryProblem) -> Void) -> DeliveryOutcome {
        switch self {
        case .delivered: return self
        case .retry(var problem): change(&problem); return .retry(problem)
        case .failed(var problem): change(&problem); return .failed(problem)
        case .gone(var problem): change(&problem); return .gone(problem)
        }
    }

    /// The same outcome with `secrets` replaced in its words (see `Text.scrub`).
    package func scrubbed(_ secrets: [String]) -> DeliveryOutcome {
        secrets.isEmpty ? self : with { $0.detail = Text.scrub($0.detail, secrets: secrets) }
    }

    /// The outcome in words. `retried` false: nothing will try this delivery again (a test, an event
    /// that could not be queued), so a temporary failure says what a queued event would do instead.
    package func summary(retried: Bool = true) -> String {
        switch self {
        case .delivered: return "delivered"
        case .retry(let problem):
            return retried ? "will retry: \(problem.text)" : "not delivered (temporary: a queued event would be retried): \(problem.text)"
        case .failed(let problem): return retried ? "failed: \(problem.text)" : "not delivered: \(problem.text)"
        case .gone(let problem): return retried ? "endpoint gone: \(problem.text)" : "not delivered, the endpoint is gone: \(problem.text)"
        }
    }
}

/// What a sink does with an event: send an HTTP request (concurrently with the others) or act locally.
/// A local action gets the deadline it must finish by.
package enum Delivery: Sendable {
    case http(HTTPRequest)
    case local(@Sendable (_ deadline: ContinuousClock.Instant) -> DeliveryOutcome)
}

/// A notification sink: the plugin point every built-in type implements.
package protocol Sink: Sendable {
    var name: String { get }
    var type: String { get }
    var settings: SinkSettings { get }
    /// Values that must never appear in any output or log (tokens, secret URLs).
    var secrets: [String] { get }
    /// What to send for `event`; `attempt` counts from 1 (a per-attempt timestamp may change, the event id never does).
    func delivery(for event: Event, attempt: Int) throws -> Delivery
    /// How many answer buttons a push of this sink carries (0: it offers none, the default).
    var answerButtons: Int { get }
    /// `delivery(for:attempt:)` with the answer buttons the delivery side minted for the event's question
    /// (at most `answerButtons`; none when the event asks nothing). The default ignores them.
    func delivery(for event: Event, attempt: Int, answers: [AnswerButton]) throws -> Delivery
    /// Classifies an HTTP answer. The default follows the status code and `Retry-After`.
    func outcome(for response: HTTPResponse) -> DeliveryOutcome
    /// A readable description of what would be sent, secrets redacted (for `hookctl test`).
    func preview(for event: Event) -> String
    /// Where the sink sends, for doctor's reachability check (nil for local sinks).
    var endpoint: String? { get }
    /// Whether the sink can update or withdraw a question it pushed once the question is answered
    /// (`AnsweredPushes`): the follow-up is queued only for such sinks.
    var canReplace: Bool { get }
    /// What a delivered push's answer holds that its follow-up needs (Telegram's `message_id`), nil for none.
    func receipt(for response: HTTPResponse) -> String?
    /// The update of the pushed question `followUp` answers (`AnsweredPushes.followUp`), with the question
    /// push's receipt when one was kept; nil when there is nothing to update (then nothing is sent).
    func answeredDelivery(for followUp: Event, receipt: String?) throws -> Delivery?
}

extension Sink {
    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        HTTPClassifier.classify(response, secrets: secrets)
    }

    package func preview(for event: Event) -> String {
        do {
            switch try outgoingDelivery(for: event, attempt: 1, signer: .preview) {
            case .http(let request): return request.redacted(secrets: secrets)
            case .local: return "(\(type) sink: delivered locally)"
            }
        } catch {
            return "(cannot build the request: \(error))"
        }
    }

    package var endpoint: String? { nil }
    package var answerButtons: Int { 0 }
    package func delivery(for event: Event, attempt: Int, answers: [AnswerButton]) throws -> Delivery {
        try delivery(for: event, attempt: attempt)
    }
    package var canReplace: Bool { false }
    package func receipt(for response: HTTPResponse) -> String? { nil }
    package func answeredDelivery(for followUp: Event, receipt: String?) throws -> Delivery? { nil }

    /// The one way a delivery is asked of a sink: agent text first goes through `OutgoingText.clean`
    /// (`Event.outgoing`), so no control character, escape sequence or bidi override reaches any sink;
    /// a sink with answer buttons gets them minted here by `signer` (none without one), so the sink
    /// itself stays pure: event and buttons in, request out.
    package func outgoingDelivery(for event: Event, attempt: Int, signer: AnswerSigner?) throws -> Delivery {
        let outgoing = event.outgoing
        let answers = answerButtons > 0 ? signer?.buttons(for: outgoing, limit: answerButtons) ?? [] : []
        return try delivery(for: outgoing, attempt: attempt, answers: answers)
    }

    package func accepts(_ event: Event) -> Bool { settings.accepts(event) }
}

/// The standard reading of an HTTP answer (as GitHub, Stripe and Svix treat webhook answers): 2xx delivered; network errors, 408, 425, 429
/// and 5xx retried (honouring Retry-After); 404/410 gone; any other 4xx (and 3xx) permanent.
package enum HTTPClassifier {
    package static func classify(_ response: HTTPResponse, secrets: [String]) -> DeliveryOutcome {
        if let error = response.error, response.status == 0 {
            return .retry(DeliveryProblem(response.cutOff ? .cutOff : .network, detail: Text.scrub(error, secrets: secrets)))
        }
        let status = response.status
        // Scrubbed before it is cut: a secret cut in half would no longer match and would be printed.
        let snippet = Text.truncate(Text.scrub(Text.singleLine(response.bodyText), secrets: secrets), characters: 160)
        func problem(_ advice: String = "") -> DeliveryProblem {
            .http(status, [snippet, advice].filter { !$0.isEmpty }.joined(separator: " "), retryAfter: response.retryAfter)
        }
        switch status {
        case 200..<300: return .delivered
        case 408, 425, 429, 500..<600: return .retry(problem())
        case 404, 410: return .gone(problem())
        case 401, 403: return .failed(problem("(check the sink's credentials)"))
        case 300..<400: return .failed(problem("(redirects are not followed: update the URL)"))
        default: return .failed(problem())
        }
    }
}

/// HTTP-date (RFC 9110 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
package enum HTTPDate {
    package static func parse(_ text: String) -> Double? {
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
