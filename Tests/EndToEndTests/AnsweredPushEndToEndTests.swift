import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
import TestSupport

/// Replace once answered (`AnsweredPushes`), end to end: a question pushed to ntfy, Telegram and Pushover
/// (emergency), then the session moves on; the follow-up waits in the outbox (the hook sends none of it)
/// and the sender's flush updates each push its own way, once: ntfy publishes under the same sequence id,
/// Telegram edits the message it sent (by the message_id its sendMessage answered), Pushover cancels the
/// emergency push by its tag.
@Suite(.onTestThreads) struct AnsweredPushEndToEndTests {
    @Test func aQuestionLeftIsUpdatedOnceInEachSinkThatCan() throws {
        let home = try TemporaryHome()
        let ntfy = try Self.ntfyStandIn(home)
        let telegram = try Receiver(directory: home.path, responses: ["200"], extraArguments: ["--body", #"{"ok":true,"result":{"message_id":7}}"#])
        let pushover = try PushoverEndToEndTests.StandIn(directory: home.path, key: nil)
        let relay = try Receiver(directory: home.path, responses: ["204"])
        let config = try home.writeConfigFile("""
            version: 1
            sinks:
              \(Self.ntfySink(ntfy))
              - name: phone-telegram
                type: telegram
                token: "123:AAanswered-token"
                chat_id: 42
                api_url: \(telegram.baseURL)
              \(Self.emergencyPushover("phone-pushover", pushover))
              - name: relay
                type: relay
                url: \(relay.baseURL)/n/0123456789abcdef0123456789abcdef

            """)
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        func notify(_ kind: String, _ message: String) throws -> Subprocess.Result {
            let payload = JSON.serialize(.object(JSONObject([
                ("session_id", .string("7d1c2b3a-0000-4c1e-9d7a-0123456789ab")), ("cwd", .string("/home/me/app")),
                ("hook_event_name", .string(kind == "needs_input" ? "Notification" : "UserPromptSubmit")), ("message", .string(message)),
            ])))
            return try hookctl(["notify", "--force", "--strict", "--config", config, "--agent", "claude", "--event", kind,
                                "--message", message, "--budget", "6s"], environment: environment, input: payload)
        }
        let asked = try notify("needs_input", "Approve `rm -rf build/`?")
        #expect(asked.status == 0, "\(asked.stderr)")
        let question = try #require(pushover.waitForRequests(1).first)
        let tag = try #require(question["fields"]?["tags"]?.stringValue)
        #expect(tag.hasPrefix("q-") && tag.utf8.count <= 64)
        let firstNtfy = try #require(try ntfy.waitForBodies(1).first)
        #expect(telegram.waitForRequests(1).count == 1 && relay.waitForRequests(1).count == 1)

        // The session moves on (the prompt answered at the keyboard): the hook only queues the follow-up.
        let answered = try notify("working", "go on")
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(ntfy.requests().count == 1 && telegram.requests().count == 1 && pushover.requests().count == 1)
        let listed = try hookctl(["outbox", "list", "--config", config], environment: environment)
        #expect(listed.stdout.contains("phone-telegram") && !listed.stdout.contains("relay "), "\(listed.stdout)")

        var flushed = ""
        for _ in 0..<2 {
            let flush = try hookctl(["outbox", "flush", "--config", config], environment: environment)
            #expect(flush.status == 0, "\(flush.stdout) \(flush.stderr)")
            flushed += flush.stdout + flush.stderr
        }
        let ntfyBodies = try ntfy.waitForBodies(2)
        try #require(ntfyBodies.count == 2, "\(flushed) \(ntfyBodies)")
        #expect(ntfyBodies[1]["sequence_id"] == firstNtfy["sequence_id"] && firstNtfy["sequence_id"] != nil)
        #expect(ntfyBodies[1]["message"]?.stringValue == "answered")
        let edits = telegram.waitForRequests(2)
        try #require(edits.count == 2)
        #expect(edits[1]["path"]?.stringValue == "/bot123:AAanswered-token/editMessageText")
        let edit = try JSON.parse(try #require(edits[1]["body"]?.stringValue))
        #expect(edit["message_id"]?.intValue == 7 && edit["chat_id"] == .number("42"))
        #expect(edit["text"]?.stringValue?.contains("answered") == true)
        let cancels = pushover.waitForRequests(2)
        try #require(cancels.count == 2)
        #expect(cancels[1]["path"]?.stringValue == "/1/receipts/cancel_by_tag/\(tag).json")
        #expect(cancels[1]["problems"]?.arrayValue?.isEmpty == true)
        // Once each, and nothing to the relay, whose contract has no replace id.
        home.waitUntilQuiet()  // nothing more is sent once no hookctl of this HOME runs
        #expect(ntfy.requests().count == 2 && telegram.requests().count == 2 && pushover.requests().count == 2)
        #expect(relay.requests().count == 1)
        #expect(try hookctl(["outbox", "list", "--config", config], environment: environment).stdout.contains("phone-") == false)
    }

    /// A hook's payload from a session whose id, directory and question hold control characters and escape
    /// sequences (raw, and as character references that the Markdown reading turns into ESC and BEL).
    static func hostileHook(_ kind: String, _ message: String, config: String, environment: [String: String],
                            fault: String? = nil) throws -> Subprocess.Result {
        let payload = JSON.serialize(.object(JSONObject([
            ("session_id", .string("7d1c\u{1B}[2J-\u{9B}31m-4c1e\u{7}")), ("cwd", .string("/home/me/\u{1B}]0;pwned\u{7}app\u{202E}")),
            ("hook_event_name", .string(kind == "needs_input" ? "Notification" : "UserPromptSubmit")), ("message", .string(message)),
        ])))
        return try hookctl(["notify", "--force", "--strict", "--config", config, "--agent", "claude", "--event", kind, "--budget", "6s"],
                           environment: fault.map { environment.merging(["HOOKCTL_FAULT": $0]) { $1 } } ?? environment, input: payload)
    }

    /// An ntfy stand-in answering each publish with the message id `m1`.
    static func ntfyStandIn(_ home: TemporaryHome) throws -> Receiver {
        try Receiver(directory: home.path, responses: ["200"], extraArguments: ["--body", #"{"id":"m1","event":"message"}"#])
    }

    /// The ntfy sink entry under `sinks:` (`phone-ntfy`), publishing to `agents-topic` on `ntfy`.
    static func ntfySink(_ ntfy: Receiver) -> String {
        """
        - name: phone-ntfy
            type: ntfy
            url: \(ntfy.baseURL)/agents-topic
        """
    }

    /// A Pushover sink entry under `sinks:` (no end-to-end key) pushing questions as emergencies.
    static func emergencyPushover(_ name: String, _ standIn: PushoverEndToEndTests.StandIn) -> String {
        """
        - name: \(name)
            type: pushover
            token: \(PushoverEndToEndTests.token)
            user: \(PushoverEndToEndTests.user)
            api_url: \(standIn.baseURL)
            priority: {needs_input: emergency}
        """
    }

    /// The Pushover tag is the question's replace id as the board knows it (from the event as recorded), not
    /// from the cleaned text the sink sees: a question holding escapes is cancelled by the tag it was pushed with.
    @Test func aQuestionHoldingEscapesIsCancelledByTheTagItWasPushedWith() throws {
        let home = try TemporaryHome()
        let pushover = try PushoverEndToEndTests.StandIn(directory: home.path, key: nil)
        let config = try home.writeConfigFile("""
            version: 1
            sinks:
              \(Self.emergencyPushover("phone", pushover))

            """)
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        let question = "Approve &#27;[31mrm -rf&#27;[0m \u{1B}[1mbuild/\u{1B}[0m? &#x1b;]52;c;cm0gLXJmIH4=&#7; \u{9D}8;;http://evil\u{9C}x \u{202E}txt.exe"
        let asked = try Self.hostileHook("needs_input", question, config: config, environment: environment)
        #expect(asked.status == 0, "\(asked.stderr)")
        let push = try #require(pushover.waitForRequests(1).first)
        let tag = try #require(push["fields"]?["tags"]?.stringValue)
        let message = try #require(push["fields"]?["message"]?.stringValue)
        #expect(!message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) || $0.value == 0x202E },
                "\(message.debugDescription)")
        #expect(push["problems"]?.arrayValue?.isEmpty == true, "\(push)")
        // The recorded event keeps the session id and directory the agent sent (the log is the record; the board's
        // key is made of them), and its message no control, not even one a character reference named.
        let recorded = try Event(json: try #require(home.loggedEvents().last))
        #expect(recorded.sessionID?.contains("\u{1B}") == true && recorded.cwd?.contains("\u{7}") == true)
        #expect(!recorded.message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(recorded.message.debugDescription)")
        // The id is the recorded event's, carried by the cleaned copy sinks see; the cleaned text would hash to another.
        #expect(AnsweredPushes.replaceID(of: recorded) == tag && recorded.outgoing.replaceID == tag)
        #expect(AnsweredPushes.replaceID(of: recorded.outgoing) != tag)

        let answered = try Self.hostileHook("working", "go on", config: config, environment: environment)
        #expect(answered.status == 0, "\(answered.stderr)")
        let flush = try hookctl(["outbox", "flush", "--config", config], environment: environment)
        #expect(flush.status == 0, "\(flush.stdout) \(flush.stderr)")
        let requests = pushover.waitForRequests(2)
        try #require(requests.count == 2, "\(flush.stdout) \(flush.stderr)")
        #expect(requests[1]["path"]?.stringValue == "/1/receipts/cancel_by_tag/\(tag).json")
    }

    /// Two hooks racing on one transition: the first queued the follow-up and was still to log its event
    /// (here it is killed right there, `HOOKCTL_FAULT=committed`, so the board keeps showing the question)
    /// when the second read the board. Both make the same follow-up; only the first queues it, so each sink
    /// is updated once. The same question pushed again later is a new push and gets its own update.
    @Test func hooksRacingOnOneTransitionQueueOneFollowUp() throws {
        let home = try TemporaryHome()
        let ntfy = try Self.ntfyStandIn(home)
        let pushover = try PushoverEndToEndTests.StandIn(directory: home.path, key: nil)
        let config = try home.writeConfigFile("""
            version: 1
            sinks:
              \(Self.ntfySink(ntfy))
              \(Self.emergencyPushover("phone-pushover", pushover))

            """)
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        func followUps() throws -> [OutboxEntry] {
            let outbox = home.file(".local/state/hookctl/outbox")
            return try FileSystem.list(outbox).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap { name in
                let entry = try OutboxEntry(json: JSON.parse(try #require(try FileSystem.read(outbox + "/" + name))), fileName: name)
                return AnsweredPushes.answeredID(of: entry.event) == nil ? nil : entry
            }
        }
        func flush() throws {
            let flushed = try hookctl(["outbox", "flush", "--config", config], environment: environment)
            #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        }

        #expect(try Self.hostileHook("needs_input", "Approve `make clean`?", config: config, environment: environment).status == 0)
        #expect(ntfy.waitForRequests(1).count == 1 && pushover.waitForRequests(1).count == 1)
        let tag = try #require(pushover.requests().first?["fields"]?["tags"]?.stringValue)

        let first = try Self.hostileHook("working", "go on", config: config, environment: environment, fault: "committed")
        #expect(first.status == .signalled(SIGKILL), "\(first.status) \(first.stderr)")
        let queued = try followUps()
        #expect(Set(queued.map(\.sink)) == ["phone-ntfy", "phone-pushover"] && queued.count == 2, "\(queued.map(\.fileName))")
        let second = try Self.hostileHook("working", "go on", config: config, environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try followUps().map(\.fileName).sorted() == queued.map(\.fileName).sorted(), "the second hook queued another follow-up")

        try flush()
        try flush()
        #expect(ntfy.waitForRequests(2).count == 2 && pushover.waitForRequests(2).count == 2)
        home.waitUntilQuiet()  // nothing more is sent once no hookctl of this HOME runs
        #expect(ntfy.requests().count == 2 && pushover.requests().count == 2, "\(pushover.requests())")
        #expect(pushover.requests().last?["path"]?.stringValue == "/1/receipts/cancel_by_tag/\(tag).json")

        // The same question again, pushed and then answered: updated again (a claim is per push, not per text).
        #expect(try Self.hostileHook("needs_input", "Approve `make clean`?", config: config, environment: environment).status == 0)
        #expect(pushover.waitForRequests(3).count == 3)
        #expect(try Self.hostileHook("working", "go on", config: config, environment: environment).status == 0)
        #expect(try followUps().count == 2)
        try flush()
        let all = pushover.waitForRequests(4)
        #expect(all.count == 4 && all.last?["path"]?.stringValue == "/1/receipts/cancel_by_tag/\(tag).json", "\(all)")
        #expect(ntfy.waitForRequests(4).count == 4)
    }

    @Test func theFollowUpNamesTheOptionPressedAndOnlyALeftQuestionHasOne() throws {
        var question = Event(agent: "claude", kind: .needsInput, agentEvent: "Notification", title: "Claude Code needs input",
                             message: "Approve?", host: "h", sessionID: "s1")
        var entry = BoardEntry(key: BoardState.key(for: question), agent: "claude", sessionID: "s1", state: .needsInput, since: 0,
                               updatedAt: 0, firstSeen: 0, lastSeq: 1, kind: .needsInput, agentEvent: "Notification",
                               title: "Claude Code needs input", message: "Approve?", host: "h")
        entry.lastPush = PushPolicy.fingerprint(question)
        var reply = Event(agent: "claude", kind: .working, agentEvent: "push_reply", title: "answered", message: "Answered: Yes",
                          host: "h", sessionID: "s1")
        reply.answer = EventAnswer(channel: "ntfy", option: "Yes")
        let followUp = try #require(AnsweredPushes.followUp(after: reply, previous: entry, option: reply.answer?.option))
        #expect(followUp.message == "answered: Yes")
        // The same id the question push carried (its tag, its receipt's name).
        #expect(AnsweredPushes.answeredID(of: followUp) == AnsweredPushes.replaceID(of: question))
        #expect(AnsweredPushes.followUp(after: Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "", message: "",
                                                     host: "h", sessionID: "s1"), previous: entry)?.message == "answered")
        // Still asking, a key that only moved, another session, or a question never pushed: no follow-up.
        question.message = "Another?"
        #expect(AnsweredPushes.followUp(after: question, previous: entry) == nil)
        #expect(AnsweredPushes.followUp(after: Event(agent: "claude", kind: .info, agentEvent: "reply", title: "", message: "",
                                                     host: "h", sessionID: "s1"), previous: entry) == nil)
        #expect(AnsweredPushes.followUp(after: Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "", message: "",
                                                     host: "h", sessionID: "s2"), previous: entry) == nil)
        entry.lastPush = "done:1234"
        #expect(AnsweredPushes.followUp(after: reply, previous: entry) == nil)
    }
}
