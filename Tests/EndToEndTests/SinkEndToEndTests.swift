import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
import TestSupport

/// Each HTTP sink end to end: the built `hookctl notify` delivers to a loopback receiver that records the
/// exact request, and answers as the real service does (429 with its wait hint, 404 for a deleted webhook).
@Suite(.onTestThreads) struct SinkEndToEndTests {
    /// A private HOME with a config whose single sink is `sinkYAML` (indented mapping lines).
    final class Setup: @unchecked Sendable {
        let home: TemporaryHome
        let configPath: String

        init(_ home: TemporaryHome, _ sinkYAML: String, files: [String: String] = [:]) throws {
            self.home = home
            for (name, text) in files { try home.write(name, text) }
            let indented = sinkYAML.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
            configPath = home.file(".config/hookctl/config.yaml")
            try home.write(".config/hookctl/config.yaml", "version: 1\nsinks:\n  - name: phone\n" + indented + "\n")
        }

        var environment: [String: String] { home.environment(["HOOKCTL_NO_BACKGROUND": "1"]) }

        /// `hookctl notify --force --strict` for a Claude Notification payload with this message.
        /// `background`: as an agent's hook with a sender (which makes the retries), not in the foreground.
        func notify(message: String, kind: String = "needs_input", sessionID: String = "5f0c8a2e-1111-4c1e-9d7a-0123456789ab",
                    budget: String = "6s", background: Bool = false) throws -> Subprocess.Result {
            let payload = JSON.serialize(.object(JSONObject([
                ("session_id", .string(sessionID)), ("cwd", .string("/home/me/app")),
                ("hook_event_name", .string("Notification")), ("message", .string(message)),
            ])))
            return try hookctl(["notify", "--force", "--strict", "--config", configPath, "--agent", "claude", "--event", kind,
                                "--message", message, "--budget", budget], environment: background ? home.environment() : environment,
                               input: payload)
        }

