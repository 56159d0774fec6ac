import Testing
@testable import HookSupport
@testable import HookAgents
import TestSupport

/// Answering dialogs: one push per dialog, multi-select answers submitted, free text in one
/// reply, the reply's identity, and an agent whose prompt keys are not known. The built binary, a
/// loopback relay, and stand-in agents (Tests/Fixtures/standin_agent.py) on a private tmux server.
@Suite(.onTestThreads) struct AnswerDialogEndToEndTests {
    static var haveTmux: Bool { FileSystem.isExecutable(AnswerLab.tmux) }

    static func payload(_ fields: [(String, JSONValue)]) -> String { JSON.serialize(.object(JSONObject(fields))) }

    static func ask(_ event: String, session: String, question: String, options: [String]) -> String {
        payload([("hook_event_name", .string(event)), ("session_id", .string(session)), ("cwd", .string("/home/u/api")),
                 ("tool_name", .string("AskUserQuestion")),
                 ("tool_input", .object(JSONObject([("questions", .array([.object(JSONObject([
                     ("question", .string(question)), ("header", .string("Q")), ("multiSelect", .bool(false)),
                     ("options", .array(options.map { .object(JSONObject([("label", .string($0))])) })),
                 ]))]))])))])
    }

    static func permission(session: String, command: String) -> String {
        payload([("hook_event_name", .string("PermissionRequest")), ("session_id", .string(session)), ("cwd", .string("/home/u/api")),
                 ("tool_name", .string("Bash")), ("tool_input", .object(JSONObject([("command", .string(command))])))])
    }

    static func notice(session: String) -> String {
        payload([("hook_event_name", .string("Notification")), ("session_id", .string(session)), ("cwd", .string("/home/u/api")),
                 ("notification_type", .string("permission_prompt")), ("message", .string("Claude needs your permission to use Bash"))])
    }

    static func answered(session: String) -> String {
        payload([("hook_event_name", .string("PostToolUse")), ("session_id", .string(session)), ("cwd", .string("/home/u/api")),
                 ("tool_name", .string("AskUserQuestion")), ("tool_input", .object(JSONObject()))])
    }

