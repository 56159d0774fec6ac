import Testing
@testable import HookSupport
@testable import HookDelivery
import TestSupport

/// The `pushover` sink end to end: the built `hookctl` against a loopback stand-in of Pushover's
/// `/1/messages.json` (Tests/Fixtures/pushover_standin.py) that checks every field as Pushover does and,
/// for end-to-end encrypted pushes, opens each sealed field and seals it again with Apprise's own
/// `NotifyPushover._encrypt_field` under the same IV: the same bytes, or the test fails. And the other
/// way: Apprise's real Pushover plugin sends an encrypted push, and hookctl's `PushoverE2EE.open` reads it.
/// Apprise lives in a venv (scripts/install-apprise.sh, which test.sh runs).
@Suite(.onTestThreads) struct PushoverEndToEndTests {
    static let token = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
    static let user = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
    /// A fixed test key (not a real device's), as hex.
    static let keyHex = "8f4c2a9e0b7d6153e2a4c9f01b3d5e7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b9d"

    /// The Python of the Apprise venv.
    static var apprisePython: String {
        let cache = ProcessInfo.processInfo.environment["HOOKCTL_APPRISE"].flatMap { $0.isEmpty ? nil : $0 } ?? "/var/tmp/hookctl-apprise"
        return cache + "/venv/bin/python"
    }

    static func requireApprise() throws {
        guard FileSystem.isExecutable(apprisePython) else {
            Issue.record("Apprise is not installed at \(apprisePython): run scripts/install-apprise.sh (test.sh does)")
            throw SystemError.spawn(program: apprisePython, errno: ENOENT)
        }
    }

    /// The stand-in, started with the Apprise venv's Python.
    final class StandIn: RequestLogging, @unchecked Sendable {
        let process: BackgroundProcess
        let port: Int
        let logFile: String

        init(directory: String, key: String? = PushoverEndToEndTests.keyHex, user: String = PushoverEndToEndTests.user,
             responses: [String] = ["200"]) throws {
            try PushoverEndToEndTests.requireApprise()
            logFile = directory + "/pushover-\(UInt32.random(in: 0...UInt32.max)).jsonl"
            (process, port) = try startFixture("pushover_standin.py", [
                "--log", logFile, "--token", PushoverEndToEndTests.token,
                "--user", user, "--key", key ?? "", "--responses", responses.joined(separator: ","),
            ], python: [PushoverEndToEndTests.apprisePython], timeout: 20)
        }

        var baseURL: String { "http://127.0.0.1:\(port)" }

        deinit { process.stop() }
    }

    static func sinkYAML(_ standIn: StandIn, extra: String = "", key: Bool = true) -> String {
        "type: pushover\ntoken: \(token)\nuser_file: ~/pushover.user\napi_url: \(standIn.baseURL)\n"
            + (key ? "e2ee_key_file: ~/pushover.key\n" : "") + extra
    }

    static var files: [String: String] { ["pushover.user": user + "\n", "pushover.key": keyHex + "\n"] }

    /// Every field as sent, opened, and the Apprise check: the stand-in found nothing Pushover would refuse.
    static func expectAccepted(_ request: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(request["path"]?.stringValue == "/1/messages.json", sourceLocation: sourceLocation)
        #expect(request["content_type"]?.stringValue == "application/x-www-form-urlencoded", sourceLocation: sourceLocation)
        #expect(request["problems"]?.arrayValue?.isEmpty == true, "\(request["problems"] ?? .null)", sourceLocation: sourceLocation)
        #expect(request["reproduced"]?.boolValue == true, "Apprise's _encrypt_field did not reproduce the fields", sourceLocation: sourceLocation)
    }

