import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
import Synchronization

@Suite struct BoardLogTests {
    /// A reader stopped by its body mid-chunk reads the lines it had not handed out yet on its next call.
    @Test func aLineReaderResumesAfterAStop() throws {
        let directory = try TemporaryDirectory("linereader")
        let path = directory.path + "/log.jsonl"
        try FileSystem.writeAtomically(path, text: "a\nb\n", mode: 0o600, sync: false)
        let fd = try FileDescriptor.open(path, O_RDONLY)
        defer { fd.close() }
        var reader = LineReader(fd: fd, file: path)
        var lines: [String] = []
        try reader.readAvailable { lines.append(String(decoding: $0.bytes, as: UTF8.self)); return false }
        try FileSystem.appendLocked(path, bytes: Array("c\n".utf8))
        try reader.readAvailable { lines.append(String(decoding: $0.bytes, as: UTF8.self)); return true }
        #expect(lines == ["a", "b", "c"])
    }

    /// The sender's quick look for an event its hook logged: found at the end of the log, also just
    /// after a rotation moved it to the previous file; not found once it is beyond the window.
    @Test func theLogsTailTellsWhetherAnEventWasLogged() throws {
        let scratch = try BoardScratch()
        let log = scratch.log(maxLogSize: 4096)
        var first = hookEvent(.working, session: "s1", message: "first")
        try log.append(&first)
        #expect(log.files.contains(eventID: first.id, through: 1, window: LogFiles.recentWindow))
        #expect(!log.files.contains(eventID: "00000000-0000-4000-8000-000000000000", through: 1, window: LogFiles.recentWindow))
        // Rotated away: the current file is short, so the end of events.1.jsonl is looked at too.
        var later: [Event] = []
        while FileSystem.exists(log.files.generation(1)) == false {
            var event = hookEvent(.working, session: "s2", message: String(repeating: "x", count: 300))
            try log.append(&event)
            later.append(event)
        }
        #expect(log.files.contains(eventID: first.id, through: 1, window: LogFiles.recentWindow))
        #expect(log.files.contains(eventID: later.last!.id, through: 1, window: LogFiles.recentWindow))
        // Beyond the window: the caller takes the certain way.
        #expect(!log.files.contains(eventID: first.id, through: 1, window: 64))
        // A hostile id cannot match a neighbour's.
        #expect(!log.files.contains(eventID: #"x","kind":"working"#, through: 1, window: LogFiles.recentWindow))
    }