        /// Notifies `message` through a receiver that answers the first request with a rate limit: expects success,
        /// a retry at least `wait` seconds later, and that retry a JSON POST to `path`. Returns the result and the retry's body.
        func notifyThroughRateLimit(message: String, receiver: Receiver, wait: Double, path: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws -> (result: Subprocess.Result, body: JSONValue) {
            let result = try notify(message: message, background: true)
            #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
            let requests = receiver.waitForRequests(2)
            try #require(requests.count == 2, sourceLocation: sourceLocation)
            #expect((requests[1]["time"]?.doubleValue ?? 0) - (requests[0]["time"]?.doubleValue ?? 0) >= wait, sourceLocation: sourceLocation)
            let request = requests[1]
            expectJSONPost(request, to: path, sourceLocation: sourceLocation)
            return (result, try JSON.parse(try #require(request["body"]?.stringValue, sourceLocation: sourceLocation)))
        }

        /// Every file hookctl wrote under HOME (event log, outbox), for secret checks.
        func writtenText() -> String {
            let listing = (try? Subprocess(executable: "/usr/bin/find", arguments: [home.path + "/.local", "-type", "f"]).run())?.outputText ?? ""
            return listing.split(separator: "\n").compactMap { (try? FileSystem.readString(String($0))) ?? nil }.joined(separator: "\n")
        }
    }

    static func expectNoSecret(_ secret: String, in texts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts {
            #expect(!text.contains(secret), "a secret leaked: \(text.prefix(300))", sourceLocation: sourceLocation)
        }
    }

    static func python(_ script: String, _ arguments: [String]) throws -> String {
        Text.trimmed(try Subprocess(executable: "/usr/bin/env", arguments: ["python3", "-S", "-c", script] + arguments).run().outputText)
    }

    // MARK: webhook

    /// The Standard Webhooks reference algorithm, in Python's own hmac/hashlib/base64.
    static let verifyStandardWebhook = """
        import base64, hashlib, hmac, json, sys
        record = json.loads(open(sys.argv[1]).readlines()[int(sys.argv[3])])
        secret = sys.argv[2]
        key = base64.b64decode(secret[len("whsec_"):]) if secret.startswith("whsec_") else secret.encode()
        h = record["headers"]
        signed = (h["webhook-id"] + "." + h["webhook-timestamp"] + "." + record["body"]).encode()
        expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        github = "sha256=" + hmac.new(key, record["body"].encode(), hashlib.sha256).hexdigest()
        ok = hmac.compare_digest(expected, h["webhook-signature"]) and hmac.compare_digest(github, h.get("x-hub-signature-256", github))
        print("verified" if ok else "mismatch: expected " + expected)
        """

    @Test func webhookSignatureVerifiesWithAnIndependentImplementation() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        let secret = "whsec_" + Base64.encode(Array("a-24-byte-signing-secret".utf8))
        let setup = try Setup(home, """
            type: webhook
            url: \(receiver.baseURL)/hooks/agent?src=hookctl
            secret_file: ~/webhook.secret
            github_signature: true
            headers: {X-Team: platform}
            """, files: ["webhook.secret": secret + "\n"])
        let result = try setup.notify(message: "**Approve** `rm -rf build/`? — ünïcödé ✅")
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(receiver.waitForRequests(1).first)
        expectJSONPost(request, to: "/hooks/agent?src=hookctl")
        let headers = try #require(request["headers"])
        #expect(headers["user-agent"]?.stringValue == Product.userAgent)
        #expect(headers["x-team"]?.stringValue == "platform")
        let id = try #require(headers["webhook-id"]?.stringValue)
        #expect(headers["idempotency-key"]?.stringValue == id)
        let timestamp = try #require(headers["webhook-timestamp"]?.stringValue.flatMap { Double($0) })
        #expect(abs(timestamp - WallClock.nowEpoch()) < 60)
        #expect(try Self.python(Self.verifyStandardWebhook, [receiver.logFile, secret, "0"]) == "verified")
        let body = try JSON.parse(try #require(request["body"]?.stringValue))
        #expect(body.objectValue?.keys == ["type", "timestamp", "data", "version", "title", "message", "message_plain"])
        #expect(body["type"]?.stringValue == "agent.needs_input")
        #expect(body["data"]?["id"]?.stringValue == id)
        #expect(body["data"]?["agent"]?.stringValue == "claude")
        #expect(body["data"]?["session_id"]?.stringValue == "5f0c8a2e-1111-4c1e-9d7a-0123456789ab")
        #expect(body["message"]?.stringValue == "**Approve** `rm -rf build/`? — ünïcödé ✅")
        #expect(body["message_plain"]?.stringValue == "Approve rm -rf build/? — ünïcödé ✅")
        Self.expectNoSecret(secret, in: [result.stdout, result.stderr, setup.writtenText()])
    }

    @Test func webhook429IsWaitedForAndRetriedWithTheSameID() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["429::1", "204"])
        let setup = try Setup(home, "type: webhook\nurl: \(receiver.baseURL)/hook\nsecret: plain-text-secret-value")
        let result = try setup.notify(message: "done", background: true)
        #expect(result.status == 0, "\(result.stderr)")
        let requests = receiver.waitForRequests(2)
        try #require(requests.count == 2)
        let gap = (requests[1]["time"]?.doubleValue ?? 0) - (requests[0]["time"]?.doubleValue ?? 0)
        #expect(gap >= 0.95, "retried after \(gap)s, before Retry-After: 1")
        #expect(requests[0]["headers"]?["webhook-id"] == requests[1]["headers"]?["webhook-id"])
        #expect(requests[0]["body"] == requests[1]["body"])
        for index in 0..<2 {
            #expect(try Self.python(Self.verifyStandardWebhook, [receiver.logFile, "plain-text-secret-value", String(index)]) == "verified")
        }
    }

    // MARK: ntfy

