import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
import Synchronization

/// `hookctl status` and `hookctl events` run as the built binary with a temporary HOME. Events are
/// recorded in-process through `EventLog.append`, exactly what `notify` calls for every hook.
@Suite(.onTestThreads) struct BoardEndToEndTests {
    static func record(_ home: TemporaryHome, _ events: [Event], maxLogSize: Int = EventLog.defaultMaxLogSize,
                       keep: Int = EventLog.defaultKeptGenerations) throws -> [Event] {
        let log = EventLog(paths: Paths(environment: home.environment()), maxLogSize: maxLogSize, keptGenerations: keep)
        var recorded: [Event] = []
        for var event in events {
            try log.append(&event)
            recorded.append(event)
        }
        return recorded
    }

    static func statusJSON(_ home: TemporaryHome, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> JSONValue {
        let result = try hookctl(["status", "--json"] + arguments, environment: home.environment(environment))
        #expect(result.status == 0, "\(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    static func eventSeqs(_ output: String) -> [Int] {
        jsonLines(output).compactMap { $0["seq"]?.intValue }
    }

    @Test func simulatedHookCallsGiveTheExpectedBoard() throws {
        let home = try TemporaryHome()
        let now = WallClock.nowEpoch()
        _ = try Self.record(home, [
            boardEvent(.started, session: "s1", cwd: "/srv/api", time: now - 900),
            boardEvent(.working, session: "s1", cwd: "/srv/api", message: "add the endpoint", time: now - 880),
            boardEvent(.started, agent: "codex", session: "c1", cwd: "/srv/web", time: now - 3 * 3600),
            boardEvent(.working, agent: "codex", session: "c1", cwd: "/srv/web", message: "migrate", time: now - 2 * 3600),
            boardEvent(.needsInput, session: "s1", cwd: "/srv/api", message: "Claude needs your permission to use Bash", time: now - 120),
            boardEvent(.started, agent: "gemini", session: "g1", cwd: "/srv/docs", time: now - 60),
            boardEvent(.working, agent: "gemini", session: "g1", cwd: "/srv/docs", time: now - 50),
            boardEvent(.failed, agent: "gemini", session: "g1", cwd: "/srv/docs", message: "429 rate limited", time: now - 40),
            boardEvent(.started, session: "s2", cwd: "/srv/ops", time: now - 30),
            boardEvent(.working, session: "s2", cwd: "/srv/ops", time: now - 20),
            boardEvent(.done, session: "s2", cwd: "/srv/ops", message: "Deployed.", time: now - 10),
            boardEvent(.started, session: "s3", cwd: "/srv/old", time: now - 500),
            boardEvent(.ended, session: "s3", cwd: "/srv/old", time: now - 400),
            boardEvent(.info, session: "s2", cwd: "/srv/ops", message: "ignored", time: now - 5),
        ])
        let board = try Self.statusJSON(home)
        let agents = try #require(board["agents"]?.arrayValue)
        let rows = agents.map { "\($0["session_id"]?.stringValue ?? "")=\($0["state"]?.stringValue ?? "")" }
        #expect(rows == ["s1=needs_input", "c1=working", "g1=failed", "s2=done", "s3=ended"])
        #expect(agents[0]["message"]?.stringValue == "Claude needs your permission to use Bash")
        #expect(agents[0]["cwd"]?.stringValue == "/srv/api")
        #expect(agents[1]["stale"]?.boolValue == true)      // codex silent for 2 hours while working
        #expect(agents[3]["message"]?.stringValue == "Deployed.")
        #expect(agents[4]["end_reason"]?.stringValue == "session_end")
        #expect(board["last_seq"]?.intValue == 14)
        #expect(board["counts"]?["needs_input"]?.intValue == 1)
        let since = try #require(agents[0]["since"]?.stringValue.flatMap(WallClock.parseISO8601))
        #expect(abs(since - (now - 120)) < 1)

        let fresh = try Self.statusJSON(home, ["--stale-after", "3h"])
        #expect(fresh["agents"]?.arrayValue?[1]["stale"]?.boolValue == false)

        for width in [40, 80] {
            let table = try hookctl(["status", "--width", "\(width)"], environment: home.environment())
            #expect(table.status == 0)
            let lines = table.stdout.split(separator: "\n")
            for line in lines { #expect(line.count <= width, "\(line)") }
            #expect(table.stdout.contains("Claude needs your"))
        }
        let columns = try hookctl(["status"], environment: home.environment(["COLUMNS": "100"]))
        #expect(columns.stdout.split(separator: "\n").first?.hasPrefix("STATE") == true)
    }

    @Test func aKilledPaneTurnsItsAgentEnded() throws {
        let home = try TemporaryHome()
        let socket = home.file("tmux.sock")
        let tmux = "/usr/bin/tmux"
        guard FileSystem.isExecutable(tmux) else { Issue.record("tmux is needed for this test"); return }
        func run(_ arguments: [String]) throws -> Subprocess.Result {
            try Subprocess(executable: tmux, arguments: ["-S", socket] + arguments, environment: home.environment(), timeout: 10).run()
        }
        defer { _ = try? run(["kill-server"]) }
        #expect(try run(["-f", "/dev/null", "new-session", "-d", "-s", "board-e2e", "-x", "80", "-y", "24", "sleep 600"]).status == 0)
        #expect(try run(["split-window", "-d", "-t", "board-e2e", "sleep 600"]).status == 0)
        let panes = try run(["list-panes", "-t", "board-e2e", "-F", "#{pane_id}"]).stdout.split(separator: "\n").map(String.init)
        try #require(panes.count == 2)
        _ = try Self.record(home, [
            boardEvent(.working, session: "alive", pane: panes[0], socket: socket, tmuxSession: "board-e2e"),
            boardEvent(.needsInput, agent: "codex", session: "doomed", pane: panes[1], socket: socket, tmuxSession: "board-e2e"),
        ])
        func states() throws -> [String: String] {
            let agents = try Self.statusJSON(home)["agents"]?.arrayValue ?? []
            return Dictionary(uniqueKeysWithValues: agents.map { ($0["session_id"]!.stringValue!, $0["state"]!.stringValue!) })
        }
        /// Looks again until `done` holds or 5 s pass; returns the last look.
        func states(until done: ([String: String]) -> Bool) throws -> [String: String] {
            let deadline = monotonicSeconds() + 5
            var seen = try states()
            while !done(seen), monotonicSeconds() < deadline {
                sleepSeconds(0.02)
                seen = try states()
            }
            return seen
        }
        #expect(try states() == ["alive": "working", "doomed": "needs_input"])

        // The first look asked tmux and remembered each pane's process; later looks check /proc first.
        #expect(home.read(".local/state/hookctl/board.state")?.contains("\"pane_pid\":") == true)

        #expect(try run(["kill-pane", "-t", panes[1]]).status == 0)
        // The pane's process gets SIGHUP from tmux and exits a moment later.
        let after = try states(until: { $0["doomed"] == "ended" })
        #expect(after == ["alive": "working", "doomed": "ended"])
        let doomed = try Self.statusJSON(home, ["--agent", "codex"])["agents"]?.arrayValue?.first
        #expect(doomed?["end_reason"]?.stringValue == "pane_gone")
        // Remembered: a later pane with a recycled id does not bring it back.
        #expect(home.read(".local/state/hookctl/board.state")?.contains("\"end_reason\":\"pane_gone\"") == true)

        _ = try run(["kill-server"])
        let final = try states(until: { $0["alive"] == "ended" })
        #expect(final == ["alive": "ended", "doomed": "ended"])
    }

    /// Each event appended reaches the follower, in order, as it is appended. The latency is printed
    /// (and measured in bench/board); a wall-clock limit here would fail on a loaded machine.
    @Test func followDeliversEachEventAsItIsAppended() throws {
        let home = try TemporaryHome()
        let follower = try StreamingHookctl(["events", "--follow", "--json"], home: home)
        defer { follower.stop() }
        // Without --since the stream starts at the end of the log: record until the follower, still
        // starting up, shows one; from then on it is watching.
        var ready: Int?
        for _ in 0..<40 where ready == nil {
            _ = try Self.record(home, [boardEvent(.started)])
            if let line = follower.readLine(timeout: 0.5) { ready = try JSON.parse(line)["seq"]?.intValue }
        }
        let base = try #require(ready)
        while let extra = follower.readLine(timeout: 0.2) { ready = try JSON.parse(extra)["seq"]?.intValue }
        let last = try #require(ready)
        #expect(last >= base)
        var latencies: [Double] = []
        for index in 0..<10 {
            let start = monotonicSeconds()
            _ = try Self.record(home, [boardEvent(index % 2 == 0 ? .working : .needsInput, message: "event \(index)")])
            let line = try #require(follower.readLine(timeout: 2))
            latencies.append(monotonicSeconds() - start)
            #expect(try JSON.parse(line)["seq"]?.intValue == last + index + 1)
        }
        print("board: follow latency append→line (µs): \(latencies.map { Int($0 * 1_000_000) })")
    }

    @Test func aClientResumesWithSinceAcrossRotationsAndMissesNothing() throws {
        let home = try TemporaryHome()
        let small = 4096
        _ = try Self.record(home, (0..<30).map { boardEvent(.working, message: "before \($0)") }, maxLogSize: small, keep: 8)
        // A live client follows from the start, sees some events, and loses its connection.
        let first = try StreamingHookctl(["events", "--follow", "--json", "--since", "0"], home: home)
        var seen: [Int] = []
        while seen.count < 30, let line = first.readLine(timeout: 10) { seen += Self.eventSeqs(line) }
        first.stop()
        #expect(seen == Array(1...30))
        // Meanwhile the log rotates several times.
        _ = try Self.record(home, (0..<70).map { boardEvent(.working, message: "while away \($0) " + String(repeating: "x", count: 80)) },
                            maxLogSize: small, keep: 8)
        let state = home.file(".local/state/hookctl")
        #expect(((try? FileSystem.list(state)) ?? []).filter { $0.hasPrefix("events.") && $0.hasSuffix(".jsonl") }.count > 3)
        // Reconnect: one-shot listing, then a follower that also sees what comes next.
        let listing = try hookctl(["events", "--json", "--since", "30"], environment: home.environment())
        #expect(Self.eventSeqs(listing.stdout) == Array(31...100))
        let second = try StreamingHookctl(["events", "--follow", "--json", "--since", "30"], home: home)
        defer { second.stop() }
        var resumed: [Int] = []
        while resumed.count < 70, let line = second.readLine(timeout: 10) { resumed += Self.eventSeqs(line) }
        #expect(resumed == Array(31...100))
        // Rotations while following: nothing lost, nothing twice.
        for index in 0..<60 {
            _ = try Self.record(home, [boardEvent(.done, message: "live \(index) " + String(repeating: "y", count: 80))],
                                maxLogSize: small, keep: 8)
        }
        var live: [Int] = []
        while live.count < 60, let line = second.readLine(timeout: 10) { live += Self.eventSeqs(line) }
        #expect(live == Array(101...160))
        #expect(second.errors().isEmpty)
    }

    @Test func concurrentWritersAndReadersSeeAConsistentBoard() throws {
        let home = try TemporaryHome()
        let paths = Paths(environment: home.environment())
        let writers = 4, perWriter = 150
        // Status runs that saw the log part-way: the writers wait half-way until two have (30 s at most),
        // so however fast appends are next to a process start, some reads happen mid-way.
        let midway = Mutex(0)
        // Writers append on their own threads (each its own lock descriptor, as separate hook processes
        // have) while status runs again and again as separate processes.
        let appenders = ThreadGroup(writers) { writer in
            let log = EventLog(paths: paths, maxLogSize: 16 << 10, keptGenerations: 20)
            for index in 0..<perWriter {
                if index == perWriter / 2 { _ = eventually(timeout: 30) { midway.withLock { $0 } >= 2 } }
                var event = boardEvent([.working, .needsInput, .done][index % 3], session: "w\(writer)",
                                       message: "writer \(writer) event \(index)")
                try log.append(&event)
            }
        }
        var seen: [Int] = []
        var problems: [String] = []
        while seen.last ?? 0 < writers * perWriter, seen.count < 2000 {
            let result = try hookctl(["status", "--json"], environment: home.environment())
            if result.status != 0 || !result.stderr.isEmpty { problems.append("\(result.status): \(result.stderr)") }
            seen.append((try? JSON.parse(result.stdout))?["last_seq"]?.intValue ?? -1)
            if let last = seen.last, last > 0, last < writers * perWriter { midway.withLock { $0 += 1 } }
        }
        _ = try appenders.join()
        #expect(problems.isEmpty)
        print("board: status runs during concurrent appends saw last_seq \(seen.prefix(12))… (\(seen.count) runs)")
        #expect(seen.filter { $0 > 0 && $0 < writers * perWriter }.count > 1)  // some ran mid-way
        #expect(seen == seen.sorted())
        let events = try hookctl(["events", "--json", "--since", "0"], environment: home.environment())
        #expect(Self.eventSeqs(events.stdout) == Array(1...(writers * perWriter)))
        #expect(events.stderr.isEmpty)
        let agents = try Self.statusJSON(home)["agents"]?.arrayValue ?? []
        #expect(agents.count == writers)
        #expect(agents.allSatisfy { $0["state"]?.stringValue == "done" && $0["message"]?.stringValue?.hasSuffix("event \(perWriter - 1)") == true })
    }

    @Test func aCorruptLineIsSkippedWithAWarningAndTheRestIsRead() throws {
        let home = try TemporaryHome()
        _ = try Self.record(home, [boardEvent(.working, message: "one")])
        let path = home.file(".local/state/hookctl/events.jsonl")
        try FileSystem.appendLocked(path, bytes: Array("this is not an event\n".utf8))
        _ = try Self.record(home, [boardEvent(.done, message: "two"), boardEvent(.needsInput, session: "s9", message: "three")])
        let events = try hookctl(["events", "--json"], environment: home.environment())
        #expect(events.status == 0)
        #expect(Self.eventSeqs(events.stdout) == [1, 2, 3])
        #expect(events.stderr.contains("hookctl: warning: \(path):2: skipped a corrupt event line"))
        #expect(events.stderr.split(separator: "\n").count == 1)
        let human = try hookctl(["events"], environment: home.environment())
        #expect(human.stdout.split(separator: "\n").count == 3)
        // A board lost with the damage is rebuilt from the log, corrupt line skipped.
        FileSystem.remove(home.file(".local/state/hookctl/board.state"))
        let status = try hookctl(["status", "--json"], environment: home.environment())
        #expect(status.status == 0)
        #expect(status.stderr.contains("events.jsonl:2: skipped a corrupt event line"))
        let states = try JSON.parse(status.stdout)["agents"]?.arrayValue?.compactMap { $0["state"]?.stringValue }
        #expect(states == ["needs_input", "done"])
    }

    @Test func followWithLimitShowsTheLastEventsThenNewOnes() throws {
        let home = try TemporaryHome()
        _ = try Self.record(home, (0..<5).map { boardEvent(.working, message: "old \($0)") })
        let json = try StreamingHookctl(["events", "--follow", "--json", "--limit", "2"], home: home)
        defer { json.stop() }
        let human = try StreamingHookctl(["events", "--follow", "--limit", "1", "--width", "60"], home: home)
        defer { human.stop() }
        #expect(Self.eventSeqs([json.readLine(timeout: 10), json.readLine(timeout: 10)].compactMap { $0 }.joined(separator: "\n")) == [4, 5])
        #expect(human.readLine(timeout: 10)?.hasPrefix("#5 ") == true)
        _ = try Self.record(home, [boardEvent(.needsInput, message: "new one")])
        #expect(Self.eventSeqs(json.readLine(timeout: 10) ?? "") == [6])
        let line = try #require(human.readLine(timeout: 10))
        #expect(line.hasPrefix("#6 ") && line.contains("claude needs_input") && line.contains("new one"))
        #expect(line.count <= 60)
    }

    @Test func followExitsCleanlyWhenItsOutputCloses() throws {
        let home = try TemporaryHome()
        _ = try Self.record(home, [boardEvent(.started)])
        let follower = try StreamingHookctl(["events", "--follow", "--json", "--since", "0"], home: home)
        defer { follower.stop() }
        #expect(follower.readLine(timeout: 10) != nil)
        follower.closeOutput()
        // No event needed: the closed channel alone ends it (an SSH client that went away).
        #expect(follower.waitForExit(timeout: 5) == 0)
    }

    @Test func notifyRecordsEventsForStatusAndEvents() throws {
        let home = try TemporaryHome()
        let follower = try StreamingHookctl(["events", "--follow", "--json", "--since", "0"], home: home)
        defer { follower.stop() }
        // A test event (not on the board) proves the follower is watching before notify runs.
        var warmup = boardEvent(.test, session: nil)
        try EventLog(paths: Paths(environment: home.environment())).append(&warmup)
        _ = try #require(follower.readLine(timeout: 10))
        let payload = #"{"session_id":"s1","cwd":"/tmp/p","hook_event_name":"Stop","last_assistant_message":"done"}"#
        let notify = try hookctl(["notify", "--force", "--agent", "claude"], environment: home.environment(), input: payload)
        #expect(notify.status == 0, "\(notify.stderr)")
        #expect(notify.stdout.isEmpty)
        // notify has exited: its event was recorded by then (a read of the log, not a stopwatch, says so).
        #expect(try hookctl(["events", "--json"], environment: home.environment()).stdout.contains("\"agent_event\":\"Stop\""))
        let line = try #require(follower.readLine(timeout: 5))
        #expect(try JSON.parse(line)["kind"]?.stringValue == "done")
        let agents = try Self.statusJSON(home)["agents"]?.arrayValue ?? []
        #expect(agents.count == 1)
        #expect(agents.first?["agent"]?.stringValue == "claude")
        #expect(agents.first?["state"]?.stringValue == "done")
        #expect(agents.first?["session_id"]?.stringValue == "s1")
        #expect(agents.first?["cwd"]?.stringValue == "/tmp/p")
        #expect(agents.first?["message"]?.stringValue == "done")
        let events = try hookctl(["events", "--json"], environment: home.environment())
        let kinds = jsonLines(events.stdout).compactMap { $0["kind"]?.stringValue }
        #expect(kinds == ["test", "done"])
    }
}

/// An event as notify builds it from one agent hook call.
func boardEvent(_ kind: EventKind, agent: String = "claude", session: String? = "s1", pane: String? = nil,
                socket: String? = nil, tmuxSession: String? = nil, cwd: String? = "/tmp/project",
                message: String = "", time: Double = WallClock.nowEpoch()) -> Event {
    Event(time: time, agent: agent, kind: kind, agentEvent: kind.rawValue, title: "\(agent) \(kind.rawValue)",
          message: message, host: "testhost",
          tmux: pane.map { TmuxLocation(session: tmuxSession, pane: $0, socket: socket) }, cwd: cwd, sessionID: session)
}

/// `hookctl ARGS` left running (a follower): its stdout on a pipe read line by line, stderr in a file.
final class StreamingHookctl: @unchecked Sendable {
    let pid: pid_t
    private var outputFD: Int32
    private var buffer: [UInt8] = []
    private let errorFile: String
    private var exited = false

    init(_ arguments: [String], home: TemporaryHome) throws {
        errorFile = home.file("follower-\(UInt32.random(in: 0...UInt32.max)).err")
        (pid, outputFD) = try spawnWithOutputPipe(executable: Harness.binary, arguments: arguments,
                                                  environment: home.environment(), errorFile: errorFile)
    }

    /// The next line of output, waiting at most `timeout` seconds.
    func readLine(timeout: Double) -> String? {
        let deadline = monotonicSeconds() + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let remaining = deadline - monotonicSeconds()
            guard remaining > 0, outputFD >= 0 else { return nil }
            var entry = pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(max(1, remaining * 1000))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(outputFD, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func closeOutput() {
        if outputFD >= 0 { close(outputFD) }
        outputFD = -1
    }

    /// The exit status once the process ended by itself, nil if it still runs after `timeout`.
    func waitForExit(timeout: Double) -> Subprocess.Termination? {
        let deadline = monotonicSeconds() + timeout
        var status: Int32 = 0
        while monotonicSeconds() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                return Subprocess.Termination(waitStatus: status)
            }
            sleepSeconds(0.01)
        }
        return nil
    }

    func errors() -> String { (try? FileSystem.readString(errorFile)) ?? nil ?? "" }

    func stop() {
        closeOutput()
        guard !exited else { return }
        exited = true
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    deinit { stop() }
}
