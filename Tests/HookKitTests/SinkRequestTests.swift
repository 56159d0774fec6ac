import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery

@Suite struct SinkRequestTests {
    // MARK: webhook

    @Test func webhookSendsTheEnvelopeWithStandardWebhooksHeaders() throws {
        var sink = try #require(try SinkFixture.sink("""
            type: webhook
            url: https://hooks.example.com/in/abc
            secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
            headers: {X-Team: agents}
            """) as? WebhookSink)
        sink.now = { 1_767_225_700 }
        let event = SinkFixture.event(message: "**Approve** `rm`?")
        let request = try SinkFixture.request(sink, event)
        #expect(request.method == "POST")
        #expect(request.url == "https://hooks.example.com/in/abc")
        #expect(request.headers.map(\.0) == ["Content-Type", "User-Agent", "Idempotency-Key", "webhook-id", "webhook-timestamp",
                                             "webhook-signature", "X-Team"])
        #expect(SinkFixture.header(request, "webhook-id") == event.id)
        #expect(SinkFixture.header(request, "Idempotency-Key") == event.id)
        #expect(SinkFixture.header(request, "webhook-timestamp") == "1767225700")
        let expected = WebhookSink.standardSignature(key: Base64.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!, id: event.id,
                                                     timestamp: "1767225700", body: request.body)
        #expect(SinkFixture.header(request, "webhook-signature") == expected)
        let body = try SinkFixture.json(request)
        #expect(body["type"]?.stringValue == "agent.needs_input")
        #expect(body["timestamp"]?.stringValue == "2026-01-01T00:00:00.000Z")
        #expect(body["version"]?.stringValue == "1.0")
        #expect(body["title"]?.stringValue == "Claude Code needs input")
        #expect(body["message"]?.stringValue == "**Approve** `rm`?")
        #expect(body["data"]?["agent"]?.stringValue == "claude")
        #expect(body["data"]?["session"]?.stringValue == "sshido-9B95BD2A")
        #expect(body["data"]?["cwd"]?.stringValue == "/home/me/app")
        #expect(body.objectValue?.keys == ["type", "timestamp", "data", "version", "title", "message", "message_plain"])
    }

    @Test func webhookIdStaysAndTimestampMovesAcrossAttempts() throws {
        var sink = try #require(try SinkFixture.sink("type: webhook\nurl: https://h.example.com/x\nsecret: plain-secret") as? WebhookSink)
        let event = SinkFixture.event()
        sink.now = { 1000 }
        let first = try SinkFixture.request(sink, event, attempt: 1)
        sink.now = { 1030 }
        let second = try SinkFixture.request(sink, event, attempt: 2)
        #expect(SinkFixture.header(first, "webhook-id") == SinkFixture.header(second, "webhook-id"))
        #expect(SinkFixture.header(first, "webhook-timestamp") == "1000")
        #expect(SinkFixture.header(second, "webhook-timestamp") == "1030")
        #expect(SinkFixture.header(first, "webhook-signature") != SinkFixture.header(second, "webhook-signature"))
        #expect(first.body == second.body)
    }

    @Test func webhookBodyTemplateEscapesValuesForJSONAndSignsGitHubStyle() throws {
        let sink = try SinkFixture.sink("""
            type: webhook
            url: https://h.example.com/x
            method: PUT
            secret_env: HOOK_SECRET
            github_signature: true
            body: '{"text": "{title}: {message}", "host": "{host}"}'
            """, environment: ["HOOK_SECRET": "s3cr3t-value"])
        let request = try SinkFixture.request(sink, SinkFixture.event(message: "say \"hi\"\nnow"))
        #expect(request.method == "PUT")
        let body = try SinkFixture.json(request)
        #expect(body["text"]?.stringValue == "Claude Code needs input: say \"hi\"\nnow")
        #expect(body["host"]?.stringValue == "devbox")
        let hex = Base64.hex(HMAC.sha256(key: Array("s3cr3t-value".utf8), message: request.body))
        #expect(SinkFixture.header(request, "X-Hub-Signature-256") == "sha256=" + hex)
        #expect(!sink.preview(for: SinkFixture.event()).contains("s3cr3t-value"))
    }

    @Test(arguments: [
        ("type: webhook\nurl: ftp://x/y", "must start with http"),
        ("type: webhook\nurl: https://x/y\nmethod: GET", "'method' must be POST or PUT"),
        ("type: webhook\nurl: https://x/y\nsecret: whsec_!!!", "base64"),
        ("type: webhook\nurl: https://x/y\ngithub_signature: true", "needs a 'secret'"),
        ("type: webhook\nurl: https://x/y\nheaders: {\"Bad Name\": x}", "invalid header name"),
        ("type: ntfy\nurl: https://ntfy.sh/", "topic URL"),
        ("type: ntfy\nurl: https://ntfy.sh/t\npriority: {done: loud}", "1-5"),
        ("type: telegram\ntoken: 1:abc\nchat_id: bob", "numeric chat id"),
        ("type: telegram\ntoken: 1:abc\nchat_id: 5\nparse_mode: markdown", "html or none"),
        ("type: discord\nurl: https://d.example.com/w\nsilent: [finish]", "unknown event kind"),
        ("type: slack\nurl: https://hooks.slack.com/x\nchannel: '#a'", "unknown key 'channel'"),
    ])
    func configMistakesAreExplained(yaml: String, expected: String) {
        if let error = #expect(throws: (any Error).self, "expected a config error for \(yaml)", performing: { try SinkFixture.sink(yaml) }) {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    // MARK: ntfy

    @Test func ntfyPublishesJSONToTheServerRoot() throws {
        let sink = try SinkFixture.sink("""
            type: ntfy
            url: https://ntfy.example.com/base/agents-7f3
            token: tk_abcdefghijklmnop
            tags: [robot, "{agent}"]
            click: "sshido://session/{session}?host={host}"
            icon: https://example.com/i.png
            """)
        let event = SinkFixture.event()
        let request = try SinkFixture.request(sink, event)
        #expect(request.method == "POST")
        #expect(request.url == "https://ntfy.example.com/base/")
        #expect(SinkFixture.header(request, "Authorization") == "Bearer tk_abcdefghijklmnop")
        #expect(SinkFixture.header(request, "Content-Type") == "application/json")
        #expect(SinkFixture.header(request, "X-Sequence-ID") == "claude-5f0c8a2e-1111-4c1e-9d7a-0123456789ab")
        #expect(String(decoding: request.body, as: UTF8.self) == """
            {"topic":"agents-7f3","title":"Claude Code needs input","message":"Approve `rm -rf build/`?","priority":4,\
            "tags":["question","robot","claude"],"click":"sshido://session/sshido-9B95BD2A?host=devbox",\
            "icon":"https://example.com/i.png","sequence_id":"claude-5f0c8a2e-1111-4c1e-9d7a-0123456789ab"}
            """)
        let preview = sink.preview(for: event)
        #expect(!preview.contains("tk_abcdefghijklmnop"))
        #expect(!preview.contains("agents-7f3"))
    }

    @Test(arguments: [(EventKind.done, 3, "white_check_mark"), (.needsInput, 4, "question"), (.failed, 4, "x")])
    func ntfyMapsKindsToPriorityAndTags(kind: EventKind, priority: Int, tag: String) throws {
        let sink = try SinkFixture.sink("type: ntfy\nurl: https://ntfy.sh/t0pic")
        let body = try SinkFixture.json(try SinkFixture.request(sink, SinkFixture.event(kind: kind)))
        #expect(body["priority"]?.intValue == priority)
        #expect(body["tags"]?.arrayValue?.first?.stringValue == tag)
    }

    @Test func ntfyPriorityNamesMarkdownAndSequenceTemplate() throws {
        let sink = try SinkFixture.sink("""
            type: ntfy
            url: https://ntfy.sh/t0pic
            priority: {failed: urgent, done: low}
            markdown: true
            sequence_id: "{host}/{session}"
            """)
        let event = SinkFixture.event(kind: .failed, message: "**boom**")
        let request = try SinkFixture.request(sink, event)
        let body = try SinkFixture.json(request)
        #expect(body["priority"]?.intValue == 5)
        #expect(body["markdown"]?.boolValue == true)
        #expect(body["message"]?.stringValue == "**boom**")
        #expect(body["sequence_id"]?.stringValue == "devbox_sshido-9B95BD2A")
        let none = try SinkFixture.sink("type: ntfy\nurl: https://ntfy.sh/t0pic\nsequence_id: ''")
        let plain = try SinkFixture.request(none, event)
        #expect(SinkFixture.header(plain, "X-Sequence-ID") == nil)
    }

    @Test func ntfyMessageStaysWithin4096Bytes() throws {
        let sink = try SinkFixture.sink("type: ntfy\nurl: https://ntfy.sh/t0pic")
        let body = try SinkFixture.json(try SinkFixture.request(sink, SinkFixture.event(message: String(repeating: "ü🚀", count: 2000))))
        let message = try #require(body["message"]?.stringValue)
        #expect(message.utf8.count <= 4096)
        #expect(message.hasSuffix("🚀…") || message.hasSuffix("ü…"))
    }

    // MARK: slack

    @Test func slackSendsMrkdwnText() throws {
        let sink = try SinkFixture.sink("type: slack\nurl_env: SLACK_URL",
                                        environment: ["SLACK_URL": "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX"])
        let request = try SinkFixture.request(sink, SinkFixture.event(title: "A <b> & c", message: "**Done** see [PR](https://g.h/1)"))
        #expect(request.url == "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX")
        #expect(String(decoding: request.body, as: UTF8.self)
            == #"{"text":"*A &lt;b&gt; &amp; c*\n*Done* see <https://g.h/1|PR>"}"#)
        #expect(!sink.preview(for: SinkFixture.event()).contains("XXXXXXXXXXXXXXXXXXXXXXXX"))
    }

    @Test func slackGoneAndRetrySignals() throws {
        let sink = try SinkFixture.sink("type: slack\nurl: https://hooks.slack.com/services/T/B/secretsecretsecret")
        #expect(isGone(sink.outcome(for: HTTPResponse(status: 404, body: Array("channel_not_found".utf8)))))
        #expect(isGone(sink.outcome(for: HTTPResponse(status: 410, body: Array("channel_is_archived".utf8)))))
        #expect(sink.outcome(for: HTTPResponse(status: 429, headers: [("retry-after", "3")])) == .retry(.http(429, retryAfter: 3)))
        if case .failed = sink.outcome(for: HTTPResponse(status: 400, body: Array("invalid_payload".utf8))) {} else { Issue.record("400 must fail") }
        #expect(sink.outcome(for: HTTPResponse(status: 200, body: Array("ok".utf8))) == .delivered)
    }

    /// Slack's and Telegram's own readings scrub the response body before they cut it, as HTTPClassifier
    /// does (HardeningTests.aSecretNearTheCutIsScrubbedBeforeCutting): cut first (before 6b36ce1), a token
    /// that straddles the cut (80 characters for Slack, 160 for Telegram's description) was no longer the
    /// whole secret, and its head was shown in the reason that notify, the outbox and doctor print.
    @Test func slackAndTelegramScrubTheBodyBeforeCuttingIt() throws {
        let slackToken = "SLACKSECRETtoken0123456789"
        let slack = try SinkFixture.sink("type: slack\nurl: https://hooks.slack.com/services/T0/B0/\(slackToken)")
        let slackBody = String(repeating: "x", count: 60) + " " + slackToken
        for status in [401, 404] {
            let reason = Self.reason(slack.outcome(for: HTTPResponse(status: status, body: Array(slackBody.utf8))))
            #expect(!reason.contains("SLACKSECRET"), "HTTP \(status): \(reason)")
        }
        let telegramToken = "123456789:AAHtelegramSECRETpart_abcdefgh"
        let telegram = try SinkFixture.sink("type: telegram\ntoken: \(telegramToken)\nchat_id: 5")
        let description = String(repeating: "y", count: 130) + " bot" + telegramToken
        let telegramBody = JSON.serialize(.object(JSONObject([("ok", .bool(false)), ("error_code", .int(401)),
                                                                ("description", .string(description))])))
        let reason = Self.reason(telegram.outcome(for: HTTPResponse(status: 401, body: Array(telegramBody.utf8))))
        #expect(!reason.contains("AAHtelegram"), "\(reason)")
    }

    static func reason(_ outcome: DeliveryOutcome) -> String {
        outcome.problem?.text ?? ""
    }

    @Test func slackTextStaysWithin40000Characters() throws {
        let sink = try SinkFixture.sink("type: slack\nurl: https://hooks.slack.com/services/T/B/C")
        let long = String(repeating: "a<b & **c** 👍🏽 ", count: 5000)
        let text = try #require(try SinkFixture.json(try SinkFixture.request(sink, SinkFixture.event(message: long)))["text"]?.stringValue)
        #expect(text.count <= 40_000)
        #expect(text.hasSuffix("…"))
    }

    // MARK: discord

    @Test func discordSendsContentWithMentionsDisabled() throws {
        let sink = try SinkFixture.sink("type: discord\nurl: https://discord.com/api/webhooks/123/tok_abcdefghijklmnopqrstuvwxyz\nusername: agents")
        let request = try SinkFixture.request(sink, SinkFixture.event(kind: .done, title: "Done *now*", message: "@everyone **ok**"))
        #expect(request.url == "https://discord.com/api/webhooks/123/tok_abcdefghijklmnopqrstuvwxyz?wait=true")
        #expect(String(decoding: request.body, as: UTF8.self)
            == #"{"content":"**Done \\*now\\***\n@everyone **ok**","username":"agents","allowed_mentions":{"parse":[]},"flags":4096}"#)
        let urgent = try SinkFixture.json(try SinkFixture.request(sink, SinkFixture.event(kind: .needsInput)))
        #expect(urgent["flags"] == nil)
        #expect(!sink.preview(for: SinkFixture.event()).contains("tok_abcdefghijklmnopqrstuvwxyz"))
    }

    @Test func discordContentStaysWithin2000Units() throws {
        let sink = try SinkFixture.sink("type: discord\nurl: https://discord.com/api/webhooks/1/t")
        let content = try #require(try SinkFixture.json(try SinkFixture.request(
            sink, SinkFixture.event(message: String(repeating: "🙂x", count: 3000))))["content"]?.stringValue)
        #expect(content.utf16.count <= 2000)
        #expect(content.hasSuffix("…"))
        #expect(!content.unicodeScalars.contains { (0xD800...0xDFFF).contains($0.value) })
    }

    @Test func discordHonoursRetryAfterAndReportsDeletedWebhooks() throws {
        let sink = try SinkFixture.sink("type: discord\nurl: https://discord.com/api/webhooks/1/t")
        let limited = HTTPResponse(status: 429, headers: [("retry-after", "2")],
                                   body: Array(#"{"message":"You are being rate limited.","retry_after":0.75,"global":false}"#.utf8))
        guard case .retry(let problem) = sink.outcome(for: limited) else { Issue.record("429 must retry"); return }
        #expect(problem.retryAfter == 0.75 && problem.status == 429)
        let headerOnly = HTTPResponse(status: 429, headers: [("x-ratelimit-reset-after", "1.5")])
        guard case .retry(let headerProblem) = sink.outcome(for: headerOnly) else { Issue.record("429 must retry"); return }
        #expect(headerProblem.retryAfter == 1.5)
        #expect(isGone(sink.outcome(for: HTTPResponse(status: 404, body: Array(#"{"message":"Unknown Webhook","code":10015}"#.utf8)))))
        #expect(sink.outcome(for: HTTPResponse(status: 200)) == .delivered)
    }

    // MARK: telegram

    @Test func telegramSendsHTMLAndKeepsTheTokenOutOfPreviews() throws {
        let token = "123456789:AAH-secretpartofthetoken_abcdefgh"
        let sink = try SinkFixture.sink("type: telegram\ntoken_env: TG\nchat_id: '-1001234567'", environment: ["TG": token])
        let request = try SinkFixture.request(sink, SinkFixture.event(title: "Needs <you>", message: "**Approve** `a<b`?"))
        #expect(request.url == "https://api.telegram.org/bot\(token)/sendMessage")
        #expect(String(decoding: request.body, as: UTF8.self) == """
            {"chat_id":-1001234567,"text":"<b>Needs &lt;you&gt;</b>\\n<b>Approve</b> <code>a&lt;b</code>?","parse_mode":"HTML",\
            "disable_notification":false,"link_preview_options":{"is_disabled":true}}
            """)
        let preview = sink.preview(for: SinkFixture.event())
        #expect(preview.hasPrefix("POST https://api.telegram.org/bot…(redacted)/sendMessage\n"))
        #expect(!preview.contains("secretpartofthetoken"))
        #expect(!preview.contains(token))
        let channel = try SinkFixture.sink("type: telegram\ntoken: \(token)\nchat_id: '@agents'\nparse_mode: none")
        let body = try SinkFixture.json(try SinkFixture.request(channel, SinkFixture.event(kind: .done, message: "**x**")))
        #expect(body["chat_id"]?.stringValue == "@agents")
        #expect(body["parse_mode"] == nil)
        #expect(body["disable_notification"]?.boolValue == true)
    }

    @Test func telegramTextStaysWithin4096VisibleUnits() throws {
        let sink = try SinkFixture.sink("type: telegram\ntoken: 1:abcdefghijklmnopqrstuvwxyz\nchat_id: 5")
        let long = String(repeating: "**ä👍🏽** <&> ", count: 1500)
        let text = try #require(try SinkFixture.json(try SinkFixture.request(sink, SinkFixture.event(message: long)))["text"]?.stringValue)
        let visible = SinkMarkdown.visibleText(SinkMarkdown.parse(text.replacing(/<\/?[a-z]+>/, with: "")), dialect: .plain)
        #expect(visible.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&amp;", with: "&").utf16.count <= 4096)
        #expect(text.hasSuffix("…") || text.hasSuffix("…</b>"))
        #expect(text.ranges(of: "<b>").count == text.ranges(of: "</b>").count)
    }

    @Test func telegramReadsItsOwnErrorSignals() throws {
        let token = "42:supersecretsupersecret"
        let sink = try SinkFixture.sink("type: telegram\ntoken: \(token)\nchat_id: 5")
        let limited = HTTPResponse(status: 429, body: Array(#"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}"#.utf8))
        guard case .retry(let problem) = sink.outcome(for: limited) else { Issue.record("429 must retry"); return }
        #expect(problem.retryAfter == 3 && problem.status == 429)
        let badChat = HTTPResponse(status: 400, body: Array(#"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#.utf8))
        #expect(sink.outcome(for: badChat) == .failed(.http(400, "Bad Request: chat not found")))
        #expect(isGone(sink.outcome(for: HTTPResponse(status: 404, body: Array(#"{"ok":false,"error_code":404,"description":"Not Found"}"#.utf8)))))
        let transport = sink.outcome(for: HTTPResponse(status: 0, error: "Failed to connect to api/bot\(token)/sendMessage"))
        #expect(!transport.summary().contains("supersecret"))
        #expect(sink.outcome(for: HTTPResponse(status: 200, body: Array(#"{"ok":true,"result":{}}"#.utf8))) == .delivered)
    }

    func isGone(_ outcome: DeliveryOutcome) -> Bool {
        if case .gone = outcome { return true }
        return false
    }
}

@Suite struct SinkSecretTests {
    /// Each sink with its secrets, and the distinctive part of each that must never be shown.
    static let cases: [(String, [String: String], [String])] = [
        ("type: webhook\nurl: https://h.example.com/in/whpathsecret0123456789?key=querysecret42\nsecret_env: S\nheaders: {Authorization: Bearer hdrsecret99}",
         ["S": "whsec_c2lnbmluZ3NlY3JldHNpZ25pbmc="], ["whpathsecret0123456789", "querysecret42", "c2lnbmluZ3NlY3JldHNpZ25pbmc", "hdrsecret99"]),
        ("type: ntfy\nurl: https://ntfy.sh/private-topic-777\ntoken_env: T", ["T": "tk_ntfysecrettoken000"], ["private-topic-777", "ntfysecrettoken000"]),
        ("type: slack\nurl_env: U", ["U": "https://hooks.slack.com/services/T01/B02/slackwebhooksecret0000"], ["slackwebhooksecret0000"]),
        ("type: discord\nurl_env: U", ["U": "https://discord.com/api/webhooks/1234/discordwebhooksecret_000"], ["discordwebhooksecret_000"]),
        ("type: telegram\ntoken_env: T\nchat_id: 1", ["T": "4242:telegrambotsecret_000"], ["telegrambotsecret_000"]),
    ]

    @Test(arguments: 0..<5)
    func previewsAndErrorsNeverShowSecrets(index: Int) throws {
        let (yaml, environment, secrets) = Self.cases[index]
        let sink = try SinkFixture.sink(yaml, environment: environment)
        let event = SinkFixture.event()
        let request = try SinkFixture.request(sink, event)
        // The request really carries them (or the signature made with them)…
        let raw = request.url + request.headers.map { "\($0.0): \($0.1)" }.joined() + String(decoding: request.body, as: UTF8.self)
        #expect(secrets.contains(where: raw.contains))
        // …and nothing shown to a person does.
        let echoed = HTTPResponse(status: 500, body: Array("upstream said: \(raw)".utf8))
        let transport = HTTPResponse(status: 0, error: "Could not resolve host for \(request.url)")
        let shown = [sink.preview(for: event), sink.outcome(for: echoed).summary(), sink.outcome(for: transport).summary(retried: false),
                     request.redacted(secrets: sink.secrets), sink.endpoint.map(Text.redactURL) ?? ""]
        for text in shown {
            for secret in secrets {
                #expect(!text.contains(secret), "'\(secret)' shown in: \(text)")
            }
        }
    }
}

@Suite struct SinkEmptyTextTests {
    @Test(arguments: [
        ("type: slack\nurl: https://hooks.slack.com/services/T/B/C", "text"),
        ("type: discord\nurl: https://discord.com/api/webhooks/1/t", "content"),
        ("type: telegram\ntoken: 1:abcdef\nchat_id: 5", "text"),
    ])
    func emptyTitleAndMessageStillSendText(yaml: String, field: String) throws {
        let sink = try SinkFixture.sink(yaml)
        let body = try SinkFixture.json(try SinkFixture.request(sink, SinkFixture.event(kind: .done, title: "", message: "")))
        #expect(body[field]?.stringValue == "Claude Code: done")
    }
}