    @Test func encryptedPushIsOpenedAndReproducedByApprisesOwnCode() throws {
        let home = try TemporaryHome()
        let standIn = try StandIn(directory: home.path)
        let setup = try SinkEndToEndTests.Setup(home, Self.sinkYAML(standIn, extra: """
            url: "ssh://{host}/attach?cwd={cwd}"
            url_title: Open the session
            sound: pushover
            device: phone
            """), files: Self.files)
        let result = try setup.notify(message: "**Approve** `rm -rf build/`? <script> & ünïcödé ✅")
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(standIn.waitForRequests(1).first)
        Self.expectAccepted(request)
        let fields = try #require(request["fields"])
        #expect(fields["token"]?.stringValue == Self.token)
        #expect(fields["user"]?.stringValue == Self.user)
        #expect(fields["encrypted"]?.stringValue == "1")
        #expect(fields["html"]?.stringValue == "1")
        #expect(fields["priority"]?.stringValue == "1", "needs_input is high")
        #expect(fields["sound"]?.stringValue == "pushover")
        #expect(fields["device"]?.stringValue == "phone")
        #expect(fields["url_title"] == nil, "a sealed url_title never fits in 100 characters")
        let time = try #require(fields["timestamp"]?.stringValue.flatMap(Double.init))
        #expect(abs(time - WallClock.nowEpoch()) < 120)
        // What the relay sees is ciphertext only.
        for name in ["message", "title", "url"] {
            let sealed = try #require(fields[name]?.stringValue)
            #expect(!sealed.contains("Approve") && !sealed.contains("ssh") && Base64.decode(sealed) != nil, "\(name)")
        }
        let opened = try #require(request["opened"])
        #expect(opened["message"]?.stringValue == "<b>Approve</b> rm -rf build/? &lt;script&gt; &amp; ünïcödé ✅")
        #expect(opened["title"]?.stringValue?.contains("needs") == true)
        #expect(opened["url"]?.stringValue?.hasPrefix("ssh://") == true)
        #expect(opened["url"]?.stringValue?.contains("cwd=/home/me/app") == true)
        SinkEndToEndTests.expectNoSecret(Self.keyHex, in: [result.stdout, result.stderr, setup.writtenText()])
    }

    @Test func plainPushCarriesEveryFieldWithinItsLimits() throws {
        let home = try TemporaryHome()
        let standIn = try StandIn(directory: home.path, key: nil)
        let setup = try SinkEndToEndTests.Setup(home, Self.sinkYAML(standIn, extra: """
            url: "https://example.com/{session}"
            url_title: "{Agent} on {host} — a url title far longer than the one hundred characters Pushover allows for a url title, so it is cut"
            html: false
            priority: {done: low}
            """, key: false), files: Self.files)
        let long = String(repeating: "Grüße 👨‍👩‍👧 & ", count: 200)
        let result = try setup.notify(message: long, kind: "done")
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(standIn.waitForRequests(1).first)
        Self.expectAccepted(request)
        let fields = try #require(request["fields"])
        #expect(fields["encrypted"] == nil && fields["html"] == nil)
        #expect(fields["priority"]?.stringValue == "-1", "the sink's own mapping: done is low")
        let message = try #require(fields["message"]?.stringValue)
        #expect(message.utf16.count <= 1024 && message.hasSuffix("…") && message.hasPrefix("Grüße 👨‍👩‍👧 & "))
        #expect(fields["url"]?.stringValue?.hasPrefix("https://example.com/") == true)
        let urlTitle = try #require(fields["url_title"]?.stringValue)
        #expect(urlTitle.utf16.count <= 100 && urlTitle.hasSuffix("…"))
    }

