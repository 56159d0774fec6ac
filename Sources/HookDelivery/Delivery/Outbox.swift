import Synchronization

/// One pending delivery: an event for one sink, with its retry state. Stored as one JSON file whose
/// name starts with the time it is next due, so deciding what is due reads names, never contents.
package struct OutboxEntry: Sendable {
    /// The sink name of an event kept while the config could not be read: once it can, the event is
    /// queued for every sink that takes it.
    package static let anySink = "*"

    package var event: Event
    package var sink: String
    /// Attempts started (counted before each is sent, so a sender killed mid-send still counts it).
    package var attempts: Int
    /// Wall-clock epoch seconds the entry was queued (for display).
    package var created: Double
    /// Wall-clock epoch seconds of the next attempt. The file name carries it and wins over the JSON.
    package var nextAttempt: Double
    /// How long the entry has plausibly waited: the sum of the intervals between its attempts, each
    /// bounded by what was scheduled, so a clock jump neither expires it nor keeps it forever.
    package var age: Double
    /// Wall-clock epoch seconds of the last attempt started, if any.
    package var lastAttempt: Double?
    package var lastError: String?
    /// Set on dead letters: why it was given up.
    package var deadReason: String?
    /// Set on an entry a newer event of the same agent session replaced before it was delivered.
    package var supersededBy: String?
    /// False while the event may not be in the event log yet (written before the log append); whoever
    /// adopts such an entry after a crash makes sure the log has the event.
    package var logged: Bool

    package init(event: Event, sink: String, now: Double = WallClock.nowEpoch()) {
        self.event = event
        self.sink = sink
        attempts = 0
        created = now
        nextAttempt = now
        age = 0
        logged = true
    }

    /// The part of the file name that never changes: `<created µs>-<event id>-<sink>`.
    package var key: String { OutboxEntry.key(created: created, eventID: event.id, sink: sink) }

    /// Whether `name` is this entry's: its event and sink (the creation time is left out: it goes through a
    /// JSON number and may come back a microsecond off). Names of older versions carry no due time: any.
    package func isNamed(_ name: String) -> Bool {
        OutboxNames.due(of: name) == nil || OutboxNames.key(of: name).hasSuffix("-\(event.id)-\(OutboxNames.safeSink(sink))")
    }

    /// `<next attempt µs>-<created µs>-<event id>-<sink>.json`, both times as 16 zero-padded digits.
    package var fileName: String { OutboxNames.fileName(due: nextAttempt, key: key) }

    package static func key(created: Double, eventID: String, sink: String) -> String {
        "\(OutboxNames.digits(created))-\(eventID)-\(OutboxNames.safeSink(sink))"
    }

    package var json: JSONValue {
        var object = JSONObject()
        object["sink"] = .string(sink)
        object["attempts"] = .int(attempts)
        object["created"] = .double(created)
        object["next_attempt"] = .double(OutboxNames.finite(nextAttempt))
        object["age"] = .double(OutboxNames.finite(age))
        if let lastAttempt { object["last_attempt"] = .double(lastAttempt) }
        if !logged { object["logged"] = .bool(false) }
        if let lastError { object["last_error"] = .string(lastError) }
        if let deadReason { object["dead_reason"] = .string(deadReason) }
        if let supersededBy { object["superseded_by"] = .string(supersededBy) }
        object["event"] = event.json
        return .object(object)
    }

    package init(json: JSONValue, fileName: String) throws {
        guard let sink = json["sink"]?.stringValue, let eventJSON = json["event"] else {
            throw EventError.malformedRecord("outbox entry \(fileName) has no sink or event")
        }
        event = try Event(json: eventJSON)
        self.sink = sink
        attempts = json["attempts"]?.intValue ?? 0
        created = json["created"]?.doubleValue ?? 0
        nextAttempt = OutboxNames.due(of: fileName) ?? json["next_attempt"]?.doubleValue ?? 0
        age = max(0, json["age"]?.doubleValue ?? 0)
        lastAttempt = json["last_attempt"]?.doubleValue
        logged = json["logged"]?.boolValue ?? true
        lastError = json["last_error"]?.stringValue
        deadReason = json["dead_reason"]?.stringValue
        supersededBy = json["superseded_by"]?.stringValue
    }

    package var bytes: [UInt8] { Array((JSON.serialize(json) + "\n").utf8) }
}

