import Glibc
import Testing
@testable import HookSupport
import TestSupport

/// Codex's app-server daemon runs every Codex's hooks with the environment of the Codex that started it
/// (docs/agents.md): a hook it runs names the starter's pane, whichever Codex asked. Here a private tmux
/// server has stand-in agents named `codex` in its panes (Tests/Fixtures/standin_agent.py, copied to a
/// file named `codex`, whose own hook does nothing), and a script named `codex` run with the daemon's
/// arguments (`app-server --listen unix:// --managed-daemon`, and hostile ones) runs the built hookctl as
/// its hook, with the first pane's `TMUX`/`TMUX_PANE`, outside every pane's process tree.
@Suite(.onTestThreads) struct CodexDaemonEndToEndTests {
    static var haveTmux: Bool { FileSystem.isExecutable(AnswerLab.tmux) }

    /// Hostile words after the daemon's own: escapes, an OSC 52 write, a substitution, lookalikes, 12 KB.
    static let hostileArguments = ["\u{1B}]52;c;aGk=\u{07}", "$(touch pwned)", "`id`", "\u{202E}nomead", "--managed-daemon=no",
                                   "\napp-server", String(repeating: "☠", count: 4000)]

    /// The stand-in agent as a program named `codex` (run by its `#!/usr/bin/env python3` line, so its
    /// arguments are `python3 …/codex …`, as an interpreter runs a script).
    static func codexProgram(_ lab: AnswerLab) throws -> String {
        let path = lab.home.file("agents/codex")
        if !FileSystem.exists(path) {
            try lab.home.write("agents/codex", try #require(try FileSystem.readString(Harness.fixtures + "/standin_agent.py")), mode: 0o755)
        }
        return path
    }

    /// A stand-in Codex in a new pane of `lab` (its own hook does nothing: the test runs the daemon's), in
    /// `--mode input` when `input`, with `CODEX_HOME` set when `codexHome` is given.
    static func startCodex(_ lab: AnswerLab, _ session: String, input: Bool = false, codexHome: String? = nil) throws -> (pane: String, record: String) {
        try lab.start(session: session, extra: ["--hookctl", "/bin/true"] + (input ? ["--mode", "input"] : []),
                      launcher: (codexHome.map { ["env", "CODEX_HOME=" + $0] } ?? []) + [try codexProgram(lab)])
    }

    /// `hookctl reply ARGS --json` is refused (exit 69) as `pane_uncertain`, with a message that says each of `parts`.
    static func expectPaneUncertain(_ lab: AnswerLab, _ arguments: [String], saying parts: [String],
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let refused = try lab.hookctl(["reply"] + arguments + ["--json"])
        #expect(refused.status == 69, "\(refused.stdout)\(refused.stderr)", sourceLocation: sourceLocation)
        let error = try JSON.parse(refused.stdout)["error"]
        #expect(error?["code"]?.stringValue == "pane_uncertain", sourceLocation: sourceLocation)
        let message = error?["message"]?.stringValue ?? ""
        for part in parts {
            #expect(message.contains(part), "\(part): \(message)", sourceLocation: sourceLocation)
        }
    }

    /// The daemon: a script named `codex`, run with the daemon's arguments, that runs hookctl as its child.
    static func daemonScript(_ lab: AnswerLab) throws -> String {
        let path = lab.home.file("daemon/releases/0.163.0/bin/codex")
        if !FileSystem.exists(path) {
            try lab.home.write("daemon/releases/0.163.0/bin/codex", """
                #!/bin/sh
                "$FAKE_HOOKCTL" notify --agent codex < "$FAKE_PAYLOAD"
                code=$?
                exit $code

                """, mode: 0o755)
        }
        return path
    }

    /// Runs Codex's hook for `payload` as the daemon would, with the environment of the Codex in `pane`.
    static func daemonHook(_ lab: AnswerLab, pane: String, payload: String, name: String) throws {
        let server = Text.trimmed(try lab.tmux(["display-message", "-p", "#{pid}"]).stdout)
        try lab.home.write("payload-\(name).json", payload)
        let environment = lab.home.hookEnvironment(lab.extraEnvironment.merging([
            "TMUX": "\(lab.socket),\(server),0", "TMUX_PANE": pane,
            "FAKE_HOOKCTL": Harness.binary, "FAKE_PAYLOAD": lab.home.file("payload-\(name).json"),
        ]) { $1 })
        let result = try Subprocess(executable: try daemonScript(lab),
                                    arguments: ["app-server", "--listen", "unix://", "--analytics-default-enabled", "--managed-daemon"]
                                        + hostileArguments,
                                    environment: environment, timeout: 20).run()
        try #require(result.status == 0, "the daemon's hook: \(result.stderr)")
    }

    /// Codex 0.163.0's `PreToolUse` for `request_user_input`, as the stand-in's menu shows it.
    static func question(session: String) -> String {
        #"{"session_id":"\#(session)","turn_id":"t1","cwd":"/tmp","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"request_user_input","tool_input":{"questions":[{"id":"db","header":"DB","question":"Which database?","options":[{"label":"Postgres (Recommended)","description":"a server"},{"label":"SQLite","description":"a file"},{"label":"MySQL","description":"a server too"}]}]},"tool_use_id":"c1"}"#
    }

    static func stop(session: String) -> String {
        #"{"session_id":"\#(session)","turn_id":"t1","cwd":"/tmp","hook_event_name":"Stop","model":"m","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"Done."}"#
    }

    /// Two Codex panes, one daemon: the second Codex's question is recorded in the first's pane, marked
    /// inherited. Text and keys for it are refused with the cause and what to do, and nothing reaches
    /// either pane; `--choice` presses the row the recorded pane shows. Without the rule, the text went
    /// into the first Codex's pane.
    @Test func textForARowTheDaemonNamedIsRefusedWhileTwoCodexPanesRun() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let first = try Self.startCodex(lab, "first")
        let second = try Self.startCodex(lab, "second")
        try Self.daemonHook(lab, pane: first.pane, payload: Self.question(session: "second"), name: "second")

        let board = try lab.board()
        let entry = try #require(board["codex:second"], "\(board.keys)")
        #expect(entry["state"]?.stringValue == "needs_input")
        #expect(entry["tmux"]?["pane"]?.stringValue == first.pane)
        #expect(entry["tmux"]?["pane_inherited"]?.boolValue == true)
        let logged = lab.home.loggedEvents().filter { $0["session_id"]?.stringValue == "second" }
        #expect(logged.first?["tmux"]?["pane_inherited"]?.boolValue == true)
        // The push's title marks the place as the board does: the window may be another Codex's.
        let title = logged.first?["title"]?.stringValue ?? ""
        #expect(title.contains("window 0?") || title.contains(":0?") || title.contains("lab?"), "\(title)")
        #expect(logged.allSatisfy { $0["process"] == nil }, "no processes are recorded from the daemon: \(logged)")
        for width in [45, 80] {
            let table = try lab.hookctl(["status", "--width", "\(width)"])
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("lab:0?"), "status at \(width) columns marks the pane:\n\(table.stdout)")
        }

