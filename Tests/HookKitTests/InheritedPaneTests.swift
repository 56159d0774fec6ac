import Testing
@testable import HookKit
import TestSupport
import Glibc

/// A hook Codex's app-server daemon runs (docs/agents.md, "An app-server daemon runs the hooks") is told
/// apart at hook time, and the board and events say its pane came from an inherited environment.
@Suite struct InheritedPaneTests {
    /// Hostile words a process's argv may hold: escapes, an OSC 52 write, a shell substitution, lookalikes.
    static let hostile = ["\u{1B}]52;c;aGk=\u{07}", "$(touch /tmp/pwned)", "\u{202E}nomead-", "\napp-server",
                          "--managed-daemon=no", String(repeating: "☠", count: 3000)]

    @Test func theManagedDaemonsArgumentsAreKnownAndLookalikesAreNot() {
        // As the real Codex 0.163.0's daemon shows in /proc/PID/cmdline (seen).
        let real = ["/home/u/.codex/packages/app-server-daemon/releases/0.163.0-x86_64-unknown-linux-musl/bin/codex",
                    "app-server", "--listen", "unix://", "--analytics-default-enabled", "--managed-daemon"]
        #expect(CodexDaemon.isDaemon(real))
        #expect(CodexDaemon.isDaemon(["codex", "app-server", "--listen", "unix://", "--managed-daemon"] + Self.hostile))
        // A script run by its interpreter (a stand-in) names the program in its second word.
        #expect(CodexDaemon.isDaemon(["/bin/sh", "/tmp/x/codex", "app-server", "--listen", "unix://", "--managed-daemon"]))
        let notDaemons: [[String]] = [
            // Its sibling runs no hooks; the TUI; another program; words only inside other words.
            [real[0], "app-server", "daemon", "pid-update-loop"],
            ["/usr/bin/codex"],
            ["/usr/bin/codex", "app-server", "--listen", "unix://"],
            ["/usr/bin/codexx", "app-server", "--managed-daemon"],
            ["/usr/bin/not-codex", "app-server", "--managed-daemon"],
            ["/usr/bin/codex", "app-server-x", "--managed-daemon"],
            ["/usr/bin/codex", "--app-server=1", "--managed-daemon"],
            ["/usr/bin/codex", "app-server", "--managed-daemon=1"],
            ["/bin/sh", "-c", "codex app-server --managed-daemon"],
            ["codex", "app-server"] + Self.hostile,
            [],
        ]
        for arguments in notDaemons { #expect(!CodexDaemon.isDaemon(arguments), "\(arguments.prefix(4))") }
    }

    @Test func theCodexHomeIsCodexHomeElseHomesDotCodex() {
        #expect(CodexDaemon.home(["HOME": "/home/u"]) == "/home/u/.codex")
        #expect(CodexDaemon.home(["HOME": "/home/u/", "CODEX_HOME": "/srv/codex//"]) == "/srv/codex")
        #expect(CodexDaemon.home(["HOME": "/home/u", "CODEX_HOME": ""]) == "/home/u/.codex")
        #expect(CodexDaemon.home([:]) == nil)
    }

    /// Starts `program` (a script) with `arguments`, whose child `sleep` is the "hook"; returns both pids.
    /// Killed, with the shell standing for the pane, by `stop`.
    final class Chain {
        var pids: [pid_t] = []
        var hook: pid_t = 0

        init(_ words: [String], pidFile: String) throws {
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var first: pid_t = 0
            try #require(posix_spawn(&first, words[0], nil, nil, argv, environ) == 0)
            pids.append(first)
            for _ in 0..<500 where hook == 0 {
                hook = (try? FileSystem.readString(pidFile)).flatMap { $0 }.flatMap { Int32(Text.trimmed($0)) } ?? 0
                if hook == 0 { usleep(10_000) }
            }
            try #require(hook > 0, "the chain did not start")
            pids.append(hook)
        }

        deinit {
            for pid in pids.reversed() { kill(pid, SIGKILL) }
            var status: Int32 = 0
            waitpid(pids[0], &status, 0)
        }
    }

    /// Codex's daemon is the child of the Codex that started it (seen), so a walk up from a hook it runs
    /// reaches that Codex's tmux server: without telling the daemon apart, the hook recorded the starter's
    /// pane and the daemon as its "agent". Here this test process is the tmux server, a shell the pane,
    /// a script named `codex` with the daemon's arguments (and hostile ones) the daemon, `sleep` the hook.
    @Test func aHookTheDaemonRunsIsToldApartAlsoWhenItsStarterIsInThePane() throws {
        let scratch = try TemporaryDirectory("inherited")
        let pidFile = scratch.path + "/hook.pid"
        let daemon = scratch.path + "/bin/codex"
        try FileSystem.makeDirectories(scratch.path + "/bin")
        try FileSystem.writeAtomically(daemon, text: "#!/bin/sh\nsleep 30 &\necho $! > '\(pidFile)'\nwait\n", mode: 0o755, sync: false)
        let server = getpid()
        let environment = ["TMUX_PANE": "%1", "TMUX": "/tmp/s,\(server),0"]
        // The pane's shell starts the daemon (as the TUI does) with the daemon's arguments.
        let daemonWords = [daemon, "app-server", "--listen", "unix://", "--managed-daemon"] + Self.hostile
        let quoted = daemonWords.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        let chain = try Chain(["/bin/sh", "-c", quoted + "; exit 0"], pidFile: pidFile)
        #expect(PaneProcesses.caller(environment: environment, parent: chain.hook) == .inheritedEnvironment)
        #expect(PaneProcesses.ofCaller(environment: environment, parent: chain.hook) == nil)

        // The same script without --managed-daemon is any program named codex: the walk goes on to the pane.
        FileSystem.remove(pidFile)
        let plain = [daemon, "app-server", "--listen", "unix://"] + Self.hostile
        let plainQuoted = plain.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        let other = try Chain(["/bin/sh", "-c", plainQuoted + "; exit 0"], pidFile: pidFile)
        guard case .pane(let processes) = PaneProcesses.caller(environment: environment, parent: other.hook) else {
            Issue.record("a codex without --managed-daemon is no daemon")
            return
        }
        #expect(processes.server == server && processes.pane == other.pids[0])

        // Once its starter is gone the daemon's parent is init: no tmux server above, still told apart.
        FileSystem.remove(pidFile)
        let orphan = try Chain(["/bin/sh", "-c", "(" + quoted + " &) ; sleep 30"], pidFile: pidFile)
        let hookParent = try #require(ProcessStat.read(orphan.hook)).parent
        orphan.pids.insert(hookParent, at: 1)
        #expect(PaneProcesses.caller(environment: ["TMUX_PANE": "%1", "TMUX": "/tmp/s,999999,0"], parent: orphan.hook)
                == .inheritedEnvironment)
        #expect(PaneProcesses.caller(environment: ["TMUX": "/tmp/s,\(server),0"], parent: orphan.hook) == .unknown)
    }

