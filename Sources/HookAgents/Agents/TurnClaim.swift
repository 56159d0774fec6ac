/// One push per finished turn, for agents that report a turn by two channels at once (Codex runs its
/// `notify` program and its `Stop` hook for the same turn, concurrently): the first report of a turn
/// creates a marker named after the agent session and turn id with O_EXCL, the other finds it there
/// and is recorded without a push. Exclusive creation decides between two processes that race, where
/// reading the board could not (both would see the turn still open).
package enum TurnClaim {
    /// Markers older than this go when a new one is made (a turn is reported twice within seconds).
    package static let keepSeconds: Double = 24 * 3600
    /// The old markers are looked for at most this often: the folder's time stamp file `.pruned` says
    /// when they last were, so a claim costs no scan of a day's markers (one stat of every marker per
    /// turn, growing through the day).
    package static let pruneEverySeconds: Double = 3600
    package static let pruneStamp = ".pruned"

    /// Whether this report is the turn's first. When the marker cannot be made for another reason than
    /// being there already, the report counts as first: a push twice is better than none.
    package static func claim(agent: String, session: String?, turn: String, paths: Paths, now: Double) -> Bool {
        let directory = paths.stateDirectory + "/turns"
        let key = agent + "\u{0}" + (session ?? "") + "\u{0}" + turn
        let path = directory + "/turn-" + String(Text.fnv1a(key), radix: 16)
        func create() throws(Errno) { try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL | FileSystem.stateFileFlags,
                                                               operation: .create).close() }
        do {
            try create()
        } catch where error.code == EEXIST {
            return false
        } catch where error.code == ENOENT {
            // The first marker: two reports of one turn may both find no folder; the second to create loses.
            guard (try? FileSystem.makeDirectories(directory)) != nil else { return true }
            do { try create() } catch where error.code == EEXIST { return false } catch { return true }
        } catch {
            return true
        }
        if pruneDue(directory, now: now) { prune(directory, now: now, keeping: path) }
        return true
    }

    /// Whether the markers were last looked over more than `pruneEverySeconds` ago (or never, or the
    /// stamp is from the future); if so the stamp is renewed now, so concurrent claims scan once.
    package static func pruneDue(_ directory: String, now: Double) -> Bool {
        let stamp = directory + "/" + pruneStamp
        if let info = FileSystem.status(stamp, followSymlinks: false) {
            let last = Double(info.st_mtim.tv_sec)
            if now - last < pruneEverySeconds, last <= now + pruneEverySeconds { return false }
        }
        guard let descriptor = try? FileDescriptor.open(stamp, O_WRONLY | O_CREAT | FileSystem.stateFileFlags, operation: .create)
        else { return true }
        var times = [timespec(tv_sec: Int(now), tv_nsec: 0), timespec(tv_sec: Int(now), tv_nsec: 0)]
        futimens(descriptor.rawValue, &times)
        descriptor.close()
        return true
    }

    /// Removes markers older than `keepSeconds`, except the one just made.
    package static func prune(_ directory: String, now: Double, keeping kept: String) {
        for name in (try? FileSystem.list(directory)) ?? [] {
            let path = directory + "/" + name
            if path == kept || name == pruneStamp { continue }
            guard let info = FileSystem.status(path, followSymlinks: false) else { continue }
            if now - Double(info.st_mtim.tv_sec) > keepSeconds { FileSystem.remove(path) }
        }
    }
}
