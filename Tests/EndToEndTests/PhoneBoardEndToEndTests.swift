import Testing
@testable import HookSupport
import TestSupport

/// The board a phone user acts on, end to end with the built binary and a private tmux server: every
/// target form, `jump` inside and outside tmux, quiet while present, and a client attached with `script`
/// (a real pty, so tmux counts its keys as the user's input).
@Suite(.onTestThreads) struct PhoneBoardEndToEndTests {
    static var haveTools: Bool { FileSystem.isExecutable(AnswerLab.tmux) && FileSystem.isExecutable("/usr/bin/script") }

    /// A tmux client attached to `session` through `script` (a pty), fed from a FIFO the test writes keys into.
    final class Client: @unchecked Sendable {
        let keys: FileDescriptor
        let lab: AnswerLab

        init(_ lab: AnswerLab, session: String) throws {
            self.lab = lab
            let fifo = lab.home.file("keys-\(session)-\(UInt32.random(in: 0...UInt32.max))")
            try #require(mkfifo(fifo, 0o600) == 0)
            let attach = "\(AnswerLab.tmux) -S \(shellQuoted(lab.socket)) attach-session -t \(shellQuoted("=" + session))"
            try Subprocess.spawnDetached(executable: "/bin/sh", arguments: [
                "-c", "exec /usr/bin/script -qfc \(shellQuoted(attach)) /dev/null < \(shellQuoted(fifo)) > /dev/null 2>&1",
            ], environment: lab.environment.merging(["TERM": "xterm"]) { $1 })
            keys = try FileDescriptor.open(fifo, O_WRONLY)
            let attached = eventually(timeout: 10) {
                (try? lab.tmux(["list-clients", "-F", "#{client_session}"]))?.stdout.contains(session) ?? false
            }
            try #require(attached, "the client did not attach")
        }

        func type(_ text: String) throws { try keys.writeAll(Array(text.utf8)) }

        /// The pane the client looks at now.
        func pane() throws -> String { Text.trimmed(try lab.tmux(["list-clients", "-F", "#{pane_id}"]).stdout) }

        deinit { keys.close() }
    }

    static func git(_ directory: String, branch: String) throws {
        try FileSystem.makeDirectories(directory + "/.git")
        try FileSystem.writeAtomically(directory + "/.git/HEAD", text: "ref: refs/heads/\(branch)\n", sync: false)
    }

