import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookAgents
import TestSupport

/// A test certificate authority and a certificate for 127.0.0.1 signed by it (openssl), as
/// bench/lib/loopback.py makes them: hookctl trusts it through `CURL_CA_BUNDLE`.
struct TestCA {
    let ca: String
    let certificate: String
    let key: String

    init(directory: String) throws {
        ca = directory + "/ca.pem"
        certificate = directory + "/server.pem"
        key = directory + "/server.key"
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try FileSystem.writeAtomically(directory + "/ext", text: "subjectAltName=IP:127.0.0.1\n", sync: false)
        for arguments in [["req", "-x509"] + curve + ["-keyout", directory + "/ca.key", "-out", ca, "-days", "2", "-subj", "/CN=hookctl test CA"],
                          ["req"] + curve + ["-keyout", key, "-out", directory + "/server.csr", "-subj", "/CN=127.0.0.1"],
                          ["x509", "-req", "-in", directory + "/server.csr", "-CA", ca, "-CAkey", directory + "/ca.key", "-CAcreateserial",
                           "-out", certificate, "-days", "2", "-extfile", directory + "/ext"]] {
            let result = try Subprocess(executable: "/usr/bin/openssl", arguments: arguments, timeout: 30).run()
            try #require(result.status == 0, "openssl \(arguments.prefix(2)): \(result.stderr)")
        }
    }
}

/// A loopback ntfy server (Tests/Fixtures/ntfy_server.py): publish, the JSON stream, `poll=1`, `since=`.
/// With `tls`, it serves HTTPS (`baseURL`) and plain HTTP beside it (`plainURL`, where the test posts).
final class NtfyStandIn: RequestLogging, @unchecked Sendable {
    let process: BackgroundProcess
    let port: Int
    let plainPort: Int
    let tls: Bool
    let logFile: String

    /// Where its log goes when no `directory` is given: a scratch folder of its own.
    private let scratch: TemporaryDirectory?

    init(directory: String? = nil, extraArguments: [String] = [], tls: TestCA? = nil) throws {
        scratch = directory == nil ? try TemporaryDirectory("ntfy") : nil
        logFile = (directory ?? scratch?.path ?? "") + "/ntfy-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        let tlsArguments = tls.map { ["--tls", $0.certificate, $0.key] } ?? []
        (process, port) = try startFixture("ntfy_server.py", ["--log", logFile] + tlsArguments + extraArguments)
        self.tls = tls != nil
        if tls != nil {
            guard let line = process.readLine(timeout: 15), let plain = Int(line) else {
                process.stop()
                throw SystemError.spawn(program: "ntfy_server.py", errno: EIO)
            }
            plainPort = plain
        } else {
            plainPort = port
        }
    }

    var baseURL: String { (tls ? "https" : "http") + "://127.0.0.1:\(port)" }
    var plainURL: String { "http://127.0.0.1:\(plainPort)" }

    /// The subscribe requests (`GET /<topic>/json`) so far.
    func subscribes() -> [JSONValue] { requests().filter { $0["method"]?.stringValue == "GET" } }

    /// The JSON publishes (`POST /`) to `topic` so far, waiting up to `timeout` for at least `count`.
    func published(_ topic: String, atLeast count: Int = 1, timeout: Double = 15) -> [JSONValue] {
        var found: [JSONValue] = []
        _ = eventually(timeout: timeout) {
            found = requests().compactMap { request -> JSONValue? in
                guard request["method"]?.stringValue == "POST", request["path"]?.stringValue == "/",
                      let body = request["body"]?.stringValue, let json = try? JSON.parse(body),
                      json["topic"]?.stringValue == topic else { return nil }
                return json
            }
            return found.count >= count
        }
        return found
    }

    /// Posts `body` to `url` as the ntfy app does for an `http` action (an https URL of this server is
    /// posted to its plain port: the test process does not trust the test CA).
    @discardableResult
    func post(_ url: String, body: String) -> Int {
        let url = url.hasPrefix(baseURL + "/") ? plainURL + url.dropFirst(baseURL.count) : url
        return HTTPClient.send(HTTPRequest(method: "POST", url: url, headers: [("Content-Type", "application/json")],
                                    body: Array(body.utf8), timeout: 10, connectTimeout: 5)).status
    }

