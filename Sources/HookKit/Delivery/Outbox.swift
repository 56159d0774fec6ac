/// One pending delivery: an event for one sink, with its retry state. Stored as one JSON file.
public struct OutboxEntry: Sendable {
    /// The sink name of an event kept while the config could not be read: once it can, the event is
    /// queued for every sink that takes it.
    public static let anySink = "*"

    public var event: Event
    public var sink: String
    public var attempts: Int
    public var created: Double
    public var nextAttempt: Double
    public var lastError: String?
    /// Set on dead letters: why it was given up.
    public var deadReason: String?
    /// The file name in the outbox directory.
    public var fileName: String

    public init(event: Event, sink: String, now: Double = Clock.nowEpoch()) {
        self.event = event
        self.sink = sink
        attempts = 0
        created = now
        nextAttempt = now
        fileName = OutboxEntry.fileName(created: now, eventID: event.id, sink: sink)
    }

    /// `<created µs>-<event id>-<sink>.json`: sorted by age; the sink name is hex-encoded when it is not plain.
    static func fileName(created: Double, eventID: String, sink: String) -> String {
        let plain = sink.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        let safeSink = plain ? sink : "x" + sink.utf8.map { String($0, radix: 16) }.joined()
        let micros = String(Int(created * 1_000_000))
        return "\(micros)-\(eventID)-\(safeSink).json"
    }

    var json: JSONValue {
        var object = JSONObject()
        object["sink"] = .string(sink)
        object["attempts"] = .int(attempts)
        object["created"] = .double(created)
        object["next_attempt"] = .double(nextAttempt)
        if let lastError { object["last_error"] = .string(lastError) }
        if let deadReason { object["dead_reason"] = .string(deadReason) }
        object["event"] = event.json
        return .object(object)
    }

    init(json: JSONValue, fileName: String) throws {
        guard let sink = json["sink"]?.stringValue, let eventJSON = json["event"] else {
            throw EventError.malformedRecord("outbox entry \(fileName) has no sink or event")
        }
        event = try Event(json: eventJSON)
        self.sink = sink
        attempts = json["attempts"]?.intValue ?? 0
        created = json["created"]?.doubleValue ?? 0
        nextAttempt = json["next_attempt"]?.doubleValue ?? 0
        lastError = json["last_error"]?.stringValue
        deadReason = json["dead_reason"]?.stringValue
        self.fileName = fileName
    }
}

/// The durable queue of undelivered events: one file per (event, sink), written atomically before the
/// first attempt and removed only once delivered, so a killed hook never loses an event. An entry is
/// locked (flock) while it is being delivered, so two processes never send it twice.
public struct Outbox: Sendable {
    public var paths: Paths

    public init(paths: Paths) { self.paths = paths }

    var directory: String { paths.outboxDirectory }
    var deadDirectory: String { paths.deadLetterDirectory }

    /// Writes the entry; the event is safe from here on.
    public func add(_ entry: OutboxEntry) throws {
        try FileSystem.makeDirectories(directory)
        try FileSystem.writeAtomically(directory + "/" + entry.fileName, text: JSON.serialize(entry.json) + "\n",
                                       mode: 0o600, sync: false)
    }

    /// Pending entries, oldest first. Unreadable entries are reported through `problems`, never deleted.
    public func pending(excluding: Set<String> = [], problems: inout [String]) throws -> [OutboxEntry] {
        try read(directory: directory, excluding: excluding, problems: &problems)
    }

    /// Whether anything waits, without reading the entries.
    public func hasPending() -> Bool {
        ((try? FileSystem.list(directory)) ?? []).contains { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }

    public func dead(problems: inout [String]) throws -> [OutboxEntry] {
        try read(directory: deadDirectory, problems: &problems)
    }

    func read(directory: String, excluding: Set<String> = [], problems: inout [String]) throws -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        for name in try FileSystem.list(directory) where name.hasSuffix(".json") && !name.hasPrefix(".") && !excluding.contains(name) {
            let path = directory + "/" + name
            do {
                guard let bytes = try FileSystem.read(path) else { continue }
                entries.append(try OutboxEntry(json: try JSON.parse(bytes), fileName: name))
            } catch {
                problems.append("\(path): \(error)")
            }
        }
        return entries
    }

    /// Locks a pending entry for delivery; nil when another process has it or it is gone.
    /// `knownContent`: this process just wrote the entry, so it need not be read back.
    public func claim(_ entry: OutboxEntry, knownContent: Bool = false) -> ClaimedEntry? {
        let path = directory + "/" + entry.fileName
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { close(fd); return nil }
        // The file may have been delivered and removed, or rewritten, between listing and locking.
        var opened = stat(), current = stat()
        guard fstat(fd, &opened) == 0, stat(path, &current) == 0, opened.st_ino == current.st_ino else {
            close(fd)
            return nil
        }
        if knownContent, opened.st_size > 0 { return ClaimedEntry(entry: entry, fd: fd, path: path) }
        guard let bytes = try? FileSystem.read(path),
              let fresh = try? OutboxEntry(json: JSON.parse(bytes), fileName: entry.fileName) else {
            close(fd)
            return nil
        }
        return ClaimedEntry(entry: fresh, fd: fd, path: path)
    }

    /// Delivered: remove it (while still holding its lock).
    public func complete(_ claimed: ClaimedEntry) {
        unlink(claimed.path)
        claimed.release()
    }

    /// Not yet: store the new retry state. An entry that outlives its hook is flushed to disk (file and
    /// directory), so a reboot does not lose it; entries delivered at once never pay for that.
    public func reschedule(_ claimed: ClaimedEntry, entry: OutboxEntry) {
        try? FileSystem.writeAtomically(claimed.path, text: JSON.serialize(entry.json) + "\n", mode: 0o600, sync: true)
        FileSystem.syncDirectory(directory)
        claimed.release()
    }

    /// Given up: move it to the dead letters with the reason, where `outbox list` and `doctor` show it.
    public func bury(_ claimed: ClaimedEntry, entry: OutboxEntry, reason: String) {
        var dead = entry
        dead.deadReason = reason
        do {
            try FileSystem.makeDirectories(deadDirectory)
            try FileSystem.writeAtomically(deadDirectory + "/" + entry.fileName, text: JSON.serialize(dead.json) + "\n",
                                           mode: 0o600, sync: false)
            unlink(claimed.path)
        } catch {
            // Keep it pending rather than lose it.
        }
        claimed.release()
    }

    /// Removes entries by event id (or all); `dead` selects the dead letters instead of pending ones.
    public func drop(ids: Set<String>?, dead: Bool) throws -> Int {
        let folder = dead ? deadDirectory : directory
        var problems: [String] = []
        var removed = 0
        for entry in try read(directory: folder, problems: &problems) where ids == nil || ids!.contains(entry.event.id) {
            let path = folder + "/" + entry.fileName
            if dead {
                unlink(path)
                removed += 1
            } else if let claimed = claim(entry) {
                complete(claimed)
                removed += 1
            }
        }
        return removed
    }
}

/// An outbox entry held under its lock.
public final class ClaimedEntry: @unchecked Sendable {
    public let entry: OutboxEntry
    let path: String
    private var fd: Int32

    init(entry: OutboxEntry, fd: Int32, path: String) {
        self.entry = entry
        self.fd = fd
        self.path = path
    }

    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