    /// A hook commits its outbox entry before logging (`logged` false) and lets it go once logged,
    /// without writing it again: the engine finds the event in the log and keeps no second copy for it.
    @Test func anEntryWhoseEventWasLoggedIsNotKeptForTheLogAgain() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var event = hookEvent(.done, session: "s1", message: "all done")
        try log.append(&event)
        var entry = OutboxEntry(event: event, sink: "relay")
        entry.logged = false
        let engine = DeliveryEngine(usable: ([], []), outbox: Outbox(paths: scratch.paths), defaults: Defaults(), answers: nil)
        var problems: [String] = []
        #expect(engine.keepForLog(entry, problems: &problems))
        #expect(problems.isEmpty)
        #expect(!engine.outbox.hasUnlogged(), "a logged event must not wait for the log again")
        // One its hook never logged is kept for the log to catch up.
        var lost = OutboxEntry(event: hookEvent(.done, session: "s2", message: "never logged"), sink: "relay")
        lost.logged = false
        #expect(engine.keepForLog(lost, problems: &problems))
        #expect(engine.outbox.hasUnlogged())
    }

    @Test func appendsNumberEventsAndKeepTheBoard() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var calls = [
            hookEvent(.started, session: "s1", pane: "%1", tmuxSession: "work"),
            hookEvent(.working, session: "s1", pane: "%1", tmuxSession: "work", message: "fix the tests"),
            hookEvent(.started, agent: "codex", session: "c1"),
            hookEvent(.needsInput, session: "s1", pane: "%1", tmuxSession: "work", message: "Claude needs your permission"),
            hookEvent(.working, agent: "codex", session: "c1", message: "refactor"),
            hookEvent(.failed, agent: "gemini", session: "g1", message: "rate limited"),
        ]
        for index in calls.indices { try log.append(&calls[index]) }
        #expect(calls.map(\.seq) == [1, 2, 3, 4, 5, 6])
        let board = try log.board(warn: { Issue.record("unexpected warning \($0)") })
        #expect(board.lastSeq == 6)
        #expect(board.ordered.map(\.key) == ["claude:s1", "codex:c1", "gemini:g1"])
        #expect(board.ordered.map(\.state) == [.needsInput, .working, .failed])
        #expect(board.ordered[0].tmux?.session == "work")
        #expect(log.isCurrent(board))
        // The log holds the events, one line each, with their seq.
        var seqs: [Int] = []
        try log.files.read(after: nil, warn: { _ in }) { _, event in seqs.append(event.seq ?? 0); return true }
        #expect(seqs == [1, 2, 3, 4, 5, 6])
    }

    @Test func appendCostDoesNotGrowWithTheLog() throws {
        let young = try BoardScratch(), grown = try BoardScratch()
        let youngLog = young.log(), grownLog = grown.log()
        /// Appends the `index`th event of the series to `log` and returns how long that took.
        func timeAppend(_ log: EventLog, _ index: Int) throws -> Double {
            var event = hookEvent([.working, .needsInput, .done][index % 3], agent: ["claude", "codex", "gemini"][index % 3],
                                  session: "s\(index % 40)", pane: "%\(index % 40)", socket: "/tmp/none", tmuxSession: "sshido-1",
                                  message: String(repeating: "word ", count: 30))
            let start = monotonicSeconds()
            try log.append(&event)
            return monotonicSeconds() - start
        }
        for index in 0..<2300 { _ = try timeAppend(grownLog, index) }
        // The first 300 appends to an empty log and 300 to the grown one, taken in turn, so both see the
        // same load on a shared machine (measured one batch after the other, a load that came between
        // the batches could triple the second by itself).
        var early = 0.0, late = 0.0
        for index in 0..<300 {
            early += try timeAppend(youngLog, index)
            late += try timeAppend(grownLog, 2300 + index)
        }
        early /= 300
        late /= 300
        print("board: append cost with 40 sessions (debug build): first 300 \(Int(early * 1_000_000)) µs, after 2,300 \(Int(late * 1_000_000)) µs")
        // Relative to the same run's early appends, taken in turn: the cost does not grow with the log.
        #expect(late < max(early * 3, 0.002))
    }

    @Test func rotationKeepsGenerationsAndSeqsContinue() throws {
        let scratch = try BoardScratch()
        let log = scratch.log(maxLogSize: 4096, keep: 2)
        for index in 0..<120 {
            var event = hookEvent(index % 3 == 0 ? .working : .done, session: "s\(index % 5)", message: "event \(index)")
            try log.append(&event)
            #expect(event.seq == index + 1)
        }
        let files = log.files
        #expect(files.rotated().count == 2)
        #expect(!FileSystem.exists(files.generation(3)))
        for path in files.all() {
            var info = stat()
            stat(path, &info)
            #expect(Int(info.st_size) <= 4096)
        }
        // Everything kept reads back in order, without gaps, across the generations.
        var seqs: [Int] = []
        try files.read(after: nil, warn: { _ in }) { _, event in seqs.append(event.seq!); return true }
        #expect(seqs.last == 120)
        #expect(seqs == Array(seqs.first!...120))
        // --since inside a rotated generation.
        let since = seqs[seqs.count / 3]
        var after: [Int] = []
        try files.read(after: since, warn: { _ in }) { _, event in after.append(event.seq!); return true }
        #expect(after == Array((since + 1)...120))
        // The board never needed the log: it is current and knows every session.
        let board = try log.board(warn: { _ in })
        #expect(board.lastSeq == 120)
        #expect(board.entries.count == 5)
    }

    @Test func concurrentWritersNeverShareASeq() throws {
        let scratch = try BoardScratch()
        let log = scratch.log(maxLogSize: 64 << 10)
        let writers = 8, perWriter = 60
        // Each writer its own thread and lock descriptor, as separate hook processes have.
        let perThread = try ThreadGroup(writers) { writer in
            var seqs: [Int] = []
            for index in 0..<perWriter {
                var event = hookEvent(.working, session: "w\(writer)", message: "\(index)")
                try log.append(&event)
                seqs.append(event.seq!)
            }
            return seqs
        }.join()
        for seqs in perThread { #expect(seqs == seqs.sorted()) }
        #expect(perThread.flatMap { $0 }.sorted() == Array(1...(writers * perWriter)))
        var seen: [Int] = []
        try log.files.read(after: nil, warn: { Issue.record("corrupt line: \($0)") }) { _, event in seen.append(event.seq!); return true }
        #expect(seen == Array(1...(writers * perWriter)))
        let board = try log.board(warn: { _ in })
        #expect(board.lastSeq == writers * perWriter)
        #expect(board.entries.count == writers)
    }

    @Test func corruptLinesAreSkippedWithAWarningNamingFileAndLine() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var first = hookEvent(.working, message: "one")
        try log.append(&first)
        // Damage the log behind hookctl's back, then keep appending.
        try FileSystem.appendLocked(log.files.current, bytes: Array("{\"id\":\"x\",\"seq\":2,\"kind\":\n not json at all\n".utf8))
        var second = hookEvent(.done, message: "two")
        try log.append(&second)
        #expect(second.seq == 2)
        var warnings: [String] = []
        var seqs: [Int] = []
        try log.files.read(after: nil, warn: { warnings.append($0) }) { _, event in seqs.append(event.seq!); return true }
        #expect(seqs == [1, 2])
        #expect(warnings.count == 2)
        #expect(warnings.first?.hasPrefix(log.files.current + ":2: skipped a corrupt event line") == true)
        #expect(warnings.last?.hasPrefix(log.files.current + ":3:") == true)
        let board = try log.board(warn: { _ in })
        #expect(board.entries.first?.state == .done)
        #expect(board.entries.first?.message == "two")
    }

    @Test func eventsWrittenPastTheBoardAreReplayedAndAnUnfinishedLineIsClosed() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var first = hookEvent(.working)
        try log.append(&first)
        // Another writer appended a full event, then died in the middle of the next line.
        var outside = hookEvent(.needsInput, message: "outside")
        outside.seq = 2
        try FileSystem.appendLocked(log.files.current, bytes: Array((JSON.serialize(outside.json) + "\n{\"id\":\"half").utf8))
        var warnings: [String] = []
        let caughtUp = try log.board(warn: { warnings.append($0) })
        #expect(caughtUp.lastSeq == 2)
        #expect(caughtUp.entries.first?.state == .needsInput)
        #expect(warnings.isEmpty)  // the unfinished line may still be being written
        var next = hookEvent(.done, message: "after")
        try log.append(&next)
        #expect(next.seq == 3)
        var seqs: [Int] = []
        try log.files.read(after: nil, warn: { warnings.append($0) }) { _, event in seqs.append(event.seq!); return true }
        #expect(seqs == [1, 2, 3])
        #expect(warnings.count == 1)
    }

    @Test func aMissingOrCorruptBoardIsRebuiltFromEveryGeneration() throws {
        let scratch = try BoardScratch()
        let log = scratch.log(maxLogSize: 4096, keep: 5)
        for index in 0..<60 {
            var event = hookEvent(index == 59 ? .needsInput : .working, session: "s\(index % 3)")
            try log.append(&event)
        }
        let before = try #require(log.storedBoard())
        try FileSystem.writeAtomically(log.boardFile, text: "hookctl-board 1 broken\n", sync: false)
        let rebuilt = try log.board(warn: { _ in })
        #expect(rebuilt.lastSeq == 60)
        #expect(rebuilt.entries.map(\.key).sorted() == before.entries.map(\.key).sorted())
        let rebuiltStates: [String] = rebuilt.entries.map(\.state.rawValue).sorted()
        let storedStates: [String] = before.entries.map(\.state.rawValue).sorted()
        #expect(rebuiltStates == storedStates)
        var next = hookEvent(.done)
        try log.append(&next)
        #expect(next.seq == 61)
    }

    /// A damaged log with one huge line (no newline for megabytes) is read in time linear in its size:
    /// the line reader searches only the new bytes of each chunk. Before 6b36ce1 it searched the whole
    /// unfinished line after every 64 KiB chunk, so a 4 MiB line took 7 s, 8 MiB 28 s, 16 MiB 2 minutes
    /// in `events`, `status` and in notify's board rebuild (a hook), and a 70 MiB line never finished.
    /// A corrupt line of several MiB is skipped in time linear in its length: 4 MiB takes about eight
    /// times 512 KiB (the quadratic scan this replaced took sixty-four times, ~15 s for 6 MiB). Compared
    /// in turn, the fastest of three each, so a load on the machine meets both; no wall-clock limit.
    @Test func aHugeCorruptLineIsReadInLinearTime() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var first = hookEvent(.working, message: "one"), second = hookEvent(.done, message: "two")
        first.seq = 1
        second.seq = 2
        try FileSystem.makeDirectories(scratch.paths.stateDirectory)
        func timeRead(corrupt size: Int) throws -> Double {
            var bytes = Array((JSON.serialize(first.json) + "\n{\"x\":\"").utf8)
            bytes += [UInt8](repeating: UInt8(ascii: "A"), count: size)
            bytes += Array(("\"}\n" + JSON.serialize(second.json) + "\n").utf8)
            try FileSystem.writeAtomically(log.files.current, bytes: bytes, sync: false)
            let start = monotonicSeconds()
            var warnings: [String] = []
            var seqs: [Int] = []
            try log.files.read(after: nil, warn: { warnings.append($0) }) { _, event in seqs.append(event.seq!); return true }
            let elapsed = monotonicSeconds() - start
            #expect(seqs == [1, 2])
            #expect(warnings.count == 1)
            return elapsed
        }
        var small = Double.infinity, large = Double.infinity
        for _ in 0..<3 {
            small = min(small, try timeRead(corrupt: 512 << 10))
            large = min(large, try timeRead(corrupt: 4 << 20))
        }
        #expect(large < small * 24, "4 MiB took \(large) s, 512 KiB \(small) s: not linear")
    }

    @Test func tailReadFindsTheLastSeq() throws {
        let scratch = try BoardScratch()
        let path = scratch.path + "/events.jsonl"
        #expect(LogFiles.lastSeq(of: path) == nil)
        var text = ""
        for seq in 1...300 {
            var event = hookEvent(.working, message: String(repeating: "x", count: 100))
            event.seq = seq
            text += JSON.serialize(event.json) + "\n"
        }
        try FileSystem.writeAtomically(path, text: text + "{\"id\":\"partial\",\"seq\":301", sync: false)
        #expect(LogFiles.lastSeq(of: path) == 300)
        let big = hookEvent(.working, message: String(repeating: "y", count: 20000))
        var numbered = big
        numbered.seq = 7
        try FileSystem.writeAtomically(path, text: JSON.serialize(numbered.json) + "\n", sync: false)
        #expect(LogFiles.lastSeq(of: path) == 7)
    }

    @Test func theLastNEventsComeFromTheNewestGenerations() throws {
        let scratch = try BoardScratch()
        let log = scratch.log(maxLogSize: 4096, keep: 3)
        for _ in 0..<80 {
            var event = hookEvent(.working)
            try log.append(&event)
        }
        let last = try log.files.last(30, warn: { _ in })
        #expect(last.map { $0.1.seq! } == Array(51...80))
    }

    @Test func followerWakesOnlyForTheLogsFiles() {
        func record(_ name: String, mask: UInt32 = UInt32(IN_MODIFY)) -> [UInt8] {
            var bytes: [UInt8] = []
            let padded = name.isEmpty ? 0 : (name.utf8.count / 16 + 1) * 16
            for value in [UInt32(1), mask, 0, UInt32(padded)] { withUnsafeBytes(of: value) { bytes += $0 } }
            bytes += Array(name.utf8) + [UInt8](repeating: 0, count: padded - name.utf8.count)
            return bytes
        }
        #expect(!EventFollower.namesLogFile(record("board.state")[...]))
        #expect(!EventFollower.namesLogFile((record("board.state") + record("events.lock"))[...]))
        #expect(!EventFollower.namesLogFile((record("board.state") + record("events.jsonl").dropLast(20))[...]))
        #expect(EventFollower.namesLogFile((record("board.state") + record("events.jsonl"))[...]))
        #expect(EventFollower.namesLogFile(record("events.1.jsonl", mask: UInt32(IN_MOVED_TO))[...]))
        #expect(EventFollower.namesLogFile(record("", mask: UInt32(IN_Q_OVERFLOW))[...]))
    }

    @Test func followerDeliversEachEventOnceAcrossRotations() throws {
        let scratch = try BoardScratch()
        // Enough generations that a follower the scheduler starts late still finds what it has not seen.
        let log = scratch.log(maxLogSize: 4096, keep: 30)
        var warmup = hookEvent(.started)
        try log.append(&warmup)
        let total = 150
        let collected = Collected()
        let follower = ThreadGroup(1) { _ in
            var follower = EventFollower(files: log.files, after: 0)
            follower.pollInterval = 0.05
            let deadline = monotonicSeconds() + 20
            follower.shouldStop = { collected.count >= total + 1 || monotonicSeconds() > deadline }
            try follower.run(warn: { collected.warn($0) }) { _, event in collected.add(event.seq!); return true }
        }
        let ready = monotonicSeconds() + 10
        while collected.count < 1, monotonicSeconds() < ready { sleepSeconds(0.005) }
        for index in 0..<total {
            var event = hookEvent(.working, message: String(repeating: "x", count: 100))
            try log.append(&event)
            if index % 10 == 0 { sleepSeconds(0.002) }
        }
        #expect(log.files.rotated().count > 5)
        _ = try follower.join()
        #expect(collected.seqs == Array(1...(total + 1)))
        #expect(collected.warnings.isEmpty)
    }
}

