import Testing
@testable import HookSupport
@testable import HookCore
import TestSupport

/// A private tmux server with stand-in agents (Tests/Fixtures/standin_agent.py) in its panes: each
/// calls the built hookctl as its hook, then records every byte it receives. `peek` and `reply` run
/// as the built binary with the lab's temporary HOME.
final class AnswerLab: @unchecked Sendable {
    let home: TemporaryHome
    let socket: String
    static let tmux = "/usr/bin/tmux"
    private var started = false
    /// Added to the environment of the lab's tmux server, its agents' hooks and its hookctl calls.
    let extraEnvironment: [String: String]

    init(environment extra: [String: String] = [:]) throws {
        extraEnvironment = extra
        home = try TemporaryHome()
        socket = home.file("tmux.sock")
        // The agents' facts are data: this machine may be loaded, so the lab's Claude manifest (the user's
        // own manifest overrides the built-in one) allows the stand-in more time to show an Enter.
        var manifest = try JSON.parse(try #require(try FileSystem.readString(Harness.packageRoot + "/hooks/claude.json")))
        guard case .object(var root) = manifest, case .object(var answer)? = root["answer"],
              case .object(var check)? = answer["enter_check_ms"] else { throw SystemError.notFound(program: "hooks/claude.json answer") }
        check["value"] = .int(1500)
        answer["enter_check_ms"] = .object(check)
        root["answer"] = .object(answer)
        manifest = .object(root)
        try home.write(".config/hookctl/agents/claude.json", JSON.serializePretty(manifest))
    }

    deinit { _ = try? tmux(["kill-server"]) }

    var environment: [String: String] { home.environment(extraEnvironment) }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess(executable: AnswerLab.tmux, arguments: ["-S", socket] + arguments, environment: environment, timeout: 10).run()
    }

    func hookctl(_ arguments: [String], input: String? = nil) throws -> Subprocess.Result {
        try EndToEndTests.hookctl(arguments, environment: environment, input: input)
    }