/// The outbox's file-name rules in one place.
package enum OutboxNames {
    /// 16 digits of microseconds since 1970 (good until the year 2286), saturating on absurd times.
    package static func digits(_ epoch: Double) -> String {
        let micros = epoch.isFinite ? Int64(min(max(epoch, 0), 9_999_999_999) * 1_000_000) : 0
        let text = String(micros)
        return String(repeating: "0", count: max(0, 16 - text.count)) + text
    }

    package static func finite(_ value: Double) -> Double { value.isFinite ? value : 0 }

    package static func fileName(due: Double, key: String) -> String { "\(digits(due))-\(key).json" }

    /// Sink names go into file names as they are when plain, else hex-encoded.
    package static func safeSink(_ sink: String) -> String {
        let plain = !sink.isEmpty && sink.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        return plain ? sink : "x" + sink.utf8.map { String($0, radix: 16) }.joined()
    }

    /// The due time a name starts with (nil for names of older hookctl versions, which are due at once).
    package static func due(of name: String) -> Double? {
        withBytes(name) { due(of: $0) }
    }

    /// Whether the name is a fresh entry's: due when it was created (a hook's, never rescheduled).
    package static func isFresh(_ name: String) -> Bool {
        withBytes(name) { created(ifFresh: $0) != nil }
    }

    /// A fresh entry's creation time (its due time, the same digits); nil for any other name.
    private static func created(ifFresh bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let due = due(of: bytes), (0..<16).allSatisfy({ bytes[$0] == bytes[17 + $0] }) else { return nil }
        return due
    }

    /// The name's UTF-8 bytes, in place (a sender reads 10,000 names a pass: no copy of each).
    private static func withBytes<T>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        name.utf8.withContiguousStorageIfAvailable(body) ?? Array(name.utf8).withUnsafeBufferPointer(body)
    }

    /// `<16 digits>-<16 digits>-…`: the first 16 digits as seconds.
    private static func due(of bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count >= 34, bytes[16] == 0x2D, bytes[33] == 0x2D else { return nil }
        var value: Int64 = 0
        for index in 0..<16 {
            let byte = bytes[index]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        for index in 17..<33 where !(bytes[index] >= 0x30 && bytes[index] <= 0x39) { return nil }
        return Double(value) / 1_000_000
    }

    /// How long a fresh entry counts as just committed: someone is waiting for it.
    package static let justCommittedWindow: Double = 10

    /// Whether the name is an entry a hook committed moments ago (within `justCommittedWindow` of `now`,
    /// either way, so a clock step cannot strand it) that nothing has tried yet.
    package static func isJustCommitted(_ name: String, now: Double) -> Bool {
        withBytes(name) { created(ifFresh: $0).map { abs(now - $0) <= justCommittedWindow } ?? false }
    }

    /// The key (everything between the due time and `.json`).
    package static func key(of name: String) -> String {
        // Cut by bytes: `.json` and a due time's 17 bytes are ASCII, so the cuts fall between characters.
        let utf8 = name.utf8
        let end = utf8.count >= 5 && name.hasSuffix(".json") ? utf8.index(utf8.endIndex, offsetBy: -5) : utf8.endIndex
        let start = due(of: name) == nil ? utf8.startIndex : utf8.index(utf8.startIndex, offsetBy: 17)
        return start < end ? String(Substring(utf8[start..<end])) : ""
    }

    /// The sink part of a name (as encoded), the text after the event id.
    package static func sinkToken(of name: String) -> String? {
        sinkToken(ofKey: key(of: name))
    }

    /// The sink part of a key (`key(of:)`).
    package static func sinkToken(ofKey key: String) -> String? {
        // `<created>-<uuid with 4 dashes>-<sink>`: the sink starts after the sixth dash.
        let utf8 = key.utf8
        var dashes = 0
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == 0x2D {
                dashes += 1
                if dashes == 6 { return String(Substring(utf8[utf8.index(after: index)...])) }
            }
            utf8.formIndex(after: &index)
        }
        return nil
    }
}

/// What a look at the outbox's names found, without opening any entry.
package struct OutboxScan: Sendable {
    /// Names of entries due now (or with an implausible due time), oldest first; the just-committed ones
    /// asked for (`Outbox.scan(firstFor:)`) before the rest.
    package var due: [String] = []
    /// How many of `due`, from its start, are just committed.
    package var justCommitted = 0
    /// How many entries wait in all (due or not).
    package var pending = 0
    /// The earliest due time among the entries that are not due yet.
    package var nextDue: Double?
    /// Due entries of excluded sinks (counted in `pending`, not in `due`).
    package var excludedDue = 0
}