    @Test func oneDialogGivesOnePushAndANewQuestionStillPushes() throws {
        let (home, receiver) = try TemporaryHome.withRelay()
        let environment = home.hookEnvironment()
        let steps: [(String, String?)] = [
            // One AskUserQuestion: PreToolUse, then PermissionRequest, then the prompt notice.
            (Self.ask("PreToolUse", session: "s-1", question: "Which database?", options: ["Postgres", "SQLite"]), nil),
            (Self.ask("PermissionRequest", session: "s-1", question: "Which database?", options: ["Postgres", "SQLite"]), "same_question"),
            (Self.notice(session: "s-1"), "same_question"),
            // Another session's dialog is its own.
            (Self.notice(session: "s-2"), nil),
            // Answered; a different question pushes.
            (Self.answered(session: "s-1"), nil),
            (Self.ask("PreToolUse", session: "s-1", question: "Which port?", options: ["8080", "9090"]), nil),
            (Self.answered(session: "s-1"), nil),
            // One permission dialog: PermissionRequest, then Notification.
            (Self.permission(session: "s-1", command: "npm test"), nil),
            (Self.notice(session: "s-1"), "same_question"),
            // Answered in the terminal (no hook says so): the next dialog asks something else and pushes.
            (Self.permission(session: "s-1", command: "rm -rf dist"), nil),
            (Self.notice(session: "s-1"), "same_question"),
        ]
        for (input, _) in steps {
            let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: input)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let logged = home.loggedEvents()
        try #require(logged.count == steps.count)
        #expect(logged.map { $0["quiet"]?.stringValue } == steps.map(\.1))
        let pushes = try receiver.waitForBodies(5)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 5)
        let bodies = pushes.compactMap { $0["body"]?.stringValue }
        #expect(bodies.contains { $0.contains("Which port?") })
        #expect(bodies.contains { $0.contains("rm -rf dist") })
        // The board kept the full question through the notice that said less.
        let status = try JSON.parse(try hookctl(["status", "--json"], environment: environment).stdout)
        let entry = status["agents"]?.arrayValue?.first { $0["key"]?.stringValue == "claude:s-1" }
        #expect(entry?["state"]?.stringValue == "needs_input")
        #expect(entry?["question"]?["text"]?.stringValue == "Allow Bash: rm -rf dist?")
    }

    @Test func multiSelectAnswersAreToggledThenSubmitted() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "multi", extra: ["--multi"])
        #expect(try lab.board()["claude:multi"]?["question"]?["multi_select"]?.boolValue == true)
        let result = try lab.hookctl(["reply", "multi", "--choice", "1", "--choice", "MySQL", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        // Two digits toggle; the cursor is walked down to Submit (checked on the pane), then Enter.
        let expected = Array("13\u{1B}[B\u{1B}[B\u{1B}[B\r".utf8)
        #expect(lab.received(agent.record, atLeast: expected.count) == expected)
        #expect(lab.home.read("record-multi.answers") == "Submitted: Postgres (Recommended), MySQL\n")
        let reply = try JSON.parse(result.stdout)
        #expect(reply["submit"]?["row"]?.stringValue == "Submit")
        #expect(reply["submit"]?["confirmed"]?.boolValue == true)
        #expect(reply["choice"]?.arrayValue?.map { $0["label"]?.stringValue ?? "" } == ["Postgres (Recommended)", "MySQL"])
        #expect(reply["prompt_keys_known"]?.boolValue == true)
        let board = try lab.board()
        #expect(board["claude:multi"]?["state"]?.stringValue == "working")
        #expect(board["claude:multi"]?["message"]?.stringValue == "Answered: 1. Postgres (Recommended), 3. MySQL")
    }

    @Test func otherTakesItsTextInTheSameReply() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "other", extra: ["--other"])
        let wrong = try lab.hookctl(["reply", "other", "--choice", "SQLite", "some text"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("only for the free-text option (Type something., Other)"), "\(wrong.stderr)")
        #expect(lab.received(agent.record, timeout: 0.2).isEmpty)

        let text = "use DuckDB ; kill-server \\; C-c #{pane_id}"
        let result = try lab.hookctl(["reply", "other", "--choice", "Other", text, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = Array("4\u{1B}[200~".utf8) + Array(text.utf8) + Array("\u{1B}[201~\r".utf8)
        #expect(lab.received(agent.record, atLeast: expected.count) == expected)
        #expect(lab.home.read("record-other.answers") == "Other: \(text)\n")
        #expect(try lab.tmux(["list-sessions"]).status == 0)
        let reply = try JSON.parse(result.stdout)
        #expect(reply["choice"]?.arrayValue?.first?["label"]?.stringValue == "Other")
        #expect(reply["enter"]?["sent"]?.boolValue == true)
        #expect(reply["text_bytes"]?.intValue == text.utf8.count)
        #expect(try lab.board()["claude:other"]?["state"]?.stringValue == "working")
    }

    @Test func theReplyEventCarriesTheAgentsProjectAndWindow() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        try lab.home.write("src/api/.git/HEAD", "ref: refs/heads/feature-x\n")
        _ = try lab.start(session: "where", directory: lab.home.file("src/api"))
        #expect(try lab.hookctl(["reply", "where", "--choice", "SQLite"]).status == 0)
        let logged = lab.home.loggedEvents()
        let hook = try #require(logged.first { $0["agent_event"]?.stringValue == "PreToolUse" })
        let reply = try #require(logged.first { $0["agent_event"]?.stringValue == "reply" })
        #expect(hook["project"]?.stringValue == "api")
        for field in ["project", "repo", "branch"] { #expect(reply[field] == hook[field], "\(field)") }
        #expect(reply["branch"]?.stringValue == "feature-x")
        #expect(reply["tmux"]?["window"] != nil && reply["tmux"]?["window"] == hook["tmux"]?["window"])
        #expect(reply["tmux"]?["pane"] == hook["tmux"]?["pane"])
    }

    @Test func anAgentWhosePromptKeysAreNotKnownIsAnsweredWithCheckedArrows() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "g-1", extra: ["--agent", "grok", "--payload", "permission",
                                                          "--question", "Allow Shell: rm -rf dist?", "--options", "Yes|Yes, always|No"])
        #expect(try lab.board()["grok:g-1"]?["state"]?.stringValue == "needs_input")
        let result = try lab.hookctl(["reply", "grok:g-1", "--choice", "No", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Grok Build's prompt keys are not known"), "\(result.stderr)")
        // No digit: Down twice, each seen on the pane, then Enter on the row that says No.
        let expected = Array("\u{1B}[B\u{1B}[B\r".utf8)
        #expect(lab.received(agent.record, atLeast: expected.count) == expected)
        #expect(lab.home.read("record-g-1.answers") == "Selected: No\n")
        let reply = try JSON.parse(result.stdout)
        #expect(reply["prompt_keys_known"]?.boolValue == false)
        #expect(reply["warnings"]?.arrayValue?.contains { $0.stringValue?.contains("prompt keys are not known") == true } == true)
        #expect(reply["choice"]?.arrayValue?.first?["pressed"] == .array([.string("Down"), .string("Down"), .string("Enter")]))

        // Text is pasted and submitted with the conservative pause.
        try FileSystem.writeAtomically(agent.record, text: "", sync: false)
        let text = try lab.hookctl(["reply", "g-1", "hello"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(lab.received(agent.record, atLeast: 18) == Array("\u{1B}[200~hello\u{1B}[201~\r".utf8))
    }
}