    deinit { process.stop() }
}

/// A loopback Telegram Bot API (Tests/Fixtures/telegram_server.py): sendMessage, getUpdates,
/// answerCallbackQuery, editMessageText, and `/_press` to press a button as a user would.
final class TelegramStandIn: RequestLogging, @unchecked Sendable {
    let process: BackgroundProcess
    let port: Int
    let logFile: String
    static let token = "123456:ABC-test_token"

    init(directory: String) throws {
        logFile = directory + "/telegram-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        (process, port) = try startFixture("telegram_server.py", ["--log", logFile, "--token", Self.token])
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The calls of Bot API `method` so far (their JSON bodies), waiting up to `timeout` for at least `count`.
    func calls(_ method: String, atLeast count: Int = 1, timeout: Double = 15) -> [JSONValue] {
        var found: [JSONValue] = []
        _ = eventually(timeout: timeout) {
            found = requests().filter { $0["method"]?.stringValue == method }.compactMap { $0["body"] }
            return found.count >= count
        }
        return found
    }

    func press(chat: String, data: String) {
        let body = JSON.serialize(.object(JSONObject([("chat_id", .number(chat)), ("message_id", .int(1)), ("data", .string(data))])))
        _ = HTTPClient.send(HTTPRequest(method: "POST", url: baseURL + "/_press", headers: [("Content-Type", "application/json")],
                                        body: Array(body.utf8), timeout: 10, connectTimeout: 5))
    }

    deinit { process.stop() }
}

/// Answering from the push: the ntfy sink's action buttons, the listener (`outbox listen`) on the
/// reply topic, and every answer it must refuse. A stand-in agent in a private tmux pane records every
/// byte it receives, so "nothing was typed" is read off the real pane.
@Suite(.onTestThreads) struct PushAnswerEndToEndTests {
    static var haveTmux: Bool { FileSystem.isExecutable(AnswerLab.tmux) }
    static let replyTopic = "replies_x7Kq2"
    static let pushTopic = "agents_push"

    /// A lab whose hooks deliver nothing by themselves (the test flushes), an ntfy sink with a reply topic.
    static func lab(_ ntfy: NtfyStandIn, extra: String = "", environment: [String: String] = [:]) throws -> AnswerLab {
        let lab = try AnswerLab(environment: environment.merging(["HOOKCTL_NO_BACKGROUND": "1"]) { $1 })
        try lab.home.write(".config/hookctl/replies", replyTopic + "\n")
        try lab.home.writeConfig(relay: nil, extra: """
              - name: phone
                type: ntfy
                url: \(ntfy.baseURL)/\(pushTopic)
                reply_topic_file: \(lab.home.file(".config/hookctl/replies"))
            \(extra)
            """)
        return lab
    }