        let peek = try lab.hookctl(["peek", "codex:second"])
        #expect(peek.status == 0 && peek.stdout.contains("Which database?"), "\(peek.stderr)")
        #expect(peek.stderr.contains("may show another's screen") && peek.stdout.contains("lab:0?"), "\(peek.stderr)\(peek.stdout)")

        try Self.expectPaneUncertain(lab, ["codex:second", "use SQLite"], saying: [
            "app-server daemon", "2 panes (\(first.pane), \(second.pane))", "keyboard", "daemon_auto_start = false", "nothing was typed",
        ])
        let plain = try lab.hookctl(["reply", "codex:second", "use SQLite"])
        #expect(plain.status == 69 && plain.stderr.contains("2 panes"), "\(plain.stderr)")
        let keys = try lab.hookctl(["reply", "codex:second", "--key", "Enter"])
        #expect(keys.status == 69 && keys.stderr.contains("2 panes"), "\(keys.stderr)")
        let piped = try lab.hookctl(["reply", "codex:second", "-"], input: "from stdin\n")
        #expect(piped.status == 69, "\(piped.stderr)")
        #expect(try lab.receivedBeforeSentinel(first) == [], "nothing was typed into the first pane")
        #expect(try lab.receivedBeforeSentinel(second) == [], "nothing was typed into the second pane")

