/// The board on disk (`board.state`), laid out so an append touches only what it changes:
///
///     hookctl-board 1 <last seq> <log inode> <log offset> <body length> <body checksum>
///     "<key>"⇥"<pane slot>"⇥<state>⇥<updated at>⇥{the session as JSON}
///     …
///
/// The first fields of a session line (its key and tmux pane quoted as JSON strings, which never
/// contain a raw tab or newline) let `append` find the sessions an event concerns, and prune old
/// ones, without decoding the others: its cost does not grow with the number of sessions.
/// Rewritten in place under the log's exclusive lock and read with no lock at all (a rename would
/// make ext4 flush the new file on every hook call); the length and checksum in the header catch a
/// write cut short by a crash or caught half done by a reader, and a board missing or unreadable is
/// rebuilt from the log (in memory, by a reader). The header's numbers are zero-padded to fixed widths
/// (an earlier release's unpadded header reads the same): an append rewrites only the header and the
/// sessions from the first one it changed to the end (`splice`), which it moves last.
package struct BoardFile {
    package static let magic = "hookctl-board"
    package static let version = "1"

    package var lastSeq: Int
    package var logInode: UInt64
    package var logOffset: Int
    /// Session lines, without their newline.
    package var lines: [ArraySlice<UInt8>]

    package struct Fields {
        package var key: ArraySlice<UInt8>
        package var slot: ArraySlice<UInt8>
        package var state: ArraySlice<UInt8>
        package var updatedAt: ArraySlice<UInt8>
        package var json: ArraySlice<UInt8>
    }

    /// The first four tab-separated fields and the JSON after them (the quoted fields escape their
    /// tabs). Found with memchr and no allocation: every command that reads the board runs it on every line.
    package static func fields(_ line: ArraySlice<UInt8>) -> Fields? {
        guard let tabs = line.withUnsafeBufferPointer(tabs) else { return nil }
        let start = line.startIndex
        return Fields(key: line[start..<(start + tabs.0)], slot: line[(start + tabs.0 + 1)..<(start + tabs.1)],
                      state: line[(start + tabs.1 + 1)..<(start + tabs.2)],
                      updatedAt: line[(start + tabs.2 + 1)..<(start + tabs.3)], json: line[(start + tabs.3 + 1)...])
    }

    /// The positions of a line's first four tabs (from its start); nil when it has fewer.
    package static func tabs(_ buffer: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int, Int)? {
        guard let base = buffer.baseAddress else { return nil }
        func tab(after position: Int) -> Int? {
            guard position < buffer.count, let found = memchr(base + position, 0x09, buffer.count - position) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        guard let first = tab(after: 0), let second = tab(after: first + 1), let third = tab(after: second + 1),
              let fourth = tab(after: third + 1) else { return nil }
        return (first, second, third, fourth)
    }

    /// Whether a line's key (its first field) is `quoted` (the key as JSON), compared in place.
    package static func hasKey(_ line: ArraySlice<UInt8>, _ quoted: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { buffer in
            buffer.count > quoted.count && buffer[quoted.count] == 0x09 && quoted.withUnsafeBufferPointer { key in
                memcmp(buffer.baseAddress!, key.baseAddress!, key.count) == 0
            }
        }
    }

    /// Where an entry runs, as compared for "one agent per pane": socket and pane id.
    package static func slot(_ tmux: TmuxLocation?) -> String {
        guard let tmux else { return "" }
        return "\(tmux.socket ?? "") \(tmux.pane)"
    }

    package static func line(_ entry: BoardEntry) -> [UInt8] {
        Array((JSON.quote(entry.key) + "\t" + JSON.quote(slot(entry.tmux)) + "\t" + entry.state.rawValue + "\t"
               + String(entry.updatedAt) + "\t" + JSON.serialize(BoardState.storedJSON(entry))).utf8)
    }

    package init(lastSeq: Int, logInode: UInt64, logOffset: Int, lines: [ArraySlice<UInt8>]) {
        self.lastSeq = lastSeq
        self.logInode = logInode
        self.logOffset = logOffset
        self.lines = lines
    }

    package init(_ board: BoardState) {
        self.init(lastSeq: board.lastSeq, logInode: board.logInode, logOffset: board.logOffset,
                  lines: board.entries.map { BoardFile.line($0)[...] })
    }

    /// Reads the layout; nil when it is not a complete board file of this version.
    package init?(bytes: [UInt8]) {
        guard bytes.last == 0x0A, let headerEnd = bytes.firstIndex(of: 0x0A) else { return nil }
        // Cut at space bytes (splitting the String walks its Characters: 48 k instructions, a hook's first split).
        let header = bytes[..<headerEnd].split(separator: 0x20, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard header.count == 7, header[0] == BoardFile.magic, header[1] == BoardFile.version,
              let lastSeq = Int(header[2]), let inode = UInt64(header[3]), let offset = Int(header[4]),
              Int(header[5]) == bytes.count - headerEnd - 1,
              UInt64(header[6], radix: 16) == BoardFile.checksum(bytes[(headerEnd + 1)...]) else { return nil }
        var ends: [Int] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = headerEnd + 1
            while start < buffer.count, let found = memchr(base + start, 0x0A, buffer.count - start) {
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                ends.append(end)
                start = end + 1
            }
        }
        var lines: [ArraySlice<UInt8>] = []
        lines.reserveCapacity(ends.count)
        var start = headerEnd + 1
        for end in ends {
            if end > start { lines.append(bytes[start..<end]) }
            start = end + 1
        }
        self.init(lastSeq: lastSeq, logInode: inode, logOffset: offset, lines: lines)
    }

    package var bytes: [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
        for line in lines {
            // Through a buffer pointer: a bulk copy, where appending the slice itself went byte by byte.
            line.withUnsafeBufferPointer { body.append(contentsOf: $0) }
            body.append(0x0A)
        }
        var file = header(bodyCount: body.count, checksum: BoardFile.checksum(body[...]))
        file.reserveCapacity(file.count + body.count)
        body.withUnsafeBufferPointer { file.append(contentsOf: $0) }
        return file
    }

    /// FNV-1a style, over 64-bit words: enough to notice a torn write, cheap enough for every hook call.
    /// `seed`: the hash of the bytes before these, when they were a multiple of 8 long (see `splice`).
    package static func checksum(_ bytes: ArraySlice<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            var hash = seed
            var offset = 0
            while offset + 8 <= buffer.count {
                hash = (hash ^ buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01B3
                offset += 8
            }
            while offset < buffer.count {
                hash = (hash ^ UInt64(buffer[offset])) &* 0x0000_0100_0000_01B3
                offset += 1
            }
            return hash
        }
    }

    /// The stored session with `key`, decoding only its line; nil when there is none.
    package func entry(forKey key: String) -> BoardEntry? {
        let quoted = Array(JSON.quote(key).utf8)
        for line in lines {
            guard let fields = BoardFile.fields(line), fields.key.elementsEqual(quoted) else { continue }
            return try? BoardState.storedEntry(fields.json)
        }
        return nil
    }

    /// Every session decoded (what `status` shows).
    package func board() throws -> BoardState {
        var board = BoardState()
        board.lastSeq = lastSeq
        board.logInode = logInode
        board.logOffset = logOffset
        board.entries = try lines.map { line in
            guard let fields = BoardFile.fields(line) else { throw EventError.malformedRecord("board line without its fields") }
            return try BoardState.storedEntry(fields.json)
        }
        return board
    }

    /// Folds one event in, decoding only the sessions it concerns: its own, and live ones in its pane.
    /// `decoded`: the event's session as already decoded from this very file (reply resolved it), not
    /// decoded again.
    package mutating func apply(_ event: Event, limits: BoardLimits, decoded: BoardEntry? = nil) throws {
        let eventKey = BoardState.key(for: event)
        let key = Array(JSON.quote(eventKey).utf8)
        let slot = event.tmux.map { Array(JSON.quote(BoardFile.slot($0)).utf8) }
        let ended = Array(AgentState.ended.rawValue.utf8)
        var partial = BoardState()
        partial.lastSeq = lastSeq
        var kept: [ArraySlice<UInt8>] = []
        kept.reserveCapacity(lines.count + 1)
        let bySlot = event.kind != .ended && event.kind != .test && event.kind != .info ? slot : nil
        for line in lines {
            // Matched in place (no field slices): this runs on every session for every event.
            let match: (concerned: Bool, json: Int)? = line.withUnsafeBufferPointer { buffer in
                guard let tabs = BoardFile.tabs(buffer) else { return nil }
                func field(_ range: Range<Int>, is bytes: [UInt8]) -> Bool {
                    range.count == bytes.count && bytes.withUnsafeBufferPointer { memcmp(buffer.baseAddress! + range.lowerBound, $0.baseAddress!, $0.count) == 0 }
                }
                var concerned = field(0..<tabs.0, is: key)
                if !concerned, let bySlot {
                    concerned = field((tabs.0 + 1)..<tabs.1, is: bySlot) && !field((tabs.1 + 1)..<tabs.2, is: ended)
                }
                return (concerned, tabs.3 + 1)
            }
            guard let match else { continue }
            if match.concerned {
                if let decoded, decoded.key == eventKey, BoardFile.hasKey(line, key) {
                    partial.entries.append(decoded)
                    continue
                }
                partial.entries.append(try BoardState.storedEntry(line.dropFirst(match.json)))
            } else {
                kept.append(line)
            }
        }
        partial.apply(event)
        lastSeq = partial.lastSeq
        lines = kept + partial.entries.map { BoardFile.line($0)[...] }
        // Pruning reads only the state and time fields; now and then, or when over the cap.
        if lines.count > limits.maxEntries || lastSeq % 32 == 0 { prune(now: event.time, limits: limits) }
    }

    package mutating func prune(now: Double, limits: BoardLimits) {
        let ended = Array(AgentState.ended.rawValue.utf8)
        let items: [(ended: Bool, updatedAt: Double)] = lines.map { line in
            guard let fields = BoardFile.fields(line) else { return (true, 0) }
            return (fields.state.elementsEqual(ended), Double(String(decoding: fields.updatedAt, as: UTF8.self)) ?? 0)
        }
        let drop = limits.victims(items, now: now)
        guard !drop.isEmpty else { return }
        lines = lines.indices.filter { !drop.contains($0) }.map { lines[$0] }
    }
}

// MARK: - Writing (the append path): a fixed-width header, and only the changed end rewritten

extension BoardFile {
    /// The header line, its numbers zero-padded to their widest so that it keeps its length from one
    /// write to the next: the sessions after it stay where they are and `splice` rewrites only the end.
    /// (Any reader of the earlier unpadded header reads it: the numbers parse the same.)
    package func header(bodyCount: Int, checksum: UInt64) -> [UInt8] {
        func padded(_ digits: String, _ width: Int) -> String {
            digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return Array((BoardFile.magic + " " + BoardFile.version + " " + padded(String(lastSeq), 19) + " "
                      + padded(String(logInode), 20) + " " + padded(String(logOffset), 19) + " "
                      + padded(String(bodyCount), 19) + " " + padded(String(checksum, radix: 16), 16) + "\n").utf8)
    }

    /// What to write over `old` (the file on disk, whose layout is `oldLines`) to make it this board:
    /// the sessions from the first one that differs to the end, and the header. The sessions before
    /// stay on disk as they are; appends keep them in order and put what they change last, so a write
    /// usually rewrites one line. Nil when the header would change length (a board of an earlier
    /// release): then the whole file is written.
    package func splice(over old: [UInt8], lines oldLines: [ArraySlice<UInt8>]) -> Splice? {
        guard let newline = old.firstIndex(of: 0x0A) else { return nil }
        let bodyStart = newline + 1
        var same = 0
        while same < lines.count, same < oldLines.count, BoardFile.identical(lines[same], oldLines[same]) { same += 1 }
        let offset = same < oldLines.count ? oldLines[same].startIndex : old.count
        guard offset >= bodyStart, offset <= old.count else { return nil }
        var tail: [UInt8] = []
        tail.reserveCapacity(lines[same...].reduce(0) { $0 + $1.count + 1 })
        for line in lines[same...] {
            line.withUnsafeBufferPointer { tail.append(contentsOf: $0) }
            tail.append(0x0A)
        }
        let unchanged = old[bodyStart..<offset]
        // The checksum of the body runs over it in 8-byte words: the unchanged part's whole words are
        // hashed as they are on disk, the rest continues over its last bytes and the new end.
        let words = unchanged.count & ~7
        let seed = BoardFile.checksum(unchanged.prefix(words))
        var rest = Array(unchanged.dropFirst(words))
        rest.append(contentsOf: tail)
        let header = header(bodyCount: unchanged.count + tail.count, checksum: BoardFile.checksum(rest[...], seed: seed))
        guard header.count == bodyStart else { return nil }
        return Splice(header: header, offset: offset, tail: tail, size: offset + tail.count)
    }

    package struct Splice {
        /// The new header, as long as the old one.
        package var header: [UInt8]
        /// Where the first changed session starts in the file, and the sessions from there to the end.
        package var offset: Int
        package var tail: [UInt8]
        /// The file's new size.
        package var size: Int
    }

    /// The same bytes: the same slice of the same buffer (a session the append kept), else compared.
    package static func identical(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                x.baseAddress == y.baseAddress || x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
    }
}