    /// Sends the agent's push and returns its actions.
    static func push(_ lab: AnswerLab, _ ntfy: NtfyStandIn, count: Int = 1) throws -> [JSONValue] {
        let flush = try lab.hookctl(["outbox", "flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        let pushes = ntfy.published(pushTopic, atLeast: count)
        try #require(pushes.count >= count, "no push: \(ntfy.requests())")
        return pushes[count - 1]["actions"]?.arrayValue ?? []
    }

    /// What most tests here start from: a lab pushing to a fresh ntfy stand-in, the stand-in agent started
    /// in `session` (with `extra` arguments) and its question pushed; the push's actions.
    static func pushedQuestion(session: String, extra: [String] = []) throws
        -> (ntfy: NtfyStandIn, lab: AnswerLab, agent: (pane: String, record: String), actions: [JSONValue]) {
        let ntfy = try NtfyStandIn()
        let lab = try Self.lab(ntfy)
        let agent = try lab.start(session: session, extra: extra)
        return (ntfy, lab, agent, try Self.push(lab, ntfy))
    }

    static func listener(_ lab: AnswerLab) throws -> BackgroundProcess {
        var environment = lab.environment
        environment["HOOKCTL_NO_BACKGROUND"] = "1"
        return try BackgroundProcess(executable: Harness.binary, arguments: ["outbox", "listen"], environment: environment)
    }

    static func key(_ lab: AnswerLab) throws -> [UInt8] {
        try #require(try FileSystem.read(lab.home.file(".local/state/hookctl/answer.key")))
    }

    static func refusals(_ lab: AnswerLab, atLeast count: Int, timeout: Double = 20) -> [String] {
        var found: [String] = []
        _ = eventually(timeout: timeout) {
            found = lab.home.loggedEvents().filter { $0["agent_event"]?.stringValue == Event.pushReplyRefused }
                .compactMap { $0["message"]?.stringValue }
            return found.count >= count
        }
        return found
    }

    @Test func aTappedActionPressesTheOptionInThePaneOnceAndAReplayIsRefused() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let (ntfy, lab, agent, actions) = try Self.pushedQuestion(session: "db")
        // Three options, no Yes/No: the first two, as the screen numbers them; no Open without `click`.
        #expect(actions.map { $0["label"]?.stringValue ?? "" } == ["Postgres (Recommended)", "SQLite"])
        for action in actions {
            #expect(action["action"]?.stringValue == "http")
            #expect(action["url"]?.stringValue == ntfy.baseURL + "/" + Self.replyTopic)
            #expect(action["method"]?.stringValue == "POST")
            #expect(action["clear"]?.boolValue == true)
            let body = try JSON.parse(try #require(action["body"]?.stringValue))
            let text = try #require(body["answer"]?.stringValue)
            #expect(AnswerToken.parse(text) != nil && text.utf8.count <= 64, "\(text)")
        }
        // The key: 32 bytes, the user's alone, and never in the push.
        let key = try Self.key(lab)
        #expect(key.count == 32)
        #expect(FileSystem.status(lab.home.file(".local/state/hookctl/answer.key")).map { $0.st_mode & 0o777 } == 0o600)
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        let sqlite = try #require(actions[1]["body"]?.stringValue)
        #expect(ntfy.post(ntfy.baseURL + "/" + Self.replyTopic, body: sqlite) == 200)
        #expect(lab.received(agent.record, atLeast: 1, timeout: 20) == Array("2".utf8))
        _ = eventually(timeout: 10) { lab.home.loggedEvents().contains { $0["agent_event"]?.stringValue == "push_reply" } }
        let reply = try #require(lab.home.loggedEvents().first { $0["agent_event"]?.stringValue == "push_reply" })
        #expect(reply["answer"]?["channel"]?.stringValue == "ntfy")
        #expect(reply["answer"]?["option"]?.stringValue == "SQLite")
        #expect(reply["session_id"]?.stringValue == "db")
        let board = try lab.board()
        #expect(board["claude:db"]?["state"]?.stringValue == "working")
        #expect(board["claude:db"]?["agent_event"]?.stringValue == "push_reply")

        // The same answer again (a replay, or the phone retrying): refused, nothing typed.
        #expect(ntfy.post(ntfy.baseURL + "/" + Self.replyTopic, body: sqlite) == 200)
        let refused = Self.refusals(lab, atLeast: 1)
        #expect(refused.first == "not answered: the answer was already used", "\(refused)")
        #expect(try lab.receivedBeforeSentinel(agent) == Array("2".utf8))
        // …and said on the push topic, since the answer was really ours.
        let notices = ntfy.published(Self.pushTopic, atLeast: 2)
        #expect(notices.last?["message"]?.stringValue == "not answered: the answer was already used")
        // `events` shows it; the board did not move.
        let events = try lab.hookctl(["events", "--json"])
        #expect(events.stdout.contains("push_reply_refused"))
        #expect(try lab.board()["claude:db"]?["agent_event"]?.stringValue == "push_reply")
    }

    @Test func forgedExpiredForeignTruncatedOversizedAndStaleAnswersPressNothing() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let (ntfy, lab, agent, actions) = try Self.pushedQuestion(session: "hostile")
        let realBody = try JSON.parse(try #require(actions[0]["body"]?.stringValue))
        let realText = try #require(realBody["answer"]?.stringValue)
        let real = try #require(AnswerToken.parse(realText))
        let key = try Self.key(lab)
        let question = try #require(try lab.board()["claude:hostile"]?["question"].flatMap(Question.init(json:)))
        let now = Int(WallClock.nowEpoch())
        let records = AnswerRecords(paths: Paths(environment: lab.environment))
        // A token as the sender makes one, with the host's record of what its button offered (unless `recorded` is false).
        let asked = try #require(EventLog(paths: Paths(environment: lab.environment)).storedBoard()?.entries.first { $0.key == "claude:hostile" }?.askedSeq)
        func mint(boardKey: String = "claude:hostile", question: Question = question, asked: Int = asked, expiry: Int = now + 600,
                  identity: String = AnswerToken.identity, key: [UInt8] = key, recorded: Bool = true) throws -> String {
            let token = AnswerToken.mint(key: key, boardKey: boardKey, question: question, asked: asked, option: 1, expiry: expiry, identity: identity)
            if recorded { try records.add([.init(nonce: token.nonce, boardKey: boardKey, question: question, asked: asked, position: 1, expiry: expiry)]) }
            return token.text
        }
        var forged = real
        forged.option = 2
        var changed = question
        changed.text = "Which cache?"
        let wrongKey = [UInt8](repeating: 7, count: 32)
        let cases: [(String, String)] = [
            (forged.text, "its signature does not verify"),                                          // another option, the MAC kept
            (try mint(key: wrongKey), "its signature does not verify"),                              // another user's key
            (try mint(identity: "otherhost|\(getuid())"), "its signature does not verify"),          // another host's token
            (try mint(identity: AnswerToken.identity.split(separator: "|")[0] + "|\(getuid() + 1)"), "its signature does not verify"),
            (try mint(expiry: now - 5), "the answer expired"),
            (try mint(recorded: false), "this host has no record of that answer"),
            (try mint(boardKey: "claude:someone-else"), "the agent is no longer on the board"),
            (try mint(question: changed), "the question changed"),
            (try mint(asked: asked - 1), "the question was asked again since that push"),            // an earlier asking of the same text
            (String(real.text.dropLast(3)), "the answer is malformed"),                              // truncated
        ]
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        let url = ntfy.baseURL + "/" + Self.replyTopic
        for (token, _) in cases { ntfy.post(url, body: JSON.serialize(.object(JSONObject([("answer", .string(token))])))) }
        // Oversized: a 64 KiB answer (the stream's line limit drops it whole) and a token padded past 64 bytes.
        ntfy.post(url, body: "{\"answer\":\"" + real.text + String(repeating: "A", count: 65536) + "\"}")
        ntfy.post(url, body: "{\"answer\":\"" + real.text + "AAAA\"}")
        let refused = Self.refusals(lab, atLeast: cases.count + 1)
        for (_, why) in cases {
            #expect(refused.contains { $0.hasPrefix("not answered: " + why) }, "\(why) not among \(refused)")
        }
        #expect(try lab.receivedBeforeSentinel(agent).isEmpty, "something was typed into the pane")
        #expect(try lab.board()["claude:hostile"]?["state"]?.stringValue == "needs_input")
        // The real answer still works after all of them (after the sentinel `~`).
        ntfy.post(url, body: try #require(actions[0]["body"]?.stringValue))
        #expect(lab.received(agent.record, atLeast: 2, timeout: 20) == Array("~1".utf8))
    }

    /// Over http and https (the transfer pauses while 1 MiB waits to be read).
    @Test(arguments: [false, true]) func tenThousandJunkMessagesStayBoundedAndTheRealAnswerAmongThemIsPressed(tls: Bool) throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let scratch = try TemporaryDirectory("ntfy")
        let ca = tls ? try TestCA(directory: scratch.path) : nil
        let ntfy = try NtfyStandIn(directory: scratch.path, tls: ca)
        let lab = try Self.lab(ntfy, environment: ca.map { ["CURL_CA_BUNDLE": $0.ca] } ?? [:])
        let agent = try lab.start(session: "flood")
        let actions = try Self.push(lab, ntfy)
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        let url = ntfy.baseURL + "/" + Self.replyTopic
        #expect(ntfy.post(ntfy.baseURL + "/_flood/" + Self.replyTopic + "?n=5000", body: "") == 200)
        ntfy.post(url, body: try #require(actions[1]["body"]?.stringValue))
        #expect(ntfy.post(ntfy.baseURL + "/_flood/" + Self.replyTopic + "?n=5000", body: "") == 200)
        #expect(lab.received(agent.record, atLeast: 1, timeout: 60) == Array("2".utf8))
        // The junk that looked like answers was refused, at most ten events a minute (the log stays small).
        let refused = lab.home.loggedEvents().filter { $0["agent_event"]?.stringValue == Event.pushReplyRefused }
        #expect(!refused.isEmpty && refused.count <= 2 * PushAnswer.unverifiedPerMinute, "\(refused.count) refusals logged")
        // Memory stayed bounded: the listener's peak resident size is that of a small process.
        let pid = try #require(lab.home.runningHookctls().first { $0.arguments.contains("listen") }?.pid)
        let status = (try FileSystem.readString("/proc/\(pid)/status")) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
        #expect((peak ?? 0) > 0 && (peak ?? 0) < 80_000, "peak resident size \(peak ?? -1) kB")
        #expect(try lab.receivedBeforeSentinel(agent) == Array("2".utf8))
    }

    @Test func aServerThatIsDownIsRetriedWithGrowingWaitsAndAnAnswerSentMeanwhileIsCaughtUp() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let (ntfy, lab, agent, actions) = try Self.pushedQuestion(session: "down")
        // The server answers its subscribers only after 3 s (slow), then the listener is killed -9 and
        // restarted: it catches up from where it had read (since=) and presses once.
        try FileSystem.writeAtomically(ntfy.logFile + ".delay", text: "3", sync: false)
        let first = try Self.listener(lab)
        ntfy.post(ntfy.baseURL + "/" + Self.replyTopic, body: try #require(actions[0]["body"]?.stringValue))
        #expect(lab.received(agent.record, atLeast: 1, timeout: 30) == Array("1".utf8))
        first.stop()
        let second = try Self.listener(lab)
        defer { second.stop() }
        let subscribes = { ntfy.requests().filter { $0["method"]?.stringValue == "GET" } }
        #expect(eventually(timeout: 20) { subscribes().count >= 2 })
        #expect(subscribes().last?["query"]?.stringValue?.hasPrefix("since=") == true)
        #expect(subscribes().last?["query"]?.stringValue?.count == "since=".count + 12, "\(subscribes())")
        #expect(try lab.receivedBeforeSentinel(agent) == Array("1".utf8), "the answer was pressed twice")

        // A server that is down: each try fails at once, and the listener waits 1, 2, 4… s between them.
        ntfy.process.stop()
        let log = lab.home.file(".local/state/hookctl/listener.log")
        #expect(eventually(timeout: 20) { (lab.home.read(".local/state/hookctl/listener.log") ?? "").contains("next try in 4 s") },
                "\(lab.home.read(".local/state/hookctl/listener.log") ?? "")")
        let lines = ((try? FileSystem.readString(log)) ?? nil)?.split(separator: "\n").filter { $0.contains("next try in") } ?? []
        #expect(lines.count <= 4, "\(lines)")
        #expect(lines.suffix(3).map { $0.split(separator: " ").suffix(2).first.map(String.init) ?? "" } == ["1", "2", "4"], "\(lines)")
    }

    @Test func aTelegramButtonPressesTheOptionAndTheToastSaysWhatHappened() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let scratch = try TemporaryDirectory("telegram")
        let telegram = try TelegramStandIn(directory: scratch.path)
        let lab = try AnswerLab(environment: ["HOOKCTL_NO_BACKGROUND": "1"])
        try lab.home.writeConfig(relay: nil, extra: """
              - name: tg
                type: telegram
                token: "\(TelegramStandIn.token)"
                chat_id: "4242"
                api_url: \(telegram.baseURL)
                actions: true
            """)
        let agent = try lab.start(session: "tg")
        #expect(try lab.hookctl(["outbox", "flush"]).status == 0)
        let sent = try #require(telegram.calls("sendMessage").first)
        let rows = try #require(sent["reply_markup"]?["inline_keyboard"]?.arrayValue)
        let buttons = rows.compactMap { $0.arrayValue?.first }
        #expect(buttons.map { $0["text"]?.stringValue ?? "" } == ["1. Postgres (Recommended)", "2. SQLite", "3. MySQL"])
        let sqlite = try #require(buttons[1]["callback_data"]?.stringValue)
        #expect(sqlite.utf8.count <= 64)
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        // Pressed in another chat first (a forwarded message): refused; then forged data; then the real press.
        telegram.press(chat: "999", data: sqlite)
        telegram.press(chat: "4242", data: "a1.AAAAAAAA.AAAAAAAAAAAA.2.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA")
        telegram.press(chat: "4242", data: sqlite)
        #expect(lab.received(agent.record, atLeast: 1, timeout: 20) == Array("2".utf8))
        let toasts = telegram.calls("answerCallbackQuery", atLeast: 3).compactMap { $0["text"]?.stringValue }
        #expect(toasts.count == 3, "\(toasts)")
        #expect(toasts.first == "not answered: the button was pressed in another chat")
        #expect(toasts.dropFirst().first?.hasPrefix("not answered: its signature does not verify") == true, "\(toasts)")
        #expect(toasts.last == "answered: SQLite")
        _ = eventually(timeout: 10) { lab.home.loggedEvents().contains { $0["agent_event"]?.stringValue == "push_reply" } }
        let reply = try #require(lab.home.loggedEvents().first { $0["agent_event"]?.stringValue == "push_reply" })
        #expect(reply["answer"]?["channel"]?.stringValue == "telegram")
        #expect(reply["answer"]?["option"]?.stringValue == "SQLite")
        // Pressed twice: the second is refused and typed nothing; getUpdates moved on (offset) each time.
        telegram.press(chat: "4242", data: sqlite)
        let again = telegram.calls("answerCallbackQuery", atLeast: 4).compactMap { $0["text"]?.stringValue }
        #expect(again.last == "not answered: the answer was already used", "\(again)")
        #expect(try lab.receivedBeforeSentinel(agent) == Array("2".utf8))
        let offsets = telegram.calls("getUpdates").compactMap { $0["offset"]?.intValue }
        #expect(offsets == offsets.sorted() && (offsets.last ?? 0) > 100, "\(offsets)")
    }

    @Test func anAnswerForAPaneThatNowRunsAnotherProgramIsRefused() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let (ntfy, lab, agent, actions) = try Self.pushedQuestion(session: "gone")
        // The agent is gone and a shell reads the pane now: an answer must not land in it.
        #expect(try lab.tmux(["respawn-pane", "-k", "-t", agent.pane, "python3 -S \(Harness.fixtures)/standin_agent.py --mode input --record \(agent.record).after --hookctl /bin/true --session other"]).status == 0)
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        ntfy.post(ntfy.baseURL + "/" + Self.replyTopic, body: try #require(actions[0]["body"]?.stringValue))
        let refused = Self.refusals(lab, atLeast: 1)
        #expect(refused.first?.hasPrefix("not answered: the pane changed") == true, "\(refused)")
        #expect(lab.received(agent.record + ".after", timeout: 1).isEmpty, "something was typed into the new program")
    }

    @Test func theSenderStartsOneListenerWhichSaysWhyItStops() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let scratch = try TemporaryDirectory("ntfy")
        let ntfy = try NtfyStandIn(directory: scratch.path)
        // The hooks as they run for real: they commit, the sender sends and starts the listener.
        let lab = try AnswerLab()
        try lab.home.write(".config/hookctl/replies", Self.replyTopic + "\n")
        try lab.home.writeConfig(relay: nil, extra: """
              - name: phone
                type: ntfy
                url: \(ntfy.baseURL)/\(Self.pushTopic)
                reply_topic_file: \(lab.home.file(".config/hookctl/replies"))
            """)
        let agent = try lab.start(session: "auto")
        let actions = ntfy.published(Self.pushTopic).first?["actions"]?.arrayValue ?? []
        try #require(actions.count == 2, "\(ntfy.requests())")
        let listeners = { lab.home.runningHookctls().filter { $0.arguments.dropFirst().starts(with: ["outbox", "listen"]) } }
        #expect(eventually(timeout: 15) { listeners().count == 1 }, "\(lab.home.runningHookctls())")
        #expect(eventually(timeout: 15) { (lab.home.read(".local/state/hookctl/listener.log") ?? "").contains("started") })
        // A second start finds the lock held and starts nothing.
        let paths = Paths(environment: lab.environment)
        #expect(!AnswerListener.start(paths: paths, configFile: paths.configFile, environment: lab.environment))
        ntfy.post(ntfy.baseURL + "/" + Self.replyTopic, body: try #require(actions[0]["body"]?.stringValue))
        #expect(lab.received(agent.record, atLeast: 1, timeout: 20) == Array("1".utf8))
        // Once no answer can be open any more, it stops and says why.
        try FileSystem.writeAtomically(AnswerListener.openFile(paths), text: "\(Int(WallClock.nowEpoch() - AnswerListener.grace - 5))\n", sync: false)
        #expect(eventually(timeout: 20) { listeners().isEmpty }, "\(listeners())")
        let log = lab.home.read(".local/state/hookctl/listener.log") ?? ""
        #expect(log.contains("started: answers open until") && log.contains("following ntfy 'phone'"), "\(log)")
        #expect(log.contains("stopped: no answer is open any more; 1 answers pressed"), "\(log)")
        #expect(!log.contains(Self.replyTopic), "the reply topic is a secret")
    }
    /// ntfy over https (here a loopback server with a test CA, as ntfy.sh is reached): the reply topic is
    /// one stream through libcurl, not polled; an answer posted in the middle of it is pressed at once,
    /// and a listener killed -9 and started again resumes from `since=` the last message it read.
    @Test func overHTTPSTheReplyTopicIsStreamedAndAnAnswerIsPressedAtOnce() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let scratch = try TemporaryDirectory("ntfy-tls")
        let ca = try TestCA(directory: scratch.path)
        let ntfy = try NtfyStandIn(directory: scratch.path, extraArguments: ["--keepalive", "1"], tls: ca)
        let lab = try Self.lab(ntfy, environment: ["CURL_CA_BUNDLE": ca.ca])
        #expect(ntfy.baseURL.hasPrefix("https://"))
        let agent = try lab.start(session: "tls")
        let actions = try Self.push(lab, ntfy)
        try #require(actions.count == 2, "\(actions)")
        let first = try Self.listener(lab)
        // Well into the stream: open, keepalives coming, the backlog read.
        #expect(eventually(timeout: 15) { ntfy.subscribes().count == 1 })
        sleepSeconds(2.5)
        let posted = monotonicSeconds()
        #expect(ntfy.post(ntfy.baseURL + "/" + Self.replyTopic, body: try #require(actions[1]["body"]?.stringValue)) == 200)
        #expect(lab.received(agent.record, atLeast: 1, timeout: 20) == Array("2".utf8))
        let tapToKey = monotonicSeconds() - posted
        // Polled every 3 s it took up to 3 s more; streamed it is the press alone.
        #expect(tapToKey < 1.5, "pressed \(tapToKey) s after the answer was posted")
        let subscribes = ntfy.subscribes()
        #expect(subscribes.count == 1, "one stream, not a poll: \(subscribes)")
        #expect(subscribes.allSatisfy { !($0["query"]?.stringValue ?? "").contains("poll") }, "\(subscribes)")

        // kill -9, then a new listener: it asks from the answer's message on, and presses nothing again.
        first.stop()
        let position = try #require(try FileSystem.readString(AnswerListener.positionFile(Paths(environment: lab.environment))))
        let id = try #require(try JSON.parse(position).objectValue?.entries.first?.value.stringValue)
        #expect(id.count == 12, "\(position)")
        let second = try Self.listener(lab)
        defer { second.stop() }
        #expect(eventually(timeout: 15) { ntfy.subscribes().count == 2 }, "\(ntfy.subscribes())")
        #expect(ntfy.subscribes().last?["query"]?.stringValue == "since=" + id)
        #expect(try lab.receivedBeforeSentinel(agent) == Array("2".utf8), "the answer was pressed twice")
    }