    @Test func ntfyPublishesWithTokenAndAStableSequenceID() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["200"],
                                    extraArguments: ["--body", #"{"id":"abc","event":"message","topic":"x"}"#])
        let token = "tk_e2etoken0123456789abcdef"
        let setup = try Setup(home, """
            type: ntfy
            url: \(receiver.baseURL)/agents-e2e-topic
            token_env: NTFY_TOKEN
            click: "sshido://session?host={host}&cwd={cwd}"
            """)
        var environment = setup.environment
        environment["NTFY_TOKEN"] = token
        let config = setup.configPath
        func send(_ message: String, _ kind: String) throws -> Subprocess.Result {
            try hookctl(["notify", "--force", "--strict", "--config", config, "--agent", "claude", "--event", kind, "--message", message],
                        environment: environment,
                        input: #"{"session_id":"sess-42","hook_event_name":"Notification","cwd":"/home/me/app"}"#)
        }
        let first = try send("Needs **you**", "needs_input")
        let second = try send("All done", "done")
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        let requests = receiver.waitForRequests(2)
        try #require(requests.count == 2)
        let request = requests[0]
        expectJSONPost(request, to: "/")
        #expect(request["headers"]?["authorization"]?.stringValue == "Bearer \(token)")
        #expect(request["headers"]?["x-sequence-id"]?.stringValue == "claude-sess-42")
        let body = try JSON.parse(try #require(request["body"]?.stringValue))
        #expect(body.objectValue?.keys == ["topic", "title", "message", "priority", "tags", "click", "sequence_id"])
        #expect(body["topic"]?.stringValue == "agents-e2e-topic")
        #expect(body["message"]?.stringValue == "Needs you")
        #expect(body["priority"]?.intValue == 4)
        #expect(body["tags"] == .array([.string("question")]))
        #expect(body["sequence_id"]?.stringValue == "claude-sess-42")
        #expect(body["click"]?.stringValue?.hasPrefix("sshido://session?host=") == true)
        #expect(body["click"]?.stringValue?.hasSuffix("&cwd=/home/me/app") == true)
        let later = try JSON.parse(try #require(requests[1]["body"]?.stringValue))
        #expect(later["sequence_id"]?.stringValue == "claude-sess-42", "the session's next event replaces the notification")
        #expect(later["priority"]?.intValue == 3)
        Self.expectNoSecret(token, in: [first.stdout, first.stderr, second.stderr, setup.writtenText()])
    }

    @Test func ntfyLongMessageIsCutWithin4096BytesOnACharacterBoundary() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["200"])
        // A template repeating the message goes past ntfy's 4096 bytes whatever notify keeps of it.
        let setup = try Setup(home, "type: ntfy\nurl: \(receiver.baseURL)/topic-long\nmessage: '{message} {message} {message}'")
        let result = try setup.notify(message: String(repeating: "Grüße 🚀 ", count: 1000))
        #expect(result.status == 0, "\(result.stderr)")
        let body = try JSON.parse(try #require(receiver.waitForRequests(1).first?["body"]?.stringValue))
        let message = try #require(body["message"]?.stringValue)
        #expect(message.utf8.count <= 4096)
        #expect(message.hasSuffix("…"))
        #expect(!message.contains("\u{FFFD}"))
    }

    // MARK: slack

    @Test func slackDeliversMrkdwnAndHonoursRetryAfter() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["429::1", "200"], extraArguments: ["--body", "ok"])
        let path = "/services/T0E2E/B0E2E/slacksecretslacksecret42"
        let setup = try Setup(home, "type: slack\nurl_file: ~/slack.url", files: ["slack.url": receiver.baseURL + path])
        let message = "Tests **pass** for `a<b>` — see [PR](https://example.com/pr/1)"
        let (result, body) = try setup.notifyThroughRateLimit(message: message, receiver: receiver, wait: 0.95, path: path)
        #expect(body.objectValue?.keys == ["text"])
        let text = try #require(body["text"]?.stringValue)
        #expect(text.hasSuffix("\nTests *pass* for `a&lt;b&gt;` — see <https://example.com/pr/1|PR>"))
        #expect(text.hasPrefix("*"))
        Self.expectNoSecret("slacksecretslacksecret42", in: [result.stdout, result.stderr, setup.writtenText()])
    }

