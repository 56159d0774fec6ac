/// The local event log: every event notify sees, pushed or not, one JSON line each, in order.
/// `status` and `events` read it.
///
/// Files in the state directory:
/// - `events.jsonl`, rotated by size to `events.1.jsonl` … `events.N.jsonl` (oldest);
/// - `board.state`: the board (every agent session and its state) plus the last sequence number,
///   updated on each append so `status` never reads the log (layout in `BoardFile`);
/// - `events.lock`: appends, rotation and board updates happen under one exclusive flock. Readers
///   (`status`, `events`, `peek`) take no lock: they check what they read and never wait for a writer.
///
/// Sequence numbers are global and increase by one per event across rotations; they are given out
/// under the lock from `board.state`, so concurrent appenders never share one.
package struct EventLog: Sendable {
    package static let defaultMaxLogSize = 10 << 20
    package static let defaultKeptGenerations = 3

    package var paths: Paths
    /// Rotate `events.jsonl` before an append would make it larger than this (bytes).
    package var maxLogSize: Int
    /// How many rotated files to keep (`events.1.jsonl` … `events.N.jsonl`); 0 keeps none.
    package var keptGenerations: Int
    package var limits: BoardLimits

    package init(paths: Paths, maxLogSize: Int = EventLog.defaultMaxLogSize,
                keptGenerations: Int = EventLog.defaultKeptGenerations, limits: BoardLimits = BoardLimits()) {
        self.paths = paths
        self.maxLogSize = max(4096, maxLogSize)
        self.keptGenerations = max(0, keptGenerations)
        self.limits = limits
    }

    package var lockFile: String { paths.stateDirectory + "/events.lock" }
    package var boardFile: String { paths.stateDirectory + "/board.state" }
    package var files: LogFiles { LogFiles(directory: paths.stateDirectory) }

    /// Assigns the event its sequence number, appends it and updates the board, all under the lock.
    /// Safe against concurrent hooks. Reads only `board.state` and decodes only the sessions the event
    /// concerns, never the log, unless the log was changed behind the board's back (then the missing
    /// tail is replayed once). With a `deadline` the lock is waited for only until
    /// then (`SystemError.timedOut`): a hook must never wait on a `status` rebuilding a huge log.
    /// `knownBoard`: `board.state` as this command read it before (`currentBoard()`); used when the
    /// file's header shows it unchanged since, so it is not read again.
    package func append(_ event: inout Event, deadline: ContinuousClock.Instant? = nil, knownBoard: BoardRead? = nil) throws {
        if !FileSystem.isDirectory(paths.stateDirectory) { try FileSystem.makeDirectories(paths.stateDirectory) }
        guard let lock = try FileLock(path: lockFile, deadline: deadline) else { return }
        defer { lock.unlock() }
        FaultPoint.reach("log-locked")
        try appendUnderLock(&event, knownBoard: knownBoard)
    }

    /// Appends an event kept while the log could not take it, unless it is there already (a crash left
    /// it appended, or its hook logged it after all): its id is searched in every generation
    /// (`isLogged`). Returns whether it was appended. The search runs before the lock is taken (the log
    /// only grows, and a rotation moves whole files), so a hook never waits on it: under the lock only
    /// what was appended since is searched again (everything, if the log rotated meanwhile).
    package func appendIfAbsent(_ event: inout Event, deadline: ContinuousClock.Instant? = nil) throws -> Bool {
        if !FileSystem.isDirectory(paths.stateDirectory) { try FileSystem.makeDirectories(paths.stateDirectory) }
        let before = FileSystem.status(files.current, followSymlinks: false)
        if isLogged(eventID: event.id) { return false }
        guard let lock = try FileLock(path: lockFile, deadline: deadline) else { return false }
        defer { lock.unlock() }
        if let before, let now = FileSystem.status(files.current, followSymlinks: false), now.st_ino == before.st_ino,
           now.st_size >= before.st_size {
            // The id opens its line: one being written as `before` was taken may have the start of its id
            // before that end, so a little more than what came since is searched.
            let since = Int(now.st_size - before.st_size) + 4096
            if files.contains(eventID: event.id, through: 0, window: since) { return false }
        } else if isLogged(eventID: event.id) {
            return false
        }
        try appendUnderLock(&event)
        return true
    }

    /// Whether the event with this id is in the log, in any generation (`LogFiles.contains`).
    package func isLogged(eventID: String) -> Bool {
        files.contains(eventID: eventID, through: max(keptGenerations + 1, files.rotated().count), fileLimit: max(maxLogSize, 64 << 20))
    }

    package static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            guard let hit = haystack[index...last].firstIndex(of: first) else { return false }
            if haystack[hit..<(hit + needle.count)].elementsEqual(needle) { return true }
            index = hit + 1
        }
        return false
    }

    private func appendUnderLock(_ event: inout Event, knownBoard: BoardRead? = nil) throws {
        let read = knownBoard.flatMap { isOnDisk($0) ? $0 : nil } ?? readBoard()
        if let read, isCurrent(inode: read.file.logInode, offset: read.file.logOffset) {
            var file = read.file
            event.seq = file.lastSeq + 1
            let (inode, offset) = try write(event, afterOffset: file.logOffset, ofInode: file.logInode)
            do {
                try file.apply(event, limits: limits, decoded: read.decoded)
                file.logInode = inode
                file.logOffset = offset
                try saveBoard(file, over: read)
            } catch {
                // The event is recorded; a board that cannot take it is rebuilt from the log instead.
                try saveBoard(BoardFile(synchronizedBoard(warn: { _ in }).board))
            }
        } else {
            var board = try synchronizedBoard(warn: { _ in }).board
            event.seq = board.lastSeq + 1
            let (inode, offset) = try write(event, afterOffset: board.logOffset, ofInode: board.logInode)
            board.apply(event)
            board.logInode = inode
            board.logOffset = offset
            board.prune(now: event.time, limits: limits)
            try saveBoard(BoardFile(board))
        }
    }

    /// Appends the event's line to `events.jsonl`, rotating first when it would grow past the limit.
    /// Returns the file's inode and size after the write.
    private func write(_ event: Event, afterOffset applied: Int, ofInode appliedInode: UInt64) throws -> (UInt64, Int) {
        let path = paths.eventLogFile
        var fd = try openForAppend(path)
        var info = try onFile(path) { try fd.status() }
        var bytes = Array((JSON.serialize(event.json) + "\n").utf8)
        if Int(info.st_size) > 0, Int(info.st_size) + bytes.count > maxLogSize {
            fd.close()
            try rotate()
            fd = try openForAppend(path)
            info = try onFile(path) { try fd.status() }
        } else if UInt64(info.st_ino) == appliedInode, Int(info.st_size) > applied {
            // A writer died mid-line: end its fragment so this event starts on a line of its own.
            bytes.insert(0x0A, at: 0)
        }
        defer { fd.close() }
        // A failed or short write is cut back: no partial line is left to reuse a sequence number.
        try FileSystem.appendOrTruncate(fd, bytes: bytes, path: path)
        FaultPoint.reach("log-appended")
        info = try onFile(path) { try fd.status() }
        return (UInt64(info.st_ino), Int(info.st_size))
    }

    private func openForAppend(_ path: String) throws -> FileDescriptor {
        try FileSystem.openStateFile(path, O_WRONLY | O_APPEND | O_CREAT)
    }

    /// `events.jsonl` → `events.1.jsonl` → … → `events.N.jsonl`; the oldest is replaced. Under the lock.
    /// A follower keeps reading the file it has open until its end, then moves on.
    package func rotate() throws {
        let files = self.files
        guard keptGenerations > 0 else {
            unlink(files.current)
            return
        }
        for stale in files.rotated() {
            if let number = Int(stale.split(separator: ".").dropLast().last ?? ""), number > keptGenerations { unlink(stale) }
        }
        for number in stride(from: keptGenerations - 1, through: 1, by: -1) {
            if rename(files.generation(number), files.generation(number + 1)) != 0, errno != ENOENT {
                throw SystemError.io(path: files.generation(number), operation: .rotate, errno: errno)
            }
        }
        if rename(files.current, files.generation(1)) != 0, errno != ENOENT {
            throw SystemError.io(path: files.current, operation: .rotate, errno: errno)
        }
    }

    // MARK: - The board

    package func storedBoardFile() -> BoardFile? {
        readBoard()?.file
    }

    /// `board.state` as read: its bytes and their layout (what an append that follows may reuse).
    package struct BoardRead {
        package var bytes: [UInt8]
        package var file: BoardFile
        /// A session already decoded from `file` (the one a reply resolved): an append need not decode it again.
        package var decoded: BoardEntry?
    }

    package func readBoard() -> BoardRead? {
        guard let bytes = (try? FileSystem.read(boardFile, limit: 16 << 20, followSymlinks: false)) ?? nil,
              let file = BoardFile(bytes: bytes) else { return nil }
        return BoardRead(bytes: bytes, file: file)
    }

    /// `board.state` as a reader finds it (`snapshotBoard`, no lock), when it has applied all of the log; else nil.
    package func currentBoard() -> BoardRead? {
        guard FileSystem.isDirectory(paths.stateDirectory), let read = snapshotBoard(),
              isCurrent(inode: read.file.logInode, offset: read.file.logOffset) else { return nil }
        return read
    }

    /// Whether `board.state` is still what `read` holds: the same size and the same header line, whose
    /// body length and checksum stand for the rest. Under the lock (no writer is between its writes).
    private func isOnDisk(_ read: BoardRead) -> Bool {
        guard let headerEnd = read.bytes.firstIndex(of: 0x0A),
              let fd = try? FileSystem.openStateFile(boardFile, O_RDONLY, operation: .read) else { return false }
        defer { fd.close() }
        guard let info = try? fd.status(), Int(info.st_size) == read.bytes.count,
              let header = try? fd.read(count: headerEnd + 1, at: 0) else { return false }
        return header.elementsEqual(read.bytes[...headerEnd])
    }

    /// The event's agent session as `board.state` has it now (nil when new), read without the lock and
    /// decoding only that session: what the push policy decides on before the event is committed.
    package func storedEntry(for event: Event) -> BoardEntry? {
        var read: BoardRead?
        return storedEntry(for: event, keeping: &read)
    }

    /// As `storedEntry(for:)`, keeping the board as read for the append that follows (notify's), which
    /// then need not read it again while it is unchanged (`append(_:knownBoard:)`).
    package func storedEntry(for event: Event, keeping read: inout BoardRead?) -> BoardEntry? {
        read = readBoard()
        return read?.file.entry(forKey: BoardState.key(for: event))
    }

    /// The board as it is on disk, without checking it against the log; nil when missing or unreadable.
    package func storedBoard() -> BoardState? {
        try? storedBoardFile()?.board()
    }

    /// Rewrites `board.state` in place. Call under the exclusive lock; readers take no lock and check
    /// what they read whole (`snapshotBoardFile`). `old`: the file as it is on disk now; then only what
    /// changed is written, header last (a crash between leaves a header that does not match the body:
    /// the board is rebuilt from the log; a reader between the two writes reads again).
    package func saveBoard(_ file: BoardFile, over old: BoardRead? = nil) throws {
        let fd = try FileSystem.openStateFile(boardFile, O_WRONLY | O_CREAT)
        defer { fd.close() }
        if let old, let splice = file.splice(over: old.bytes, lines: old.file.lines) {
            try onFile(boardFile) {
                try fd.writeAll(splice.tail, at: splice.offset)
                if splice.size < old.bytes.count { try fd.truncate(to: splice.size) }
                FaultPoint.reach("board-spliced")
                try fd.writeAll(splice.header, at: 0)
            }
            return
        }
        let bytes = file.bytes
        try onFile(boardFile) {
            try fd.writeAll(bytes, at: 0)
            if let info = try? fd.status(), Int(info.st_size) > bytes.count { try? fd.truncate(to: bytes.count) }
        }
    }

    /// Whether a board that applied the current log file up to `offset` has applied all of it.
    package func isCurrent(inode: UInt64, offset: Int) -> Bool {
        guard let info = FileSystem.status(paths.eventLogFile) else { return offset == 0 || inode == 0 }
        return UInt64(info.st_ino) == inode && Int(info.st_size) == offset
    }

    package func isCurrent(_ board: BoardState) -> Bool { isCurrent(inode: board.logInode, offset: board.logOffset) }

    /// The board, brought up to date with the log: when events were written past it (a crash between
    /// the two writes, an older hookctl, a generator, or a writer that has not saved it yet) the new
    /// lines are replayed, from the rotated file too when the log was rotated since; when the log was
    /// replaced otherwise or the board is missing or corrupt, it is rebuilt from every generation.
    /// Needs no lock: it only reads, and a writer's save is checked whole (length and checksum).
    /// `changed` says whether it differs from `board.state`.
    package func synchronizedBoard(warn: (String) -> Void) throws -> (board: BoardState, changed: Bool) {
        try synchronizedBoard(stored: storedBoard(), warn: warn)
    }

    private func synchronizedBoard(stored: BoardState?, warn: (String) -> Void) throws -> (board: BoardState, changed: Bool) {
        if let stored, isCurrent(stored) { return (stored, false) }
        // Without the lock a writer may rotate the log meanwhile: the files read are checked to be the
        // same ones (inodes of the current and the newest rotated file) before and after, else read again.
        var attempt = 0
        while true {
            let before = logIdentity()
            let board = try replay(onto: stored, warn: warn)
            attempt += 1
            if attempt >= 3 || logIdentity() == before { return (board, true) }
        }
    }

    /// The inodes of `events.jsonl` and `events.1.jsonl` (0 when missing): they change when the log rotates.
    private func logIdentity() -> [UInt64] {
        [paths.eventLogFile, files.generation(1)].map { FileSystem.status($0).map { UInt64($0.st_ino) } ?? 0 }
    }

    private func replay(onto stored: BoardState?, warn: (String) -> Void) throws -> BoardState {
        var board = BoardState()
        var replayFrom = 0
        // The current file is opened first: what is decided below holds for the file read, even if it is renamed meanwhile.
        let current = (try? FileSystem.openLogFile(paths.eventLogFile)) ?? nil
        defer { current?.close() }
        let info = try? current?.status()
        let previous = files.generation(1)
        let apply: (LogLine) throws -> Bool = { line in
            do { board.apply(try line.event()) } catch let corruption as LogCorruption { warn(corruption.description) }
            return true
        }
        if let stored, let info, UInt64(info.st_ino) == stored.logInode, Int(info.st_size) >= stored.logOffset {
            board = stored
            replayFrom = stored.logOffset
        } else if let stored, stored.logInode != 0, keptGenerations > 0,
                  let rotated = FileSystem.status(previous), UInt64(rotated.st_ino) == stored.logInode,
                  Int(rotated.st_size) >= stored.logOffset {
            // The log was rotated after the board was saved: the rest of the old file, then the new one.
            board = stored
            if let fd = try FileSystem.openLogFile(previous) {
                defer { fd.close() }
                var reader = LineReader(fd: fd, file: previous, offset: stored.logOffset)
                try reader.readAvailable(apply)
                try reader.finish(apply)
            }
        } else {
            // Rebuild: replay rotated generations fully first; the current file follows below.
            try files.read(after: nil, files: files.rotated(), warn: warn) { _, event in
                board.apply(event)
                return true
            }
            if let stored { board.lastSeq = max(board.lastSeq, stored.lastSeq) }
        }
        if let current, let info {
            var reader = LineReader(fd: current, file: paths.eventLogFile, offset: replayFrom)
            try reader.readAvailable(apply)
            board.logInode = UInt64(info.st_ino)
            board.logOffset = reader.offset  // an unfinished last line stays unapplied
        } else {
            board.logInode = 0
            board.logOffset = 0
        }
        board.prune(now: WallClock.nowEpoch(), limits: limits)
        return board
    }

    /// How often a reader reads `board.state` again when it finds it half written (a writer rewrites it
    /// in place, in microseconds) before it rebuilds the board from the log instead.
    package static let tornBoardRetries = 20

    /// `board.state` as a reader finds it, without any lock: nil when missing or not a whole board of
    /// this version. A board caught half written fails its length or checksum and is read again a few
    /// times (the writer is done within microseconds); a board that stays broken is left to the rebuild.
    package func snapshotBoardFile() -> BoardFile? {
        snapshotBoard()?.file
    }

    /// `snapshotBoardFile`, with the bytes read (what an append that follows may reuse).
    package func snapshotBoard() -> BoardRead? {
        for attempt in 0...EventLog.tornBoardRetries {
            guard let bytes = (try? FileSystem.read(boardFile, limit: 16 << 20, followSymlinks: false)) ?? nil,
                  !bytes.isEmpty else { return nil }
            if let file = BoardFile(bytes: bytes) { return BoardRead(bytes: bytes, file: file) }
            // Not a board of this version at all: no wait will help.
            if !bytes.starts(with: Array("\(BoardFile.magic) \(BoardFile.version) ".utf8)) { return nil }
            if attempt < EventLog.tornBoardRetries { usleep(500) }
        }
        return nil
    }

    /// The current board for `status` and every other reader, taking no lock: `board.state` when it
    /// has applied the whole log (the usual case); else the events past it replayed, or the board
    /// rebuilt from the log, in memory. A board built so is saved only if the log's lock is free at
    /// once and the log did not move meanwhile: a reader never waits for a writer (a hook holding the
    /// lock), and a writer never waits for a reader.
    package func board(warn: (String) -> Void) throws -> BoardState {
        if !FileSystem.isDirectory(paths.stateDirectory) { return BoardState() }
        let stored = try? snapshotBoardFile()?.board()
        let (board, changed) = try synchronizedBoard(stored: stored, warn: warn)
        if changed { saveIfIdle(board) }
        return board
    }

    /// Saves a board a reader brought up to date, when the lock can be had without waiting and the
    /// board still covers the log exactly (no event was appended, no board saved since).
    private func saveIfIdle(_ board: BoardState) {
        guard let lock = try? FileLock(path: lockFile, wait: false) else { return }
        defer { lock.unlock() }
        guard isCurrent(board), storedBoardFile().map({ !isCurrent(inode: $0.logInode, offset: $0.logOffset) }) ?? true else { return }
        try? saveBoard(BoardFile(board))
    }

    /// The sessions of the board that `keep` picks from their stored line (key, state, session JSON
    /// text), decoded alone: a reader of one session need not decode them all. Falls back to the
    /// whole board, filtered the same way, when `board.state` is behind the log. Takes no lock.
    package func boardSessions(where keep: (_ key: ArraySlice<UInt8>, _ state: ArraySlice<UInt8>, _ json: ArraySlice<UInt8>) -> Bool,
                       warn: (String) -> Void) throws -> [BoardEntry] {
        if FileSystem.isDirectory(paths.stateDirectory), let stored = snapshotBoardFile(),
           isCurrent(inode: stored.logInode, offset: stored.logOffset) {
            return try Self.sessions(of: stored.lines, where: keep)
        }
        return try board(warn: warn).entries.filter { entry in
            let line = BoardFile.line(entry)[...]
            guard let fields = BoardFile.fields(line) else { return false }
            return keep(fields.key, fields.state, fields.json)
        }
    }

    /// The sessions of board lines that `keep` picks from their stored line, decoded alone.
    package static func sessions(of lines: [ArraySlice<UInt8>],
                         where keep: (_ key: ArraySlice<UInt8>, _ state: ArraySlice<UInt8>, _ json: ArraySlice<UInt8>) -> Bool) throws -> [BoardEntry] {
        try lines.compactMap { line in
            guard let fields = BoardFile.fields(line), keep(fields.key, fields.state, fields.json) else { return nil }
            return try BoardState.storedEntry(fields.json)
        }
    }

    /// Takes sessions off the board (`hookctl dismiss`): they end, with reason `dismissed`. Returns the
    /// keys that were still on it and not ended.
    package func dismiss(keys: [String], at time: Double) throws -> [String] {
        guard let lock = try FileLock(path: lockFile) else { return [] }
        defer { lock.unlock() }
        var (board, changed) = try synchronizedBoard(warn: { _ in })
        let ended = keys.filter { board.end(key: $0, reason: .dismissed, at: time) }
        if changed || !ended.isEmpty { try saveBoard(BoardFile(board)) }
        return ended
    }
}