    /// Starts a stand-in agent in a new window of tmux session `tmuxSession` (`sh -c 'agent; exec sleep'`,
    /// so the pane outlives the agent) and waits until its hook has run. Returns its pane id and record file.
    /// `launcher` is what runs the stand-in's script (a link to it named like another agent's program, say).
    func start(session: String, tmuxSession: String = "lab", extra: [String] = [], directory: String? = nil,
               window: String? = nil, launcher: [String] = ["python3", "-S", Harness.fixtures + "/standin_agent.py"])
        throws -> (pane: String, record: String) {
        let record = home.file("record-\(session)")
        let quoted = (launcher + ["--record", record, "--hookctl", Harness.binary,
                       "--session", session] + extra).map { "'" + $0.replacing("'", with: "'\\''") + "'" }
        let command = "sh -c \"" + quoted.joined(separator: " ").replacing("\"", with: "\\\"") + "; exec sleep 600\""
        let result: Subprocess.Result
        let cwd = (directory.map { ["-c", $0] } ?? []) + (window.map { ["-n", $0] } ?? [])
        if !started {
            result = try tmux(["-f", "/dev/null", "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", tmuxSession,
                               "-x", "80", "-y", "30"] + cwd + [command])
            started = true
        } else if (try? tmux(["has-session", "-t", "=" + tmuxSession]))?.status == 0 {
            result = try tmux(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=" + tmuxSession + ":"] + cwd + [command])
        } else {
            result = try tmux(["new-session", "-d", "-P", "-F", "#{pane_id}", "-s", tmuxSession, "-x", "80", "-y", "30"] + cwd + [command])
        }
        try #require(result.status == 0, "\(result.stderr)")
        let pane = Text.trimmed(result.stdout)
        let deadline = monotonicSeconds() + 15
        while !FileSystem.exists(record), monotonicSeconds() < deadline { sleepSeconds(0.02) }
        try #require(FileSystem.exists(record), "the stand-in agent did not start: \(home.read("record-\(session).hook.err") ?? "")")
        return (pane, record)
    }

    /// What the agent received so far, as bytes.
    func received(_ record: String, atLeast count: Int = 1, timeout: Double = 5) -> [UInt8] {
        let deadline = monotonicSeconds() + timeout
        var bytes: [UInt8] = []
        repeat {
            bytes = ((try? FileSystem.read(record, limit: 1 << 20)) ?? nil) ?? []
            if bytes.count >= count { break }
            sleepSeconds(0.02)
        } while monotonicSeconds() < deadline
        return bytes
    }

    /// What the agent received before now: a sentinel byte (`~`, which no stand-in acts on) is typed
    /// into its pane after everything sent so far, and the bytes before it are returned once it has
    /// arrived. tmux delivers a pane's input in order, so nothing sent earlier can still come.
    func receivedBeforeSentinel(_ agent: (pane: String, record: String)) throws -> [UInt8] {
        let count = (((try? FileSystem.read(agent.record, limit: 1 << 20)) ?? nil) ?? []).count
        #expect(try tmux(["send-keys", "-t", agent.pane, "-l", "~"]).status == 0)
        let bytes = received(agent.record, atLeast: count + 1, timeout: 10)
        guard bytes.last == UInt8(ascii: "~") else { Issue.record("the sentinel did not arrive: \(bytes)"); return bytes }
        return Array(bytes.dropLast())
    }

    /// Waits until the process in `pane` is `program` (after a respawn-pane, say).
    func waitForProgram(_ program: String, in pane: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let running = eventually {
            guard let pid = try? Text.trimmed(tmux(["display-message", "-p", "-t", pane, "#{pane_pid}"]).stdout), !pid.isEmpty,
                  let comm = (try? FileSystem.readString("/proc/\(pid)/comm")) ?? nil else { return false }
            return Text.trimmed(comm) == program
        }
        #expect(running, "\(pane) does not run \(program)", sourceLocation: sourceLocation)
    }

    func board() throws -> [String: JSONValue] {
        let result = try hookctl(["status", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let agents = try JSON.parse(result.stdout)["agents"]?.arrayValue ?? []
        return Dictionary(uniqueKeysWithValues: agents.map { ($0["key"]!.stringValue!, $0) })
    }
}

@Suite(.onTestThreads) struct AnswerEndToEndTests {
    static var haveTmux: Bool { FileSystem.isExecutable(AnswerLab.tmux) }

    /// A wait is committed before its dialog's rows are read from the pane: a hook killed right after that
    /// capture (`HOOKCTL_FAULT=screen-read`) loses nothing. Its push goes out with what the payload said,
    /// and the event reaches the log late (caught up, since its hook never logged it).
    @Test func aHookKilledWhileReadingItsPaneStillHasItsPushOut() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let receiver = try Receiver(directory: lab.home.path)
        try lab.home.writeConfig(relay: receiver)
        // The stand-in's hook, killed at the capture; in the foreground, so no sender outlives the test.
        let wrapper = lab.home.file("bin/hookctl-killed")
        try lab.home.write("bin/hookctl-killed", "#!/bin/sh\nHOOKCTL_FAULT=screen-read HOOKCTL_NO_BACKGROUND=1 exec '\(Harness.binary)' \"$@\"\n")
        #expect(chmod(wrapper, 0o755) == 0)
        _ = try lab.start(session: "killed", extra: ["--payload", "permission", "--question", "Claude needs your permission to use Bash",
                                                     "--hookctl", wrapper])
        #expect(!lab.home.loggedEvents().contains { $0["session_id"]?.stringValue == "killed" }, "the hook died before logging")
        let flush = try lab.hookctl(["outbox", "flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        let bodies = try receiver.waitForBodies(1)
        #expect(bodies.first?["priority"]?.stringValue == "high")
        #expect(bodies.first?["body"]?.stringValue?.contains("permission to use Bash") == true, "\(bodies)")
        let logged = lab.home.loggedEvents().filter { $0["session_id"]?.stringValue == "killed" }
        #expect(logged.map { $0["kind"]?.stringValue } == ["needs_input"])
        #expect(logged.first?["late"]?.boolValue == true)
    }

    @Test func choiceIsMatchedByLabelOnThePaneAndTheBoardFollows() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        // The pane shows the options in another order than the hook recorded them.
        let same = try lab.start(session: "same")
        let moved = try lab.start(session: "moved", extra: ["--shown", "SQLite|MySQL|Postgres (Recommended)"])
        let board = try lab.board()
        let question = try #require(board["claude:same"]?["question"])
        #expect(board["claude:same"]?["state"]?.stringValue == "needs_input")
        #expect(question["text"]?.stringValue == "Which database?")
        #expect(question["options"]?.arrayValue?.map { $0["label"]?.stringValue ?? "" } == ["Postgres (Recommended)", "SQLite", "MySQL"])
        #expect(question["options"]?.arrayValue?[1]["n"]?.intValue == 2)
        #expect(question["multi_select"]?.boolValue == false)
        let table = try lab.hookctl(["status", "--width", "100"])
        #expect(table.stdout.contains("Which database?\n  1 Postgres (Recommended) · 2 SQLite · 3 MySQL"), "\(table.stdout)")

        let follower = try StreamingHookctl(["events", "--follow", "--json"], home: lab.home)
        defer { follower.stop() }
        // Following once it has shown the log so far (the agents' own events come first).
        var shown = [follower.readLine(timeout: 10)].compactMap { $0 }
        #expect(!shown.isEmpty, "the follower showed nothing")

        // --choice 2 means the recorded option 2, SQLite: the pane shows it as 2 in one, as 1 in the other.
        let first = try lab.hookctl(["reply", "claude:same", "--choice", "2", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(lab.received(same.record) == Array("2".utf8))
        let answer = try JSON.parse(first.stdout)
        #expect(answer["choice"]?.arrayValue?.first?["label"]?.stringValue == "SQLite")
        #expect(answer["event"]?["kind"]?.stringValue == "working")

        let second = try lab.hookctl(["reply", moved.pane, "--choice", "2"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(lab.received(moved.record) == Array("1".utf8))   // the digit shown there; no Enter after it
        #expect(try lab.receivedBeforeSentinel(moved) == Array("1".utf8))

        // The board left needs_input; the question is gone; the follower saw the reply.
        let after = try lab.board()
        #expect(after["claude:same"]?["state"]?.stringValue == "working")
        #expect(after["claude:same"]?["agent_event"]?.stringValue == "reply")
        #expect(after["claude:same"]?["question"] == .null)
        #expect(after["claude:moved"]?["message"]?.stringValue == "Answered: 1. SQLite")
        var replies: [JSONValue] = []
        while replies.count < 2, let line = shown.popLast() ?? follower.readLine(timeout: 5) {
            let event = try JSON.parse(line)
            if event["agent_event"]?.stringValue == "reply" { replies.append(event) }
        }
        #expect(replies.map { $0["session_id"]?.stringValue ?? "" } == ["same", "moved"])
        #expect(replies.allSatisfy { $0["kind"]?.stringValue == "working" })
    }

    @Test func aChoiceByLabelThatIsNotShownIsRefused() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "labels", extra: ["--shown", "Yes|Yes, and don't ask again for: npm test:*|No"])
        let missing = try lab.hookctl(["reply", "labels", "--choice", "Maybe", "--json"])
        #expect(missing.status == 69, "\(missing.stderr)")
        #expect(missing.stderr.contains("it shows: 1. Yes; 2. Yes, and don't ask again"), "\(missing.stderr)")
        #expect(try JSON.parse(missing.stdout)["error"]?["code"]?.stringValue == "choice_not_shown")
        // "Yes" is exact for row 1 even though row 2 begins with it; a beginning picks the one row.
        let prefix = try lab.hookctl(["reply", "labels", "--choice", "yes, and don't"])
        #expect(prefix.status == 0, "\(prefix.stderr)")
        #expect(lab.received(agent.record) == Array("2".utf8))
    }

    @Test func multiLineAndHostileTextArriveAsOneLiteralPaste() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "typed", extra: ["--mode", "input"])
        let canary = lab.home.file("PWNED")
        let text = "first line\nsecond ; kill-server \\; C-c Enter\n#(touch \(canary)) #{pane_id} $(touch \(canary)) "
            + "\u{1B}[31mred\u{1B}[0m \u{1B}]0;title\u{07} done"
        let result = try lab.hookctl(["reply", "claude:typed", text, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = Array("\u{1B}[200~".utf8) + Array(text.utf8) + Array("\u{1B}[201~".utf8) + [0x0D]
        #expect(lab.received(agent.record, atLeast: expected.count) == expected)
        #expect(!FileSystem.exists(canary))
        #expect(try lab.tmux(["list-sessions"]).status == 0)     // the server is alive
        #expect(try lab.tmux(["list-buffers"]).stdout.isEmpty)   // the private buffer is gone
        let reply = try JSON.parse(result.stdout)
        #expect(reply["enter"]?["sent"]?.boolValue == true)
        #expect(reply["enter"]?["retried"]?.boolValue == false)
        #expect(reply["text_bytes"]?.intValue == text.utf8.count)

        // From standard input; the paste-end marker cannot end the paste early; keys by name.
        try FileSystem.writeAtomically(agent.record, text: "", sync: false)
        let piped = try lab.hookctl(["reply", "typed", "-", "--no-enter"], input: "a\u{1B}[201~b\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stderr.contains("removed bracketed-paste markers"))
        #expect(piped.stderr.contains("is working, not waiting for input"))
        #expect(lab.received(agent.record, atLeast: 14) == Array("\u{1B}[200~ab\u{1B}[201~".utf8))
        try FileSystem.writeAtomically(agent.record, text: "", sync: false)
        let keys = try lab.hookctl(["reply", "typed", "--key", "C-c", "--key", "esc", "--key", "Enter"])
        #expect(keys.status == 0, "\(keys.stderr)")
        #expect(lab.received(agent.record, atLeast: 3) == [0x03, 0x1B, 0x0D])
        let refused = try lab.hookctl(["reply", "typed", "--key", "C-x"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("is not a key reply sends"))
    }

    /// Keys that submit nothing (arrows, Tab): the last one is sent while the reply's `info` event is
    /// recorded (the reply takes no longer than its tmux call); both happen, and the session's state stays.
    @Test func keysThatSubmitNothingAreSentAndRecordedAsInfo() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "moves", extra: ["--mode", "input"])
        let state = try lab.board()["claude:moves"]?["state"]?.stringValue
        let result = try lab.hookctl(["reply", "moves", "--key", "Down", "--key", "Tab", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let received = lab.received(agent.record, atLeast: 4)
        #expect(received.first == 0x1B && received.last == 0x09, "\(received)")
        let logged = try #require(lab.home.loggedEvents().last)
        #expect(logged["agent_event"]?.stringValue == "reply")
        #expect(logged["kind"]?.stringValue == "info")
        #expect(logged["message"]?.stringValue == "Pressed: Down Tab")
        #expect(try JSON.parse(result.stdout)["event"]?["seq"] == logged["seq"])
        #expect(try lab.board()["claude:moves"]?["state"]?.stringValue == state)
    }

    @Test func aLostEnterIsPressedOnceMore() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "deaf", extra: ["--mode", "input", "--swallow-first-enter"])
        let result = try lab.hookctl(["reply", "deaf", "hello", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let reply = try JSON.parse(result.stdout)
        #expect(reply["enter"]?["retried"]?.boolValue == true)
        #expect(reply["enter"]?["confirmed"]?.boolValue == true)
        #expect(lab.received(agent.record, atLeast: 19) == Array("\u{1B}[200~hello\u{1B}[201~\r\r".utf8))
    }

    @Test func refusesWhenThePaneIsGoneOrRunsAnotherProgram() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let gone = try lab.start(session: "gone")
        let respawned = try lab.start(session: "respawned")
        let exited = try lab.start(session: "exited")
        let board = try lab.board()

        #expect(try lab.tmux(["kill-pane", "-t", gone.pane]).status == 0)
        // The agent's own process ends; the shell in its pane runs `sleep` in its place.
        let agentPID = try #require(board["claude:exited"].flatMap { _ in
            lab.home.read(".local/state/hookctl/board.state")?.split(separator: "\n")
                .first { $0.contains("\"claude:exited\"") }
                .flatMap { line in line.split(separator: "\t").last.flatMap { try? JSON.parse(String($0)) } }?["processes"]?["agent_pid"]?.intValue
        })
        kill(Int32(agentPID), SIGKILL)
        #expect(try lab.tmux(["respawn-pane", "-k", "-t", respawned.pane, "sleep 600"]).status == 0)
        lab.waitForProgram("sleep", in: respawned.pane)
        #expect(eventually { !FileSystem.exists("/proc/\(agentPID)") }, "the killed agent was not reaped")

        for (target, reason) in [("claude:gone", "pane is gone"), ("claude:respawned", "another program now runs in its pane"),
                                 ("claude:exited", "the agent (pid \(agentPID)) has exited")] {
            for command in [["reply", target, "--choice", "1", "--json"], ["reply", target, "text"], ["peek", target]] {
                let result = try lab.hookctl(command)
                #expect(result.status == 69, "\(command): \(result.stderr)")
                #expect(result.stderr.contains(reason), "\(command): \(result.stderr)")
                if command.contains("--json") {
                    #expect(try JSON.parse(result.stdout)["error"]?["code"]?.stringValue == "refused")
                }
            }
        }
        #expect(lab.received(respawned.record, timeout: 0.2).isEmpty)
        #expect(lab.received(exited.record, timeout: 0.2).isEmpty)
        // Nothing was recorded as a reply.
        let events = try lab.hookctl(["events", "--json"])
        #expect(!events.stdout.contains("\"agent_event\":\"reply\""))
    }

    @Test func aSessionRecordedWithoutItsProcessesIsCheckedWithTmux() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let agent = try lab.start(session: "modern")
        // An older hookctl recorded this one: pane and socket, no processes.
        var event = Event(agent: "claude", kind: .needsInput, agentEvent: "Notification", title: "t", message: "m", host: "h",
                          tmux: TmuxLocation(session: "lab", pane: agent.pane, socket: lab.socket), sessionID: "legacy")
        try EventLog(paths: Paths(environment: lab.environment)).append(&event)
        // The first look learns the pane's process from tmux (in the same call as the capture) and keeps it.
        let first = try lab.hookctl(["peek", "legacy", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let stored = lab.home.read(".local/state/hookctl/board.state") ?? ""
        #expect(stored.split(separator: "\n").contains { $0.contains("\"claude:legacy\"") && $0.contains("\"pane_pid\":") })
        #expect(try lab.hookctl(["peek", "legacy"]).status == 0)
        // Another program in the pane now: refused, by /proc or by tmux, never typed into.
        #expect(try lab.tmux(["respawn-pane", "-k", "-t", agent.pane, "sleep 600"]).status == 0)
        lab.waitForProgram("sleep", in: agent.pane)
        for command in [["reply", "legacy", "hello"], ["peek", "legacy"]] {
            let refused = try lab.hookctl(command)
            #expect(refused.status == 69, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("another program now runs in its pane"), "\(refused.stderr)")
        }
    }

    @Test func nextAnswersTheAgentWaitingLongest() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let older = try lab.start(session: "older")
        // The newer one asks later: once the clock has passed the older one's recorded time (ms).
        let olderTime = try #require(lab.home.loggedEvents().last?["time"]?.stringValue.flatMap(WallClock.parseISO8601))
        #expect(eventually { WallClock.nowEpoch() > olderTime + 0.002 })
        let newer = try lab.start(session: "newer")
        let peek = try lab.hookctl(["peek", "--next", "--json"])
        #expect(peek.status == 0, "\(peek.stderr)")
        #expect(try JSON.parse(peek.stdout)["key"]?.stringValue == "claude:older")
        #expect(try lab.hookctl(["reply", "--next", "--choice", "SQLite"]).status == 0)
        #expect(lab.received(older.record) == Array("2".utf8))
        #expect(try lab.hookctl(["reply", "--next", "--choice", "mysql"]).status == 0)
        #expect(lab.received(newer.record) == Array("3".utf8))
        let none = try lab.hookctl(["reply", "--next", "--choice", "1", "--json"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("no agent is waiting for input"))
        #expect(none.stderr.contains("claude:older"))
        #expect(try JSON.parse(none.stdout)["error"]?["code"]?.stringValue == "nothing_waiting")
    }

    @Test func targetsAreExactAndAmbiguityListsTheCandidates() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let one = try lab.start(session: "alpha", tmuxSession: "lab")
        _ = try lab.start(session: "beta", tmuxSession: "lab")
        _ = try lab.start(session: "gamma", tmuxSession: "solo")
        let ambiguous = try lab.hookctl(["peek", "lab"])
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("claude:alpha") && ambiguous.stderr.contains("claude:beta"), "\(ambiguous.stderr)")
        #expect(try lab.hookctl(["peek", "la"]).status == 64)            // never a prefix of a tmux name
        let none = try lab.hookctl(["peek", "nosuch", "--json"])
        #expect(none.status == 64)
        #expect(try JSON.parse(none.stdout)["error"]?["code"]?.stringValue == "no_such_agent")
        for target in ["solo", "=solo", "solo:0", "gamma", "claude:gamma"] {
            let result = try lab.hookctl(["peek", target, "--json"])
            #expect(result.status == 0, "\(target): \(result.stderr)")
            #expect(try JSON.parse(result.stdout)["key"]?.stringValue == "claude:gamma", "\(target)")
        }
        let byPane = try lab.hookctl(["peek", one.pane, "--json"])
        #expect(try JSON.parse(byPane.stdout)["key"]?.stringValue == "claude:alpha")
        #expect(try lab.hookctl(["reply", "solo"]).status == 64)           // nothing to send
        #expect(try lab.hookctl(["reply", "solo", "x", "--choice", "1"]).status == 64)
    }

    @Test func peekShowsColourWideAndWrappedLinesAsPlainText() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let long = (0..<25).map { "word\($0)" }.joined(separator: "-") + "-end"   // longer than the 80 columns
        try lab.home.write("banner.txt", "\u{1B}[31mred\u{1B}[0m and \u{1B}[1;32mgreen\u{1B}[0m plain\n"
                           + "日本語のテキスト 漢字 ✅\n" + long + "\n\n\n")
        _ = try lab.start(session: "view", extra: ["--banner", lab.home.file("banner.txt")])
        let peek = try lab.hookctl(["peek", "view"])
        #expect(peek.status == 0, "\(peek.stderr)")
        let lines = peek.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("red and green plain"), "\(lines)")
        #expect(lines.contains("日本語のテキスト 漢字 ✅"), "\(lines)")
        #expect(lines.contains(long), "\(lines)")
        #expect(!peek.stdout.contains("\u{1B}"))
        #expect(lines.last == "" && lines.dropLast().last?.isEmpty == false)   // trailing blank lines trimmed
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })

