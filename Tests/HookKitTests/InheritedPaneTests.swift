import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents
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
            // `$!` names the forked child before it has exec'd `sleep`: until then it is a copy of the script
            // (named `codex`, with the daemon's arguments), which a walk would take for the daemon itself.
            for _ in 0..<500 where ProcessStat.read(hook)?.command != "sleep" { usleep(10_000) }
            try #require(ProcessStat.read(hook)?.command == "sleep", "the hook did not become sleep")
            pids.append(hook)
        }

        deinit {
            for pid in pids.reversed() { kill(pid, SIGKILL) }
            var status: Int32 = 0
            waitpid(pids[0], &status, 0)
        }
    }

    /// The /proc stat lines from `pid` up to init, for a failure's message.
    static func walk(from pid: pid_t) -> String {
        var lines: [String] = []
        var current = pid
        for _ in 0..<16 where current > 1 {
            let line = ((try? FileSystem.readString("/proc/\(current)/stat")) ?? nil).map { String($0.prefix(120)) } ?? "\(current): gone"
            lines.append(line)
            guard let stat = ProcessStat.read(current) else { break }
            current = stat.parent
        }
        return lines.joined(separator: " | ") + " (this process \(getpid()))"
    }

    /// Codex's daemon is the child of the Codex that started it (seen), so a walk up from a hook it runs
    /// reaches that Codex's pane, the one its inherited `TMUX_PANE` names: the processes are recorded
    /// (the starter as the agent, never the daemon), and the pane is marked inherited. Here this test
    /// process is the tmux server, a shell the pane, a script named `tui` the Codex in it, a script named
    /// `codex` with the daemon's arguments (and hostile ones) the daemon, and `sleep` the hook.
    @Test func aHookTheDaemonRunsIsToldApartAndItsStarterIsTheAgent() throws {
        let scratch = try TemporaryDirectory("inherited")
        let pidFile = scratch.path + "/hook.pid"
        let daemon = scratch.path + "/bin/codex"
        try FileSystem.makeDirectories(scratch.path + "/bin")
        try FileSystem.writeAtomically(daemon, text: "#!/bin/sh\nsleep 30 &\necho $! > '\(pidFile)'\nwait\n", mode: 0o755, sync: false)
        func quote(_ words: [String]) -> String { words.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ") }
        let daemonWords = [daemon, "app-server", "--listen", "unix://", "--managed-daemon"] + Self.hostile
        let tui = scratch.path + "/bin/tui"
        try FileSystem.writeAtomically(tui, text: "#!/bin/sh\n" + quote(daemonWords) + "\nexit 0\n", mode: 0o755, sync: false)
        let server = getpid()
        let environment = ["TMUX_PANE": "%1", "TMUX": "/tmp/s,\(server),0"]

        // The pane's shell runs the Codex, which starts the daemon.
        let chain = try Chain(["/bin/sh", "-c", quote([tui]) + "; exit 0"], pidFile: pidFile)
        let daemonPID = try #require(ProcessStat.read(chain.hook)).parent
        let tuiPID = try #require(ProcessStat.read(daemonPID)).parent
        let pane = try #require(ProcessStat.read(chain.pids[0]))
        let starter = try #require(ProcessStat.read(tuiPID))
        let found = PaneProcesses.caller(environment: environment, parent: chain.hook)
        #expect(found.inheritedEnvironment)
        #expect(found.processes == PaneProcesses(server: server, pane: pane.pid, paneStart: pane.start,
                                                 agent: starter.pid, agentStart: starter.start), "the starter is the agent, not the daemon")

        // The Codex is the pane's process itself: it is the agent.
        FileSystem.remove(pidFile)
        let direct = try Chain(["/bin/sh", "-c", quote(daemonWords) + "; exit 0"], pidFile: pidFile)
        let directFound = PaneProcesses.caller(environment: environment, parent: direct.hook)
        #expect(directFound.inheritedEnvironment)
        #expect(directFound.processes?.agent == direct.pids[0] && directFound.processes?.pane == direct.pids[0],
                "\(directFound) for the chain \(direct.pids): \(Self.walk(from: direct.hook))")

        // The same script without --managed-daemon is any program named codex: no mark, and it is the agent.
        FileSystem.remove(pidFile)
        let plainWords = [daemon, "app-server", "--listen", "unix://"] + Self.hostile
        let plain = try Chain(["/bin/sh", "-c", quote(plainWords) + "; exit 0"], pidFile: pidFile)
        let plainFound = PaneProcesses.caller(environment: environment, parent: plain.hook)
        #expect(!plainFound.inheritedEnvironment)
        #expect(plainFound.processes?.pane == plain.pids[0])
        #expect(plainFound.processes?.agent == (try #require(ProcessStat.read(plain.hook))).parent)

        // Once its starter is gone the daemon's parent is init: no tmux server above, still told apart.
        FileSystem.remove(pidFile)
        let orphan = try Chain(["/bin/sh", "-c", "(" + quote(daemonWords) + " &) ; sleep 30"], pidFile: pidFile)
        orphan.pids.insert(try #require(ProcessStat.read(orphan.hook)).parent, at: 1)
        #expect(PaneProcesses.caller(environment: ["TMUX_PANE": "%1", "TMUX": "/tmp/s,999999,0"], parent: orphan.hook)
                == PaneProcesses.Caller(processes: nil, inheritedEnvironment: true))
        #expect(PaneProcesses.caller(environment: ["TMUX": "/tmp/s,\(server),0"], parent: orphan.hook) == PaneProcesses.Caller())
        // Every chain lives to the end (ARC may end a local's life after its last use): no chain's clean-up
        // runs while another is walked.
        withExtendedLifetime((chain, direct, plain, orphan)) {}
    }

    /// The sessions that keep a reply off a pane the daemon named: others recorded in it and still on the
    /// board, unless their recorded agent process has exited (a Codex restarted in that pane); one with no
    /// processes recorded counts; an ended one does not, unless `replaced` with its question kept.
    @Test func othersInThePaneAreTheLiveOrUnknownSessionsRecordedThere() throws {
        let me = try #require(ProcessStat.read(getpid()))
        let exited = PaneProcesses(server: 1, pane: 1, paneStart: 1, agent: Int32.max - 7, agentStart: 0)  // no such process
        let alive = PaneProcesses(server: 1, pane: getpid(), paneStart: me.start, agent: getpid(), agentStart: me.start)
        var restarted = alive
        restarted.agentStart = me.start + 1  // this pid, another start: a new process under a reused pid
        func event(_ session: String, _ kind: EventKind, pane: String = "%0", process: PaneProcesses?, time: Double) -> Event {
            var event = Event(time: time, agent: "codex", kind: kind, agentEvent: "x", title: "", message: "", host: "h",
                              tmux: TmuxLocation(pane: pane, socket: "/tmp/s", paneInherited: true), sessionID: session)
            event.process = process
            return event
        }
        var board = BoardState()
        board.apply(event("asking", .needsInput, process: nil, time: 100))
        board.apply(event("live", .done, process: alive, time: 101))
        board.apply(event("gone", .needsInput, process: exited, time: 102))
        board.apply(event("reused", .done, process: restarted, time: 103))
        board.apply(event("unknown", .done, process: nil, time: 104))
        board.apply(event("ended", .ended, process: nil, time: 105))
        board.apply(event("elsewhere", .needsInput, pane: "%1", process: nil, time: 106))
        let asking = try #require(board.entries.first { $0.sessionID == "asking" })
        let others = InheritedPane.othersInPane(of: asking, board: board).compactMap(\.sessionID).sorted()
        #expect(others == ["live", "unknown"], "\(others)")
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
        // The hook's processes, when its walk reached the pane, are kept with the mark; `reply`'s own event
        // (the entry's tmux, no processes) keeps both.
        var first = event
        first.process = PaneProcesses(server: 10, pane: 11, paneStart: 1, agent: 12, agentStart: 2)
        board.apply(first)
        var reply = Event(agent: "codex", kind: .working, agentEvent: BoardState.replyEvent, title: "t", message: "Replied: x",
                          host: "h", tmux: board.entries.first?.tmux, sessionID: "second")
        reply.seq = 2
        board.apply(reply)
        #expect(board.entries.first?.processes == first.process)
        let entry = try #require(board.entries.first)
        #expect(entry.tmux?.paneInherited == true)
        let stored = try BoardState.storedEntry(BoardState.storedJSON(entry))
        #expect(stored == entry)
        #expect(BoardView.place(entry) == "work:1?")
        #expect(BoardView.placeName(try #require(entry.tmux)) == "work:1")
        let agent = BoardView.agentJSON(entry, now: 10, staleAfter: 60)
        #expect(agent["tmux"]?["pane_inherited"]?.boolValue == true)
    }
}