/// The durable queue of undelivered events: one file per (event, sink), written (and synced) before
/// the event is logged or sent, and removed only once delivered, so a killed hook never loses an event.
/// An entry is locked (flock) while it is being written or delivered, so two processes never send it
/// at once; the lock is taken on the temporary file before it gets its name, so a fresh entry is never
/// visible unlocked.
package struct Outbox: Sendable {
    package var paths: Paths

    package init(paths: Paths) { self.paths = paths }

    package var directory: String { paths.outboxDirectory }
    package var deadDirectory: String { paths.deadLetterDirectory }
    /// Events that could not be appended to the event log in time: the log catches up from here.
    package var unloggedDirectory: String { paths.outboxDirectory + "/unlogged" }

    /// An entry due more than this ahead of now was scheduled before the clock went back: it is due.
    /// Longer than any wait hookctl schedules (server hints are clamped to `RetryHint.maximum`).
    package static let implausiblyFarAhead: Double = 2 * RetryHint.maximum

    // MARK: Writing

    /// Writes a new entry and returns it claimed (locked). `sync` flushes file and directory to disk,
    /// for entries that must survive a power cut.
    @discardableResult
    package func add(_ entry: OutboxEntry, sync: Bool = true) throws -> ClaimedEntry {
        // A link in place of the outbox folder is refused like one in place of a file.
        if FileSystem.isSymlink(directory) { throw SystemError.symlink(path: directory) }
        if !FileSystem.isDirectory(directory) { try FileSystem.makeDirectories(directory) }
        return try write(entry, replacing: nil, sync: sync)
    }

    /// Writes `entry` under its (new) name, locked, in place of the file it replaces (`place`: the entry has
    /// one name at every instant).
    private func write(_ entry: OutboxEntry, replacing old: ClaimedEntry?, sync: Bool) throws -> ClaimedEntry {
        let path = directory + "/" + entry.fileName
        let fd = try place(entry.bytes, at: path, in: directory, sync: sync, fault: "outbox-written", replacing: old?.path)
        // Let go before the sync: the old file is retired, and a hook may want it as a spare meanwhile.
        old?.release()
        if sync { FileSystem.syncDirectory(directory) }
        return ClaimedEntry(entry: entry, fd: fd, path: path)
    }

    /// `bytes` as the file `path` in `folder` (the outbox or a folder in it), locked: written (into a spare
    /// when there is one) and synced when asked under a temporary name, then renamed. A link at `path` is refused.
    /// `replacing`: the entry's file now (locked by the caller), moved to `path` first and then swapped for the
    /// new bytes, so the entry is never under two names (a rewrite killed in between leaves it under its new
    /// due time with its previous state, and nothing was sent yet); its file is retired.
    private func place(_ bytes: [UInt8], at path: String, in folder: String, sync: Bool, fault: String? = nil,
                       replacing old: String? = nil) throws -> FileDescriptor {
        let name = { "\(folder)/.\(FileSystem.fileName(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp" }
        var temporary = name()
        let spare = takeSpare(as: temporary)
        // A new name for a new file: whatever a failed take left at the first one is not in the way.
        if spare == nil {
            temporary = name()
            // The tests' way to see that a caller (a hook) made a file where a spare should have been.
            FaultPoint.reach("new-file")
        }
        let fd = try spare ?? FileSystem.openStateFile(temporary, O_RDWR | O_CREAT | O_EXCL, operation: .create)
        do throws(Errno) {
            if spare == nil, try !fd.lock(wait: .never) { throw Errno(EWOULDBLOCK, .write) }
            try fd.writeAll(bytes)
            if spare != nil { try fd.truncate(to: bytes.count) }
        } catch {
            fd.close()
            unlink(temporary)
            throw SystemError.io(path: path, operation: .write, errno: error.code)
        }
        if let fault { FaultPoint.reach(fault) }
        if sync { fd.sync() }
        if FileSystem.isSymlink(path) {
            fd.close()
            unlink(temporary)
            throw SystemError.symlink(path: path)
        }
        func fail(_ code: Int32) -> SystemError {
            fd.close()
            unlink(temporary)
            return SystemError.io(path: path, operation: .write, errno: code)
        }
        guard let old else {
            if rename(temporary, path) != 0 { throw fail(errno) }
            return fd
        }
        if old != path {
            if rename(old, path) != 0 { throw fail(errno) }
            FaultPoint.reach("outbox-moved")
        }
        if Self.exchange(temporary, path) {
            // The temporary name now holds the old file.
            retire(temporary)
        } else if rename(temporary, path) != 0 {
            let code = errno
            if old != path { rename(path, old) }
            throw fail(code)
        }
        return fd
    }

    /// Swaps two names at once (renameat2 RENAME_EXCHANGE); false where the kernel or file system cannot.
    private static func exchange(_ first: String, _ second: String) -> Bool {
        guard let renameat2 = renameAt2 else { return false }
        return renameat2(AT_FDCWD, first, AT_FDCWD, second, 2 /* RENAME_EXCHANGE */) == 0
    }

    /// glibc's renameat2 (2.28+), which the Swift Glibc module does not show.
    private static let renameAt2: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32).self)
    }()

    // MARK: Reading

    /// Looks at the names only: which entries are due at `now` (at most `limit`, oldest first: what
    /// queued while an endpoint was down goes out in order), how many wait, and when the next one is
    /// due. An entry due implausibly far ahead (a clock set back) counts as due. Entries of the sinks in
    /// `excluding` (file-name tokens) are counted but never due.
    /// `firstFor`: sinks (as name tokens) whose just-committed entries (`OutboxNames.isJustCommitted`) come
    /// before the rest, which waits longer: a backlog never holds back the push a person waits for.
    package func scan(now: Double = WallClock.nowEpoch(), limit: Int = Int.max, excluding: Set<String> = [],
              firstFor: Set<String> = [], horizon: Double = Outbox.implausiblyFarAhead) -> OutboxScan {
        var result = OutboxScan()
        var due: [(rank: Int, key: String, name: String)] = []
        let horizon = now + min(max(horizon, 60), 86_400 * 365)
        let wallNow = WallClock.nowEpoch()
        for name in (try? FileSystem.list(directory)) ?? [] {
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            result.pending += 1
            let when = OutboxNames.due(of: name) ?? 0
            guard when <= now || when > horizon else {
                result.nextDue = min(result.nextDue ?? when, when)
                continue
            }
            // The key starts with the creation time.
            let key = OutboxNames.key(of: name)
            let token = OutboxNames.sinkToken(ofKey: key)
            if let token, excluding.contains(token) {
                result.excludedDue += 1
                continue
            }
            let first = token.map(firstFor.contains) == true && OutboxNames.isJustCommitted(name, now: wallNow)
            due.append((first ? 0 : 1, key, name))
        }
        result.due = due.sorted { ($0.rank, $0.key) < ($1.rank, $1.key) }.prefix(limit).map(\.name)
        result.justCommitted = min(result.due.count, due.count { $0.rank == 0 })
        return result
    }

    /// Pending entries (those kept beside the outbox too), oldest first. Unreadable entries, and an
    /// outbox that cannot be read, are reported through `problems`, never deleted.
    package func pending(problems: inout [String]) throws -> [OutboxEntry] {
        try (read(directory: directory, problems: &problems) + read(directory: keptDirectory, problems: &problems)).sorted { $0.created < $1.created || ($0.created == $1.created && $0.key < $1.key) }
    }

    /// Whether anything waits, without reading the entries, and without reading past the first entry's
    /// name: a hook asks, and its cost must not grow with the backlog (10,000 names are 33 `getdents64`).
    package func hasPending() -> Bool {
        FileSystem.containsName(in: directory) { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }

    /// Whether a hook still holds an entry it has just committed (fresh, and locked).
    package func holdsFreshEntries() -> Bool {
        ((try? FileSystem.list(directory)) ?? []).contains { name in
            guard name.hasSuffix(".json"), !name.hasPrefix("."), OutboxNames.isFresh(name),
                  let file = try? FileDescriptor.open(directory + "/" + name, O_RDONLY | FileSystem.stateFileFlags) else { return false }
            defer { file.close() }
            return (try? file.lock(wait: .never)) == false
        }
    }

    /// Dead letters: entries given up. Entries superseded by a newer event are kept beside them
    /// (`superseded`), not counted among them.
    package func dead(problems: inout [String]) throws -> [OutboxEntry] {
        try read(directory: deadDirectory, problems: &problems).filter { $0.supersededBy == nil }
    }

    /// Entries a newer event of the same agent session replaced before they were delivered.
    package func superseded(problems: inout [String]) throws -> [OutboxEntry] {
        try read(directory: deadDirectory, problems: &problems).filter { $0.supersededBy != nil }
    }

    /// The entries in `directory`; what cannot be read (the folder included) goes to `problems`.
    package func read(directory: String, problems: inout [String]) throws -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        let names: [String]
        do { names = try FileSystem.list(directory) } catch {
            problems.append("\(error)")
            return []
        }
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = directory + "/" + name
            do {
                guard let bytes = try Outbox.readEntryFile(path) else { continue }
                entries.append(try OutboxEntry(json: try JSON.parse(bytes), fileName: name))
            } catch {
                problems.append("\(path): \(error)")
            }
        }
        return entries
    }

    /// An entry's file (nil when gone); a symbolic link there is refused.
    package static func readEntryFile(_ path: String) throws -> [UInt8]? {
        try FileSystem.read(path, limit: entryLimit, followSymlinks: false)
    }

    /// The largest entry file read: an event is far smaller.
    package static let entryLimit = 8 << 20

    // MARK: Claiming and updating

    /// Locks a pending entry by its file name; nil when another process has it, or it is gone or
    /// unreadable. One that can never be read (not JSON, not a file, a link, another user's) is set aside
    /// with the dead letters, so nothing waits for it or tries it again (`doctor` and `outbox list` say so).
    package func claim(name: String) -> ClaimedEntry? {
        let path = directory + "/" + name
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDONLY | FileSystem.stateFileFlags)
        } catch {
            if [EACCES, EPERM, ELOOP].contains(error.code) { setAside(name) }
            return nil
        }
        guard (try? fd.lock(wait: .never)) == true else { fd.close(); return nil }
        // The file may have been delivered and removed, or replaced, between listing and locking.
        guard let opened = try? fd.status(), let current = FileSystem.status(path, followSymlinks: false),
              opened.st_ino == current.st_ino else {
            fd.close()
            return nil
        }
        // An entry whose bytes are another entry's (a spare's old content come back after a power cut) is
        // set aside, visibly, rather than sent as the other one.
        guard (opened.st_mode & S_IFMT) == S_IFREG, let bytes = try? fd.readAll(limit: Outbox.entryLimit),
              let entry = try? OutboxEntry(json: JSON.parse(bytes), fileName: name), entry.isNamed(name) else {
            setAside(name)
            fd.close()
            return nil
        }
        return ClaimedEntry(entry: entry, fd: fd, path: path)
    }

    /// Set aside with the dead letters, under its own name: `outbox list` and `doctor` report it as a
    /// file that cannot be read.
    private func setAside(_ name: String) {
        try? FileSystem.makeDirectories(deadDirectory)
        rename(directory + "/" + name, deadDirectory + "/" + name)
    }

    /// Locks a pending entry (as read earlier); nil when another process has it or it is gone.
    package func claim(_ entry: OutboxEntry) -> ClaimedEntry? { claim(name: entry.fileName) }

    /// Stores the entry's new state (a new due time renames the file), keeping the lock.
    package func update(_ claimed: ClaimedEntry, to entry: OutboxEntry, sync: Bool) throws -> ClaimedEntry {
        try write(entry, replacing: claimed, sync: sync)
    }

    /// Delivered: remove it (while still holding its lock). Its file is kept as a spare unless `keepFile`
    /// is false (an entry the user drops is gone, bytes and all).
    package func complete(_ claimed: ClaimedEntry, keepFile: Bool = true) {
        if keepFile { retire(claimed.path) } else { unlink(claimed.path) }
        claimed.release()
    }

    // MARK: Spare files

    /// Files of entries that are gone, kept (`.spare.<slot>`, a few) for the next entries to be written
    /// into: making a file takes an inode, which on ext4 can cost a millisecond for a while after many
    /// files were removed (it passes over recently freed inodes), while renaming a spare in costs
    /// microseconds. A hook writes its entry into one when there is one.
    private func spare(_ slot: Int) -> String { "\(directory)/.spare.\(slot)" }
    /// Enough for the hooks between two of the sender's refills (`makeSpares`: while it waits for a pace
    /// token, about every 0.2 s when a backlog drains) at 50 hooks a second; 16 files of one block each.
    package static let spareSlots = 16

    /// Removes an entry's file, keeping it as a spare while a slot is free. One rename: the entry is gone
    /// from its name in the same step (a process killed here never leaves it to be sent twice); a slot filled
    /// meanwhile by another process is replaced, which only frees that file.
    private func retire(_ path: String) {
        for slot in 0..<Self.spareSlots where FileSystem.status(spare(slot), followSymlinks: false) == nil {
            if rename(path, spare(slot)) == 0 { return }
            break
        }
        unlink(path)
    }

    /// Fills the empty spare slots with new empty files, made by a sender before it waits (for the outbox
    /// to change, or for a pace token), so hooks faster than deliveries still find one each. O_EXCL: a slot
    /// filled meanwhile is left as it is; an empty spare is written into like any other.
    package func makeSpares() {
        // Never through a link in place of the outbox (entries refuse one too).
        guard !FileSystem.isSymlink(directory) else { return }
        for slot in 0..<Self.spareSlots where FileSystem.status(spare(slot), followSymlinks: false) == nil {
            (try? FileSystem.openStateFile(spare(slot), O_WRONLY | O_CREAT | O_EXCL, operation: .create))?.close()
        }
    }

    /// A spare renamed to `temporary`, opened and locked; nil when none is free. Only this user's regular
    /// file with no other name is written into (never a file linked from elsewhere, a folder, a link); a
    /// spare whose last user still holds it, or that is anything else, is removed.
    private func takeSpare(as temporary: String) -> FileDescriptor? {
        for slot in 0..<Self.spareSlots {
            guard let info = FileSystem.status(spare(slot), followSymlinks: false) else { continue }
            guard Self.isOwnSoleFile(info) else {
                remove(spare(slot))
                continue
            }
            guard rename(spare(slot), temporary) == 0 else { continue }
            if let fd = try? FileSystem.openStateFile(temporary, O_RDWR) {
                if let opened = try? fd.status(), Self.isOwnSoleFile(opened), (try? fd.lock(wait: .never)) == true {
                    if opened.st_mode & 0o7777 != 0o600 { fchmod(fd.rawValue, 0o600) }
                    return fd
                }
                fd.close()
            }
            remove(temporary)
            return nil
        }
        return nil
    }

    private static func isOwnSoleFile(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1 && info.st_uid == geteuid()
    }

    /// Not yet: store the new retry state, synced to disk (it outlives this process), and release it.
    /// False when it could not be written: the entry keeps its previous state.
    @discardableResult
    package func reschedule(_ claimed: ClaimedEntry, entry: OutboxEntry) -> Bool {
        guard let updated = try? write(entry, replacing: claimed, sync: true) else {
            claimed.release()
            return false
        }
        updated.release()
        return true
    }

    /// Given up: move it to the dead letters with the reason, where `outbox list` and `doctor` show it
    /// (`supersededBy`: replaced by that newer event, shown apart, not synced: the newer one goes out).
    package func bury(_ claimed: ClaimedEntry, entry: OutboxEntry, reason: String, supersededBy: String? = nil) {
        var dead = entry
        dead.deadReason = reason
        dead.supersededBy = supersededBy
        do {
            try FileSystem.makeDirectories(deadDirectory)
            let path = deadDirectory + "/" + entry.key + (supersededBy == nil ? "" : Self.supersededSuffix) + ".json"
            try place(dead.bytes, at: path, in: deadDirectory, sync: supersededBy == nil).close()
            if supersededBy == nil { FileSystem.syncDirectory(deadDirectory) }
            retire(claimed.path)
        } catch {
            // Keep it pending rather than lose it.
        }
        claimed.release()
    }

    /// Marks the names of superseded entries among the dead letters.
    package static let supersededSuffix = ".superseded"

    /// The events whose queued pushes a newer event replaced, by the names alone (`<created>-<id>-<sink>`).
    package func supersededEventIDs() -> Set<String> {
        let names = (try? FileSystem.list(deadDirectory)) ?? []
        return Set(names.filter { $0.hasSuffix(Self.supersededSuffix + ".json") }.map { String($0.dropFirst(17).prefix(36)) })
    }

    /// Removes entries by event id (or all); `dead` selects the dead letters instead of pending ones.
    package func drop(ids: Set<String>?, dead: Bool) throws -> Int {
        let folder = dead ? deadDirectory : directory
        var removed = 0
        for name in try FileSystem.list(folder) where name.hasSuffix(".json") && !name.hasPrefix(".") {
            if dead {
                // All of them: the ones set aside as unreadable too.
                if let ids {
                    guard let bytes = try? Outbox.readEntryFile(folder + "/" + name),
                          let entry = try? OutboxEntry(json: JSON.parse(bytes), fileName: name), ids.contains(entry.event.id) else { continue }
                }
                unlink(folder + "/" + name)
                removed += 1
            } else if let claimed = claim(name: name) {
                if ids == nil || ids!.contains(claimed.entry.event.id) {
                    complete(claimed, keepFile: false)
                    removed += 1
                } else {
                    claimed.release()
                }
            }
        }
        return removed
    }

    // MARK: Clock steps

    /// Entries scheduled before the wall clock went back (their last attempt is later than now): due
    /// after the wait they were given, counted from now, not at their old time. The sender runs it when
    /// it starts and whenever the wall clock falls behind the monotonic one. Returns how many moved.
    @discardableResult
    package func rescheduleAfterClockStep(now: Double = WallClock.nowEpoch()) -> Int {
        var moved = 0
        for name in (try? FileSystem.list(directory)) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            guard let due = OutboxNames.due(of: name), due > now, let claimed = claim(name: name) else { continue }
            var entry = claimed.entry
            guard let last = entry.lastAttempt, last > now + 1 else {
                claimed.release()
                continue
            }
            entry.nextAttempt = now + min(max(0, entry.nextAttempt - last), Self.implausiblyFarAhead)
            moved += reschedule(claimed, entry: entry) ? 1 : 0
        }
        return moved
    }

    // MARK: Entries the outbox could not take

    /// Entries the outbox could not take (a file or a link in its place, no permission), kept beside it,
    /// so a logged event still goes out once the outbox works again (within its expiry).
    package var keptDirectory: String { paths.stateDirectory + "/outbox.kept" }

    /// Queues an entry no process holds, or keeps it beside the outbox when the outbox cannot take it.
    /// Returns where it went.
    @discardableResult
    package func addOrKeep(_ entry: OutboxEntry) throws -> String {
        do {
            try add(entry, sync: true).release()
            return directory
        } catch {
            if FileSystem.isSymlink(keptDirectory) { throw SystemError.symlink(path: keptDirectory) }
            try FileSystem.makeDirectories(keptDirectory)
            try FileSystem.writeAtomically(keptDirectory + "/" + entry.fileName, bytes: entry.bytes, mode: 0o600, sync: true,
                                           followSymlinks: false)
            return keptDirectory
        }
    }

    /// Moves the entries kept beside the outbox into it, once it takes them.
    package func adoptKept(problems: inout [String]) {
        for name in (try? FileSystem.list(keptDirectory)) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = keptDirectory + "/" + name
            do {
                guard let bytes = try Outbox.readEntryFile(path) else { continue }
                try add(try OutboxEntry(json: JSON.parse(bytes), fileName: name), sync: true).release()
                unlink(path)
            } catch {
                problems.append("\(path): \(error)")
                return
            }
        }
    }

    // MARK: What a crash leaves behind

    /// Removes temporary files whose writer is gone (a process killed mid-write leaves one). Files of
    /// live processes are left alone unless they are over an hour old.
    @discardableResult
    package func removeAbandonedTemporaryFiles() -> Int {
        var removed = 0
        for folder in [directory, unloggedDirectory, deadDirectory] {
            for name in (try? FileSystem.list(folder)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".tmp") {
                let parts = name.split(separator: ".")
                let pid = parts.count >= 3 ? Int32(parts[parts.count - 3]) : nil
                let path = folder + "/" + name
                guard let info = FileSystem.status(path, followSymlinks: false) else { continue }
                // A spare renamed to a temporary name keeps its old mtime; the rename set its ctime.
                let old = WallClock.nowEpoch() - Double(max(info.st_mtim.tv_sec, info.st_ctim.tv_sec)) > 3600
                let writerGone = pid.map { kill($0, 0) != 0 && errno == ESRCH } ?? true
                if writerGone || old, unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    // MARK: Events waiting for the event log

    /// Keeps an event the log could not take in time (its lock was held, or a write failed), synced,
    /// so the log catches up later.
    package func keepUnlogged(_ event: Event) throws {
        try FileSystem.makeDirectories(unloggedDirectory)
        let name = "\(OutboxNames.digits(event.time))-\(event.id).json"
        try FileSystem.writeAtomically(unloggedDirectory + "/" + name, text: JSON.serialize(event.json) + "\n",
                                       mode: 0o600, sync: true, followSymlinks: false)
        FileSystem.syncDirectory(unloggedDirectory)
    }

    /// Events waiting for the log, oldest first, with the file each is in.
    package func unlogged(problems: inout [String]) -> [(path: String, event: Event)] {
        var result: [(String, Event)] = []
        for name in (try? FileSystem.list(unloggedDirectory)) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = unloggedDirectory + "/" + name
            do {
                guard let bytes = try Outbox.readEntryFile(path) else { continue }
                result.append((path, try Event(json: JSON.parse(bytes))))
            } catch {
                // Never readable (torn, a link, not a file, too large): set aside, so nothing waits for it
                // for ever (`doctor` counts them). A passing failure (EIO, too many open files) is not.
                var permanent = true
                if case SystemError.io(_, _, let code) = error, code != EFBIG { permanent = false }
                var moved = false
                if permanent {
                    try? FileSystem.makeDirectories(deadDirectory)
                    moved = rename(path, deadDirectory + "/" + name) == 0
                }
                problems.append("\(path): \(error)" + (moved ? "; moved to \(deadDirectory)" : ""))
            }
        }
        return result
    }

    /// Whether an event waits for the log (up to the first one found).
    package func hasUnlogged() -> Bool {
        FileSystem.containsName(in: unloggedDirectory) { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }
}

/// The fsyncs a delivery run owes: every entry file it wrote without syncing (a hook's fresh entries,
/// and each rewrite that records an attempt as started) that is still in the outbox. Paid on the
/// run's own thread, each time there is something owed: when an attempt has waited `grace` for its
/// answer (the wait for the network then hides it), before the run sleeps to retry, and at the end for
/// what stays in the outbox. An entry that leaves the outbox (delivered, buried) or is rewritten synced
/// is settled without a sync, so a quick relay costs a hook no fsync at all. A hook is cut short only
/// after seconds (agents kill hooks at their timeouts), long after `grace`, so what a killed hook
/// leaves is on disk.
package final class OwedSync: Sendable {
    package static let grace: Duration = .milliseconds(10)
    /// Duplicated descriptors of the owed files, by entry key (a rewrite replaces the file it owes).
    private let owed = Mutex<[String: FileDescriptor]>([:])
    private let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    /// Owes the sync of `claim`'s file (written without one); replaces what was owed for its entry.
    package func owe(_ claim: ClaimedEntry) {
        guard let fd = claim.duplicateDescriptor() else { return }
        owed.withLock { $0.updateValue(fd, forKey: claim.entry.key) }?.close()
    }

    /// The entry has left the outbox, or was rewritten synced: nothing is owed for it any more.
    package func settle(_ entry: OutboxEntry) {
        owed.withLock { $0.removeValue(forKey: entry.key) }?.close()
    }

    /// Syncs every owed file, then the folder that names them; nothing when nothing is owed.
    package func pay() {
        let files = owed.withLock { owed in
            defer { owed = [:] }
            return Array(owed.values)
        }
        guard !files.isEmpty else { return }
        for fd in files { fd.closeAfter { $0.sync() } }
        FileSystem.syncDirectory(directory)
        FaultPoint.reach("synced")
    }

    deinit {
        owed.withLock { $0.values.forEach { $0.close() } }
    }
}

/// An outbox entry held under its lock.
package final class ClaimedEntry: Sendable {
    package let entry: OutboxEntry
    package let path: String
    /// The locked descriptor, nil once released.
    private let fd: Mutex<FileDescriptor?>

    package init(entry: OutboxEntry, fd: FileDescriptor, path: String) {
        self.entry = entry
        self.fd = Mutex(fd)
        self.path = path
    }

    /// A duplicate of the entry's descriptor (for an owed fsync that must not race `release`).
    package func duplicateDescriptor() -> FileDescriptor? { fd.withLock { $0?.duplicate() } }

    package func release() {
        fd.withLock { fd in
            fd?.close()
            fd = nil
        }
    }

    /// Lets go of the entry when this process, about to exit, does (a hook): the kernel closes it after the
    /// process's memory is torn down, so the sender this wakes never runs beside the rest of the hook.
    package func releaseAtExit() {
        fd.withLock { $0 = nil }
    }

    deinit { release() }
}