        let json = try JSON.parse(try lab.hookctl(["peek", "view", "--json", "--lines", "0"]).stdout)
        #expect(json["lines"]?.arrayValue?.contains(.string(long)) == true)
        #expect(json["menu"]?.arrayValue?.map { $0["label"]?.stringValue ?? "" } == ["Postgres (Recommended)", "SQLite", "MySQL"])
        #expect(json["menu"]?.arrayValue?.first?["focused"]?.boolValue == true)
        #expect(json["agent"]?["question"]?["text"]?.stringValue == "Which database?")
        #expect(try lab.hookctl(["peek", "view", "--lines", "9999"]).status == 64)
    }
}

@Suite(.onTestThreads) struct QuestionHookSetupTests {
    static let claudeSettings = """
    {
      "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}]
      }
    }

    """

    @Test func questionHooksAreRegisteredNarrowlyIdempotentlyAndCheckedByDoctor() throws {
        let home = try TemporaryHome()
        try home.write(".claude/settings.json", Self.claudeSettings)
        try home.write(".gemini/settings.json", "{}\n")
        let setup = try hookctl(["setup", "--agents", "claude,gemini"], environment: home.environment())
        #expect(setup.status == 0, "\(setup.stderr)")
        let claude = try JSON.parse(try #require(home.read(".claude/settings.json")))
        let preToolUse = claude["hooks"]?["PreToolUse"]?.arrayValue ?? []
        #expect(preToolUse.map { $0["matcher"]?.stringValue ?? "-" } == ["Bash", "AskUserQuestion"])
        #expect(claude["hooks"]?["PostToolUse"]?.arrayValue?.map { $0["matcher"]?.stringValue ?? "-" } == ["AskUserQuestion"])
        #expect(claude["hooks"]?["PermissionRequest"]?.arrayValue?.count == 1)
        let gemini = try JSON.parse(try #require(home.read(".gemini/settings.json")))
        #expect(gemini["hooks"]?["BeforeTool"]?.arrayValue?.map { $0["matcher"]?.stringValue ?? "-" } == ["^ask_user$"])
        #expect(gemini["hooks"]?["AfterTool"]?.arrayValue?.map { $0["matcher"]?.stringValue ?? "-" } == ["^ask_user$"])

        let before = home.read(".claude/settings.json")
        #expect(try hookctl(["setup", "--agents", "claude,gemini"], environment: home.environment()).status == 0)
        #expect(home.read(".claude/settings.json") == before)
        func claudeCheck() throws -> JSONValue? {
            let doctor = try hookctl(["doctor", "--json"], environment: home.environment())
            return (try JSON.parse(doctor.stdout)["checks"]?.arrayValue ?? []).first { $0["name"]?.stringValue == "Claude Code" }
        }
        #expect(try claudeCheck()?["status"]?.stringValue == "ok")

        // A hookctl tool hook that lost its matcher would run on every tool call: doctor says so, setup mends it.
        let widened = try #require(before).replacing("\"matcher\": \"AskUserQuestion\"", with: "\"matcher\": \"\"")
        try home.write(".claude/settings.json", widened)
        let check = try claudeCheck()
        #expect(check?["status"]?.stringValue == "broken")
        #expect(check?["message"]?.stringValue?.contains("wrong matcher for PreToolUse, PostToolUse") == true, "\(String(describing: check))")
        #expect(try hookctl(["setup", "--agents", "claude"], environment: home.environment()).status == 0)
        #expect(home.read(".claude/settings.json") == before)

        #expect(try hookctl(["uninstall", "--agents", "claude"], environment: home.environment()).status == 0)
        #expect(try JSON.parse(try #require(home.read(".claude/settings.json"))) == (try JSON.parse(Self.claudeSettings)))
    }
}
