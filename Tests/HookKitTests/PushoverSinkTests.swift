import Foundation
import Testing
@testable import HookSupport
@testable import HookDelivery

/// The pushover sink's reading of its config, its fields and Pushover's answers, and the end-to-end
/// seal (PushoverE2EE) at the library level; PushoverEndToEndTests checks the format against Apprise.
@Suite struct PushoverSinkTests {
    static let credentials = "type: pushover\ntoken: azGDORePK8gMaC0QOYAMyEEuzJnyUi\nuser: uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
    static let keyHex = "8f4c2a9e0b7d6153e2a4c9f01b3d5e7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b9d"

    static func fields(_ request: HTTPRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacing("+", with: " ").removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    @Test(arguments: [
        ("e2ee_key: \(String(repeating: "ab", count: 31))", 7),             // 62 hex digits
        ("e2ee_key: \(String(repeating: "zz", count: 32))", 7),             // 64 characters, not hex
        ("e2ee_key: \(Base64.encode([UInt8](repeating: 1, count: 31)))", 7), // base64 of 31 bytes
        ("e2ee_key_env: PUSHOVER_KEY", 7),
    ])
    func aKeyOfTheWrongFormIsAConfigErrorAtItsLine(line: String, expectedLine: Int) throws {
        let yaml = "version: 1\nsinks:\n  - name: po\n    " + Self.credentials.replacing("\n", with: "\n    ") + "\n    " + line + "\n"
        let environment = ["PUSHOVER_KEY": "not-a-key-0123"]
        let error = try #require(throws: (any Error).self) {
            _ = try SinkRegistry.makeSinks(config: try Config.parse(yaml, path: "/home/me/config.yaml", environment: environment))
        }
        let text = "\(error)"
        #expect(text.contains("/home/me/config.yaml:\(expectedLine)"), "\(text)")
        #expect(text.contains("64 hex digits") && text.contains("base64"), "\(text)")
        // The wrong key itself is never shown.
        #expect(!text.contains("abababab") && !text.contains("zzzz") && !text.contains("not-a-key"), "\(text)")
    }

    @Test func keysAreReadAsHexOrBase64() throws {
        let bytes = try #require(PushoverE2EE.key(from: Self.keyHex.uppercased()))
        #expect(bytes.count == 32 && Base64.hex(bytes) == Self.keyHex)
        #expect(PushoverE2EE.key(from: Base64.encode(bytes)) == bytes)
        #expect(PushoverE2EE.key(from: " " + Self.keyHex + "\n") == bytes)
        #expect(PushoverE2EE.key(from: "") == nil)
    }

    @Test func badCredentialsAndPrioritiesAreConfigErrors() throws {
        #expect(throws: ConfigError.self) { _ = try SinkFixture.sink("type: pushover\ntoken: has space\nuser: abc") }
        #expect(throws: ConfigError.self) { _ = try SinkFixture.sink("type: pushover\ntoken: abc") }
        let error = try #require(throws: ConfigError.self) { _ = try SinkFixture.sink(Self.credentials + "\npriority: {done: loud}") }
        #expect("\(error)".contains("-2 to 2"))
    }

    @Test func priorityFollowsTheKindAndEmergencyCarriesItsRetry() throws {
        let sink = try SinkFixture.sink(Self.credentials + "\npriority: {failed: emergency}")
        #expect(Self.fields(try SinkFixture.request(sink, SinkFixture.event(kind: .needsInput)))["priority"] == "1")
        #expect(Self.fields(try SinkFixture.request(sink, SinkFixture.event(kind: .done)))["priority"] == "0")
        let failed = Self.fields(try SinkFixture.request(sink, SinkFixture.event(kind: .failed)))
        #expect(failed["priority"] == "2" && failed["retry"] == "60" && failed["expire"] == "3600")
    }

    @Test func markdownBecomesPushoversHTMLAndPlainStaysPlain() throws {
        let event = SinkFixture.event(message: "Approve rm -rf build/?")
        var marked = event
        marked.markdown = "**Approve** `rm -rf build/`? ~~no~~ [docs](https://x.test/a) a < b"
        let html = Self.fields(try SinkFixture.request(try SinkFixture.sink(Self.credentials), marked))
        #expect(html["message"] == "<b>Approve</b> rm -rf build/? no <a href=\"https://x.test/a\">docs</a> a &lt; b")
        #expect(html["html"] == "1")
        let plain = Self.fields(try SinkFixture.request(try SinkFixture.sink(Self.credentials + "\nhtml: false"), marked))
        #expect(plain["message"] == "Approve rm -rf build/?" && plain["html"] == nil)
    }

