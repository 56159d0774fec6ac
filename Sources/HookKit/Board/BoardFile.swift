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
/// rebuilt from the log (in memory, by a reader).
struct BoardFile {
    static let magic = "hookctl-board"
    static let version = "1"

    var lastSeq: Int
    var logInode: UInt64
    var logOffset: Int
    /// Session lines, without their newline.
    var lines: [ArraySlice<UInt8>]

    struct Fields {
        var key: ArraySlice<UInt8>
        var slot: ArraySlice<UInt8>
        var state: ArraySlice<UInt8>
        var updatedAt: ArraySlice<UInt8>
        var json: ArraySlice<UInt8>
    }

    /// The first four tab-separated fields and the JSON after them (the quoted fields escape their
    /// tabs). Found with memchr and no allocation: every command that reads the board runs it on every line.
    static func fields(_ line: ArraySlice<UInt8>) -> Fields? {
        let tabs: (Int, Int, Int, Int)? = line.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            func tab(after position: Int) -> Int? {
                guard position < buffer.count, let found = memchr(base + position, 0x09, buffer.count - position) else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            guard let first = tab(after: 0), let second = tab(after: first + 1), let third = tab(after: second + 1),
                  let fourth = tab(after: third + 1) else { return nil }
            return (first, second, third, fourth)
        }
        guard let tabs else { return nil }
        let start = line.startIndex
        return Fields(key: line[start..<(start + tabs.0)], slot: line[(start + tabs.0 + 1)..<(start + tabs.1)],
                      state: line[(start + tabs.1 + 1)..<(start + tabs.2)],
                      updatedAt: line[(start + tabs.2 + 1)..<(start + tabs.3)], json: line[(start + tabs.3 + 1)...])
    }

    /// Where an entry runs, as compared for "one agent per pane": socket and pane id.
    static func slot(_ tmux: TmuxLocation?) -> String {
        guard let tmux else { return "" }
        return "\(tmux.socket ?? "") \(tmux.pane)"
    }

    static func line(_ entry: BoardEntry) -> [UInt8] {
        Array((JSON.quote(entry.key) + "\t" + JSON.quote(slot(entry.tmux)) + "\t" + entry.state.rawValue + "\t"
               + String(entry.updatedAt) + "\t" + JSON.serialize(BoardState.storedJSON(entry))).utf8)
    }

    init(lastSeq: Int, logInode: UInt64, logOffset: Int, lines: [ArraySlice<UInt8>]) {
        self.lastSeq = lastSeq
        self.logInode = logInode
        self.logOffset = logOffset
        self.lines = lines
    }

    init(_ board: BoardState) {
        self.init(lastSeq: board.lastSeq, logInode: board.logInode, logOffset: board.logOffset,
                  lines: board.entries.map { BoardFile.line($0)[...] })
    }

    /// Reads the layout; nil when it is not a complete board file of this version.
    init?(bytes: [UInt8]) {
        guard bytes.last == 0x0A, let headerEnd = bytes.firstIndex(of: 0x0A) else { return nil }
        let header = String(decoding: bytes[..<headerEnd], as: UTF8.self).split(separator: " ")
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

    var bytes: [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
        for line in lines {
            // Through a buffer pointer: a bulk copy, where appending the slice itself went byte by byte.
            line.withUnsafeBufferPointer { body.append(contentsOf: $0) }
            body.append(0x0A)
        }
        let header = "\(BoardFile.magic) \(BoardFile.version) \(lastSeq) \(logInode) \(logOffset) \(body.count) "
            + String(BoardFile.checksum(body[...]), radix: 16) + "\n"
        var file = Array(header.utf8)
        file.reserveCapacity(file.count + body.count)
        body.withUnsafeBufferPointer { file.append(contentsOf: $0) }
        return file
    }

    /// FNV-1a style, over 64-bit words: enough to notice a torn write, cheap enough for every hook call.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
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
    func entry(forKey key: String) -> BoardEntry? {
        let quoted = Array(JSON.quote(key).utf8)
        for line in lines {
            guard let fields = BoardFile.fields(line), fields.key.elementsEqual(quoted) else { continue }
            return try? BoardState.storedEntry(fields.json)
        }
        return nil
    }

    /// Every session decoded (what `status` shows).
    func board() throws -> BoardState {
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
    mutating func apply(_ event: Event, limits: BoardLimits) throws {
        let key = Array(JSON.quote(BoardState.key(for: event)).utf8)
        let slot = event.tmux.map { Array(JSON.quote(BoardFile.slot($0)).utf8) }
        let ended = Array(AgentState.ended.rawValue.utf8)
        var partial = BoardState()
        partial.lastSeq = lastSeq
        var kept: [ArraySlice<UInt8>] = []
        kept.reserveCapacity(lines.count + 1)
        for line in lines {
            guard let fields = BoardFile.fields(line) else { continue }
            let concerned = fields.key.elementsEqual(key)
                || (slot != nil && event.kind != .ended && event.kind != .test && event.kind != .info
                    && fields.slot.elementsEqual(slot!) && !fields.state.elementsEqual(ended))
            if concerned {
                partial.entries.append(try BoardState.storedEntry(fields.json))
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

    mutating func prune(now: Double, limits: BoardLimits) {
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