    @Test func everyTargetFormNamesTheSameAgentAndPeekSaysWhich() throws {
        guard Self.haveTools else { Issue.record("tmux and script are needed for this test"); return }
        let lab = try AnswerLab()
        let api = lab.home.file("work/api"), web = lab.home.file("work/web"), web2 = lab.home.file("work2/web")
        try Self.git(api, branch: "fix-login")
        for directory in [web, web2] { try FileSystem.makeDirectories(directory) }
        let first = try lab.start(session: "c-api", tmuxSession: "phone", directory: api, window: "agent")
        _ = try lab.start(session: "c-web", tmuxSession: "phone", directory: web, window: "front")
        let other = try lab.start(session: "c-web2", tmuxSession: "other", directory: web2)
        let window = Text.trimmed(try lab.tmux(["display-message", "-p", "-t", first.pane, "#{window_index}"]).stdout)

        // The board shows project (with its branch), window and the question with its options.
        let board = try lab.hookctl(["status", "--width", "45"])
        #expect(board.stdout.contains("api (fix-login)"), "\(board.stdout)")
        #expect(board.stdout.contains("phone:agent") && board.stdout.contains("phone:front"), "\(board.stdout)")
        #expect(board.stdout.contains("1 Postgres (Recommended)"), "\(board.stdout)")
        for line in board.stdout.split(separator: "\n") { #expect(Terminal.columns(String(line)) <= 45, "\(line)") }

        for target in ["claude:c-api", "c-api", "c-ap", "phone:agent", "=phone:agent", "phone:\(window)", first.pane, "api"] {
            let peek = try lab.hookctl(["peek", target, "--lines", "0"])
            #expect(peek.status == 0, "\(target): \(peek.stderr)")
            let header = peek.stdout.split(separator: "\n").first.map(String.init) ?? ""
            // Agent, project, window and state on the first line.
            #expect(header.hasPrefix("claude · api (fix-login) · phone:agent · needs_input"), "\(target): \(header)")
            #expect(peek.stdout.contains("Which database?"), "\(target)")
        }
        // A session name alone names its one agent; `other` runs one.
        let alone = try lab.hookctl(["peek", "other", "--json", "--lines", "0"])
        #expect(try JSON.parse(alone.stdout)["key"]?.stringValue == "claude:c-web2", "\(alone.stderr)")
        #expect(try JSON.parse(try lab.hookctl(["peek", other.pane, "--json"]).stdout)["key"]?.stringValue == "claude:c-web2")
        // `--next`: the agent waiting longest.
        #expect(try JSON.parse(try lab.hookctl(["peek", "--next", "--json"]).stdout)["key"]?.stringValue == "claude:c-api")

        // Two agents in project "web", two in session "phone", none in window "nope", and no prefix matches.
        for (target, listed) in [("web", ["claude:c-web ", "claude:c-web2 "]), ("phone", ["claude:c-api ", "claude:c-web "])] {
            let ambiguous = try lab.hookctl(["peek", target])
            #expect(ambiguous.status == 64, "\(target): \(ambiguous.stdout)")
            for key in listed { #expect(ambiguous.stderr.contains(key), "\(target): \(ambiguous.stderr)") }
        }
        for target in ["phone:nope", "phon", "ap", "phone:agen", "=phon:agent"] {
            let missing = try lab.hookctl(["peek", target])
            #expect(missing.status == 64, "\(target) matched: \(missing.stdout)")
        }
        // reply takes the same targets.
        let reply = try lab.hookctl(["reply", "api", "--choice", "SQLite", "--json"])
        #expect(reply.status == 0, "\(reply.stderr)")
        #expect(lab.received(first.record) == Array("2".utf8))

        // Completions offer the targets that name one agent.
        let words = try lab.hookctl(["completion", "--complete", "--", "jump", ""]).stdout.split(separator: "\n").map(String.init)
        #expect(words.contains("claude:c-web2") && words.contains("phone:front") && words.contains("api"), "\(words)")
        #expect(!words.contains("web"), "\(words)")
        let afterOption = try lab.hookctl(["completion", "--complete", "--", "peek", "--lines", "0", "a"]).stdout
        #expect(afterOption.split(separator: "\n").contains("api"), "\(afterOption)")
        #expect(try lab.hookctl(["completion", "--complete", "--", "reply", "api", ""]).stdout.isEmpty)
    }

    @Test func jumpSwitchesTheClientInsideTmuxAndPrintsTheAttachLineOutside() throws {
        guard Self.haveTools else { Issue.record("tmux and script are needed for this test"); return }
        let lab = try AnswerLab()
        let api = lab.home.file("api")
        try FileSystem.makeDirectories(api)
        _ = try lab.start(session: "first", tmuxSession: "phone")
        // The agent's pane is not the active one of its window: only the pane id lands there.
        let agent = try lab.start(session: "target", tmuxSession: "work", directory: api)
        try lab.tmux(["split-window", "-d", "-t", agent.pane])
        try lab.tmux(["select-pane", "-t", agent.pane])
        try lab.tmux(["split-window", "-t", agent.pane])
        // A session whose name begins like the agent's must never be picked by tmux's prefix match.
        try lab.tmux(["new-session", "-d", "-s", "work-other"])

        // Outside tmux: the line to run.
        let outside = try lab.hookctl(["jump", "api"])
        #expect(outside.status == 0, "\(outside.stderr)")
        let line = Text.trimmed(outside.stdout)
        #expect(line == "\(AnswerLab.tmux) -S \(shellQuoted(lab.socket)) attach-session -t \(agent.pane)", "\(line)")
        // Running it attaches a client on exactly that pane.
        try Subprocess.spawnDetached(executable: "/bin/sh", arguments: [
            "-c", "exec /usr/bin/script -qfc \(shellQuoted(line)) /dev/null < /dev/null > /dev/null 2>&1"],
            environment: lab.environment.merging(["TERM": "xterm"]) { $1 })
        #expect(eventually(timeout: 10) { (try? lab.tmux(["list-clients", "-F", "#{pane_id}"]))?.stdout.contains(agent.pane) ?? false })
        try lab.tmux(["detach-client", "-a", "-s", "=work"])
        _ = try? lab.tmux(["detach-client", "-s", "=work"])

        // Inside tmux: a client on session "phone" runs jump from its pane and is switched.
        let client = try Client(lab, session: "phone")
        let here = try client.pane()
        let pid = Text.trimmed(try lab.tmux(["display-message", "-p", "#{pid}"]).stdout)
        let inside = try EndToEndTests.hookctl(["jump", "claude:target", "--json"],
                                               environment: lab.environment.merging(["TMUX": "\(lab.socket),\(pid),0", "TMUX_PANE": here]) { $1 })
        #expect(inside.status == 0, "\(inside.stderr)")
        let report = try JSON.parse(inside.stdout)
        #expect(report["switched"]?.boolValue == true)
        #expect(report["command"]?.arrayValue?.map { $0.stringValue ?? "" }.suffix(2) == ["-t", agent.pane])
        #expect(eventually(timeout: 5) { (try? client.pane()) == agent.pane }, "the client is on \((try? client.pane()) ?? "?")")
        #expect(Text.trimmed(try lab.tmux(["list-clients", "-F", "#{client_session}"]).stdout) == "work")

        // An agent that is gone is refused, and nothing moves.
        try lab.tmux(["kill-pane", "-t", agent.pane])
        _ = try lab.hookctl(["status"])
        let gone = try EndToEndTests.hookctl(["jump", "claude:target"],
                                             environment: lab.environment.merging(["TMUX": "\(lab.socket),\(pid),0", "TMUX_PANE": here]) { $1 })
        #expect(gone.status == 69, "\(gone.stdout) \(gone.stderr)")
    }

    @Test func theLiveBoardSelectsARowThenPeeksRepliesAndJumps() throws {
        guard Self.haveTools else { Issue.record("tmux and script are needed for this test"); return }
        let lab = try AnswerLab()
        let project = lab.home.file("project")
        try FileSystem.makeDirectories(project)
        let first = try lab.start(session: "one", tmuxSession: "lab", directory: project, window: "first")
        let second = try lab.start(session: "two", tmuxSession: "lab", directory: project, window: "second")
        // The board runs in a pane of the same server, 45 columns wide, with a client looking at it.
        let command = [Harness.binary, "status", "--watch"].map(shellQuoted).joined(separator: " ")
        try lab.tmux(["new-session", "-d", "-s", "board", "-x", "45", "-y", "30", command])
        // The client's terminal must not resize the phone-sized window.
        try lab.tmux(["set-option", "-w", "-t", "=board:", "window-size", "manual"])
        let client = try Client(lab, session: "board")
        try lab.tmux(["resize-window", "-t", "=board:", "-x", "45", "-y", "30"])
        func screen() throws -> String { try lab.tmux(["capture-pane", "-p", "-t", "=board:"]).stdout }
        func keys(_ keys: String...) throws { try lab.tmux(["send-keys", "-t", "=board:"] + keys) }
        #expect(try eventually { try screen().contains("lab:second") && screen().contains("r reply") }, "\((try? screen()) ?? "")")
        for line in try screen().split(separator: "\n") { #expect(Terminal.columns(String(line)) <= 45, "\(line)") }

        // Newest first: the second agent is selected; j moves to the first; p shows its pane with the header.
        #expect(try screen().split(separator: "\n").contains { $0.hasPrefix(">") && $0.contains("INPUT") })
        try keys("j")
        try keys("p")
        #expect(try eventually { try screen().contains("claude · project · lab:first") }, "\((try? screen()) ?? "")")
        #expect(try screen().contains("Which database?"))
        try keys("x")   // back to the board
        #expect(try eventually { try screen().contains("r reply") && !screen().contains("any key") })

        // r, 2, Enter: option 2 of the first agent's question (SQLite, shown as 2 there).
        try keys("r")
        #expect(try eventually { try screen().contains("reply to claude (lab:first)") }, "\((try? screen()) ?? "")")
        try keys("2", "Enter")
        #expect(lab.received(first.record) == Array("2".utf8))
        #expect(lab.received(second.record, timeout: 0.2).isEmpty)
        #expect(try eventually { try lab.board()["claude:one"]?["state"]?.stringValue == "working" })

        // g on the second agent: the client watching the board is switched to its pane.
        try keys("k")
        sleepSeconds(0.2)
        try keys("g")
        #expect(eventually(timeout: 10) { (try? client.pane()) == second.pane }, "\((try? screen()) ?? "")")
        try keys("q")
    }

    @Test func noPushWhileTheUserTypesInTheSessionAndTheQuestionIsPushedOnceTheyLeave() throws {
        guard Self.haveTools else { Issue.record("tmux and script are needed for this test"); return }
        let lab = try AnswerLab()
        try lab.home.write(".config/hookctl/config.yaml", """
            version: 1
            sinks:
              - {name: log, type: file, path: ~/pushes.jsonl}
            """)
        func pushes() -> [JSONValue] { (lab.home.read("pushes.jsonl") ?? "").split(separator: "\n").compactMap { try? JSON.parse(String($0)) } }
        func events() throws -> [JSONValue] {
            try lab.hookctl(["events", "--json"]).stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        }

        // Detached: the question pushes at once.
        _ = try lab.start(session: "away", tmuxSession: "away")
        // The push may go out from the background sender, a moment after the hook.
        #expect(eventually(timeout: 20) { pushes().map { $0["session_id"]?.stringValue } == ["away"] }, "\(pushes())")

        // Attached and typing: recorded with the reason, not pushed; the board still shows it.
        try lab.tmux(["new-session", "-d", "-s", "desk"])
        let client = try Client(lab, session: "desk")
        try client.type("x")
        let desk = try lab.start(session: "desk", tmuxSession: "desk")
        let recorded = try #require(try events().last)
        #expect(recorded["session_id"]?.stringValue == "desk")
        #expect(recorded["quiet"]?.stringValue == "present", "\(recorded)")
        #expect(pushes().count == 1)
        #expect(try lab.board()["claude:desk"]?["state"]?.stringValue == "needs_input")
        let listing = try lab.hookctl(["events", "--session", "desk", "--width", "80"])
        #expect(listing.stdout.contains("not pushed: present"), "\(listing.stdout)")

        // The user leaves before answering: the held question goes out.
        try lab.tmux(["detach-client", "-s", "=desk"])
        #expect(eventually(timeout: 20) { pushes().count == 2 }, "held question not pushed: \(pushes())")
        #expect(pushes().last?["session_id"]?.stringValue == "desk")

        // Answered while present: never pushed.
        try lab.tmux(["new-session", "-d", "-s", "desk2"])
        let second = try Client(lab, session: "desk2")
        try second.type("y")
        _ = try lab.start(session: "answered", tmuxSession: "desk2")
        #expect(try events().last?["quiet"]?.stringValue == "present")
        #expect(try lab.hookctl(["reply", "claude:answered", "--choice", "1"]).status == 0)
        try lab.tmux(["detach-client", "-s", "=desk2"])
        // The watcher drops the answered question: its hold file goes, and nothing is pushed.
        #expect(eventually(timeout: 20) { ((try? FileSystem.list(lab.home.file(".local/state/hookctl/held"))) ?? []).isEmpty })
        #expect(pushes().count == 2, "\(pushes())")
        _ = desk
    }
}
