import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents
import TestSupport
import Glibc

@Suite struct QuestionTests {
    static func event(_ payload: String, agent: String? = nil) throws -> Event {
        PayloadParser.event(payload: try JSON.parse(payload), overrides: EventOverrides(agent: agent), host: "h",
                            tmux: nil, fallbackCWD: nil)
    }

    @Test func claudeAskUserQuestionBecomesAQuestionAndAWait() throws {
        let event = try Self.event(#"""
        {"hook_event_name":"PreToolUse","session_id":"s","tool_name":"AskUserQuestion","tool_input":{"questions":[
          {"question":"Which database?","header":"DB","multiSelect":false,"options":[
            {"label":"Postgres (Recommended)","description":"solid"},{"label":"SQLite","description":"small"}]},
          {"question":"Which port?","header":"Port","options":[{"label":"5432"}]}]}}
        """#)
        #expect(event.kind == .needsInput)
        #expect(event.detail == "AskUserQuestion")
        let question = try #require(event.question)
        #expect(question.text == "Which database?")
        #expect(question.header == "DB")
        #expect(question.options == [.init(n: 1, label: "Postgres (Recommended)", description: "solid"), .init(n: 2, label: "SQLite", description: "small")])
        #expect(question.count == 2)
        #expect(event.message.contains("Which database? (1 of 2 questions)"))
        #expect(event.message.contains("2. SQLite - small"))
        #expect(Question(json: question.json) == question)
        // Events keep it through the log.
        #expect(try Event(json: event.json).question == question)
    }

    @Test func permissionRequestsAndPromptsSayWhatIsAsked() throws {
        let bash = try Self.event(#"{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash","tool_input":{"command":"npm test","description":"run tests"},"permission_suggestions":[{"type":"addRules"}]}"#)
        #expect(bash.kind == .needsInput)
        #expect(bash.question?.text == "Allow Bash: npm test (run tests)?")
        // The payload does not list the dialog's rows (2.1.332 draws four for this call): the two every
        // permission dialog has, without numbers, so no number in a push means another row on the screen.
        #expect(bash.question?.options.map(\.label) == ["Yes", "No"])
        #expect(bash.question?.options.allSatisfy { $0.n == nil } == true)
        #expect(!bash.message.contains("1.") && bash.message.contains("• Yes") && bash.message.contains("more choices on the screen"))
        let plain = try Self.event(#"{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Edit","tool_input":{"file_path":"/a.swift"}}"#)
        #expect(plain.question?.options.map(\.label) == ["Yes", "No"])
        let codex = try Self.event(#"{"hook_event_name":"PermissionRequest","turn_id":"t","session_id":"s","tool_name":"Bash","tool_input":{"command":"curl x"}}"#)
        #expect(codex.agent == "codex")
        // Codex 0.163.0 draws its dialog only after the hook returned (docs/agents.md): the hook cannot read
        // its rows, so the two every such dialog has, unnumbered, as for Claude Code.
        #expect(codex.question?.options.map(\.label) == ["Yes", "No"])
        #expect(codex.question?.options.allSatisfy { $0.n == nil } == true)
        let prompt = try Self.event(#"{"hook_event_name":"Notification","session_id":"s","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}"#)
        #expect(prompt.question?.text == "Claude needs your permission to use Bash")
        #expect(prompt.message == "Claude needs your permission to use Bash")
        let idle = try Self.event(#"{"hook_event_name":"Notification","session_id":"s","notification_type":"idle_prompt","message":"waiting"}"#)
        #expect(idle.kind == .needsInput)
        #expect(idle.question == nil)
        // After the answer, the question tool's PostToolUse is work again.
        let answered = try Self.event(#"{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"AskUserQuestion","tool_input":{}}"#)
        #expect(answered.kind == .working)
        #expect(answered.question == nil)
    }

    @Test func geminiAskUserThroughBeforeTool() throws {
        let event = try Self.event(#"""
        {"hook_event_name":"BeforeTool","session_id":"g","tool_name":"ask_user","tool_input":{"questions":[
          {"question":"Pick the frameworks","header":"FW","type":"choice","multiSelect":true,"options":[{"label":"React"},{"label":"Vue"}]}]}}
        """#)
        #expect(event.agent == "gemini")
        #expect(event.kind == .needsInput)
        #expect(event.question?.multiSelect == true)
        #expect(event.question?.options.map(\.label) == ["React", "Vue"])
        let other = try Self.event(#"{"hook_event_name":"BeforeTool","session_id":"g","tool_name":"run_shell_command","tool_input":{}}"#)
        #expect(other.kind == .working)
        #expect(other.question == nil)
    }

    @Test func absurdQuestionsAreBounded() throws {
        let options = (0..<500).map { #"{"label":"\#(String(repeating: "x", count: 5000))\#($0)"}"# }.joined(separator: ",")
        let event = try Self.event(#"{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","session_id":"s","tool_input":{"questions":[{"question":"\#(String(repeating: "q", count: 100_000))","options":[\#(options)]}]}}"#)
        let question = try #require(event.question)
        #expect(question.text.count <= Question.textLimit)
        #expect(question.options.count == Question.optionLimit)
        #expect(question.options.allSatisfy { $0.label.count <= Question.labelLimit })
        let empty = try Self.event(#"{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","session_id":"s","tool_input":{"questions":"no"}}"#)
        #expect(empty.kind == .needsInput)
        #expect(empty.question?.options.isEmpty == true)
    }

    @Test func theBoardHoldsTheQuestionWhileTheAgentWaits() throws {
        var board = BoardState()
        func apply(_ payload: String) throws {
            var event = try Self.event(payload, agent: "claude")
            event.seq = board.lastSeq + 1
            board.apply(event)
        }
        try apply(#"{"hook_event_name":"PermissionRequest","session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf dist"}}"#)
        #expect(board.entries[0].question?.text == "Allow Bash: rm -rf dist?")
        #expect(board.entries[0].message == "Allow Bash: rm -rf dist? [Yes · No]")
        // The Notification that follows says less: the question stays.
        try apply(#"{"hook_event_name":"Notification","session_id":"s","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}"#)
        #expect(board.entries[0].question?.text == "Allow Bash: rm -rf dist?")
        try apply(#"{"hook_event_name":"Notification","session_id":"s","notification_type":"idle_prompt","message":"waiting"}"#)
        #expect(board.entries[0].question?.options.count == 2)
        #expect(board.entries[0].message == "Allow Bash: rm -rf dist? [Yes · No]")
        try apply(#"{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"go"}"#)
        #expect(board.entries[0].state == .working)
        #expect(board.entries[0].question == nil)
        // A fresh wait without details has no question.
        try apply(#"{"hook_event_name":"Notification","session_id":"s","notification_type":"idle_prompt","message":"waiting"}"#)
        #expect(board.entries[0].question == nil)
        // Stored and read back with the rest of the session.
        try apply(#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Q?","options":[{"label":"A"}]}]}}"#)
        let stored = try BoardState.storedEntry(BoardState.storedJSON(board.entries[0]))
        #expect(stored.question == board.entries[0].question)
        #expect(stored == board.entries[0])
    }
}

@Suite struct PaneTextTests {
    @Test func capturesAreCleaned() {
        let lines = PaneText.lines("a\u{1B}[31mred\u{1B}[0m   \nb\u{1B}]0;t\u{07}c\u{07}\u{7F}\n日本 \t x  \n\n   \n")
        #expect(lines == ["ared", "bc", "日本 \t x"])
        #expect(PaneText.lines("\n\n") == [])
    }

    static let claude = """
    Some prose:
    1. Install
    2. Test
    ╭──────────────╮
    │ Bash command │
    Do you want to proceed?
    ❯ 1. Yes
      2. Yes, and don't ask again for: npm test:*
      3. No
    Esc to cancel · Tab to amend
    """

    @Test func theLastMenuWithACursorIsTheDialog() {
        let menu = PaneText.menu(Self.claude.split(separator: "\n").map(String.init))
        #expect(menu?.map(\.label) == ["Yes", "Yes, and don't ask again for: npm test:*", "No"])
        #expect(menu?.first?.focused == true)
        let codex = ["Would you like to run the following command?", "› 1. Yes, proceed (y)",
                     "  2. Yes, and don't ask again for commands that start with `git` (p)", "  3. No, and tell Codex what to do differently (esc)"]
        #expect(PaneText.menu(codex)?.count == 3)
        let gemini = ["Allow execution of: 'ls'?", "● 1. Allow once", "  2. Allow for this session", "  3. No, suggest changes (esc)"]
        #expect(PaneText.menu(gemini)?.last?.label == "No, suggest changes (esc)")
        let multi = ["❯ 1. [ ] React", "  2. [x] Vue", "  3. Other"]
        #expect(PaneText.menu(multi)?.map(\.label) == ["React", "Vue", "Other"])
        // Prose lists are not dialogs, unless their labels are the recorded question's.
        let prose = ["Plan:", "1. Install", "2. Test", "> "]
        #expect(PaneText.menu(prose) == nil)
        #expect(PaneText.menu(prose, expected: ["Install", "Test"])?.count == 2)
        #expect(PaneText.menu(["❯ 1. Only"]) == nil)
    }

    @Test func choicesAreFoundByLabel() throws {
        let menu = try #require(PaneText.menu(Self.claude.split(separator: "\n").map(String.init)))
        #expect(try PaneText.find("yes", in: menu).n == 1)
        #expect(try PaneText.find("Yes, and don't ask again", in: menu).n == 2)
        #expect(try PaneText.find("NO", in: menu).n == 3)
        let codex = try #require(PaneText.menu(["› 1. Yes, proceed (y)", "  2. No, and tell Codex what to do differently (esc)"]))
        #expect(try PaneText.find("Yes, proceed", in: codex).n == 1)
        #expect(throws: AnswerError.self) { try PaneText.find("Maybe", in: menu) }
        let twins = [PaneText.MenuItem(n: 1, label: "Allow once", focused: true), PaneText.MenuItem(n: 2, label: "Allow always", focused: false)]
        let error = #expect(throws: AnswerError.self) { try PaneText.find("allow", in: twins) }
        #expect(error?.exitCode == .usage)
    }
}

@Suite struct ReplyInputTests {
    @Test func onlyAllowlistedKeys() {
        #expect(ReplyKeys.canonical("enter") == "Enter")
        #expect(ReplyKeys.canonical("ESC") == "Escape")
        #expect(ReplyKeys.canonical("C-c") == "C-c")
        #expect(ReplyKeys.canonical("7") == "7")
        #expect(ReplyKeys.canonical("y") == "y")
        for bad in ["C-x", "M-x", "Y", "F1", "a", "Enter Enter", "; kill-server", "#{pane_id}", "", "PPage"] {
            #expect(ReplyKeys.canonical(bad) == nil, "\(bad)")
        }
    }

    @Test func textIsOnePasteWithoutItsMarkers() {
        #expect(Reply.cleanText("a\r\nb\rc") == ("a\nb\nc", false))
        #expect(Reply.cleanText("x\u{1B}[201~\rEnter\u{1B}[200~") == ("x\nEnter", true))
        #expect(Reply.cleanText("\u{1B}[31m; C-c") == ("\u{1B}[31m; C-c", false))
    }

    @Test func textOnStandardInputIsReadWholeEvenFromANonBlockingPipe() throws {
        let pipe = try FileDescriptor.pipe()
        defer { pipe.readEnd.close() }
        pipe.readEnd.setNonBlocking()
        try pipe.writeEnd.writeAll(Array("first half, ".utf8))
        // The rest comes later, as from a slow writer: a non-blocking read in between gets EAGAIN.
        let writer = ThreadGroup(1) { _ in
            usleep(50_000)
            try pipe.writeEnd.writeAll(Array("second half\n".utf8))
            pipe.writeEnd.close()
        }
        #expect(try Reply.readText(pipe.readEnd.rawValue) == "first half, second half")
        _ = try writer.join()
    }

    @Test func textOnStandardInputIsCappedAtItsLimit() throws {
        for (size, fits) in [(Reply.textLimit, true), (Reply.textLimit + 1, false)] {
            let pipe = try FileDescriptor.pipe()
            defer { pipe.readEnd.close() }
            let writer = ThreadGroup(1) { _ in
                try? pipe.writeEnd.writeAll([UInt8](repeating: UInt8(ascii: "a"), count: size))
                pipe.writeEnd.close()
            }
            if fits {
                #expect(try Reply.readText(pipe.readEnd.rawValue).utf8.count == size)
            } else {
                #expect(throws: AnswerError.self) { try Reply.readText(pipe.readEnd.rawValue) }
            }
            _ = try writer.join()
        }
    }

    @Test func tmuxTargetsMatchExactly() {
        let location = TmuxLocation(session: "sshido-9B95BD2A", sessionID: "$3", window: "1", pane: "%7", socket: "/s")
        for yes in ["%7", "sshido-9B95BD2A", "=sshido-9B95BD2A", "$3", "sshido-9B95BD2A:1", "$3:1", "sshido-9B95BD2A:"] {
            #expect(AgentTarget.located(location, by: yes), "\(yes)")
        }
        for no in ["%70", "sshido", "sshido-9B95BD2A:2", "%", "=sshido", "9B95BD2A"] {
            #expect(!AgentTarget.located(location, by: no), "\(no)")
        }
    }

    @Test func targetsResolveOrListCandidates() throws {
        var board = BoardState()
        func add(_ key: String, session: String, pane: String, tmuxSession: String, state: EventKind, time: Double) {
            var event = Event(time: time, agent: String(key.split(separator: ":")[0]), kind: state, agentEvent: "x", title: "", message: "",
                              host: "h", tmux: TmuxLocation(session: tmuxSession, pane: pane, socket: "/s"), sessionID: session)
            event.seq = board.lastSeq + 1
            board.apply(event)
        }
        add("claude:a1", session: "a1", pane: "%1", tmuxSession: "one", state: .needsInput, time: 100)
        add("codex:b2", session: "b2", pane: "%2", tmuxSession: "one", state: .needsInput, time: 50)
        add("claude:c3", session: "c3", pane: "%3", tmuxSession: "two", state: .working, time: 10)
        #expect(try AgentTarget.resolve(nil, next: true, board: board).key == "codex:b2")
        #expect(try AgentTarget.resolve("claude:a1", next: false, board: board).key == "claude:a1")
        #expect(try AgentTarget.resolve("c3", next: false, board: board).key == "claude:c3")
        #expect(try AgentTarget.resolve("two", next: false, board: board).key == "claude:c3")
        #expect(try AgentTarget.resolve("%2", next: false, board: board).key == "codex:b2")
        let ambiguous = #expect(throws: AnswerError.self) { try AgentTarget.resolve("one", next: false, board: board) }
        #expect(ambiguous?.exitCode == .usage)
        #expect(ambiguous?.description.contains("claude:a1") == true && ambiguous?.description.contains("codex:b2") == true)
        let none = #expect(throws: AnswerError.self) { try AgentTarget.resolve("zzz", next: false, board: board) }
        #expect(none?.exitCode == .usage)
        #expect(none?.description.contains("agents: ") == true)
    }
}

@Suite struct AnswerFactsTests {
    @Test func everyBuiltInManifestStatesItsFactsWithSources() throws {
        for name in ["claude", "codex", "gemini"] {
            let json = try JSON.parse(BuiltinResources.manifests[name + ".json"]!)
            let facts = try #require(json["answer"]?.objectValue)
            #expect(facts.entries.count >= 6)
            for entry in facts.entries { #expect(entry.value["source"]?.stringValue?.isEmpty == false, "\(name).\(entry.key)") }
        }
        let codex = try AgentManifest(json: try JSON.parse(BuiltinResources.manifests["codex.json"]!), source: "codex").answer
        #expect(codex.letterShortcuts == ["y", "p", "a", "n"])
        #expect(codex.questionSource == "pane")
        let claude = try AgentManifest(json: try JSON.parse(BuiltinResources.manifests["claude.json"]!), source: "claude").answer
        #expect(claude.enterDelay == 0.5)
        #expect(claude.digitSelects == true)
        #expect(claude.keysKnown && claude.multiSelectSubmit?.rows == ["Submit", "Next"])
    }

    @Test(arguments: [
        (#"{"enter_delay_ms":{"value":100}}"#, "source"),
        (#"{"enter_delay_ms":{"value":-1,"source":"x"}}"#, "milliseconds"),
        (#"{"enter_delay_ms":{"value":60000,"source":"x"}}"#, "milliseconds"),
        (#"{"reject_key":{"value":"C-x","source":"x"}}"#, "keys reply may send"),
        (#"{"letter_shortcuts":{"value":["yes"],"source":"x"}}"#, "single letters"),
        (#"{"question_source":{"value":"mind","source":"x"}}"#, "hooks or pane"),
        (#"[]"#, "object of facts"),
    ])
    func badFactsAreRefused(answer: String, expected: String) throws {
        let text = #"{"agent":"x","settings":{"path":"~/a","format":"claude-json"},"events":[{"name":"A","kind":"done"}],"answer":\#(answer)}"#
        let error = #expect(throws: ManifestError.self) { try AgentManifest(json: try JSON.parse(text), source: "m.json") }
        #expect(error?.description.contains(expected) == true, "\(error?.description ?? "")")
    }
}

@Suite struct PaneProcessTests {
    @Test func theCallersPaneProcessesAreFoundUpTheTree() throws {
        // This test process stands in for the tmux server; a shell it starts is the "pane", and the shell's
        // background child is the "agent" the hook runs under.
        let scratch = try BoardScratch()
        let pidFile = scratch.path + "/agent.pid"
        let words = ["/bin/sh", "-c", "sleep 30 & echo $! > \"$1\"; wait", "sh", pidFile]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var shell: pid_t = 0
        try #require(posix_spawn(&shell, "/bin/sh", nil, nil, argv, environ) == 0)
        var agentPID: Int32?
        defer {
            if let agentPID { kill(agentPID, SIGKILL) }
            kill(shell, SIGKILL)
            var status: Int32 = 0
            waitpid(shell, &status, 0)
        }
        for _ in 0..<500 where agentPID == nil {
            agentPID = (try? FileSystem.readString(pidFile)).flatMap { $0 }.flatMap { Int32(Text.trimmed($0)) }
            if agentPID == nil { usleep(10_000) }
        }
        let agent = try #require(agentPID.flatMap { ProcessStat.read($0) })
        let pane = try #require(ProcessStat.read(shell))
        let server = getpid()
        let found = try #require(PaneProcesses.caller(environment: ["TMUX_PANE": "%1", "TMUX": "/tmp/s,\(server),0"],
                                                      parent: agent.pid).processes)
        #expect(found.server == server)
        #expect(found.pane == pane.pid && found.paneStart == pane.start)
        #expect(found.agent == agent.pid && found.agentStart == agent.start)
        #expect(PaneProcesses(json: found.json) == found)
        #expect(PaneProcesses.caller(environment: ["TMUX_PANE": "%1", "TMUX": "/tmp/s,1,0"], parent: agent.pid).processes == nil)
        #expect(PaneProcesses.caller(environment: ["TMUX": "/tmp/s,\(server),0"], parent: agent.pid).processes == nil)
        #expect(PaneProcesses.caller(environment: ["TMUX_PANE": "%1", "TMUX": "garbage"], parent: agent.pid).processes == nil)
    }
}

@Suite struct StoredTargetTests {
    /// Resolving against the stored board (decoding only what can match) gives what the whole board gives.
    @Test func theStoredBoardResolvesLikeTheWholeBoard() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        for index in 0..<60 {
            var event = hookEvent([.needsInput, .working, .done][index % 3], agent: ["claude", "codex"][index % 2],
                                  session: "session-\(index)", pane: "%\(index)", socket: "/s",
                                  tmuxSession: "tm-\(index / 2)", cwd: "/home/someone/p\(index)", time: 1000 + Double(index))
            try log.append(&event)
        }
        let board = try log.board(warn: { _ in })
        for target in ["claude:session-4", "session-7", "%12", "tm-5", "=tm-5", "tm-5:0", "tm-29", "session-1", "one", "sess",
                       "codex:session-9", "claude:nope", "%999", "tm-1:9", "session-5\"", "ünï"] {
            let whole = Result { try AgentTarget.resolve(target, next: false, board: board).key }
            let stored = Result { try AgentTarget.resolve(target, next: false, log: log, warn: { _ in }).key }
            switch (whole, stored) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(target)")
            case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "\(target)")
            default: Issue.record("\(target): \(whole) vs \(stored)")
            }
        }
        #expect(try AgentTarget.resolve(nil, next: true, log: log, warn: { _ in }).key
                == AgentTarget.resolve(nil, next: true, board: board).key)
    }
}

@Suite struct HostileQuestionTests {
    @Test func controlsInQuestionsAreDropped() throws {
        let event = try QuestionTests.event(#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Pick\u001b[2J\u001b]0;pwn\u0007 one","options":[{"label":"A\u001b[31m\r\nB","description":"\u0000x"}]}]}}"#)
        let question = try #require(event.question)
        #expect(question.text == "Pick one")
        #expect(question.options.first?.label == "A B")
        #expect(question.options.first?.description == "x")
        #expect(!event.message.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func bidiOverridesInQuestionsAndPanesAreDropped() throws {
        let event = try QuestionTests.event(#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"ok \u202eevil\u202c \u2066iso\u2069?","options":[{"label":"Y\u202ees"}]}]}}"#)
        let question = try #require(event.question)
        #expect(question.text == "ok evil iso?")
        #expect(question.options.first?.label == "Yes")
        #expect(PaneText.lines("1. Y\u{202E}es\u{2066}\n") == ["1. Yes"])
    }
}