        // A choice is held to the same rule (the recorded pane may show another Codex's dialog with the
        // same options, or another agent's): refused, nothing pressed.
        let choice = try lab.hookctl(["reply", "codex:second", "--choice", "SQLite", "--json"])
        #expect(choice.status == 69, "\(choice.stdout)\(choice.stderr)")
        #expect((try JSON.parse(choice.stdout)["error"]?["message"]?.stringValue ?? "").contains("nothing was pressed"))
        // (Each look types a sentinel `~` after what came before it: the last look's is all there is.)
        #expect(try lab.receivedBeforeSentinel(first) == Array("~".utf8), "nothing was pressed in the first pane")
        #expect(try lab.receivedBeforeSentinel(second) == Array("~".utf8), "nothing was pressed in the second pane")
    }

    /// Both Codex sessions ask at once: the first's question, then the second's, both recorded in the first's
    /// pane, and both stay on the board waiting (a pane the daemon named ends no other session recorded
    /// there: the first's question must not leave the board). The first's dialog is on
    /// that pane with the same options, so a choice for the second would answer the first's: refused, nothing
    /// pressed in either pane. Once the second Codex is gone (one Codex left), the choice goes.
    @Test func aChoiceIsRefusedWhileAnotherSessionInThatPaneMayShowItsDialog() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let first = try Self.startCodex(lab, "first")
        let second = try Self.startCodex(lab, "second")
        try Self.daemonHook(lab, pane: first.pane, payload: Self.question(session: "first"), name: "first")
        try Self.daemonHook(lab, pane: first.pane, payload: Self.question(session: "second"), name: "second")
        let board = try lab.board()
        #expect(board["codex:first"]?["state"]?.stringValue == "needs_input", "the first's question stays on the board: \(board)")
        #expect(board["codex:second"]?["state"]?.stringValue == "needs_input")

        try Self.expectPaneUncertain(lab, ["codex:second", "--choice", "SQLite"], saying: [
            "refusing to press a choice", "codex:first is recorded in the same pane", "nothing was pressed", "keyboard", "daemon_auto_start = false",
        ])
        #expect(try lab.receivedBeforeSentinel(first) == [], "nothing was pressed in the first pane")
        #expect(try lab.receivedBeforeSentinel(second) == [], "nothing was pressed in the second pane")

        // The second Codex quits (its pane goes; the daemon fires no SessionEnd): its row stays on the board,
        // and neither row may be answered, since the first's pane would get the second's answer.
        #expect(try lab.tmux(["kill-pane", "-t", second.pane]).status == 0)
        let stale = try lab.hookctl(["reply", "codex:second", "--choice", "SQLite"])
        #expect(stale.status == 69 && stale.stderr.contains("codex:first is recorded in the same pane"), "\(stale.stderr)")
        let next = try lab.hookctl(["reply", "--next", "use SQLite"])
        #expect(next.status == 69, "reply --next: \(next.stdout)\(next.stderr)")
        let firstChoice = try lab.hookctl(["reply", "codex:first", "--choice", "SQLite"])
        #expect(firstChoice.status == 69 && firstChoice.stderr.contains("codex:second is recorded in the same pane")
                && firstChoice.stderr.contains("hookctl dismiss"), "\(firstChoice.stderr)")
        #expect(try lab.receivedBeforeSentinel(first) == Array("~".utf8), "nothing was pressed or typed in the first pane")
        // Once the user takes the gone session off the board, the first is the one Codex and its one row: it goes.
        #expect(try lab.hookctl(["dismiss", "codex:second"]).status == 0)
        let choice = try lab.hookctl(["reply", "codex:first", "--choice", "SQLite"])
        #expect(choice.status == 0, "\(choice.stderr)")
        let pressed = try lab.receivedBeforeSentinel(first)
        // (Only sentinels `~` before the press: nothing else reached that pane.)
        #expect(pressed.filter { $0 != UInt8(ascii: "~") } == Array("2".utf8), "\(String(decoding: pressed, as: UTF8.self).debugDescription)")
    }

    /// The daemon's starter pane now runs another agent (Claude Code, its dialog showing): the one Codex's
    /// question is recorded there. A choice for it (a push's button) is refused, nothing pressed on Claude's
    /// dialog. (Found by review: only another Codex row was looked for.)
    @Test func aChoiceIsNotPressedOnAnotherAgentsDialogInThatPane() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let claude = try lab.start(session: "claude")
        let second = try Self.startCodex(lab, "second", input: true)
        _ = lab.received(claude.record, atLeast: 0, timeout: 1)
        try Self.daemonHook(lab, pane: claude.pane, payload: Self.question(session: "second"), name: "second")
        let choice = try lab.hookctl(["reply", "codex:second", "--choice", "SQLite", "--json"])
        #expect(choice.status == 69, "\(choice.stdout)\(choice.stderr)")
        #expect(try lab.receivedBeforeSentinel(claude) == [], "codex:second's choice was pressed on Claude's dialog")
        #expect(try lab.receivedBeforeSentinel(second) == [])
    }

    /// The one Codex on the recorded pane's terminal is stopped (Ctrl-Z): its shell has the foreground, so
    /// text would run as a shell command there. Refused, nothing run. (Found by review.)
    @Test func textIsNotTypedWhenTheOnlyCodexIsStopped() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let codex = try Self.codexProgram(lab)
        _ = try lab.start(session: "dummy", extra: ["--hookctl", "/bin/true", "--mode", "input"])
        let opened = try lab.tmux(["new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-t", "=lab:",
                                   "env PS1='$ ' bash --norc --noprofile -i"])
        let parts = Text.trimmed(opened.stdout).split(separator: " ")
        try #require(parts.count == 2, "\(opened.stdout)\(opened.stderr)")
        let pane = String(parts[0]), bash = String(parts[1])
        let record = lab.home.file("record-only")
        // The shell is ready for the command line once it has drawn its prompt.
        #expect(eventually { ((try? lab.tmux(["capture-pane", "-p", "-t", pane]))?.stdout ?? "").contains("$") })
        _ = try lab.tmux(["send-keys", "-t", pane, "-l", "'\(codex)' --record '\(record)' --hookctl /bin/true --session only --mode input"])
        _ = try lab.tmux(["send-keys", "-t", pane, "Enter"])
        #expect(eventually { FileSystem.exists(record) })
        let children = (try FileSystem.readString("/proc/\(bash)/task/\(bash)/children")) ?? ""
        let agent = try #require(Int32(Text.trimmed(children).split(separator: " ").first ?? ""))
        defer { kill(agent, SIGKILL) }
        kill(agent, SIGTSTP)
        #expect(eventually { ProcessStat.read(agent)?.state == UInt8(ascii: "T") })
        try Self.daemonHook(lab, pane: pane, payload: Self.stop(session: "only"), name: "only")
        let marker = lab.home.file("PWNED")
        let replied = try lab.hookctl(["reply", "codex:only", "touch '\(marker)'"])
        #expect(replied.status == 69 && replied.stderr.contains("runs in no terminal now"), "\(replied.stdout)\(replied.stderr)")
        sleepSeconds(0.5)
        #expect(!FileSystem.exists(marker), "the reply ran as a shell command")
    }

    /// A second Codex names the same Codex home another way (`HOME/./.codex`; a symlink or `//` would do the
    /// same): Codex resolves its home, so both share the daemon. It counts, and text is refused. (Found by review.)
    @Test func theSameCodexHomeSpelledDifferentlyCounts() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let home = try #require(lab.home.hookEnvironment(lab.extraEnvironment)["HOME"])
        try FileSystem.makeDirectories(home + "/.codex")
        let first = try Self.startCodex(lab, "first", input: true)
        let second = try Self.startCodex(lab, "second", input: true, codexHome: home + "/./.codex")
        try Self.daemonHook(lab, pane: first.pane, payload: Self.stop(session: "second"), name: "second")
        let replied = try lab.hookctl(["reply", "codex:second", "meant for second"])
        #expect(replied.status == 69 && replied.stderr.contains("2 panes"), "two Codexes of one home run, yet: \(replied.stderr)")
        #expect(try lab.receivedBeforeSentinel(first) == [])
        #expect(try lab.receivedBeforeSentinel(second) == [])
    }

    /// One Codex of this Codex home, in the recorded pane: text goes (another agent's pane and a Codex of
    /// another Codex home do not count). A second Codex of this home on another tmux server's terminal
    /// makes it uncertain again.
    @Test func textGoesWhenTheRecordedPaneIsTheOnlyCodexOfItsHome() throws {
        guard Self.haveTmux else { Issue.record("tmux is needed for this test"); return }
        let lab = try AnswerLab()
        let codex = try Self.codexProgram(lab)
        let only = try Self.startCodex(lab, "only", input: true)
        _ = try lab.start(session: "claude-pane", extra: ["--mode", "input"])
        let otherHome = try Self.startCodex(lab, "other-home", input: true, codexHome: lab.home.file("another-codex-home"))
        try Self.daemonHook(lab, pane: only.pane, payload: Self.stop(session: "only"), name: "only")
        #expect(try lab.board()["codex:only"]?["tmux"]?["pane_inherited"]?.boolValue == true)

        let replied = try lab.hookctl(["reply", "codex:only", "go on; $(touch pwned)"])
        #expect(replied.status == 0, "\(replied.stderr)")
        let typedBytes = try lab.receivedBeforeSentinel(only)
        let typed = String(decoding: typedBytes, as: UTF8.self)
        #expect(typed.contains("go on; $(touch pwned)") && typed.contains("\r"), "\(typed.debugDescription)")
        #expect(try lab.receivedBeforeSentinel(otherHome) == [])

        // The same Codex home on another tmux server: a terminal outside the recorded server counts.
        let socket = lab.home.file("second-server.sock")
        let record = lab.home.file("record-elsewhere")
        let command = [codex, "--record", record, "--hookctl", "/bin/true", "--session", "elsewhere", "--mode", "input"]
            .map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        let started = try Subprocess(executable: AnswerLab.tmux, arguments: ["-S", socket, "-f", "/dev/null", "new-session", "-d",
                                                                             "-x", "80", "-y", "24", command + "; exec sleep 600"],
                                     environment: lab.environment, timeout: 10).run()
        defer { _ = try? Subprocess(executable: AnswerLab.tmux, arguments: ["-S", socket, "kill-server"], environment: lab.environment, timeout: 10).run() }
        try #require(started.status == 0, "\(started.stderr)")
        #expect(eventually { FileSystem.exists(record) }, "the second server's Codex started")
        let refused = try lab.hookctl(["reply", "codex:only", "again"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("1 pane (\(only.pane)) and 1 other terminal"), "\(refused.stderr)")
        #expect(try lab.receivedBeforeSentinel(only) == typedBytes + Array("~".utf8), "nothing more was typed")
    }

    /// doctor names the daemon (what status and reply do about it, and the flag that avoids it) until
    /// `daemon_auto_start = false` is set under `[features]`; then it says each Codex runs its own hooks.
    @Test func doctorSaysWhatTheDaemonDoesUntilDaemonAutoStartIsOff() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path)
        try home.write(".codex/config.toml", "model = \"gpt-5-codex\"\n\n[features]\nhooks = true\n")
        let setup = try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/0123456789abcdef"], environment: home.environment())
        try #require(setup.status == 0, "\(setup.stderr)")
        func codexChecks() throws -> [JSONValue] {
            let doctor = try hookctl(["doctor", "--json"], environment: home.environment())
            return (try JSON.parse(doctor.stdout)["checks"]?.arrayValue ?? []).filter { $0["name"]?.stringValue == "Codex" }
        }
        let before = try codexChecks()
        let note = try #require(before.first { $0["message"]?.stringValue?.contains("app-server daemon") == true }, "\(before)")
        #expect(note["status"]?.stringValue == "info")
        for part in ["status marks it '?'", "--choice", "daemon_auto_start = false"] {
            #expect(note["message"]?.stringValue?.contains(part) == true, "\(part): \(note)")
        }
        let config = try #require(home.read(".codex/config.toml"))
        try home.write(".codex/config.toml", config.replacing("hooks = true\n", with: "hooks = true\ndaemon_auto_start = false\n"))
        let after = try codexChecks()
        #expect(!after.contains { $0["message"]?.stringValue?.contains("app-server daemon") == true }, "\(after)")
        #expect(after.contains { $0["status"]?.stringValue == "ok"
            && $0["message"]?.stringValue?.contains("daemon_auto_start = false under [features]") == true }, "\(after)")
    }
}
