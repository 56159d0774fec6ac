import Glibc
import Testing
@testable import HookSupport
import TestSupport

/// Every real-agent test runs one after the other: each drives a real agent process, and two at once on
/// a 2-core machine starve each other's timing.
@Suite(.serialized) enum RealAgentTests {}

/// Issue 21 against the real Claude Code 2.1.332, from the phone's side: what reached the relay,
/// what `status --json` says, what `reply` pressed and what the agent did.
extension RealAgentTests {
    @Suite(.whenInstalled(.claude, "Claude Code"))
    struct Claude {
        /// Waits for the Bash permission dialog to be drawn (it comes after the hook) and returns its menu.
        func bashDialog(_ lab: AgentLab, sourceLocation: SourceLocation = #_sourceLocation) -> [Int: String] {
            lab.waitForScreen("Esc to cancel", sourceLocation: sourceLocation)
            return AgentLab.menu(lab.capture())
        }

        /// Claude started in default mode and asked to run `touch MARKER`: its permission request pushed.
        func atBashRequest(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (lab: AgentLab, marker: String) {
            let lab = try AgentLab(.claude, sourceLocation: sourceLocation)
            try lab.start(sourceLocation: sourceLocation)
            let marker = lab.home + "/marker-" + name
            try lab.typeLine("run bash touch " + marker)
            lab.waitForPushes(1, sourceLocation: sourceLocation)
            return (lab, marker)
        }

        /// Every numbered option the push and the board show is the pane's row of that number (options
        /// without numbers are allowed); the board's options each have `n` (a number or null) and `label`.
        func expectNumbersMatch(push: Push, board entry: JSONValue?, menu: [Int: String],
                                sourceLocation: SourceLocation = #_sourceLocation) {
            for line in push.body.split(separator: "\n") {
                guard let (number, label) = AgentLab.numberedRow(String(line)) else { continue }
                #expect(matches(label, row: menu[number]),
                        "the push says \(number). \(label), the pane's \(number). is \(menu[number] ?? "nothing"); the push: \(push)",
                        sourceLocation: sourceLocation)
            }
            let options = entry?["question"]?["options"]?.arrayValue ?? []
            #expect(!options.isEmpty, "status --json has the question's options: \(entry.map { JSON.serialize($0) } ?? "no entry")",
                    sourceLocation: sourceLocation)
            for option in options {
                let fields = option.objectValue
                #expect(fields?["n"] != nil && fields?["label"] != nil, "n and label: \(JSON.serialize(option))", sourceLocation: sourceLocation)
                guard let number = option["n"]?.intValue else { continue }
                let label = option["label"]?.stringValue ?? ""
                #expect(matches(label, row: menu[number]),
                        "the board says \(number). \(label), the pane's \(number). is \(menu[number] ?? "nothing")", sourceLocation: sourceLocation)
            }
        }

        /// `label` says what the pane's row `row` says: the same words, or the row without its ` · `
        /// explanation, or the row with the option's description after ` - ` (AskUserQuestion's descriptions
        /// are drawn on the next line).
        func matches(_ label: String, row: String?) -> Bool {
            guard let row else { return false }
            return row == label || row.hasPrefix(label + " · ") || label.hasPrefix(row + " - ")
        }

        // P1: two turns that end with the same text are two pushes.
        @Test func twoTurnsWithTheSameTextAreTwoPushes() throws {
            let lab = try AgentLab(.claude)
            try lab.start()
            try lab.typeLine("say all good")
            lab.waitForEvent("Stop")
            #expect(lab.waitForPushes(1).filter { $0.body == "all good" }.count == 1, "the first turn's push: \(lab.pushes())")
            try lab.typeLine("say all good")
            lab.waitForEvent("Stop", count: 2)
            let both = lab.waitForPushes(2, timeout: 5).filter { $0.body == "all good" }
            #expect(both.count == 2, "each turn is pushed, the second too: \(lab.pushes())\n\(lab.eventSummary())")
            #expect(both.allSatisfy { $0.priority != "high" }, "a finished turn is not high priority: \(both)")
        }

        // P5: the agent's text reaches the relay as written, `a<b && c>d` and `Vec<String>` too (not taken for tags).
        @Test func agentTextReachesTheRelayIntact() throws {
            let lab = try AgentLab(.claude)
            try lab.start()
            let text = "a<b && c>d, Vec<String> & \"quoted\" 100%"
            try lab.typeLine("say " + text)
            lab.waitForEvent("Stop")
            let push = try #require(lab.waitForPushes(1).last)
            #expect(push.body == text, "\(push)")
            #expect(lab.entry()?["message"]?.stringValue == text)
        }

        // P2, P4: the pushed and the boarded options never give a number another meaning than the pane's;
        // `--choice No` rejects in the real dialog, and the board then says `done`, not `working`.
        @Test func permissionOptionsMatchThePaneAndNoRejects() throws {
            let (lab, marker) = try atBashRequest("no")
            let push = try #require(lab.pushes().first)
            #expect(push.priority == "high", "\(push)")
            let menu = bashDialog(lab)
            #expect(menu.count >= 3, "the dialog's rows: \(lab.capture())")
            let entry = try #require(lab.entry())
            #expect(entry["state"]?.stringValue == "needs_input")
            expectNumbersMatch(push: push, board: entry, menu: menu)

            let key = try #require(entry["key"]?.stringValue)
            let reply = try lab.hookctl(["reply", key, "--choice", "No"])
            #expect(reply.status == 0, "reply --choice No: \(reply.errorText)")
            lab.waitForScreen("Interrupted")
            #expect(!FileSystem.exists(marker), "No must not run the tool")
            lab.waitForState("done", timeout: 10)
        }

        // P1, P2, P4: Esc leaves the board `done`; the same request after a new prompt is pushed again;
        // `--choice Yes` runs the tool.
        @Test func theSameRequestAfterANewPromptIsPushedAgainAndYesRunsIt() throws {
            let (lab, marker) = try atBashRequest("yes")
            _ = bashDialog(lab)
            let key = try #require(lab.key)
            let escape = try lab.hookctl(["reply", key, "--key", "Escape"])
            #expect(escape.status == 0, "reply --key Escape: \(escape.errorText)")
            lab.waitForScreen("Interrupted")
            lab.waitForState("done", timeout: 10)

            try lab.typeLine("run bash touch " + marker)
            lab.waitForEvent("PermissionRequest", count: 2)
            let pushes = lab.waitForPushes(2)
            #expect(pushes.filter { $0.priority == "high" }.count == 2, "the second request is pushed too: \(pushes)\n\(lab.eventSummary())")
            _ = bashDialog(lab)
            let yes = try lab.hookctl(["reply", key, "--choice", "Yes"])
            #expect(yes.status == 0, "reply --choice Yes: \(yes.errorText)")
            #expect(eventually(timeout: 20) { FileSystem.exists(marker) }, "Yes runs the tool:\n\(lab.capture())")
        }

        // Issue 31: the permission dialog's push carries Yes and No buttons; the Yes action, posted to the
        // reply topic as the ntfy app posts it, is pressed in the real dialog by the listener, and the tool runs.
        @Test func aPermissionDialogIsAnsweredFromThePushsYesButton() throws {
            let lab = try AgentLab(.claude)
            try lab.addNtfy(replyTopic: "claude_replies_4r")
            try lab.start()
            let marker = lab.home + "/marker-push"
            try lab.typeLine("run bash touch " + marker)
            lab.waitForPushes(1)
            var actions: [JSONValue] = []
            #expect(eventually(timeout: 20) {
                actions = lab.ntfyPushes().compactMap { $0["actions"]?.arrayValue }.last ?? []
                return !actions.isEmpty
            }, "the ntfy push has no actions: \(lab.ntfyPushes())")
            #expect(actions.map { $0["label"]?.stringValue ?? "" } == ["Yes", "No"], "\(actions)")
            let yes = try #require(actions.first { $0["label"]?.stringValue == "Yes" })
            #expect(yes["url"]?.stringValue == lab.ntfyURL + "/claude_replies_4r")
            _ = bashDialog(lab)
            try lab.startListener()
            let body = try #require(yes["body"]?.stringValue)
            let posted = HTTPClient.send(HTTPRequest(method: "POST", url: try #require(yes["url"]?.stringValue),
                                                     headers: [("Content-Type", "application/json")], body: Array(body.utf8),
                                                     timeout: 10, connectTimeout: 5))
            #expect(posted.status == 200)
            #expect(eventually(timeout: 30) { FileSystem.exists(marker) }, "the Yes button runs the tool:\n\(lab.capture())\n\(lab.eventSummary())")
            let answered = lab.events().first { $0["agent_event"]?.stringValue == "push_reply" }
            #expect(answered?["answer"]?["channel"]?.stringValue == "ntfy", "\(lab.eventSummary())")
            #expect(answered?["answer"]?["option"]?.stringValue == "Yes")
        }

        // P2: plan approval (ExitPlanMode) is pushed as a question, not raw JSON, and its numbers are the pane's.
        @Test func planApprovalOptionsMatchThePane() throws {
            let lab = try AgentLab(.claude)
            try lab.start(["--permission-mode", "plan"])
            try lab.typeLine("plan it")
            let push = try #require(lab.waitForPushes(1).first)
            #expect(push.priority == "high", "\(push)")
            #expect(!push.body.contains("{\""), "the plan, not its JSON: \(push)")
            #expect(eventually(timeout: 15) { AgentLab.menu(lab.capture()).count >= 2 }, "the approval dialog:\n\(lab.capture())")
            let menu = AgentLab.menu(lab.capture())
            expectNumbersMatch(push: push, board: lab.entry(), menu: menu)
        }

        // P3: `--choice` with no menu on the pane is refused (exit 69) and types nothing.
        @Test func choiceWithoutAMenuIsRefused() throws {
            let lab = try AgentLab(.claude)
            try lab.start()
            try lab.typeLine("say ready")
            lab.waitForEvent("Stop")
            lab.waitForState("done")
            #expect(eventually(timeout: 10) { lab.agentReady(lab.capture()) })
            let key = try #require(lab.key)
            // The input line only: the banner's mascot blinks on its own.
            let before = AgentLab.inputLine(lab.capture())
            let requests = lab.modelRequests().count
            let reply = try lab.hookctl(["reply", key, "--choice", "1"])
            #expect(reply.status == 69, "no menu on the pane: exit 69, got \(reply.status): \(reply.errorText)")
            #expect(AgentLab.inputLine(lab.capture()) == before, "nothing typed into the pane:\n\(lab.capture())")
            // The next line typed reaches the model as typed: nothing the refused reply left in the input.
            try lab.typeLine("say sentinel")
            #expect(eventually(timeout: 20) { lab.modelRequests().count > requests })
            let typed = lab.modelRequests().dropFirst(requests).compactMap { $0["text"]?.stringValue }
            #expect(typed.first == "say sentinel", "the agent got no other input first: \(typed)")
        }

        // P4: `hookctl dismiss` ends a board row by hand.
        @Test func dismissEndsTheRow() throws {
            let lab = try AgentLab(.claude)
            try lab.start()
            try lab.typeLine("say ready")
            lab.waitForEvent("Stop")
            let key = try #require(lab.waitForState("done")?["key"]?.stringValue)
            let dismiss = try lab.hookctl(["dismiss", key])
            #expect(dismiss.status == 0, "hookctl dismiss: \(dismiss.errorText)")
            let ended = lab.waitForState("ended", timeout: 5)
            #expect(ended?["end_reason"]?.stringValue == "dismissed", "\(ended.map { JSON.serialize($0) } ?? "")")
        }

        // P4: a reply's own `working` never overrides the agent's later Stop; `reply /exit` ends the row.
        @Test func replyThenStopIsDoneAndExitEnds() throws {
            let lab = try AgentLab(.claude)
            try lab.start()
            try lab.typeLine("say ready")
            lab.waitForEvent("Stop")
            let key = try #require(lab.key)
            let reply = try lab.hookctl(["reply", key, "say hi"])
            #expect(reply.status == 0, "reply say hi: \(reply.errorText)")
            lab.waitForEvent("Stop", count: 2)
            let done = lab.waitForState("done", timeout: 10)
            #expect(done?["message"]?.stringValue == "hi", "\(done.map { JSON.serialize($0) } ?? "")")

            let exit = try lab.hookctl(["reply", key, "/exit"])
            #expect(exit.status == 0, "reply /exit: \(exit.errorText)")
            lab.waitForEvent("SessionEnd")
            lab.waitForState("ended", timeout: 10)
        }

        // P4: an agent killed under the board (its shell back in the pane) ends as `agent_exited`.
        @Test func aKilledAgentEnds() throws {
            let (lab, _) = try atBashRequest("kill")
            lab.waitForState("needs_input")
            let pid = try #require(lab.agentPID(), "the agent's process in the pane")
            kill(pid, SIGKILL)
            #expect(eventually(timeout: 10) { lab.agentPID() == nil }, "the agent (pid \(pid)) still runs")
            let ended = lab.waitForState("ended", timeout: 10)
            #expect(ended?["end_reason"]?.stringValue == "agent_exited", "\(ended.map { JSON.serialize($0) } ?? "")")
        }

        // P5: `claude -p` in the phone's session refuses its tool by itself: its PermissionRequest is not pushed.
        @Test func printModeRequestsAreNotPushed() throws {
            let lab = try AgentLab(.claude)
            let marker = lab.home + "/marker-print"
            try lab.typeLine(try lab.agentCommand(["-p", "run bash touch " + marker]))
            lab.waitForEvent("SessionEnd", timeout: 60)
            let request = lab.events().first { $0["agent_event"]?.stringValue == "PermissionRequest" }
            #expect(request != nil, "-p fires PermissionRequest (real-agents.md)\n\(lab.eventSummary())")
            #expect(request?["quiet"]?.stringValue == "non_interactive", "\(request.map { JSON.serialize($0) } ?? "")")
            #expect(lab.pushes().allSatisfy { $0.priority != "high" }, "nobody can answer it: \(lab.pushes())")
            #expect(!FileSystem.exists(marker))
        }

        // P6: in auto mode (the default) with a loopback model, Claude first says its safety check cannot run
        // (a Notification, answered with Enter to stay in auto mode), then shows an unnumbered `❯ No / Yes`
        // dialog with no PermissionRequest: it is still pushed as a question, and `--choice Yes` answers it
        // with arrows and Enter.
        @Test func autoModeDialogIsPushedAndAnsweredByLabel() throws {
            let lab = try AgentLab(.claude)
            try lab.start([])
            let marker = lab.home + "/marker-auto"
            try lab.typeLine("run bash touch " + marker)
            lab.waitForScreen("Enter to stay in auto mode")
            let notice = eventually(timeout: 15) { lab.pushes().contains { $0.priority == "high" } }
            #expect(notice, "the notice is pushed as needs_input: \(lab.pushes())\n\(lab.eventSummary())")
            let key = try #require(lab.key)
            // Claude ignores keys pressed in the first ~0.3 s a dialog is up (seen here); this step is not
            // under test, so the phone's user takes a person's moment before pressing Enter.
            sleepSeconds(1)
            let stay = try lab.hookctl(["reply", key, "--key", "Enter"])
            #expect(stay.status == 0, "reply --key Enter: \(stay.errorText)")
            let pushedBefore = lab.pushes().count
            let dialog = eventually(timeout: 15) {
                let lines = lab.capture().split(separator: "\n").map { Text.trimmed(String($0)) }
                return lines.contains("❯ No") && lines.contains("Yes")
            }
            #expect(dialog, "the unnumbered dialog:\n\(lab.capture())")
            let pushed = eventually(timeout: 20) { lab.pushes().dropFirst(pushedBefore).contains { $0.priority == "high" } }
            #expect(pushed, "the dialog is pushed as needs_input: \(lab.pushes())\n\(lab.eventSummary())\n\(lab.capture())")
            lab.waitForState("needs_input", timeout: 5)
            let reply = try lab.hookctl(["reply", key, "--choice", "Yes"])
            #expect(reply.status == 0, "reply --choice Yes: \(reply.errorText)")
            #expect(eventually(timeout: 20) { FileSystem.exists(marker) }, "Yes runs the tool:\n\(lab.capture())\n\(lab.eventSummary())")
        }

        // P6, P2: AskUserQuestion's free-text row is `Type something.`; one reply selects it and types the answer.
        @Test func askUserQuestionFreeTextInOneReply() throws {
            let lab = try AgentLab(.claude)
            try lab.start()
            try lab.typeLine("ask db")
            let push = try #require(lab.waitForPushes(1).first)
            lab.waitForScreen("Chat about this")
            let entry = try #require(lab.waitForState("needs_input", timeout: 5))
            expectNumbersMatch(push: push, board: entry, menu: AgentLab.menu(lab.capture()))
            let key = try #require(entry["key"]?.stringValue)
            let reply = try lab.hookctl(["reply", key, "--choice", "Type something.", "MySQL", "--json"])
            #expect(reply.status == 0, "reply --choice 'Type something.' MySQL: \(reply.errorText)")
            let answered = eventually(timeout: 20) {
                lab.modelRequests().contains { ($0["tool_result"]?.stringValue ?? "").contains("MySQL") }
            }
            #expect(answered, "the model gets the typed answer: \(lab.modelRequests().map { JSON.serialize($0) })\n\(lab.capture())\n\(lab.eventSummary())")
        }
    }
}