    @Test func hostileAndHugeMessagesAreCutThenEncrypted() throws {
        let home = try TemporaryHome()
        let standIn = try StandIn(directory: home.path)
        let setup = try SinkEndToEndTests.Setup(home, Self.sinkYAML(standIn), files: Self.files)
        // 100 KB that compresses badly (a pseudo-random walk over letters), with terminal escapes, a
        // bidi override and lone surrogates (invalid Unicode, as JSON can carry it) spread through it.
        var random = SeededRandom(seed: 34)
        var huge = ""
        while huge.utf8.count < 100_000 {
            huge += String(UnicodeScalar(UInt8(97 + random.next() % 26)))
            if random.next() % 97 == 0 { huge += "\u{1B}[31m\u{1B}]0;pwned\u{07}\u{202E}" }
        }
        for message in [huge, "\u{1B}[2J\u{1B}[?1049h **bold** \u{0}\u{7F} ok"] {
            let result = try setup.notify(message: message, kind: "failed")
            #expect(result.status == 0, "\(result.stderr)")
        }
        let requests = standIn.waitForRequests(2)
        try #require(requests.count == 2)
        for request in requests {
            Self.expectAccepted(request)
            let sealed = try #require(request["fields"]?["message"]?.stringValue)
            #expect(sealed.count <= 1024)
            let opened = try #require(request["opened"]?["message"]?.stringValue)
            #expect(!opened.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0 == "\u{7F}" || $0 == "\u{202E}" }, "\(opened.prefix(80))")
        }
        let first = try #require(requests[0]["opened"]?["message"]?.stringValue)
        // Cut to fit the ciphertext, not far below it: letters compress to about 5 bits each.
        #expect(first.hasSuffix("…") && first.count > 600, "\(first.count) characters")
        #expect(requests[1]["opened"]?["message"]?.stringValue?.contains("<b>bold</b>") == true)
    }