    @Test func slackArchivedChannelIsReportedDeadNotRetried() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["410"], extraArguments: ["--error-body", "channel_is_archived"])
        let setup = try Setup(home, "type: slack\nurl: \(receiver.baseURL)/services/T1/B1/deadwebhooksecret0001")
        let result = try setup.notify(message: "hello")
        #expect(result.status == .exited(ExitCode.unavailable.rawValue), "\(result.stderr)")
        #expect(result.stderr.contains("endpoint gone"))
        #expect(result.stderr.contains("channel_is_archived"))
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 1, "a dead webhook must not be retried")
        Self.expectNoSecret("deadwebhooksecret0001", in: [result.stdout, result.stderr, setup.writtenText()])
    }

    // MARK: discord

    @Test func discordHonoursRetryAfterFromTheBodyAndCutsAt2000() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["429", "200"], extraArguments: [
            "--error-body", #"{"message":"You are being rate limited.","retry_after":0.8,"global":false}"#,
            "--body", #"{"id":"1","content":"ok"}"#,
        ])
        let webhookPath = "/api/webhooks/1234567890/discordtokendiscordtoken_xyz"
        let setup = try Setup(home, "type: discord\nurl: \(receiver.baseURL)\(webhookPath)\nusername: agents")
        let message = "```swift\n" + String(repeating: "let 🙂 = \"ß\" // @everyone\n", count: 200) + "```"
        let (result, body) = try setup.notifyThroughRateLimit(message: message, receiver: receiver, wait: 0.75,
                                                              path: webhookPath + "?wait=true")
        #expect(body.objectValue?.keys == ["content", "username", "allowed_mentions"])
        #expect(body["allowed_mentions"] == .object(JSONObject([("parse", .array([]))])))
        #expect(body["username"]?.stringValue == "agents")
        let content = try #require(body["content"]?.stringValue)
        #expect(content.utf16.count <= 2000)
        #expect(content.hasSuffix("…\n```"), "the cut closes the open code block")
        #expect(!content.contains("\u{FFFD}"))
        Self.expectNoSecret("discordtokendiscordtoken_xyz", in: [result.stdout, result.stderr, setup.writtenText()])
    }

    @Test func discordDeletedWebhookIsDead() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["404"],
                                    extraArguments: ["--error-body", #"{"message":"Unknown Webhook","code":10015}"#])
        let setup = try Setup(home, "type: discord\nurl: \(receiver.baseURL)/api/webhooks/9/deleteddiscordtoken_000")
        let result = try setup.notify(message: "hi")
        #expect(result.status == .exited(ExitCode.unavailable.rawValue))
        #expect(result.stderr.contains("endpoint gone"))
        #expect(result.stderr.contains("deleted"))
        #expect(receiver.requests().count == 1)
        Self.expectNoSecret("deleteddiscordtoken_000", in: [result.stdout, result.stderr, setup.writtenText()])
    }

    // MARK: telegram

    @Test func telegramRetriesAfterParametersRetryAfterAndNeverLogsTheToken() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["429", "200"], extraArguments: [
            "--error-body", #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}"#,
            "--body", #"{"ok":true,"result":{"message_id":7}}"#,
        ])
        let token = "987654321:AAE2Etelegramsecret-token_value"
        let setup = try Setup(home, "type: telegram\ntoken_file: ~/tg.token\nchat_id: '-100123'\napi_url: \(receiver.baseURL)\n"
                                    + "message: '{message} {message} {message}'",
                              files: ["tg.token": token])
        let long = String(repeating: "**Grüße** 👨‍👩‍👧 <ok> & ", count: 400)
        let (result, body) = try setup.notifyThroughRateLimit(message: long, receiver: receiver, wait: 0.95,
                                                              path: "/bot\(token)/sendMessage")
        #expect(body.objectValue?.keys == ["chat_id", "text", "parse_mode", "disable_notification", "link_preview_options"])
        #expect(body["chat_id"] == .number("-100123"))
        #expect(body["parse_mode"]?.stringValue == "HTML")
        let text = try #require(body["text"]?.stringValue)
        #expect(text.contains("<b>Grüße</b> 👨‍👩‍👧 &lt;ok&gt; &amp; "))
        // What Telegram counts: the text after entity parsing.
        let visible = text.replacing(/<[^>]+>/, with: "").replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&amp;", with: "&")
        #expect(visible.utf16.count <= 4096)
        #expect(visible.hasSuffix("…"))
        #expect(!text.contains("\u{FFFD}"))
        Self.expectNoSecret(token, in: [result.stdout, result.stderr, setup.writtenText()])
        Self.expectNoSecret("AAE2Etelegramsecret", in: [result.stdout, result.stderr, setup.writtenText()])
    }

    @Test func telegramFailureMessagesKeepTheTokenOut() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["400"], extraArguments: [
            "--error-body", #"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#,
        ])
        let token = "55:AAfailuretokensecret_abcdef"
        let setup = try Setup(home, "type: telegram\ntoken: \(token)\nchat_id: 42\napi_url: \(receiver.baseURL)/")
        let result = try setup.notify(message: "hi")
        #expect(result.status == .exited(ExitCode.unavailable.rawValue))
        #expect(result.stderr.contains("chat not found"))
        Self.expectNoSecret(token, in: [result.stdout, result.stderr, setup.writtenText()])
        Self.expectNoSecret("AAfailuretokensecret", in: [result.stdout, result.stderr, setup.writtenText()])
        // The dead letter records the reason, never the token.
        #expect(setup.writtenText().contains("chat not found"))
    }

    /// An exec sink's `env:` values are its secrets (`ExecSink.secrets`), and what the program writes on
    /// stderr becomes the outcome's reason: every outcome is scrubbed in DeliveryEngine.attempt, so the
    /// outbox entry, the sink's health record, `outbox list` and `flush` (human and JSON), `status` and
    /// `doctor` never show the token (before 6b36ce1 local outcomes were not scrubbed, and status and
    /// doctor cut the token before their own scrub). doctor's advice for it is about the program, not
    /// the network.
    @Test func execSinkStderrNeverShowsItsEnvironmentSecrets() throws {
        let home = try TemporaryHome()
        let secret = "sk-exectokensecret-0123456789"
        try home.write("bin/notifier", "#!/bin/sh\ncat >/dev/null\necho \"auth failed for $NOTIFIER_TOKEN\" >&2\nexit 75\n", mode: 0o755)
        let setup = try Setup(home, "type: exec\ncommand: [\(home.file("bin/notifier"))]\nenv:\n  NOTIFIER_TOKEN: \(secret)")
        let notify = try setup.notify(message: "hi", budget: "2s")
        #expect(notify.stderr.contains("auth failed for"), "\(notify.stderr)")
        var shown = [notify.stdout, notify.stderr]
        for command in [["outbox", "list"], ["outbox", "list", "--json"], ["outbox", "flush"], ["outbox", "flush", "--json"],
                        ["status"], ["status", "--json"], ["doctor"], ["doctor", "--json"]] {
            let result = try hookctl(command + ["--config", setup.configPath], environment: setup.environment)
            shown += [result.stdout, result.stderr]
        }
        #expect(shown.joined().contains("auth failed for"), "the program's reason is still shown")
        Self.expectNoSecret("sk-exectoken", in: shown)
        let doctor = try hookctl(["doctor", "--json", "--config", setup.configPath], environment: setup.environment)
        let fixes = (try JSON.parse(doctor.stdout)["checks"]?.arrayValue ?? []).compactMap { $0["fix"]?.stringValue }
        #expect(fixes.contains { $0.hasPrefix("the exec sink keeps failing") }, "\(fixes)")
        #expect(!fixes.contains { $0.contains("nothing answers") }, "\(fixes)")
    }

    /// An exec sink's command line often carries the credential (`[curl, -d, @-, https://ntfy.example.com/t?auth=…]`):
    /// its URLs and credential-flag values count as the sink's secrets, so `hookctl test` and `doctor` (human and
    /// JSON) show them redacted, like every URL elsewhere (before 6b36ce1 the preview printed the whole argv).
    /// A script that holds a credential header and a URL is redacted whole (it is not a URL itself), and a
    /// flag that is not about credentials (`--user hookctl`, `-u`) hides nothing: the preview still names
    /// the agent.
    @Test func execSinkScriptsAreRedactedWholeAndOrdinaryFlagsHideNothing() throws {
        let home = try TemporaryHome()
        let script = try Setup(home, "type: exec\ncommand: [/bin/sh, -c, \": -H 'Authorization: Bearer shTOKENsecret0123456789' https://ntfy.example.com/x\"]")
        var shown: [String] = []
        for command in [["test"], ["test", "--json"]] {
            let result = try hookctl(command + ["--config", script.configPath], environment: script.environment)
            shown += [result.stdout, result.stderr]
        }
        Self.expectNoSecret("shTOKENsecret", in: shown)
        let other = try TemporaryHome()
        let flags = try Setup(other, "type: exec\ncommand: [/bin/true, --user, hookctl, -u]")
        let test = try hookctl(["test", "--config", flags.configPath], environment: flags.environment)
        #expect(test.stdout.contains("/bin/true --user hookctl -u"), "\(test.stdout)")
        #expect(!test.stdout.contains("(redacted)"), "\(test.stdout)")
    }

    @Test func execSinkCommandLineSecretsAreNotShownByTest() throws {
        let home = try TemporaryHome()
        let url = "https://ntfy.example.com/alerts?auth=argvTOKENsecret0123456789"
        let setup = try Setup(home, "type: exec\ncommand: [/bin/true, --url, \"\(url)\"]")
        var shown: [String] = []
        for command in [["test"], ["test", "--json"], ["doctor"], ["doctor", "--json"]] {
            let result = try hookctl(command + ["--config", setup.configPath], environment: setup.environment)
            shown += [result.stdout, result.stderr]
        }
        #expect(shown.joined().contains("/bin/true"), "the program is still named")
        Self.expectNoSecret("argvTOKENsecret", in: shown)
    }

    // MARK: hookctl test and doctor

    @Test func testCommandShowsTheRedactedRequestAndTheResultForEachSink() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["200"], extraArguments: ["--body", #"{"ok":true}"#])
        let token = "777:AAtestcommandsecret_token"
        let setup = try Setup(home, "type: telegram\ntoken: \(token)\nchat_id: 42\napi_url: \(receiver.baseURL)")
        let result = try hookctl(["test", "--sink", "phone", "--config", setup.configPath], environment: setup.environment)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("delivered"))
        #expect(result.stdout.contains("POST \(receiver.baseURL)/bot…(redacted)/sendMessage"))
        #expect(result.stdout.contains(#""chat_id":42"#))
        let json = try hookctl(["test", "--sink", "phone", "--json", "--config", setup.configPath], environment: setup.environment)
        let item = try #require(try JSON.parse(json.stdout)["results"]?.arrayValue?.first)
        #expect(item["delivered"]?.boolValue == true)
        #expect(item["request"]?.stringValue?.contains("/sendMessage") == true)
        #expect(receiver.waitForRequests(2).allSatisfy { $0["path"]?.stringValue == "/bot\(token)/sendMessage" })
        Self.expectNoSecret(token, in: [result.stdout, result.stderr, json.stdout, json.stderr])
        Self.expectNoSecret("AAtestcommandsecret", in: [result.stdout, result.stderr, json.stdout, json.stderr])
    }

    @Test func deletedWebhookIsReportedDeadByTestAndDoctor() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["404"],
                                    extraArguments: ["--error-body", #"{"message":"Unknown Webhook","code":10015}"#])
        let secret = "gonewebhooktoken_abcdef123"
        let setup = try Setup(home, "type: discord\nurl: \(receiver.baseURL)/api/webhooks/5/\(secret)")
        let test = try hookctl(["test", "--sink", "phone", "--config", setup.configPath], environment: setup.environment)
        #expect(test.status == .exited(ExitCode.unavailable.rawValue))
        #expect(test.stdout.contains("the endpoint is gone"))
        #expect(test.stdout.contains("deleted"))
        #expect(test.stdout.contains(#""allowed_mentions":{"parse":[]}"#))
        // A real event to it is given up at once (not retried), and doctor then names the sink as broken.
        let notify = try setup.notify(message: "hi")
        #expect(notify.status == .exited(ExitCode.unavailable.rawValue))
        #expect(receiver.requests().count == 2)
        let doctor = try hookctl(["doctor", "--json", "--config", setup.configPath], environment: setup.environment)
        let checks = try JSON.parse(doctor.stdout)["checks"]?.arrayValue ?? []
        let sinkCheck = try #require(checks.first { $0["name"]?.stringValue == "sink phone" })
        #expect(sinkCheck["status"]?.stringValue == "broken", "\(sinkCheck)")
        #expect(sinkCheck["message"]?.stringValue?.contains("deleted") == true)
        #expect(doctor.status == 69)
        Self.expectNoSecret(secret, in: [test.stdout, test.stderr, notify.stderr, doctor.stdout, doctor.stderr, setup.writtenText()])
    }

    // MARK: library level: the classification the delivery engine acts on

    @Test(arguments: [
        ("webhook", "url: {base}/w", ["429::1", "204"], [String]()),
        ("ntfy", "url: {base}/topic1", ["429::1", "200"], []),
        ("slack", "url: {base}/services/T/B/C", ["429::1", "200"], []),
        ("discord", "url: {base}/api/webhooks/1/t", ["429", "204"], ["--error-body", #"{"retry_after":1.0,"global":false}"#]),
        ("telegram", "token: 1:abcdef\nchat_id: 5\napi_url: {base}", ["429", "200"],
         ["--error-body", #"{"ok":false,"error_code":429,"parameters":{"retry_after":1}}"#, "--body", #"{"ok":true}"#]),
        ("pushover", "token: azGDORePK8gMaC0QOYAMyEEuzJnyUi\nuser: uQiRzpo4DXghDmr9QzzfQu27cmVRsG\napi_url: {base}", ["429::1", "200"],
         ["--error-body", #"{"status":0,"errors":["message limit reached"]}"#, "--body", #"{"status":1,"request":"r"}"#]),
    ])
    func rateLimitOutcomeCarriesTheWait(type: String, keys: String, responses: [String], extra: [String]) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: responses, extraArguments: extra)
        let yaml = "version: 1\nsinks:\n  - name: s\n    type: \(type)\n"
            + keys.replacing("{base}", with: receiver.baseURL).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n"
        let sink = try SinkRegistry.makeSinks(config: try Config.parse(yaml, path: "t.yaml", environment: [:]))[0]
        let event = Event(agent: "claude", kind: .failed, agentEvent: "StopFailure", title: "Failed", message: "rate limited", host: "h")
        guard case .http(let first) = try sink.delivery(for: event, attempt: 1) else { Issue.record("not HTTP"); return }
        let outcome = sink.outcome(for: HTTPClient.send(first))
        guard case .retry(let problem) = outcome else { Issue.record("\(type): 429 gave \(outcome)"); return }
        #expect(problem.retryAfter == 1 && problem.status == 429, "\(type)")
        // The next attempt is accepted (the receiver's script, not its clock): waiting out the hint is
        // the engine's part, tested with the schedule; here the classification and the second request.
        guard case .http(let second) = try sink.delivery(for: event, attempt: 2) else { Issue.record("\(type): attempt 2 not HTTP"); return }
        #expect(sink.outcome(for: HTTPClient.send(second)) == .delivered, "\(type)")
    }
}
