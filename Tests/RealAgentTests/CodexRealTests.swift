import Glibc
import Testing
@testable import HookSupport
@testable import HookAgents
import TestSupport

/// Issue 32 against the real Codex CLI 0.163.0 (the openai-codex-cli-bin wheel's binary), from the phone's
/// side, against the Responses API stand-in in Tests/Fixtures/model_server.py: what reached the relay, what
/// `status --json` says, what `reply` pressed and what Codex drew. What Codex did that its documents do not
/// say is in docs/agents.md.
extension RealAgentTests {
    @Suite(.whenInstalled(.codex, "Codex"))
    struct Codex {
        /// Codex started in the phone's pane, hookctl's hooks trusted in the review Codex shows at start
        /// (`Trust all and continue`), as a user does once. Returns the number of hooks the review named.
        @discardableResult
        func trustAtStart(_ lab: AgentLab, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int? {
            lab.waitForScreen("Hooks need review", timeout: 30, sourceLocation: sourceLocation)
            let screen = lab.capture()
            let count = screen.split(separator: "\n").lazy.compactMap { line -> Int? in
                let words = Text.trimmed(String(line)).split(separator: " ")
                return words.count >= 2 && words[1] == "hooks" ? Int(words[0]) : nil
            }.first
            // A digit moves the cursor in this dialog; Enter confirms (seen). The dialog can be drawn before
            // it takes keys: a "2" was lost, Enter then opened "1. Review hooks" and every hook stayed
            // untrusted, so no Stop and no turn (the flaky runs). The digit is pressed until the cursor
            // stands on row 2, and only then Enter.
            let onTrustAll = eventually(timeout: 10) {
                if Self.cursorOnTrustAll(lab.capture()) { return true }
                try? lab.press("2")
                sleepSeconds(0.3)
                return Self.cursorOnTrustAll(lab.capture())
            }
            try #require(onTrustAll, "the cursor never reached \"2. Trust all and continue\":\n\(lab.capture())", sourceLocation: sourceLocation)
            try lab.press("Enter")
            lab.waitForScreen("? for shortcuts", timeout: 20, sourceLocation: sourceLocation)
            #expect(!lab.capture().contains("needs review"), "the hooks were trusted:\n\(lab.capture())", sourceLocation: sourceLocation)
            return count
        }

        /// The review dialog's cursor is on `› 2. Trust all and continue`.
        static func cursorOnTrustAll(_ screen: String) -> Bool {
            screen.split(separator: "\n").contains { line in
                let row = Text.trimmed(String(line))
                return row.hasPrefix("›") && row.contains("2. Trust all")
            }
        }

        func started(_ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> AgentLab {
            let lab = try AgentLab(.codex, sourceLocation: sourceLocation)
            try lab.start(arguments, sourceLocation: sourceLocation)
            try trustAtStart(lab, sourceLocation: sourceLocation)
            return lab
        }

        /// Every numbered option the push and the board show is the pane's row of that number, in the
        /// pane's words (Codex adds the row's shortcut, ` (y)`, or a description after it).
        func expectNumbersMatch(push: Push, board entry: JSONValue?, menu: [Int: String],
                                sourceLocation: SourceLocation = #_sourceLocation) {
            // `Postgres - a server` (label - description) is the row `Postgres           a server`.
            func matches(_ label: String, _ row: String?) -> Bool {
                guard let row else { return false }
                let parts = label.split(separator: " - ", maxSplits: 1).map(String.init)
                let words = row.split(separator: " ").joined(separator: " ")
                return row == label || row.hasPrefix(label + " ")
                    || (parts.count == 2 && words == parts[0] + " " + parts[1])
            }
            for line in push.body.split(separator: "\n") {
                guard let (number, label) = AgentLab.numberedRow(String(line)) else { continue }
                #expect(matches(label, menu[number]), "the push says \(number). \(label), the pane's \(number). is \(menu[number] ?? "nothing"); \(push)",
                        sourceLocation: sourceLocation)
            }
            let options = entry?["question"]?["options"]?.arrayValue ?? []
            #expect(!options.isEmpty, "status --json has the options: \(entry.map { JSON.serialize($0) } ?? "no entry")", sourceLocation: sourceLocation)
            for option in options {
                guard let number = option["n"]?.intValue else {
                    // An unnumbered option names a row by its first words (`Yes` for `Yes, proceed (y)`).
                    let label = option["label"]?.stringValue ?? ""
                    #expect(menu.values.contains { $0.hasPrefix(label + ",") || $0.hasPrefix(label + " ") || $0 == label },
                            "the board's \(label) is no row of the pane's \(menu)", sourceLocation: sourceLocation)
                    continue
                }
                let label = option["label"]?.stringValue ?? ""
                #expect(matches(label, menu[number]), "the board says \(number). \(label), the pane's \(number). is \(menu[number] ?? "nothing")",
                        sourceLocation: sourceLocation)
            }
        }

