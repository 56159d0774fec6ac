import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery

/// Builders the sink tests share: a fixed event and sinks made from YAML exactly as the config loader does.
enum SinkFixture {
    static func event(kind: EventKind = .needsInput, title: String = "Claude Code needs input",
                      message: String = "Approve `rm -rf build/`?", sessionID: String? = "5f0c8a2e-1111-4c1e-9d7a-0123456789ab") -> Event {
        Event(id: "0b7e6c1a-93f4-4f43-8d4e-5a1c2e3f4a5b", time: 1_767_225_600, agent: "claude", kind: kind,
              agentEvent: "Notification", title: title, message: message, host: "devbox",
              tmux: TmuxLocation(session: "sshido-9B95BD2A", sessionID: "$3", window: "@1", pane: "%7"),
              cwd: "/home/me/app", sessionID: sessionID)
    }

    /// One sink from the YAML lines of its mapping (indented under `sinks:` here).
    static func sink(_ lines: String, environment: [String: String] = [:]) throws -> any Sink {
        let indented = lines.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
        let yaml = "version: 1\nsinks:\n  - name: test\n" + indented + "\n"
        let config = try Config.parse(yaml, path: "test.yaml", environment: environment)
        return try SinkRegistry.makeSinks(config: config)[0]
    }

    /// The request `sink` builds for `event`; with `signer`, as the delivery engine asks it (agent text
    /// cleaned, the answer buttons minted by the signer and handed to the sink).
    static func request(_ sink: any Sink, _ event: Event, attempt: Int = 1, signer: AnswerSigner? = nil) throws -> HTTPRequest {
        let delivery = try signer.map { try sink.outgoingDelivery(for: event, attempt: attempt, signer: $0) }
            ?? sink.delivery(for: event, attempt: attempt)
        guard case .http(let request) = delivery else {
            Issue.record("expected an HTTP delivery")
            return HTTPRequest(url: "")
        }
        return request
    }

    static func header(_ request: HTTPRequest, _ name: String) -> String? {
        request.headers.first(where: { $0.0.lowercased() == name.lowercased() })?.1
    }

    static func json(_ request: HTTPRequest) throws -> JSONValue { try JSON.parse(request.body) }
}