final class Collected: Sendable {
    private let state = Mutex((seqs: [Int](), warnings: [String]()))
    func add(_ seq: Int) { state.withLock { $0.seqs.append(seq) } }
    func warn(_ text: String) { state.withLock { $0.warnings.append(text) } }
    var count: Int { state.withLock { $0.seqs.count } }
    var seqs: [Int] { state.withLock { $0.seqs } }
    var warnings: [String] { state.withLock { $0.warnings } }
}

@Suite struct BoardCommandTests {
    @Test func statusFiltersAndRejectsUnknownStates() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var events = [
            hookEvent(.needsInput, session: "a", pane: "%1", tmuxSession: "alpha"),
            hookEvent(.working, agent: "codex", session: "b"),
            hookEvent(.done, agent: "gemini", session: "c", pane: "%2", tmuxSession: "beta"),
        ]
        for index in events.indices { try log.append(&events[index]) }
        func agents(_ arguments: [String]) throws -> [String] {
            // No tmux on PATH: the panes cannot be checked, so the recorded states stand.
            let result = scratch.run(["status", "--json"] + arguments, environment: ["PATH": "/nonexistent"])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try JSON.parse(result.stdout)
            return json["agents"]?.arrayValue?.compactMap { $0["agent"]?.stringValue } ?? []
        }
        #expect(try agents([]) == ["claude", "codex", "gemini"])
        #expect(try agents(["--state", "working,done"]) == ["codex", "gemini"])
        #expect(try agents(["--agent", "claude"]) == ["claude"])
        #expect(try agents(["--session", "beta"]) == ["gemini"])
        #expect(try agents(["--session", "b"]) == ["codex"])
        let bad = scratch.run(["status", "--state", "workin"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("did you mean 'working'"))
        let table = scratch.run(["status", "--width", "40"])
        #expect(table.status == 0)
        for line in table.stdout.split(separator: "\n") { #expect(line.count <= 40) }
    }

    @Test func eventsListsSinceAndLimit() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var ids: [String] = []
        for index in 0..<10 {
            var event = hookEvent(.working, message: "n\(index)")
            try log.append(&event)
            ids.append(event.id)
        }
        /// The seq of each line `events --json ARGS` prints; a line that is not JSON fails the test.
        func seqs(_ arguments: [String]) throws -> [Int] {
            let result = scratch.run(["events", "--json"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return try result.stdout.split(separator: "\n").compactMap { try JSON.parse(String($0))["seq"]?.intValue }
        }
        #expect(try seqs([]) == Array(1...10))
        #expect(try seqs(["--since", "7"]) == [8, 9, 10])
        #expect(try seqs(["--since", "2", "--limit", "3"]) == [3, 4, 5])
        #expect(try seqs(["--limit", "2"]) == [9, 10])
        #expect(try seqs(["--since", ids[5]]) == [7, 8, 9, 10])
        #expect(scratch.run(["events", "--since", "no-such-id"]).status == 65)
        let human = scratch.run(["events", "--limit", "1", "--width", "60"])
        #expect(human.stdout.hasPrefix("#10 "))
        #expect(human.stdout.contains("claude working"))
    }

    @Test func emptyStateIsNotAnError() throws {
        let scratch = try BoardScratch()
        let status = scratch.run(["status"])
        #expect(status.status == 0)
        #expect(status.stdout == "No agent sessions recorded yet.\n")
        let json = scratch.run(["status", "--json"])
        #expect(try JSON.parse(json.stdout)["agents"] == .array([]))
        #expect(scratch.run(["events", "--json"]).stdout.isEmpty)
    }
}