    /// 100 KB, invalid UTF-8 (as every reader decodes it: U+FFFD), escape sequences: cut, sealed within
    /// 1024 characters, and it opens to the cleaned text.
    @Test(arguments: [
        String(repeating: "0123456789abcdef\u{1B}[31m", count: 5_000),
        String(decoding: (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }, as: UTF8.self),
        "\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{1B}[2J short",
    ])
    func hostileMessagesAreCutAndSealedWithinTheLimit(message: String) throws {
        let sink = try SinkFixture.sink(Self.credentials + "\ne2ee_key: \(Self.keyHex)\nhtml: false")
        let request = try SinkFixture.request(sink, SinkFixture.event(message: message).outgoing)
        let fields = Self.fields(request)
        #expect(fields["encrypted"] == "1")
        let key = try #require(PushoverE2EE.key(from: Self.keyHex))
        for (name, limit) in [("message", 1024), ("title", 250)] {
            let sealed = try #require(fields[name])
            #expect(sealed.count <= limit, "\(name): \(sealed.count)")
            let opened = try PushoverE2EE.open(sealed, key: key)
            #expect(!opened.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(name)")
        }
        let opened = try PushoverE2EE.open(try #require(fields["message"]), key: key)
        #expect(opened.count <= 1024)
        if message.count > 1024 { #expect(opened.hasSuffix("…")) }
    }

    @Test func aSealedFieldOpensOnlyWithItsKeyAndUnchanged() throws {
        let key = try #require(PushoverE2EE.key(from: Self.keyHex))
        let sealed = try PushoverE2EE.seal("ünïcödé ✅", key: key)
        #expect(try PushoverE2EE.open(sealed, key: key) == "ünïcödé ✅")
        // A fresh IV each time: the same text never seals the same.
        #expect(try PushoverE2EE.seal("ünïcödé ✅", key: key) != sealed)
        var bytes = try #require(Base64.decode(sealed))
        bytes[bytes.count - 1] ^= 0x80
        #expect(throws: PushoverE2EE.Failure.self) { try PushoverE2EE.open(Base64.encode(bytes), key: key) }
        #expect(throws: PushoverE2EE.Failure.self) { try PushoverE2EE.open("bm90IHNlYWxlZA==", key: key) }
        // A gzip bomb sealed with the right key is refused past the bound, not inflated without end.
        let bomb = try PushoverE2EE.gzip([UInt8](repeating: 0, count: PushoverE2EE.maximumOpened + 1))
        #expect(throws: PushoverE2EE.Failure.self) { try PushoverE2EE.open(try PushoverE2EE.seal(compressed: bomb, key: key), key: key) }
    }

    @Test func theSealedLengthIsComputedExactly() throws {
        let key = try #require(PushoverE2EE.key(from: Self.keyHex))
        for size in [0, 1, 15, 16, 17, 500, 719, 720] {
            let packed = [UInt8](repeating: 1, count: size)
            #expect(try PushoverE2EE.seal(compressed: packed, key: key).count == PushoverE2EE.sealedLength(compressed: packed.count))
        }
        #expect(PushoverE2EE.sealedLength(compressed: PushoverE2EE.compressedRoom(1024)) <= 1024)
        #expect(PushoverE2EE.sealedLength(compressed: PushoverE2EE.compressedRoom(1024) + 1) > 1024)
    }

    @Test(arguments: [
        (200, #"{"status":1,"request":"a"}"#, "delivered"),
        (200, #"{"status":0,"errors":["odd"]}"#, "failed"),
        (400, #"{"user":"invalid","errors":["user identifier is invalid"],"status":0,"request":"b"}"#, "failed"),
        (413, #"{"errors":["message is too long"],"status":0}"#, "failed"),
        (429, #"{"errors":["message limit reached"],"status":0}"#, "retry"),
        (500, "<html>oops</html>", "retry"),
        (503, "", "retry"),
    ])
    func pushoversAnswersBecomeTypedOutcomes(status: Int, body: String, expected: String) throws {
        let sink = try SinkFixture.sink(Self.credentials)
        let outcome = sink.outcome(for: HTTPResponse(status: status, body: Array(body.utf8)))
        switch (outcome, expected) {
        case (.delivered, "delivered"): break
        case (.failed(let problem), "failed"):
            #expect(problem.status == status)
            if status == 400 { #expect(problem.detail.contains("user identifier is invalid") && problem.detail.contains("check the sink's token")) }
        case (.retry(let problem), "retry"): #expect(problem.status == status)
        default: Issue.record("\(status) \(body): \(outcome)")
        }
        let network = sink.outcome(for: HTTPResponse(status: 0, error: "connection refused"))
        guard case .retry = network else { Issue.record("\(network)"); return }
    }
}
