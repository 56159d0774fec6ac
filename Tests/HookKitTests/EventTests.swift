import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookAgents
@testable import HookCLI

@Suite struct EventTests {
    func event(_ payload: String, agent: String? = nil, tmux: TmuxLocation? = nil) throws -> Event {
        PayloadParser.event(payload: try JSON.parse(payload), overrides: EventOverrides(agent: agent), host: "box",
                            tmux: tmux, fallbackCWD: "/fallback")
    }

    static let payloadCases: [(String, String, EventKind, String?)] = [
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}"#, "claude", EventKind.needsInput, "permission_prompt"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"Notification","message":"Claude is waiting for your input"}"#, "claude", .needsInput, nil),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"Notification","message":"ok","notification_type":"auth_success"}"#, "claude", .info, "auth_success"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}"#, "claude", .done, nil),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"StopFailure","error":"rate_limit","error_details":"slow down"}"#, "claude", .failed, "rate_limit"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"StopFailure","error_type":"overloaded","error_message":"busy"}"#, "claude", .failed, "overloaded"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"SessionStart","source":"startup"}"#, "claude", .started, "startup"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"fix it"}"#, "claude", .working, nil),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}"#, "claude", .ended, "prompt_input_exit"),
        (#"{"type":"agent-turn-complete","thread-id":"t","turn-id":"12","cwd":"/p","last-assistant-message":"ok"}"#, "codex", .done, "12"),
        (#"{"session_id":"s","turn_id":"7","cwd":"/p","hook_event_name":"Stop","model":"m","last_assistant_message":"ok"}"#, "codex", .done, "7"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"AfterAgent","timestamp":"2026-08-21T16:16:56.000Z","prompt":"x","prompt_response":"Done."}"#, "gemini", .done, nil),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"Notification","timestamp":"2026-08-21T16:16:56.000Z","notification_type":"ToolPermission","message":"Allow?"}"#, "claude", .needsInput, "ToolPermission"),
        (#"{"session_id":"s","cwd":"/p","hook_event_name":"BeforeAgent","timestamp":"t","prompt":"go"}"#, "gemini", .working, nil),
        (#"{"something":"else"}"#, "unknown", .info, nil),
    ]

    @Test(arguments: payloadCases)
    func payloadsBecomeEvents(payload: String, agent: String, kind: EventKind, detail: String?) throws {
        let made = try event(payload)
        #expect(made.agent == agent)
        #expect(made.kind == kind)
        #expect(made.detail == detail)
        #expect(made.host == "box")
    }

    @Test func titlesAndMessagesAreUseful() throws {
        let stop = try event(###"{"session_id":"s","cwd":"/home/u/api","hook_event_name":"Stop","last_assistant_message":"## Done\n**All** tests pass in `my_file.py`."}"###,
                             agent: "claude", tmux: TmuxLocation(session: "sshido-9B95BD2A", pane: "%3"))
        #expect(stop.title == "Claude Code finished · api")
        #expect(stop.message == "Done\nAll tests pass in my_file.py.")
        #expect(stop.markdown == "## Done\n**All** tests pass in `my_file.py`.")
        #expect(stop.priority == .normal)
        let failure = try event(#"{"hook_event_name":"StopFailure","error":"billing_error","cwd":"/w/x"}"#, agent: "claude")
        #expect(failure.title == "Claude Code failed (billing_error) · x")
        #expect(failure.priority == .high)
        #expect(failure.message == "The turn ended with an error: billing_error")
    }

    @Test func overridesWin() throws {
        let made = PayloadParser.event(payload: nil, overrides: EventOverrides(agent: "aider", event: "needs_input", title: "T",
                                                                               message: "M", priority: .low),
                                       host: "h", tmux: nil, fallbackCWD: "/x")
        #expect(made.kind == .needsInput)
        #expect(made.title == "T")
        #expect(made.message == "M")
        #expect(made.priority == .low)
        #expect(made.agent == "aider")
    }

    @Test func salvageReadsCutOffPayloads() throws {
        let cut = Array(#"{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"partial answ"#.utf8)
        let object = try #require(PayloadParser.salvage(cut))
        #expect(object["hook_event_name"]?.stringValue == "Stop")
        #expect(object["last_assistant_message"]?.stringValue == "partial answ")
        #expect(PayloadParser.salvage(Array("garbage".utf8)) == nil)
    }

    @Test func eventJSONRoundTrips() throws {
        var original = try event(#"{"session_id":"s","cwd":"/p","hook_event_name":"Stop","last_assistant_message":"ok"}"#,
                                 agent: "claude", tmux: TmuxLocation(session: "a b", sessionID: "$1", window: "0", pane: "%1", socket: "/tmp/s"))
        original.seq = 42
        let copy = try Event(json: try JSON.parse(JSON.serialize(original.json)))
        #expect(copy.id == original.id)
        #expect(copy.seq == 42)
        #expect(copy.tmux == original.tmux)
        #expect(copy.kind == .done)
        #expect(abs(copy.time - original.time) < 0.001)
    }

    @Test(arguments: [
        ("**bold** and __strong__ and *it* and _em_", "bold and strong and it and em"),
        ("keep snake_case_names and my_file_name.py", "keep snake_case_names and my_file_name.py"),
        ("# Title ##", "Title"),
        ("> quoted\n>> deeper", "quoted\ndeeper"),
        ("- item\n* other\n- [ ] todo\n- [x] done", "• item\n• other\n☐ todo\n☑ done"),
        ("see [the docs](https://x.io/d) and <https://y.io>", "see the docs (https://x.io/d) and https://y.io"),
        ("![logo](https://x/l.png) text", "logo text"),
        ("```swift\nlet x = **1**\n```\nafter", "let x = **1**\nafter"),
        ("use `**raw**` here", "use **raw** here"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "a | b\n1 | 2"),
        ("a &amp; b &lt;c&gt;<br>next", "a & b <c>\nnext"),
        ("one\n\n\n\ntwo", "one\n\ntwo"),
        ("\\*not emphasis\\*", "*not emphasis*"),
        ("~~gone~~ kept", "gone kept"),
        ("2 * 3 * 4", "2 * 3 * 4"),
        ("Title\n=====\ntext\n\n---\nmore", "Title\ntext\n\n—\nmore"),
        // Words intact: only real HTML tags are markup (CommonMark raw HTML and a known tag name).
        ("Use Vec<String> and Map<K, V>", "Use Vec<String> and Map<K, V>"),
        ("Result<T, E> and a<b && c>d", "Result<T, E> and a<b && c>d"),
        ("<String> starts the line", "<String> starts the line"),
        ("Option<Box<dyn Error>> <b>bold</b><!-- note -->", "Option<Box<dyn Error>> bold"),
        ("<details>\n<summary>More</summary>\nhidden\n</details>", "More\nhidden"),
    ])
    func markdownBecomesPlainText(input: String, expected: String) {
        #expect(Markdown.plainText(input) == expected)
    }

    @Test func templatesFillKnownNames() {
        #expect(renderTemplate("{Agent} in {session}: {missing} {{x}}", values: ["Agent": "Codex", "session": "s1"])
                == "Codex in s1: {missing} {x}")
    }
}
