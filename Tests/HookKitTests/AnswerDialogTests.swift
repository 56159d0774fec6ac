import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents

/// Dialogs: the same-dialog push rule, the focused row of a dialog, the new answer facts.
@Suite struct AnswerDialogTests {
    static let full = Question(text: "Allow Bash: npm test?", options: [.init(n: 1, label: "Yes"), .init(n: 2, label: "No")])

    func asking(_ question: Question?, time: Double = 1005) -> Event {
        var event = Event(time: time, agent: "claude", kind: .needsInput, agentEvent: "Notification", title: "t",
                          message: question?.message ?? "waiting", host: "h", sessionID: "s")
        event.question = question
        return event
    }

    func waiting(on question: Question?, state: AgentState = .needsInput) -> PushHistory {
        PushHistory(state: state, lastPush: "x", lastPushAt: 1000, question: question, episode: 0, lastPushTurn: "#0")
    }

    @Test func aSecondReportOfTheSameDialogIsRecordedNotPushed() {
        let notice = Question(text: "Claude needs your permission to use Bash")
        let rules = PushRules()
        #expect(PushPolicy.decide(asking(notice), history: waiting(on: Self.full), rules: rules, idleReminders: []) == .recordOnly(.sameQuestion))
        #expect(PushPolicy.decide(asking(Self.full), history: waiting(on: Self.full), rules: rules, idleReminders: []) == .recordOnly(.sameQuestion))
        // A different question, a session no longer waiting, no question on the board, repeats off, or long after: pushes.
        let other = Question(text: "Allow Bash: rm -rf dist?", options: Self.full.options)
        #expect(PushPolicy.decide(asking(other), history: waiting(on: Self.full), rules: rules, idleReminders: []) == .push)
        #expect(PushPolicy.decide(asking(notice), history: waiting(on: Self.full, state: .working), rules: rules, idleReminders: []) == .push)
        #expect(PushPolicy.decide(asking(notice), history: waiting(on: nil), rules: rules, idleReminders: []) == .push)
        #expect(PushPolicy.decide(asking(notice), history: waiting(on: Self.full), rules: PushRules(repeatWindow: 0), idleReminders: []) == .push)
        #expect(PushPolicy.decide(asking(notice, time: 2000), history: waiting(on: Self.full), rules: rules, idleReminders: []) == .push)
        // A notice after a notice (no options either side) is not taken for the same dialog.
        #expect(PushPolicy.decide(asking(Question(text: "another")), history: waiting(on: notice), rules: rules, idleReminders: []) == .push)
        #expect(PushPolicy.decide(asking(nil), history: waiting(on: Self.full), rules: rules, idleReminders: []) == .push)
    }

    @Test func theBoardGivesThePolicyTheQuestionOnlyWhileWaiting() {
        var board = BoardState()
        var first = asking(Self.full, time: 1000)
        first.seq = 1
        board.apply(first)
        #expect(board.entries[0].pushHistory.question == Self.full)
        var working = Event(time: 1001, agent: "claude", kind: .working, agentEvent: "PostToolUse", title: "t", message: "", host: "h",
                            sessionID: "s")
        working.seq = 2
        board.apply(working)
        #expect(board.entries[0].pushHistory.question == nil)
    }

    @Test func theFocusedRowIsFoundNumberedOrNot() {
        let claude = ["Which database?", "  1. [x] Postgres", "  2. [ ] SQLite", "❯ Submit", "Enter to select"]
        #expect(PaneText.focused(claude) == PaneText.Focus(line: 3, n: nil, label: "Submit"))
        let gemini = ["> earlier prompt", "● 1. [ ] Postgres", "  2. [ ] SQLite", "  Done"]
        #expect(PaneText.focused(gemini, from: 1) == PaneText.Focus(line: 1, n: 1, label: "Postgres"))
        // Text above the menu is not the dialog's cursor.
        #expect(PaneText.focused(["> typed before", "  1. Yes", "  2. No"], from: 1) == nil)
        #expect(PaneText.line(of: 1, in: gemini) == 1)
        #expect(DialogCursor.toward(3, from: .init(line: 1, n: 1, label: "Yes")) == "Down")
        #expect(DialogCursor.toward(1, from: .init(line: 3, n: 3, label: "No")) == "Up")
    }

    @Test func promptKeysAreKnownOnlyFromSourcedFacts() throws {
        func facts(_ answer: String) throws -> AnswerFacts {
            let text = #"{"agent":"x","settings":{"path":"~/a","format":"claude-json"},"events":[{"name":"A","kind":"done"}]"#
                + (answer.isEmpty ? "" : #","answer":\#(answer)"#) + "}"
            return try AgentManifest(json: try JSON.parse(text), source: "x").answer
        }
        #expect(try facts("").keysKnown == false)
        #expect(try facts("").digitSelects == nil)
        #expect(try facts(#"{"confirmed":{"value":false,"source":"s"}}"#).keysKnown == false)
        let known = try facts(#"{"digit_selects":{"value":true,"source":"s"},"multi_select_submit":{"value":{"rows":["Done"],"move":"down","press":"Enter"},"source":"s"},"free_text_labels":{"value":["Type here"],"source":"s"}}"#)
        #expect(known.keysKnown && known.digitSelects == true)
        #expect(known.multiSelectSubmit == AnswerFacts.MultiSelectSubmit(rows: ["Done"], move: "Down", press: "Enter"))
        #expect(known.freeTextLabels == ["Type here"])
        for bad in [#"{"multi_select_submit":{"value":{"rows":[],"move":"Down","press":"Enter"},"source":"s"}}"#,
                    #"{"multi_select_submit":{"value":{"rows":["Done"],"move":"C-c","press":"Enter"},"source":"s"}}"#,
                    #"{"free_text_labels":{"value":[""],"source":"s"}}"#, #"{"confirmed":{"value":"no","source":"s"}}"#] {
            #expect(throws: ManifestError.self) { try facts(bad) }
        }
        for name in ["gemini", "claude"] {
            let manifest = try AgentManifest(json: try JSON.parse(BuiltinResources.manifests[name + ".json"]!), source: name)
            #expect(manifest.answer.multiSelectSubmit != nil && manifest.answer.keysKnown, "\(name)")
        }
        for name in ["qwen", "cursor", "copilot", "opencode", "aider", "grok"] {
            let manifest = try AgentManifest(json: try JSON.parse(BuiltinResources.manifests[name + ".json"]!), source: name)
            #expect(!manifest.answer.keysKnown, "\(name)")
        }
    }
}
