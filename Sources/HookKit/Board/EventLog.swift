/// The local event log: every event notify sees, pushed or not, one JSON line each, in order.
/// `status` and `events` read it. Appends are serialized by an flock on the log's lock file.
public struct EventLog: Sendable {
    public var paths: Paths

    public init(paths: Paths) { self.paths = paths }

    var lockFile: String { paths.stateDirectory + "/events.lock" }
    var sequenceFile: String { paths.stateDirectory + "/events.seq" }

    /// Assigns the event its sequence number and appends it. Safe against concurrent hooks.
    public func append(_ event: inout Event) throws {
        try FileSystem.makeDirectories(paths.stateDirectory)
        guard let lock = try FileLock(path: lockFile) else { return }
        defer { lock.unlock() }
        let last = (try? FileSystem.readString(sequenceFile)).flatMap { $0.flatMap { Int(Text.trimmed($0)) } } ?? 0
        event.seq = last + 1
        try FileSystem.appendLocked(paths.eventLogFile, bytes: Array((JSON.serialize(event.json) + "\n").utf8))
        try FileSystem.writeAtomically(sequenceFile, text: "\(last + 1)\n", sync: false)
    }
}
