import Testing
@testable import HookSupport
import TestSupport

/// Issue 21 against the real aider 0.86.2: its notifications command is its only hook, it gets no payload
/// and says the same words every time.
extension RealAgentTests {
    @Suite(.whenInstalled(.aider, "aider"))
    struct Aider {
        // P1: every turn is pushed, the second to the fourth too, though aider's message never changes.
        @Test func everyTurnIsPushed() throws {
            let lab = try AgentLab(.aider)
            try lab.start()
            let atStart = lab.pushes().count
            let ranAtStart = lab.events().filter { $0["agent_event"]?.stringValue == "notifications-command" }.count
            for (index, word) in ["one", "two", "three", "four"].enumerated() {
                try lab.typeLine("say turn " + word)
                // aider runs its notifications command once per answer, at its next prompt.
                lab.waitForEvent("notifications-command", count: ranAtStart + index + 1)
                let pushed = eventually(timeout: 5) { lab.pushes().count >= atStart + index + 1 }
                #expect(pushed, "turn \(index + 1) is pushed: \(lab.pushes())\n\(lab.eventSummary())")
            }
        }

        // P5: the confirmation question aider asks after an answer is pushed as a question, with its text.
        @Test func addFileQuestionIsPushedAsAQuestion() throws {
            let lab = try AgentLab(.aider)
            try lab.start()
            let atStart = lab.pushes().count
            try lab.typeLine("mention app")
            lab.waitForScreen("Add file to the chat?")
            lab.waitForEvent("notifications-command")
            let pushed = eventually(timeout: 5) { lab.pushes().dropFirst(atStart).contains { $0.body.contains("Add file to the chat?") } }
            #expect(pushed, "the question is pushed with its text: \(lab.pushes().dropFirst(atStart))\n\(lab.eventSummary())")
            let question = lab.pushes().dropFirst(atStart).first { $0.body.contains("Add file to the chat?") }
            #expect(question?.priority == "high", "\(question.map(\.description) ?? "")")
            #expect(question.map { !$0.title.contains("finished") } == true, "not 'finished': \(question.map(\.description) ?? "")")
            let entry = lab.waitForState("needs_input", timeout: 10)
            #expect(entry?["message"]?.stringValue?.contains("Add file to the chat?") == true, "\(entry.map { JSON.serialize($0) } ?? "")")
        }
    }
}