    /// The other way round: Apprise's Pushover plugin itself (its URL `pover://user@token?key=…`) sends an
    /// encrypted push to a loopback receiver, and hookctl's reader opens what it sent.
    @Test func hookctlOpensWhatApprisesPluginSends() throws {
        try Self.requireApprise()
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["200"], extraArguments: ["--body", #"{"status":1,"request":"r"}"#])
        let script = """
            import sys, apprise
            from apprise.plugins.pushover import NotifyPushover
            NotifyPushover.notify_url = sys.argv[1] + "/1/messages.json"
            a = apprise.Apprise()
            assert a.add("pover://%s@%s/?key=%s&format=text" % (sys.argv[2], sys.argv[3], sys.argv[4]))
            sys.exit(0 if a.notify(body=sys.argv[5], title=sys.argv[6]) else 1)
            """
        let body = "Approve `rm -rf build/`? — ünïcödé ✅ " + String(repeating: "x", count: 300)
        let result = try Subprocess(executable: Self.apprisePython, arguments: ["-c", script, receiver.baseURL, Self.user, Self.token,
                                                                                  Self.keyHex, body, "Claude Code needs input"]).run()
        #expect(result.status == 0, "\(result.stderr)")
        let request = try #require(receiver.waitForRequests(1).first)
        let fields = Self.formFields(try #require(request["body"]?.stringValue))
        #expect(fields["encrypted"] == "1")
        let key = try #require(PushoverE2EE.key(from: Self.keyHex))
        #expect(try PushoverE2EE.open(try #require(fields["message"]), key: key) == body)
        #expect(try PushoverE2EE.open(try #require(fields["title"]), key: key) == "Claude Code needs input")
        // A field changed in transit, or opened with another key, is refused by its MAC.
        var tampered = Array(try #require(Base64.decode(fields["message"]!)))
        tampered[20] ^= 1
        #expect(throws: PushoverE2EE.Failure.self) { try PushoverE2EE.open(Base64.encode(tampered), key: key) }
        #expect(throws: PushoverE2EE.Failure.self) { try PushoverE2EE.open(fields["message"]!, key: [UInt8](repeating: 7, count: 32)) }
    }

    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part -> String in
                let bytes = Array(part.replacing("+", with: " ").utf8)
                var output: [UInt8] = []
                var index = 0
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                       let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                        output.append(value)
                        index += 3
                    } else {
                        output.append(bytes[index])
                        index += 1
                    }
                }
                return String(decoding: output, as: UTF8.self)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// The key file unreadable when the event is sent: only the pushover sink fails, and says why; the file
    /// sink beside it gets the event; the push waits in the outbox and goes out, encrypted, once the key is back.
    @Test func keyUnreadableAtSendTimeFailsThatSinkAloneAndLosesNothing() throws {
        let home = try TemporaryHome()
        let standIn = try StandIn(directory: home.path)
        try home.write("pushover.user", Self.user)
        let config = try home.writeConfigFile("""
            version: 1
            sinks:
              - name: log
                type: file
                path: ~/events.jsonl
              - name: phone
                type: pushover
                token: \(Self.token)
                user_file: ~/pushover.user
                e2ee_key_file: ~/pushover.key
                api_url: \(standIn.baseURL)

            """)
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        let result = try hookctl(["notify", "--force", "--config", config, "--agent", "claude", "--event", "needs_input",
                                  "--message", "Approve deploy?", "--budget", "5s"], environment: environment, input: "{}")
        #expect(result.stderr.contains("phone") && result.stderr.contains("pushover.key"), "\(result.stderr)")
        #expect(home.read("events.jsonl")?.contains("Approve deploy?") == true, "the other sink is unaffected")
        #expect(standIn.requests().isEmpty, "nothing is sent unencrypted")
        let listed = try hookctl(["outbox", "list", "--config", config], environment: environment)
        #expect(listed.stdout.contains("phone"), "\(listed.stdout) \(listed.stderr)")
        try home.write("pushover.key", Self.keyHex)
        let flush = try hookctl(["outbox", "flush", "--config", config], environment: environment)
        #expect(flush.status == 0, "\(flush.stdout) \(flush.stderr)")
        let request = try #require(standIn.waitForRequests(1).first)
        Self.expectAccepted(request)
        #expect(request["opened"]?["message"]?.stringValue == "Approve deploy?")
        #expect(home.read("events.jsonl")?.components(separatedBy: "Approve deploy?").count == 2, "the file sink got it once")
    }

    @Test func refusedCredentialsAreFinalAndTheQuotaIsRetried() throws {
        let home = try TemporaryHome()
        let standIn = try StandIn(directory: home.path, user: "uSomeoneElse0000000000000000000")
        let setup = try SinkEndToEndTests.Setup(home, Self.sinkYAML(standIn), files: Self.files)
        let refused = try setup.notify(message: "hi")
        #expect(refused.status == .exited(ExitCode.unavailable.rawValue))
        #expect(refused.stderr.contains("user identifier is not a valid"), "\(refused.stderr)")
        #expect(refused.stderr.contains("check the sink's token and user"), "\(refused.stderr)")
        #expect(standIn.requests().count == 1, "a refused push is not resent unchanged")
        SinkEndToEndTests.expectNoSecret(Self.token, in: [refused.stdout, refused.stderr, setup.writtenText()])
    }

    @Test func testCommandShowsTheRedactedRequestAndWhetherItIsEncrypted() throws {
        let home = try TemporaryHome()
        let standIn = try StandIn(directory: home.path)
        for encrypted in [true, false] {
            let setup = try SinkEndToEndTests.Setup(home, Self.sinkYAML(standIn, key: encrypted), files: Self.files)
            let result = try hookctl(["test", "--sink", "phone", "--config", setup.configPath], environment: setup.environment)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("delivered"))
            #expect(result.stdout.contains("token=az…(redacted)") && result.stdout.contains("user=uQ…(redacted)"), "\(result.stdout)")
            if encrypted {
                #expect(result.stdout.contains("encrypted: yes"), "\(result.stdout)")
                #expect(result.stdout.contains("each opens again"))
                // The human view wraps its lines: read as one run of words.
                let words = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                // The sealing's cost, measured by the command on this push (a number of µs, never a stored figure).
                let cost = words.components(separatedBy: "building this sealed request took ").dropFirst().first?
                    .split(separator: " ").first.flatMap { Int($0) }
                #expect(cost.map { $0 > 0 && $0 < 1_000_000 } == true, "\(result.stdout)")
                #expect(result.stdout.contains("encrypted=1"))
            } else {
                #expect(result.stdout.contains("encrypted: no"), "\(result.stdout)")
            }
            SinkEndToEndTests.expectNoSecret(Self.token, in: [result.stdout, result.stderr])
            SinkEndToEndTests.expectNoSecret(Self.user, in: [result.stdout, result.stderr])
            SinkEndToEndTests.expectNoSecret(Self.keyHex, in: [result.stdout, result.stderr])
        }
        #expect(standIn.waitForRequests(2).allSatisfy { $0["problems"]?.arrayValue?.isEmpty == true })
    }
}