    /// A server that takes the stream and closes it at once, every time: each try counts as a failure,
    /// so the tries come 1, 2, 4 s apart, never in a loop. Over http and https alike.
    @Test(arguments: [false, true]) func aServerThatClosesEveryStreamAtOnceIsRetriedWithGrowingWaits(tls: Bool) throws {
        let scratch = try TemporaryDirectory("ntfy-close")
        let ca = tls ? try TestCA(directory: scratch.path) : nil
        let ntfy = try NtfyStandIn(directory: scratch.path, tls: ca)
        try FileSystem.writeAtomically(ntfy.logFile + ".close", text: "", sync: false)
        let lab = try Self.lab(ntfy, environment: ca.map { ["CURL_CA_BUNDLE": $0.ca] } ?? [:])
        // An answer is open (as a push with buttons leaves it): the listener follows the reply topic.
        let paths = Paths(environment: lab.environment)
        try FileSystem.makeDirectories(paths.stateDirectory)
        AnswerListener.open(until: Int(WallClock.nowEpoch()) + 600, paths: paths)
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        let log = { lab.home.read(".local/state/hookctl/listener.log") ?? "" }
        #expect(eventually(timeout: 20) { log().contains("next try in 4 s") }, "\(log())")
        // Tries at 0, 1 and 3 s; the next one only at 7 s.
        let tries = ntfy.subscribes().count
        sleepSeconds(2)
        #expect(tries == 3 && ntfy.subscribes().count == 3, "\(tries) then \(ntfy.subscribes().count) subscribes")
        let waits = log().split(separator: "\n").filter { $0.contains("next try in") }
        #expect(waits.map { $0.split(separator: " ").suffix(2).first.map(String.init) ?? "" } == ["1", "2", "4"], "\(waits)")
        if tls { #expect(waits.allSatisfy { $0.contains("(the server ended the stream)") }, "\(waits)") }
        #expect(!log().contains(Self.replyTopic), "the reply topic is a secret")
    }

    /// The same question asked again: answered at the keyboard (the board leaves needs_input), the agent
    /// asks the very same text again. The first push's button is for the first asking: refused, nothing
    /// typed; the second push's works.
    @Test func anEarlierPushsButtonIsRefusedWhenTheSameQuestionIsAskedAgain() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let (ntfy, lab, agent, before) = try Self.pushedQuestion(session: "again", extra: ["--ask-again"])
        // At the keyboard: 1 (Postgres); the tool ends, the same question comes again.
        #expect(try lab.tmux(["send-keys", "-t", agent.pane, "-l", "1"]).status == 0)
        #expect(eventually(timeout: 15) { FileSystem.exists(agent.record + ".asked") })
        let kinds = lab.home.loggedEvents().filter { $0["session_id"]?.stringValue == "again" }.compactMap { $0["kind"]?.stringValue }
        #expect(kinds == ["needs_input", "working", "needs_input"], "\(kinds)")
        let after = try Self.push(lab, ntfy, count: 2)
        #expect(after.map { $0["label"]?.stringValue ?? "" } == before.map { $0["label"]?.stringValue ?? "" })
        let listener = try Self.listener(lab)
        defer { listener.stop() }
        let url = ntfy.baseURL + "/" + Self.replyTopic
        ntfy.post(url, body: try #require(before[1]["body"]?.stringValue))
        let refused = Self.refusals(lab, atLeast: 1)
        #expect(refused == ["not answered: the question was asked again since that push (answer the newer one)"], "\(refused)")
        #expect(try lab.receivedBeforeSentinel(agent) == Array("1".utf8), "the earlier push's button typed into the pane")
        #expect(try lab.board()["claude:again"]?["state"]?.stringValue == "needs_input")
        ntfy.post(url, body: try #require(after[1]["body"]?.stringValue))
        #expect(lab.received(agent.record, atLeast: 3, timeout: 20) == Array("1~2".utf8))
    }
}