        func notifyEvents(_ lab: AgentLab) -> [JSONValue] { lab.events().filter { $0["agent_event"]?.stringValue == CodexNotify.event } }

        // hooks.json is accepted: the review names every hook setup wrote (StopFailure is not written for
        // 0.163.0, whose binary lacks its schema), trusting them writes one trust entry per hookctl hook,
        // and doctor says so.
        @Test func hooksAreAcceptedAndTrusted() throws {
            let lab = try AgentLab(.codex)
            let hooks = try #require(try FileSystem.readString(lab.home + "/.codex/hooks.json"))
            let document = try JSON.parse(hooks)
            let registered = try #require(document["hooks"]?.objectValue).keys
            #expect(!registered.contains("StopFailure"), "0.163.0 does not know StopFailure: \(registered)")
            #expect(registered.contains("PreToolUse") && registered.contains("PostToolUse"), "\(registered)")
            try lab.start([])
            let count = try trustAtStart(lab)
            #expect(count == registered.count, "Codex's review names \(count.map(String.init) ?? "no") hooks, setup wrote \(registered.count)")
            let config = try #require(try FileSystem.readString(lab.home + "/.codex/config.toml"))
            let keys = Doctor.codexTrustKeys(hooksPath: lab.home + "/.codex/hooks.json", hooksText: hooks)
            #expect(!keys.isEmpty && Set(keys).isSubset(of: Doctor.codexTrustedKeys(configText: config)),
                    "every hookctl hook has its trust entry: \(keys)\n\(config)")
            let doctor = try lab.hookctl(["doctor"])
            #expect(doctor.outputText.contains("hookctl hooks in hooks.json have a trust entry"), "\(doctor.outputText)")
            #expect(doctor.outputText.contains("not StopFailure"), "doctor says StopFailure was left out: \(doctor.outputText)")
        }

        // A finished turn pushes once though notify runs twice on the first turn (for the turn and for the
        // thread-title side request) beside Stop; the second turn pushes again; nothing the hooks print
        // breaks Codex's strict Stop output (the screen shows no hook error, the hook prints nothing).
        @Test func aTurnPushesOnceAndTheNextAgain() throws {
            let lab = try started()
            try lab.typeLine("say all good")
            lab.waitForEvent("Stop")
            #expect(eventually(timeout: 15) { notifyEvents(lab).count >= 2 }, "notify ran for the turn and the title:\n\(lab.eventSummary())")
            lab.waitForPushes(1)
            sleepSeconds(1)
            #expect(lab.pushes().map(\.body) == ["all good"], "one push for the turn: \(lab.pushes())\n\(lab.eventSummary())")
            #expect(notifyEvents(lab).allSatisfy { $0["quiet"]?.stringValue == "stop_hook" }, "\(lab.eventSummary())")
            try lab.typeLine("say second turn")
            lab.waitForEvent("Stop", count: 2)
            lab.waitForPushes(2)
            sleepSeconds(1)
            #expect(lab.pushes().map(\.body) == ["all good", "second turn"], "the second turn pushes too: \(lab.pushes())\n\(lab.eventSummary())")
            #expect(lab.waitForState("done")?["message"]?.stringValue == "second turn")
            let screen = lab.capture()
            #expect(!screen.lowercased().contains("hook"), "no hook message on Codex's screen:\n\(screen)")

            // The Stop hook's own output, as Codex reads it: nothing (Codex rejects unknown fields).
            let payload = #"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/tmp","hook_event_name":"Stop","model":"m","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"x"}"#
            let script = lab.home + "/.local/share/hookctl/bin/hookctl-hook"
            var environment = lab.environment
            environment["SSHIDO_SESSION"] = "1"
            let run = try Subprocess(executable: script, arguments: ["codex"], environment: environment,
                                     input: Array(payload.utf8), timeout: 20).run()
            #expect(run.status == 0 && run.outputText.isEmpty, "exit \(run.status), stdout \(run.outputText)")
        }

        // A permission request pushes with the options the screen shows; `reply --choice` presses the
        // real dialog's row and the command runs; the turn then pushes its end.
        @Test func permissionRequestPushesTheScreensOptionsAndChoiceAnswers() throws {
            let lab = try started()
            let marker = lab.home + "/marker-yes"
            try lab.typeLine("run bash touch " + marker)
            lab.waitForScreen("Press enter to confirm or esc to cancel", timeout: 30)
            let push = try #require(lab.waitForPushes(1).first)
            #expect(push.priority == "high", "\(push)")
            let menu = AgentLab.menu(lab.capture())
            #expect(menu.count == 3, "the dialog's rows: \(lab.capture())")
            let entry = try #require(lab.waitForState("needs_input", timeout: 10))
            expectNumbersMatch(push: push, board: entry, menu: menu)
            let key = try #require(entry["key"]?.stringValue)
            let yes = try #require(menu[1]).replacing(" (y)", with: "")
            let reply = try lab.hookctl(["reply", key, "--choice", yes])
            #expect(reply.status == 0, "reply --choice \(yes): \(reply.errorText)")
            #expect(eventually(timeout: 20) { FileSystem.exists(marker) }, "Yes runs the command:\n\(lab.capture())")
            lab.waitForEvent("Stop")
            #expect(lab.waitForState("done")?["state"]?.stringValue == "done")
            #expect(lab.waitForPushes(2).count == 2, "the turn's end is pushed: \(lab.pushes())")
        }

        // Esc at the dialog interrupts the turn (Interrupt, no Stop, no push) and the board says done;
        // /exit ends the session (SessionEnd) and the board says ended.
        @Test func escapeAndExitLeaveTheBoardRight() throws {
            let lab = try started()
            let marker = lab.home + "/marker-esc"
            try lab.typeLine("run bash touch " + marker)
            lab.waitForScreen("Press enter to confirm or esc to cancel", timeout: 30)
            lab.waitForPushes(1)
            let key = try #require(lab.waitForState("needs_input", timeout: 10)?["key"]?.stringValue)
            let escape = try lab.hookctl(["reply", key, "--key", "Escape"])
            #expect(escape.status == 0, "reply --key Escape: \(escape.errorText)")
            lab.waitForScreen("Conversation interrupted")
            lab.waitForEvent("Interrupt")
            lab.waitForState("done", timeout: 10)
            #expect(!FileSystem.exists(marker))
            let interrupt = lab.events().last { $0["agent_event"]?.stringValue == "Interrupt" }
            #expect(interrupt?["quiet"]?.stringValue == "by_user", "\(interrupt.map { JSON.serialize($0) } ?? "")")
            #expect(lab.events().allSatisfy { $0["agent_event"]?.stringValue != "Stop" }, "no Stop after Esc:\n\(lab.eventSummary())")
            #expect(lab.pushes().count == 1, "Esc pushes nothing: \(lab.pushes())")

            #expect(eventually(timeout: 10) { lab.agentReady(lab.capture()) }, "Codex back at its prompt:\n\(lab.capture())")
            // A reply Codex would run as a shell command is refused and types nothing; --raw sends it.
            let shellMarker = lab.home + "/marker-bang"
            let before = lab.capture()
            let bang = try lab.hookctl(["reply", key, "!touch " + shellMarker])
            #expect(bang.status == 65 && bang.errorText.contains("--raw"), "exit \(bang.status): \(bang.errorText)")
            sleepSeconds(1)
            #expect(AgentLab.inputLine(lab.capture()) == AgentLab.inputLine(before), "nothing typed:\n\(lab.capture())")
            let raw = try lab.hookctl(["reply", key, "--raw", "!touch " + shellMarker])
            #expect(raw.status == 0, "reply --raw: \(raw.errorText)")
            #expect(eventually(timeout: 20) { FileSystem.exists(shellMarker) }, "Codex ran '!touch' as a shell command:\n\(lab.capture())")
            #expect(eventually(timeout: 10) { lab.agentReady(lab.capture()) }, "Codex back at its prompt:\n\(lab.capture())")
            // /exit leaves the thread loaded in Codex's app-server daemon: no SessionEnd fires (seen on
            // 0.163.0, docs/agents.md). The board ends the row when it finds the shell back in the pane.
            try lab.typeLine("/exit")
            lab.waitForScreen("codex resume")
            let ended = lab.waitForState("ended", timeout: 15)
            #expect(["agent_exited", "session_end"].contains(ended?["end_reason"]?.stringValue ?? ""),
                    "\(ended.map { JSON.serialize($0) } ?? "")\n\(lab.eventSummary())")
        }

        // A question (request_user_input, which Codex 0.163.0 offers outside Plan mode only with the
        // default_mode_request_user_input feature) pushes as needs_input with its options; the answer
        // leaves needs_input (PostToolUse) and reaches the model.
        @Test func aQuestionPushesItsOptionsAndTheAnswerLeavesNeedsInput() throws {
            let lab = try started(["-c", "features.default_mode_request_user_input=true"])
            try lab.typeLine("ask db")
            lab.waitForScreen("None of the above")
            let push = try #require(lab.waitForPushes(1).first)
            #expect(push.priority == "high" && push.body.contains("Which database?"), "\(push)")
            let entry = try #require(lab.waitForState("needs_input", timeout: 10))
            expectNumbersMatch(push: push, board: entry, menu: AgentLab.menu(lab.capture()))
            let key = try #require(entry["key"]?.stringValue)
            let reply = try lab.hookctl(["reply", key, "--choice", "SQLite"])
            #expect(reply.status == 0, "reply --choice SQLite: \(reply.errorText)")
            lab.waitForEvent("PostToolUse")
            let answered = eventually(timeout: 20) {
                lab.modelRequests().contains { ($0["tool_result"]?.stringValue ?? "").contains("SQLite") }
            }
            #expect(answered, "the model gets the answer: \(lab.modelRequests().map { JSON.serialize($0) })\n\(lab.capture())")
            lab.waitForState("done", timeout: 15)
        }

        // Hostile strings in the user's own entries beside hookctl's: setup keeps them value for value, this
        // Codex reads the file (its review counts them with hookctl's), and a turn still pushes once.
        @Test func hostileNeighboursAreKeptAndCodexReadsTheFile() throws {
            let lab = try AgentLab(.codex)
            let path = lab.home + "/.codex/hooks.json"
            let before = try #require(try FileSystem.readString(path))
            let ours = try #require(try JSON.parse(before)["hooks"]?.objectValue)
            // The user's hooks: inert commands (single-quoted words) carrying escapes, a bidi override,
            // command substitutions, a newline and a long string.
            let hostile = "true '\u{1b}]52;c;cHdu\u{07}\u{1b}[2J $(touch PWNED) `touch PWNED` \u{202e}evil\n;exit 1' # " + String(repeating: "☠", count: 2000)
            let user: JSONValue = .array([.object(JSONObject([
                ("matcher", .string("^\u{1b}[31mBash$")),
                ("hooks", .array([.object(JSONObject([("type", .string("command")), ("command", .string(hostile)),
                                                      ("statusMessage", .string("\u{1b}[5m\u{0}blink")), ("timeout", .int(5))]))])),
            ]))])
            var merged = ours
            merged["PreToolUse"] = .array((ours["PreToolUse"]?.arrayValue ?? []) + (user.arrayValue ?? []))
            try FileSystem.writeAtomically(path, text: JSON.serialize(.object(JSONObject([("hooks", .object(merged))]))), mode: 0o600, sync: false)
            let again = try lab.hookctl(["setup", "--agents", "codex"])
            #expect(again.status == 0, "setup over the user's entries: \(again.errorText)")
            let afterText = try #require(try FileSystem.readString(path))
            let after = try #require(try JSON.parse(afterText)["hooks"]?.objectValue)
            let kept = (after["PreToolUse"]?.arrayValue ?? []).filter { group in
                !(group["hooks"]?.arrayValue ?? []).contains(where: JSONHooksInstaller.isOurs)
            }
            #expect(kept == user.arrayValue, "the user's entry is kept as it was: \(kept.map { JSON.serialize($0) })")
            try lab.start([])
            let count = try trustAtStart(lab)
            // 0.163.0 counts hookctl's hooks in its review and not this user's entry (docs/agents.md).
            #expect((count ?? 0) >= ours.keys.count, "Codex reads hookctl's hooks: \(count.map(String.init) ?? "none")")
            try lab.typeLine("say still fine")
            lab.waitForEvent("Stop")
            lab.waitForPushes(1)
            sleepSeconds(1)
            #expect(lab.pushes().map(\.body) == ["still fine"], "\(lab.pushes())")
            #expect(!FileSystem.exists(lab.project + "/PWNED") && !FileSystem.exists(lab.home + "/PWNED"))
        }


        // Two Codex TUIs, one app-server daemon (the default daemon_auto_start = true): the second Codex's
        // dialog is recorded in the first's pane, marked inherited (status shows '?'). Text for it is refused
        // (two Codex panes), and so is a --choice, since the recorded pane shows no dialog; nothing reaches
        // either Codex. Once the second has exited, text for the first's turn goes into its pane.
        @Test func twoCodexesShareTheDaemonAndReplyTypesTextOnlyWhereItCannotBeAnothers() throws {
            let lab = try started()
            let first = lab.pane
            let second = try lab.splitPane()
            try lab.inPane(second) {
                try lab.start([])
                if lab.capture().contains("Hooks need review") { try trustAtStart(lab) }
            }
            let marker = lab.home + "/marker-second"
            try lab.inPane(second) {
                try lab.typeLine("run bash touch " + marker)
                lab.waitForScreen("Press enter to confirm or esc to cancel", timeout: 30)
            }
            let entry = try #require(lab.waitForState("needs_input", timeout: 15))
            #expect(entry["tmux"]?["pane"]?.stringValue == first, "the daemon's hook names the first Codex's pane: \(JSON.serialize(entry))")
            #expect(entry["tmux"]?["pane_inherited"]?.boolValue == true, "\(JSON.serialize(entry))")
            let key = try #require(entry["key"]?.stringValue)
            let table = try lab.hookctl(["status", "--width", "80"])
            #expect(table.outputText.contains("?"), "status marks the pane: \(table.outputText)")

            let text = try lab.hookctl(["reply", key, "do not run it"])
            #expect(text.status == 69, "exit \(text.status): \(text.errorText)")
            #expect(text.errorText.contains("2 panes (\(first), \(second))") && text.errorText.contains("daemon_auto_start = false"),
                    "\(text.errorText)")
            let choice = try lab.hookctl(["reply", key, "--choice", "Yes, proceed"])
            #expect(choice.status == 69, "the first pane shows no dialog: exit \(choice.status): \(choice.errorText)")
            sleepSeconds(1)
            #expect(!FileSystem.exists(marker), "nothing answered the dialog")
            #expect(!lab.capture().contains("do not run it"), "nothing was typed into the first Codex:\n\(lab.capture())")
            lab.inPane(second) {
                #expect(lab.capture().contains("Press enter to confirm or esc to cancel"), "the second Codex still asks:\n\(lab.capture())")
                #expect(!lab.capture().contains("do not run it"))
            }

            // The second Codex's user answers at its keyboard (Esc) and quits: one Codex left, in the recorded pane.
            try lab.inPane(second) {
                try lab.press("Escape")
                lab.waitForScreen("Conversation interrupted")
                try lab.typeLine("/exit")
                #expect(eventually(timeout: 15) { lab.agentPID() == nil }, "the second Codex exited:\n\(lab.capture())")
            }
            try lab.typeLine("say first here")
            lab.waitForEvent("Stop")
            var found: JSONValue?
            let shown = eventually(timeout: 15) {
                found = lab.board().first { $0["state"]?.stringValue == "done" && $0["key"]?.stringValue != key }
                return found != nil
            }
            try #require(shown, "the first Codex's turn is on the board: \(lab.board().map { JSON.serialize($0) })")
            let done = try #require(found)
            #expect(done["tmux"]?["pane_inherited"]?.boolValue == true)
            // The second quit with no SessionEnd (the daemon fires none): its row stays in the same pane, so text
            // for the first is refused until the user takes the gone session off the board.
            let doneKey = try #require(done["key"]?.stringValue)
            let blocked = try lab.hookctl(["reply", doneKey, "say typed by reply"])
            #expect(blocked.status == 69 && blocked.errorText.contains(key) && blocked.errorText.contains("hookctl dismiss"),
                    "exit \(blocked.status): \(blocked.errorText)")
            #expect(try lab.hookctl(["dismiss", key]).status == 0)
            let replied = try lab.hookctl(["reply", doneKey, "say typed by reply"])
            #expect(replied.status == 0, "exit \(replied.status): \(replied.errorText)")
            let reached = eventually(timeout: 20) { lab.modelRequests().contains { $0["text"]?.stringValue == "say typed by reply" } }
            #expect(reached, "the first Codex took the text: \(lab.modelRequests().map { JSON.serialize($0) })\n\(lab.capture())")
        }
    }
}