    /// The mark survives the event log's and the board's one codec each, and the board's view shows it.
    @Test func theInheritedPaneIsRecordedOnTheEventAndTheBoard() throws {
        var event = Event(agent: "codex", kind: .needsInput, agentEvent: "PreToolUse", title: "t", message: "m", host: "h",
                          tmux: TmuxLocation(session: "work", window: "1", pane: "%3", socket: "/tmp/s", paneInherited: true),
                          sessionID: "second")
        event.seq = 1
        let json = event.json
        #expect(json["tmux"]?["pane_inherited"]?.boolValue == true)
        let read = try Event(json: try JSON.parse(JSON.serialize(json)))
        #expect(read.tmux?.paneInherited == true)
        #expect(read.tmux == event.tmux)
        var plain = event
        plain.tmux?.paneInherited = false
        #expect(plain.json["tmux"]?["pane_inherited"] == nil, "the key is written only when set")

        var board = BoardState()
        // An earlier hook from the pane's own tree recorded processes; the daemon's hook knows none.
        var first = plain
        first.process = PaneProcesses(server: 10, pane: 11, paneStart: 1, agent: 12, agentStart: 2)
        board.apply(first)
        #expect(board.entries.first?.processes != nil)
        var second = event
        second.seq = 2
        board.apply(second)
        let entry = try #require(board.entries.first)
        #expect(entry.tmux?.paneInherited == true)
        #expect(entry.processes == nil)
        let stored = try BoardState.storedEntry(BoardState.storedJSON(entry))
        #expect(stored == entry)
        #expect(BoardView.place(entry) == "work:1?")
        #expect(BoardView.placeName(try #require(entry.tmux)) == "work:1")
        let agent = BoardView.agentJSON(entry, now: 10, staleAfter: 60)
        #expect(agent["tmux"]?["pane_inherited"]?.boolValue == true)
    }
}
