import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore

/// The append path's writes of `board.state`: only the changed end of the file and a header of fixed
/// length are written over the board as read (`BoardFile.splice`), and a board read once by a command
/// (reply) is reused for its append only while the file is unchanged.
@Suite struct BoardSpliceTests {
    /// Recent (a board rebuilt from the log forgets sessions older than its retention), in whole
    /// seconds (the log keeps times to the millisecond).
    static let base = (WallClock.nowEpoch() - 10_000).rounded()

    func event(_ random: inout SeededRandom, _ index: Int, sessions: Int) -> Event {
        let kinds: [EventKind] = [.started, .working, .needsInput, .info, .done, .failed, .working, .ended]
        let session = Int(random.next() % UInt64(sessions))
        return hookEvent(kinds[Int(random.next() % UInt64(kinds.count))], session: "s\(session)",
                         pane: "%\(session % 7)", socket: "/tmp/sock", tmuxSession: "work",
                         message: String(repeating: "w", count: Int(random.next() % 90)) + " \u{202E}\t\"\(index)\"",
                         time: Self.base + Double(index))
    }

    /// Spliced writes leave the same bytes as a whole rewrite of the same board, and the board they
    /// hold is the one rebuilt from the log.
    @Test func splicedWritesEqualAWholeRewriteAndTheLog() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var random = SeededRandom(seed: 21)
        for index in 0..<400 {
            var next = event(&random, index, sessions: 60)
            // Most appends reuse the board as read before them, as reply does, some with the event's
            // session already decoded from it (reply resolved it).
            var known = index % 3 == 0 ? nil : log.readBoard()
            if index % 3 == 2, let file = known?.file { known?.decoded = file.entry(forKey: BoardState.key(for: next)) }
            try log.append(&next, knownBoard: known)
            let disk = try #require(try FileSystem.read(log.boardFile))
            let file = try #require(BoardFile(bytes: disk), "append \(index) left a board that does not read")
            #expect(file.bytes == disk, "append \(index): the spliced file differs from a whole rewrite")
        }
        let stored = try #require(log.storedBoard())
        FileSystem.remove(log.boardFile)
        let rebuilt = try log.board(warn: { Issue.record("warning \($0)") })
        #expect(rebuilt.entries.count == stored.entries.count)
        #expect(rebuilt.entries.sorted { $0.key < $1.key } == stored.entries.sorted { $0.key < $1.key })
        #expect(rebuilt.lastSeq == 400 && stored.lastSeq == 400)
    }

    /// Readers take no lock: while one writer splices the board again and again, every board a reader
    /// takes from `board.state` is whole (a torn one is read again) and never goes back in time.
    @Test func readersWithoutALockSeeOnlyWholeBoards() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var random = SeededRandom(seed: 24)
        for index in 0..<60 {
            var next = event(&random, index, sessions: 40)
            try log.append(&next)
        }
        let events = (60..<360).map { event(&random, $0, sessions: 40) }
        let threads = ThreadGroup(2) { role -> [Int] in
            if role == 0 {
                for var next in events { try log.append(&next, knownBoard: log.readBoard()) }
                return []
            }
            var seen: [Int] = []
            let giveUp = monotonicSeconds() + 120  // only so that a failing writer cannot hang the run
            while seen.last ?? 0 < 360, monotonicSeconds() < giveUp {
                guard let file = log.snapshotBoardFile() else { continue }
                let board = try file.board()
                #expect(board.entries.count == Set(board.entries.map(\.key)).count)
                seen.append(board.lastSeq)
            }
            return seen
        }
        let seen = try threads.join()[1]
        #expect(seen == seen.sorted(), "a reader saw the board go back")
        #expect(seen.count > 1 && seen.last == 360)
    }

    /// A board read before another process appended is not written over: the append sees the header
    /// changed, reads the board again, and both events stand.
    @Test func aBoardChangedSinceItWasReadIsReadAgain() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var first = hookEvent(.needsInput, session: "a", message: "first")
        try log.append(&first)
        let read = try #require(log.currentBoard())
        // Same length lines, so only the header (seq, checksum) tells the change.
        var other = hookEvent(.working, session: "b", message: "other")
        try log.append(&other)
        var dismissedBoard = try #require(log.storedBoard())
        let ended = dismissedBoard.end(key: "claude:a", reason: .dismissed, at: 2_000_000_000)
        #expect(ended)
        try log.saveBoard(BoardFile(dismissedBoard))  // as `dismiss` does: no new event, a new board
        var reply = hookEvent(.info, session: "b", message: "reply")
        try log.append(&reply, knownBoard: read)
        #expect(reply.seq == 3)
        let board = try #require(log.storedBoard())
        #expect(board.entries.first { $0.key == "claude:a" }?.endReason == .dismissed)
        #expect(board.entries.first { $0.key == "claude:b" }?.state == .working)
        #expect(board.lastSeq == 3)
    }

    /// A board written by the previous release (a header without padded numbers) is read, and the
    /// first append rewrites it whole with the fixed-length header.
    @Test func aBoardOfThePreviousReleaseIsReadAndRewritten() throws {
        let scratch = try BoardScratch()
        let log = scratch.log()
        var first = hookEvent(.working, session: "a")
        try log.append(&first)
        let current = try #require(log.readBoard())
        let body = Array(current.bytes[(current.bytes.firstIndex(of: 0x0A)! + 1)...])
        let file = current.file
        let old = Array("hookctl-board 1 \(file.lastSeq) \(file.logInode) \(file.logOffset) \(body.count) \(String(BoardFile.checksum(body[...]), radix: 16))\n".utf8) + body
        #expect(old.count < current.bytes.count)
        try FileSystem.writeAtomically(log.boardFile, bytes: old, sync: false)
        #expect(log.currentBoard()?.file.lastSeq == 1)
        var next = hookEvent(.done, session: "a")
        try log.append(&next, knownBoard: log.currentBoard())
        let disk = try #require(try FileSystem.read(log.boardFile))
        #expect(disk.count > old.count)
        #expect(try BoardFile(bytes: disk)?.board().entries.first?.state == .done)
    }

    /// Every state a crash can leave between the splice's writes (the new end cut anywhere, before or
    /// after the truncation, the header cut anywhere) is either not a board (rebuilt from the log) or
    /// exactly the old or the new one.
    @Test func everyTornSpliceIsTheOldBoardTheNewOneOrNone() throws {
        var random = SeededRandom(seed: 22)
        var board = BoardState()
        for index in 0..<40 { board.apply(event(&random, index, sessions: 30)) }
        board.logInode = 7
        let old = BoardFile(board).bytes
        let read = try #require(BoardFile(bytes: old))
        for step in 0..<12 {
            var file = read
            var next = event(&random, 100 + step, sessions: 30)
            next.seq = board.lastSeq + 1
            try file.apply(next, limits: BoardLimits(maxEntries: 25))
            let splice = try #require(file.splice(over: old, lines: read.lines))
            let new = file.bytes
            func check(_ torn: [UInt8], _ what: String) {
                guard let parsed = BoardFile(bytes: torn) else { return }
                #expect(torn == old || torn == new, "step \(step), \(what): a torn file reads as a board")
                #expect(parsed.bytes == old || parsed.bytes == new)
            }
            func written(_ base: [UInt8], _ bytes: ArraySlice<UInt8>, at offset: Int) -> [UInt8] {
                var result = base
                if result.count < offset + bytes.count { result += [UInt8](repeating: 0, count: offset + bytes.count - result.count) }
                result.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
                return result
            }
            for cut in 0...splice.tail.count {
                check(written(old, splice.tail[..<cut], at: splice.offset), "end cut at \(cut)")
            }
            let tailWritten = written(old, splice.tail[...], at: splice.offset)
            let truncated = Array(tailWritten.prefix(splice.size))
            check(truncated, "end written, truncated")
            for cut in 0...splice.header.count {
                check(written(tailWritten, splice.header[..<cut], at: 0), "header cut at \(cut), not truncated")
                check(written(truncated, splice.header[..<cut], at: 0), "header cut at \(cut)")
            }
            #expect(written(truncated, splice.header[...], at: 0) == new)
        }
    }

    /// The checksum carried over the unchanged words equals the checksum of the whole.
    @Test func theChecksumContinuesOverWholeWords() {
        var random = SeededRandom(seed: 23)
        let bytes = (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for split in stride(from: 0, through: 296, by: 8) {
            let seed = BoardFile.checksum(bytes[..<split])
            #expect(BoardFile.checksum(bytes[split...], seed: seed) == BoardFile.checksum(bytes[...]))
        }
    }
}
