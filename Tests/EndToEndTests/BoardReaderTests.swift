import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore

/// Readers of the board (`status`, `events`, `peek`) take no lock: another process holding the log's
/// exclusive lock (a hook in the middle of its append, or one stopped there) never holds them up, and
/// what they show comes from `board.state` only when it is whole and covers the log.
@Suite(.onTestThreads) struct BoardReaderTests {
    /// Holds `path` with an exclusive flock in another process (flock(1)) until stopped.
    static func holdLock(_ path: String) throws -> BackgroundProcess {
        let holder = try BackgroundProcess(executable: "/usr/bin/flock",
                                           arguments: ["-x", path, "/bin/sh", "-c", "echo locked; exec sleep 600"])
        #expect(holder.readLine(timeout: 20) == "locked")
        return holder
    }

    static func state(_ home: TemporaryHome) -> String { Paths(environment: home.environment()).stateDirectory }

    /// An event written straight to the log with the next seq, as a writer does before it saves the
    /// board (or an older hookctl, or one killed between the two writes).
    static func appendBehindTheBoard(_ home: TemporaryHome, _ event: Event, seq: Int) throws {
        var event = event
        event.seq = seq
        let fd = try FileSystem.openStateFile(state(home) + "/events.jsonl", O_WRONLY | O_APPEND)
        defer { fd.close() }
        try fd.writeAll(Array((JSON.serialize(event.json) + "\n").utf8))
    }

    static func agents(_ result: Subprocess.Result) throws -> [String] {
        let document = try JSON.parse(result.stdout)
        return (document["agents"]?.arrayValue ?? []).map {
            "\($0["session_id"]?.stringValue ?? "")=\($0["state"]?.stringValue ?? "")"
        }
    }

    @Test func readersAnswerWhileAnotherProcessHoldsTheLogLock() throws {
        let home = try TemporaryHome()
        let now = WallClock.nowEpoch()
        _ = try BoardEndToEndTests.record(home, [
            boardEvent(.started, session: "s1", time: now - 60),
            boardEvent(.working, session: "s1", message: "build it", time: now - 50),
            boardEvent(.started, session: "s2", time: now - 40),
        ])
        // The writer that holds the lock has logged its event but not saved the board yet.
        try Self.appendBehindTheBoard(home, boardEvent(.needsInput, session: "s2", message: "Allow Bash?", time: now - 10), seq: 4)
        let boardFile = Self.state(home) + "/board.state"
        let before = try #require(try FileSystem.read(boardFile))

        let holder = try Self.holdLock(Self.state(home) + "/events.lock")
        defer { holder.stop() }
        // Before readers were lock-free these waited for the lock (here: until the timeout threw).
        let status = try hookctl(["status", "--json"], environment: home.environment(), timeout: 60)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try Self.agents(status) == ["s2=needs_input", "s1=working"])
        #expect(try JSON.parse(status.stdout)["last_seq"]?.intValue == 4)
        let table = try hookctl(["status", "--width", "45"], environment: home.environment(), timeout: 60)
        #expect(table.status == 0 && table.stdout.contains("Allow Bash?"), "\(table.stdout)\(table.stderr)")
        let events = try hookctl(["events", "--json"], environment: home.environment(), timeout: 60)
        #expect(events.status == 0)
        #expect(BoardEndToEndTests.eventSeqs(events.stdout) == [1, 2, 3, 4])
        let segment = try hookctl(["status", "--format", "tmux"], environment: home.environment(), timeout: 60)
        #expect(segment.stdout.contains("⚑1"), "\(segment.stdout)")
        // Nothing was rewritten under the writer's feet.
        #expect(try FileSystem.read(boardFile) == before)

        // Once the lock is free, a reader that brought the board up to date saves it for the next one.
        holder.stop()
        #expect(try hookctl(["status", "--json"], environment: home.environment()).status == 0)
        let saved = try #require(EventLog(paths: Paths(environment: home.environment())).storedBoardFile())
        #expect(saved.lastSeq == 4)
    }

    @Test(arguments: ["flipped", "cut", "header only", "empty"])
    func aTornBoardIsNeverTrusted(damage: String) throws {
        let home = try TemporaryHome()
        let now = WallClock.nowEpoch()
        _ = try BoardEndToEndTests.record(home, [
            boardEvent(.started, session: "s1", time: now - 60),
            boardEvent(.working, session: "s1", message: "build it", time: now - 50),
        ])
        let boardFile = Self.state(home) + "/board.state"
        let whole = try #require(try FileSystem.read(boardFile))
        let text = String(decoding: whole, as: UTF8.self)
        var torn: String
        switch damage {
        case "flipped":
            // Same length, valid JSON, another state: only the checksum tells.
            let needle = Array("\"state\":\"working\"".utf8), replacement = Array("\"state\":\"failed\" ".utf8)
            var bytes = whole
            let at = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) })
            bytes.replaceSubrange(at..<(at + needle.count), with: replacement)
            torn = String(decoding: bytes, as: UTF8.self)
            #expect(bytes.count == whole.count && bytes != whole)
        case "cut": torn = String(text.prefix(text.count / 2))
        case "header only": torn = String(text.prefix(while: { $0 != "\n" })) + "\n"
        default: torn = ""
        }
        try FileSystem.writeAtomically(boardFile, bytes: Array(torn.utf8))
        let holder = try Self.holdLock(Self.state(home) + "/events.lock")
        defer { holder.stop() }
        let status = try hookctl(["status", "--json"], environment: home.environment(), timeout: 60)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try Self.agents(status) == ["s1=working"])
        #expect(try FileSystem.read(boardFile) == Array(torn.utf8))
    }

    @Test func aBoardSavedBeforeARotationIsCaughtUpFromTheRotatedFile() throws {
        let home = try TemporaryHome()
        let log = EventLog(paths: Paths(environment: home.environment()), maxLogSize: 4096, keptGenerations: 3)
        let now = WallClock.nowEpoch()
        var recorded: [Event] = []
        var saved: [UInt8]?
        var savedInode: UInt64 = 0
        var afterRotation = 0
        var index = 0
        while afterRotation < 3 {
            // `s9` only in the first events, which end up in a generation deleted below.
            var event = boardEvent(index % 3 == 0 ? .working : .done, session: index < 3 ? "s9" : "s\(index % 4)",
                                   message: String(repeating: "m", count: 150), time: (now - 600).rounded(.down) + Double(index))
            try log.append(&event)
            recorded.append(event)
            index += 1
            if saved == nil, let info = FileSystem.status(log.files.generation(1)), info.st_size > 0,
               let bytes = try FileSystem.read(log.boardFile), let file = BoardFile(bytes: bytes) {
                saved = bytes
                savedInode = file.logInode
            } else if saved != nil, UInt64(FileSystem.status(log.files.current)?.st_ino ?? 0) != savedInode {
                afterRotation += 1
            }
            try #require(index < 400)
        }
        // The board as a writer left it before the rotation, and only the newest rotated file kept.
        #expect(UInt64(FileSystem.status(log.files.generation(1))?.st_ino ?? 0) == savedInode)
        for number in 2...3 { FileSystem.remove(log.files.generation(number)) }
        try FileSystem.writeAtomically(log.boardFile, bytes: try #require(saved))

        let board = try log.board(warn: { Issue.record("unexpected warning \($0)") })
        var expected = BoardState()
        for event in recorded { expected.apply(event) }
        #expect(board.lastSeq == recorded.count)
        #expect(board.entries.map(\.key).contains("claude:s9"))
        #expect(board.entries.sorted { $0.key < $1.key } == expected.entries.sorted { $0.key < $1.key })
    }
}
