import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
import TestSupport

/// Answer tokens (`AnswerToken`), the key and nonce files, the push's buttons (ntfy actions, Telegram's
/// inline keyboard) and the stream's line reader (`BodyLines`).
@Suite struct AnswerTokenTests {
    static let question = Question(text: "Allow Bash: rm -rf dist?", options: [
        .init(n: 1, label: "Yes"), .init(n: 2, label: "Yes, and don't ask again for rm"), .init(n: 3, label: "No, and tell Claude what to do differently"),
    ], fromScreen: true)
    static let key = [UInt8](repeating: 42, count: 32)

    static func event(_ question: Question? = AnswerTokenTests.question) -> Event {
        var event = SinkFixture.event()
        event.question = question
        return event
    }

    /// The event, recorded in the log of `environment`'s HOME: a push's buttons are made for the
    /// question the board shows.
    static func logged(_ question: Question? = AnswerTokenTests.question, environment: [String: String]) throws -> Event {
        var event = Self.event(question)
        try EventLog(paths: Paths(environment: environment)).append(&event)
        return event
    }

    @Test func theBoardNumbersEachAskingOfAQuestion() {
        var board = BoardState()
        var seq = 0
        func apply(_ kind: EventKind, _ question: Question?, agentEvent: String = "PreToolUse") {
            seq += 1
            var event = SinkFixture.event()
            event.kind = kind
            event.agentEvent = agentEvent
            event.question = question
            event.seq = seq
            event.time = Double(1_700_000_000 + seq)
            board.apply(event)
        }
        let key = BoardState.key(for: SinkFixture.event())
        apply(.needsInput, Self.question)
        let first = board.entries.first { $0.key == key }?.askedSeq
        #expect(first == 1)
        // A bare notice of the same wait keeps the asking.
        apply(.needsInput, nil, agentEvent: "Notification")
        #expect(board.entries.first { $0.key == key }?.askedSeq == 1)
        // Answered at the keyboard: no question, no asking.
        apply(.working, nil, agentEvent: "PostToolUse")
        #expect(board.entries.first { $0.key == key }?.askedSeq == nil)
        // The same text asked again: another asking.
        apply(.needsInput, Self.question)
        #expect(board.entries.first { $0.key == key }?.askedSeq == 4)
        // It survives the board's own file.
        let entry = board.entries.first { $0.key == key }!
        #expect((try? BoardState.storedEntry(BoardState.storedJSON(entry)))?.askedSeq == 4)
    }

    @Test func aTokenFitsTelegramsCallbackDataAndReadsBackExactly() {
        let token = AnswerToken.mint(key: Self.key, boardKey: "claude:s-1", question: Self.question, asked: 7, option: 3, expiry: 4_102_444_800)
        #expect(token.text.utf8.count <= 64)
        #expect(AnswerToken.parse(token.text) == token)
        #expect(token.verifies(key: Self.key))
        #expect(!token.verifies(key: [UInt8](repeating: 41, count: 32)))
        #expect(!token.verifies(key: Self.key, identity: "otherhost|\(getuid())"))
        // Two tokens for the same option differ (the nonce).
        let again = AnswerToken.mint(key: Self.key, boardKey: "claude:s-1", question: Self.question, asked: 7, option: 3, expiry: 4_102_444_800)
        #expect(again.nonce != token.nonce && again.mac != token.mac)
    }

