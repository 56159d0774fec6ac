import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents

/// What the real agents' screens say where their hooks are silent, as Claude Code 2.1.332 and aider
/// 0.86.2 drew them (captured with tmux; shared/reference/real-agents.md).
@Suite struct ScreenTests {
    /// Claude Code's Bash dialog: four rows, none of which the hook payload lists.
    static let bashDialog = """
     Bash command
       touch /tmp/x
       Run the command the test asked for
     Do you want to proceed?
     ❯ 1. Yes
       2. Yes, and always allow access to /tmp from this project
       3. Yes, and switch to auto mode · auto mode handles these prompts for you
       4. No
     Esc to cancel · Tab to amend
    """
    /// Auto mode: an unnumbered dialog, answered with the arrow keys and Enter.
    static let autoDialog = """
    ❯ run bash touch /tmp/lab/auto1
    ● Running the command the test asked for
      ⎿  $ touch /tmp/lab/auto1
     Bash command
     Run the command the test asked for
     │ Auto mode can't check actions in this session, so this one needs your
     │ approval
     Do you want to proceed?
     ❯ No
       Yes
     Esc to cancel · Tab to amend
    """
    /// After No or Esc: no hook fires; the pane says so (with no-break spaces around the glyphs).
    static let interrupted = "❯ run bash touch /tmp/x\n  Did not run 1 call\n  ⎿\u{A0}\u{A0}$ touch /tmp/x\n"
        + "  ⎿\u{A0}\u{A0}Interrupted\u{A0}·\u{A0}What should Claude do instead?\n\n\n" + String(repeating: "─", count: 40)
        + "\n❯\u{A0}\n" + String(repeating: "─", count: 40) + "\n  ⏸ manual mode on · ? for shortcuts\n"

    static var claude: ScreenFacts {
        var facts = ScreenFacts()
        facts.interrupted = ["Interrupted · What should Claude do instead?"]
        return facts
    }

    @Test func theScreensRowsReplaceOptionsThePayloadCouldNotNumber() throws {
        let payload = Question(text: "Allow Bash: touch /tmp/x?", options: [.init(n: nil, label: "Yes"), .init(n: nil, label: "No")])
        let refined = try #require(ScreenQuestion.refine(payload, message: payload.message, screen: PaneText.lines(Self.bashDialog)))
        #expect(refined.options.map(\.n) == [1, 2, 3, 4])
        #expect(refined.options.last?.label == "No")
        #expect(refined.text == payload.text && refined.fromScreen)
        // The dialog not drawn yet: the payload's labels stay, without numbers.
        #expect(ScreenQuestion.refine(payload, message: "", screen: ["❯ run bash touch /tmp/x"]) == payload)
        // A menu whose rows are not the payload's is another dialog: not taken.
        let asked = Question(text: "Which database?", options: [.init(n: nil, label: "Postgres"), .init(n: nil, label: "SQLite")])
        #expect(ScreenQuestion.refine(asked, message: "", screen: PaneText.lines(Self.bashDialog)) == asked)
    }

    @Test func anUnnumberedDialogIsReadButATranscriptIsNot() throws {
        let menu = try #require(ScreenMenu.read(PaneText.lines(Self.autoDialog)))
        #expect(!menu.numbered)
        #expect(menu.rows.map(\.label) == ["No", "Yes"])
        #expect(menu.rows.map(\.focused) == [true, false])
        #expect(try menu.find("yes", freeTextLabels: []).label == "Yes")
        #expect(menu.listed == "No; Yes")
        // The prompt echoed in the transcript, tool output, the empty prompt box: no menu.
        #expect(ScreenMenu.read(PaneText.lines(Self.interrupted)) == nil)
        #expect(ScreenMenu.read(["❯ say hello", "● hello", "", "❯ "]) == nil)
    }

    @Test func aRefusedDialogIsSeenOnThePane() {
        #expect(Self.claude.showsInterrupted(PaneText.lines(Self.interrupted)))
        // A dialog drawn again below it, or the marker long scrolled away: not settled.
        #expect(!Self.claude.showsInterrupted(PaneText.lines(Self.interrupted + Self.bashDialog)))
        #expect(!Self.claude.showsInterrupted(PaneText.lines(Self.interrupted) + (1...10).map { "line \($0)" }))
    }

    @Test func theFreeTextRowIsFoundWhateverItIsCalled() throws {
        let lines = PaneText.lines(" Which database?\n ❯ 1. Postgres\n     a server\n   2. SQLite\n   3. Type something.\n   4. Chat about this\n")
        let menu = try #require(ScreenMenu.read(lines))
        #expect(try menu.find("Other", freeTextLabels: ["Type something.", "Other"]).n == 3)
        #expect(throws: AnswerError.self) { try menu.find("MySQL", freeTextLabels: ["Type something.", "Other"]) }
    }

    @Test func aiderQuestionsAndPromptAreToldApart() {
        var aider = ScreenFacts()
        aider.questionLines = ["(Y)es/(N)o"]
        aider.idlePrompt = [">"]
        let asking = ["Please look at app.py to continue.", "app.py", "Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:"]
        #expect(aider.question(onScreen: asking) == "Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:")
        #expect(aider.question(onScreen: ["hi from aider", "─────", ">"]) == nil)
        #expect(aider.showsIdlePrompt(["hi", ">", ""]))
        #expect(!aider.showsIdlePrompt(asking))
        // The wait ends at the prompt at once, or with the question as soon as it is printed.
        var calls = 0
        #expect(ScreenQuestion.waitForQuestion(aider, within: 5) { calls += 1; return calls < 3 ? ["Tokens: 2k"] : asking } != nil)
        #expect(ScreenQuestion.waitForQuestion(aider, within: 5) { [">"] } == nil)
    }
}

extension ScreenTests {
    /// ExitPlanMode is a plan approval with its own rows, not "Allow ExitPlanMode: {json}".
    @Test func aPlanApprovalSaysSo() throws {
        let payload = #"{"hook_event_name":"PermissionRequest","session_id":"s","prompt_id":"p","tool_name":"ExitPlanMode","tool_input":{"plan":"1. Add a file\n2. Test it"}}"#
        let event = PayloadParser.event(payload: try JSON.parse(payload), overrides: EventOverrides(agent: "claude"), host: "h",
                                        tmux: nil, fallbackCWD: nil, project: { _ in nil })
        #expect(event.kind == .needsInput && event.turn == "p")
        #expect(event.question?.text == "Approve the plan and leave plan mode? 1. Add a file 2. Test it")
        #expect(!event.message.contains("{"))
        let screen = PaneText.lines("   Exit plan mode?\n   Claude wants to exit plan mode\n   ❯ 1. Yes, and switch to default (ask each time) for this session\n     2. No\n")
        let refined = try #require(ScreenQuestion.refine(event.question, message: event.message, screen: screen))
        #expect(refined.options.map(\.n) == [1, 2])
    }
}