    @Test func everyFieldIsBoundByTheMAC() {
        let token = AnswerToken.mint(key: Self.key, boardKey: "claude:s-1", question: Self.question, asked: 7, option: 1, expiry: 4_102_444_800)
        var changed = [token, token, token, token, token, token]
        changed[0].option = 3
        changed[1].expiry += 1
        changed[2].keyRef = AnswerToken.keyRef("claude:s-2")
        var other = Self.question
        other.options[0].label = "Yes!"
        changed[3].questionRef = AnswerToken.questionRef(other, asked: 7)
        changed[4].nonce = String(token.nonce.reversed())
        // The same question asked again (another event made it): another ref.
        changed[5].questionRef = AnswerToken.questionRef(Self.question, asked: 8)
        #expect(changed[5].questionRef != token.questionRef)
        for token in changed { #expect(!token.verifies(key: Self.key), "\(token.text)") }
    }

    @Test(arguments: [
        "", "a1", "a2.AAAAAAAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA",
        "a1.AAAAAAAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAA",       // MAC cut short
        "a1.AAAAAAAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAAA",     // one more
        "a1.AAAAAAAA.AAAAAAAAAAAA.0.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA",      // option 0
        "a1.AAAAAAAA.AAAAAAAAAAAA.123.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA",
        "a1.AAAAAAAA.AAAAAAAAAAAA.1.ZZZZZZ.AAAAAAAAAAA.AAAAAAAAAAAAAAAA",      // upper-case base 36
        "a1.AAAA+AAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA",      // not base64url
        "a1.AAAAAAAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA.x",
        " a1.AAAAAAAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA",
    ])
    func malformedTokensAreNotRead(_ text: String) {
        #expect(AnswerToken.parse(text) == nil)
    }

    @Test func theKeyIsMadeOnceWithMode0600AndAnUnsafeOneIsRefused() throws {
        let directory = try TemporaryDirectory("answer-key")
        let paths = Paths(environment: ["HOME": directory.path])
        #expect(try AnswerKey.load(paths: paths, create: false) == nil)
        let key = try #require(try AnswerKey.load(paths: paths, create: true))
        #expect(key.count == 32)
        #expect(try AnswerKey.load(paths: paths, create: true) == key)
        let path = AnswerKey.path(paths)
        #expect(FileSystem.status(path).map { $0.st_mode & 0o777 } == 0o600)
        chmod(path, 0o644)
        #expect(throws: AnswerKeyError.self) { try AnswerKey.load(paths: paths, create: true) }
        chmod(path, 0o600)
        try FileSystem.writeAtomically(path, bytes: [1, 2, 3], mode: 0o600)
        #expect(throws: AnswerKeyError.self) { try AnswerKey.load(paths: paths, create: true) }
    }

    @Test func aNonceIsUsedOnceAndExpiredOnesAreDroppedWhenTheFileIsRewritten() throws {
        let directory = try TemporaryDirectory("answer-nonces")
        let paths = Paths(environment: ["HOME": directory.path])
        try FileSystem.makeDirectories(paths.stateDirectory)
        let nonces = UsedNonces(paths: paths)
        let now = WallClock.nowEpoch()
        #expect(try nonces.use("n-live", expiry: Int(now) + 600))
        #expect(try !nonces.use("n-live", expiry: Int(now) + 600))
        for index in 0..<UsedNonces.compactAfter { #expect(try nonces.use("old-\(index)", expiry: Int(now) - 10)) }
        #expect(try nonces.use("n-next", expiry: Int(now) + 600))
        // Rewritten when the 1000th line came: the live one and that last one kept, then the next appended.
        let lines = (try FileSystem.readString(nonces.path) ?? "").split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(lines == ["n-live", "old-\(UsedNonces.compactAfter - 1)", "n-next"], "\(lines.count) lines")
        #expect(try !nonces.use("n-live", expiry: Int(now) + 600))
    }

    @Test func aYesNoDialogOffersItsYesAndNoRowsElseTheFirstTwo() {
        #expect(AnswerSigner.offered(Self.question, limit: 2).map(\.n) == [1, 3])
        let three = Question(text: "Which database?", options: [.init(n: 1, label: "Postgres"), .init(n: 2, label: "SQLite"), .init(n: 3, label: "MySQL")])
        #expect(AnswerSigner.offered(three, limit: 2).map(\.label) == ["Postgres", "SQLite"])
        // Options whose screen number is not known yet (a permission dialog's payload) are offered by label;
        // a multi-select question gets no buttons.
        #expect(AnswerSigner.offered(Question(text: "Allow?", options: [.init(n: nil, label: "Yes"), .init(n: nil, label: "No")]), limit: 2).map(\.label) == ["Yes", "No"])
        #expect(AnswerSigner.offered(Question(text: "Pick", options: three.options, multiSelect: true), limit: 2).isEmpty)
    }

    @Test func anNtfyPushCarriesHTTPActionsToTheReplyTopicAndOpen() throws {
        let directory = try TemporaryDirectory("ntfy-actions")
        let environment = ["HOME": directory.path, "HOOKCTL_NO_BACKGROUND": "1"]
        let sink = try SinkFixture.sink("type: ntfy\nurl: https://ntfy.example.com/agents\nreply_topic: answers_9x\nclick: ssh://{host}",
                                        environment: environment)
        let logged = try Self.logged(environment: environment)
        // The sink alone is pure: asked without the delivery side's buttons it mints nothing, makes no key.
        #expect(try SinkFixture.json(try SinkFixture.request(sink, logged))["actions"] == nil)
        #expect(try AnswerKey.load(paths: Paths(environment: environment), create: false) == nil)
        let signer = AnswerSigner(paths: Paths(environment: environment), environment: environment)
        let body = try SinkFixture.json(try SinkFixture.request(sink, logged, signer: signer))
        let actions = try #require(body["actions"]?.arrayValue)
        // Labels as the screen shows them, cut to 40 characters for the button.
        #expect(actions.map { $0["label"]?.stringValue ?? "" } == ["Yes", "No, and tell Claude what to do differen…", "Open"])
        #expect(actions[0]["action"]?.stringValue == "http")
        #expect(actions[0]["url"]?.stringValue == "https://ntfy.example.com/answers_9x")
        #expect(actions[0]["method"]?.stringValue == "POST")
        #expect(actions[0]["clear"]?.boolValue == true)
        #expect(actions[2]["action"]?.stringValue == "view")
        #expect(actions[2]["url"]?.stringValue == "ssh://devbox")
        let actionBody = try JSON.parse(try #require(actions[0]["body"]?.stringValue))
        let tokenText = try #require(actionBody["answer"]?.stringValue)
        let token = try #require(AnswerToken.parse(tokenText))
        let key = try #require(try AnswerKey.load(paths: Paths(environment: environment), create: false))
        #expect(token.verifies(key: key))
        #expect(token.option == 1)
        #expect(token.keyRef == AnswerToken.keyRef("claude:5f0c8a2e-1111-4c1e-9d7a-0123456789ab"))
        // The preview shows no token, makes none, and hides the reply topic.
        let preview = sink.preview(for: Self.event())
        #expect(preview.contains("(answer token)") && !preview.contains("answers_9x"), "\(preview)")
        // No question, no buttons; actions off, none either.
        #expect(try SinkFixture.json(try SinkFixture.request(sink, Self.event(nil), signer: signer))["actions"] == nil)
        let off = try SinkFixture.sink("type: ntfy\nurl: https://ntfy.example.com/agents\nreply_topic: answers_9x\nactions: false", environment: environment)
        #expect(try SinkFixture.json(try SinkFixture.request(off, Self.event(), signer: signer))["actions"] == nil)
    }

    @Test(arguments: [
        ("type: ntfy\nurl: https://ntfy.sh/t0pic\nreply_topic: 'bad topic'", "'reply_topic' must be a topic name"),
        ("type: ntfy\nurl: https://ntfy.sh/t0pic\nreply_topic: t0pic", "must differ from the topic"),
        ("type: ntfy\nurl: https://ntfy.sh/t0pic\nactions: true", "needs reply_topic"),
    ])
    func badReplyTopicsAreRefused(_ yaml: String, _ message: String) {
        #expect { _ = try SinkFixture.sink(yaml) } throws: { "\($0)".contains(message) }
    }

    @Test func aTelegramMessageGetsAnInlineKeyboardOfTokens() throws {
        let directory = try TemporaryDirectory("telegram-actions")
        let environment = ["HOME": directory.path, "HOOKCTL_NO_BACKGROUND": "1"]
        let sink = try SinkFixture.sink("type: telegram\ntoken: '123456:ABC-DEF'\nchat_id: '42'\nactions: true", environment: environment)
        let logged = try Self.logged(environment: environment)
        #expect(try SinkFixture.json(try SinkFixture.request(sink, logged))["reply_markup"] == nil)
        #expect(try AnswerKey.load(paths: Paths(environment: environment), create: false) == nil)
        let signer = AnswerSigner(paths: Paths(environment: environment), environment: environment)
        let body = try SinkFixture.json(try SinkFixture.request(sink, logged, signer: signer))
        let rows = try #require(body["reply_markup"]?["inline_keyboard"]?.arrayValue)
        #expect(rows.compactMap { $0.arrayValue?.first?["text"]?.stringValue } == ["1. Yes", "3. No, and tell Claude what to do differently"])
        for row in rows {
            let data = try #require(row.arrayValue?.first?["callback_data"]?.stringValue)
            #expect(data.utf8.count <= 64 && AnswerToken.parse(data) != nil)
        }
        let plain = try SinkFixture.sink("type: telegram\ntoken: '123456:ABC-DEF'\nchat_id: '42'", environment: environment)
        #expect(try SinkFixture.json(try SinkFixture.request(plain, Self.event(), signer: signer))["reply_markup"] == nil)
    }

    @Test func streamLinesAreCutAndAnOverlongLineIsDroppedWhole() {
        var lines: [String] = []
        var reader = BodyLines(lineLimit: 10)
        let body = Array("ab\ncd\ne\n0123456789ABC\n\nok\n".utf8)
        // Fed a byte at a time: bytes split anywhere read the same.
        for byte in body { reader.feed([byte][...]) { lines.append(String(decoding: $0, as: UTF8.self)) } }
        #expect(lines == ["ab", "cd", "e", "ok"])
    }
}
