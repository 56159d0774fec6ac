/// The sender: one long-lived `hookctl outbox flush --background` per user (an flock guards it) owns
/// every request a hook queues. Hooks only commit their entries and make sure it runs; inotify on the
/// outbox wakes it the moment an entry is written or let go. Each pass sends what hooks have just
/// committed first, without waiting for the pace (`Outbox.scan(firstFor:)`), then at most a few of the
/// rest (`entriesPerPass`), oldest first as they come due, each endpoint at its pace. It waits for a slow
/// server as long as the sink's timeout allows (`DeliveryEngine.patient`), so slowness never becomes a resend. It keeps
/// its connections warm (`HTTPClient` reuses them) and lingers `idleLinger` after the outbox empties,
/// then exits. A changed config makes it start over with the new sinks.
package enum BackgroundFlusher {
    /// The sender as a daemon: its lock is also what a person's `outbox flush` takes when no sender runs.
    package static func daemon(_ paths: Paths) -> Daemon { Daemon("sender", paths: paths, olderLock: "flusher.lock") }

    /// Starts the sender unless one is already running (inotify wakes a running one for the new entries);
    /// true when it started one. When none starts, the entries stay in the outbox for the next notify or
    /// `outbox flush`.
    @discardableResult
    package static func start(paths: Paths, configOverride: String?, environment: [String: String]) -> Bool {
        var arguments = ["outbox", "flush", "--background"]
        if let configOverride { arguments += ["--config", configOverride] }
        return daemon(paths).start(arguments: arguments, environment: environment)
    }

    /// Entries taken per pass: small, so a fresh event committed during a pass (which sleeps for the pace's
    /// tokens) waits for at most a few of the backlog's requests (8 at 4.5 a second: under 2 s).
    package static let entriesPerPass = 8
    /// How long the sender stays after the outbox empties, its connections open for the next event.
    package static let idleLinger: Double = 30

    /// The sender's loop. Returns false when it is done (idle, or another sender holds the lock), true
    /// when `configStamp` changed (the caller starts over with the new config).
    package static func run(engine: DeliveryEngine, log: EventLog, paths: Paths, configStamp: () -> String? = { nil },
                    linger: Double = idleLinger, maximumLifetime: Double = 86_400 * 2) -> Bool {
        var engine = engine
        engine.patient = true
        let end = ContinuousClock.Instant.after(seconds: maximumLifetime)
        let stamp = configStamp()
        // Set up before the first look at the outbox (made first, for a sender started before any commit):
        // no entry written from here on goes unnoticed.
        try? FileSystem.makeDirectories(engine.outbox.directory)
        let wake = OutboxWake(directory: engine.outbox.directory)
        let newest = NewestNews()
        // Passes in a row in which the log took nothing it was given (a link in its place, a full disk).
        var catchUpFailures = 0
        var idleSince: ContinuousClock.Instant?
        // The wall clock's lead over the monotonic one: when it shrinks, the wall clock was set back.
        var clockOffset = WallClock.nowEpoch() - EndpointPacer.clockSeconds()
        engine.outbox.rescheduleAfterClockStep()
        let daemon = daemon(paths)
        var round = 0
        while !end.hasPassed {
            guard let lock = daemon.lock() else {
                daemon.log(round == 0 ? "not started: another sender holds \(daemon.lockFile)" : "stopped: another sender took over")
                return false
            }
            round += 1
            if round == 1 { daemon.log("started: entries were queued and no sender ran") }
            var problems: [String] = []
            while !end.hasPassed {
                if configStamp() != stamp {
                    lock.unlock()
                    daemon.log("stopped: the config changed (starting over with it)")
                    return true
                }
                wake.drain()
                let offset = WallClock.nowEpoch() - EndpointPacer.clockSeconds()
                if offset < clockOffset - 1 { engine.outbox.rescheduleAfterClockStep() }
                clockOffset = offset
                if engine.outbox.hasUnlogged() {
                    let left = LogCatchUp.run(outbox: engine.outbox, log: log, deadline: .after(seconds: 1), problems: &problems)
                    catchUpFailures = left > 0 ? catchUpFailures + 1 : 0
                }
                // A person's `outbox flush`: every entry once, now, by this process, which owns them (`FlushHandOver`).
                let asked = FlushHandOver.requests(engine.outbox)
                if !asked.isEmpty { FlushHandOver.serve(asked, engine: engine, newest: newest) }
                newest.supersede(engine.outbox)
                var busy = 0
                _ = engine.flush(deadline: .after(seconds: 5), force: false, limit: entriesPerPass, busy: &busy,
                                 problems: &problems)
                problems.removeAll()
                // Before each wait: the files the next hooks write into (a new file costs a hook up to a
                // millisecond on some file systems, the sender nothing it waits for).
                engine.outbox.makeSpares()
                // A log that keeps refusing (a link in its place, a full disk) is left to the next notify.
                if let wait = nextWait(engine, waitForLog: catchUpFailures < 20) {
                    idleSince = nil
                    wake.wait(seconds: wait)
                    continue
                }
                let since = idleSince ?? .now
                idleSince = since
                let left = linger - (ContinuousClock.now - since).inSeconds
                if left <= 0 { break }
                wake.wait(seconds: min(left, 5))
            }
            lock.unlock()
            // A hook may have queued something after the last look while it saw the lock held (so it
            // started no sender).
            guard nextWait(engine, waitForLog: catchUpFailures < 20) != nil else {
                daemon.log(end.hasPassed ? "stopped: its lifetime ended" : "stopped: nothing to send for \(formatSeconds(linger))")
                return false
            }
        }
        daemon.log("stopped: its lifetime ended")
        return false
    }

    /// How long to sleep before the next pass, or nil when nothing deliverable waits.
    package static func nextWait(_ engine: DeliveryEngine, waitForLog: Bool) -> Double? {
        let scan = engine.outbox.scan(excluding: engine.untouchable, horizon: engine.horizon)
        let unlogged = waitForLog && engine.outbox.hasUnlogged()
        guard scan.pending - scan.excludedDue > 0 || unlogged else { return nil }
        if unlogged { return 0.5 }
        if !scan.due.isEmpty {
            // Due now: as soon as an endpoint may be tried again (its backoff or its next token); a hook's
            // commit wakes the sender sooner (entries held by a hook wake it when let go).
            let waits = engine.sinks.map { engine.pacer.readyIn($0.name) }.filter { $0 > 0 }
            return min(5, max(0.05, waits.min() ?? 0.2))
        }
        // Rescan at least every few seconds: new entries may be due sooner than the known ones.
        return min(5, max(0.05, (scan.nextDue ?? WallClock.nowEpoch()) - WallClock.nowEpoch()))
    }
}

/// Newest news wins: of the queued, undelivered entries of one agent session for one sink, only the
/// newest event's is sent; the older ones are set aside as superseded (kept beside the dead letters, shown
/// by `outbox list`), so after an outage the phone gets each session's current state once. Remembers
/// each entry's session by its key, so a long-lived sender reads each entry once, not on every pass.
package final class NewestNews {
    /// Entry key → `agent session-id` ("" for an event of no session, which nothing supersedes).
    private var sessions: [String: String] = [:]

    package init() {}

    /// Sets aside every entry a newer one of the same session and sink replaces; returns how many.
    @discardableResult
    package func supersede(_ outbox: Outbox) -> Int {
        var seen: [String: String] = [:]
        // (sink token, session) → the entries' (key, name), the newest found so far last.
        var groups: [String: [(key: String, name: String)]] = [:]
        for name in (try? FileSystem.list(outbox.directory)) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let key = OutboxNames.key(of: name)
            let session: String
            if let known = sessions[key] {
                session = known
            } else {
                guard let entry = read(outbox, name) else { continue }
                // The update of an answered question is no news of its own: nothing supersedes it, it supersedes nothing.
                session = AnsweredPushes.answeredID(of: entry.event) != nil ? "" : entry.event.sessionID.map { "\(entry.event.agent) \($0)" } ?? ""
            }
            seen[key] = session
            guard !session.isEmpty, let token = OutboxNames.sinkToken(of: name) else { continue }
            groups[token + "\u{0}" + session, default: []].append((key, name))
        }
        sessions = seen
        var count = 0
        for group in groups.values where group.count > 1 {
            // Keys start with the creation time (16 digits): the greatest is the newest event.
            let ordered = group.sorted { $0.key < $1.key }
            // Claimed, so nothing is set aside while its hook still holds it (a sync then would hold up that
            // hook's log append): the sender comes back when the hook lets go.
            guard let newest = ordered.last.flatMap({ outbox.claim(name: $0.name) }) else { continue }
            let newestID = newest.entry.event.id
            newest.release()
            for older in ordered.dropLast() {
                guard let claimed = outbox.claim(name: older.name) else { continue }
                outbox.bury(claimed, entry: claimed.entry, reason: "superseded by a newer event of the same session (\(newestID))",
                            supersededBy: newestID)
                count += 1
            }
        }
        return count
    }

    private func read(_ outbox: Outbox, _ name: String) -> OutboxEntry? {
        guard let bytes = try? Outbox.readEntryFile(outbox.directory + "/" + name) else { return nil }
        return (try? OutboxEntry(json: JSON.parse(bytes), fileName: name)).flatMap { $0.isNamed(name) ? $0 : nil }
    }
}

/// inotify on the outbox folder: an entry renamed into it (a commit, a reschedule) or closed after
/// writing (a hook letting go of its fresh entry, or dying) wakes the sender. Without inotify (or the
/// folder), waits are plain sleeps.
package final class OutboxWake {
    private let fd: Int32
    private let directory: String

    package init(directory: String) {
        self.directory = directory
        var fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd >= 0, inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) < 0 {
            close(fd)
            fd = -1
        }
        self.fd = fd
    }

    /// Waits until something changes in the outbox or `seconds` pass. A fresh entry its hook has just
    /// renamed in and still holds is no change yet: the hook letting go of it (or dying) wakes the sender
    /// when it can be claimed, and a pass before that would only compete with the hook for the CPU and the disk.
    package func wait(seconds: Double) {
        guard fd >= 0 else { return sleepSeconds(seconds) }
        let end = ContinuousClock.Instant.after(seconds: min(max(seconds, 0), 3600))
        repeat {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32((max(end.secondsLeft, 0) * 1000).rounded(.up))) > 0 else { return }
        } while onlyHeldFreshEntries()
    }

    /// Reads the events that came: true when each is a fresh entry (due when created) renamed in and still
    /// locked by the hook that wrote it, or a hidden file (a temporary or spare one: no entry yet).
    private func onlyHeldFreshEntries() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, buffer.count)
        var offset = 0
        while offset + 16 <= count {
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then the name, NUL-padded to len.
            let (mask, length) = buffer.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self), Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            }
            let name = String(decoding: buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
            offset += 16 + length
            // A person's flush asks for a pass (`FlushHandOver`); other hidden files are no entries yet.
            if name.hasPrefix(".") {
                if FlushHandOver.isRequest(name) { return false }
                continue
            }
            guard mask & UInt32(IN_MOVED_TO) != 0, name.hasSuffix(".json"), OutboxNames.isFresh(name),
                  isLocked(directory + "/" + name) else { return false }
        }
        return count > 0
    }

    private func isLocked(_ path: String) -> Bool {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | FileSystem.stateFileFlags) else { return false }
        defer { file.close() }
        return (try? file.lock(wait: .never)) == false
    }

    /// Forgets the changes seen so far (the next look at the outbox sees them).
    package func drain() {
        guard fd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    deinit { if fd >= 0 { close(fd) } }
}

/// Appends to the event log the events that could not be logged when they happened (the log's lock was
/// held past the hook's deadline, a write failed, or the hook died between committing and logging).
package enum LogCatchUp {
    /// How many waiting events a hook appends at the end of its run; the flusher takes the rest.
    package static let perHook = 4

    /// The catch-up of a sender that cannot load the config (it delivers nothing): first it waits, until
    /// `hooksUntil`, for the hooks still holding the entries they just committed, since the hook that
    /// started it wakes it before its own log append, which may yet keep the event for the log; then it
    /// appends for up to `seconds`.
    @discardableResult
    package static func runAfterHooks(outbox: Outbox, log: EventLog, hooksUntil: ContinuousClock.Instant, seconds: Double,
                                      problems: inout [String]) -> Int {
        // Watching before the first look: a hook letting go in between still wakes the wait.
        let wake = OutboxWake(directory: outbox.directory)
        while outbox.holdsFreshEntries(), !hooksUntil.hasPassed { wake.wait(seconds: max(0.01, hooksUntil.secondsLeft)) }
        return run(outbox: outbox, log: log, deadline: .after(seconds: seconds), problems: &problems)
    }

    /// Returns how many events still wait for the log. At most `limit` are appended, none once the
    /// deadline has passed (each append first looks for the event in the last two log files, so a hook
    /// takes a few and leaves the rest to the flusher).
    @discardableResult
    package static func run(outbox: Outbox, log: EventLog, deadline: ContinuousClock.Instant, limit: Int = Int.max,
                    problems: inout [String]) -> Int {
        let waiting = outbox.unlogged(problems: &problems)
        var left = waiting.count
        for (index, (path, event)) in waiting.sorted(by: { $0.path < $1.path }).enumerated() {
            if index >= limit || (index > 0 && deadline.hasPassed) { break }
            var event = event
            event.late = true
            do {
                _ = try log.appendIfAbsent(&event, deadline: deadline)
                unlink(path)
                left -= 1
            } catch {
                problems.append("cannot add event \(event.id) to the event log yet: \(error)")
                break
            }
        }
        return left
    }
}

extension DeliveryEngine {
    /// Entries of broken sinks are not tried until the sink is fixed: one whose hook died before logging
    /// its event (`logged` false) is kept for the log now, and says so from then on.
    package func keepUnloggedOfBrokenSinks(problems: inout [String]) {
        let broken = Set(brokenSinks.keys.map(OutboxNames.safeSink))
        guard !broken.isEmpty else { return }
        for name in (try? FileSystem.list(outbox.directory)) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
            guard let token = OutboxNames.sinkToken(of: name), broken.contains(token), let claimed = outbox.claim(name: name) else { continue }
            guard !claimed.entry.logged, keepForLog(claimed.entry, problems: &problems) else { claimed.release(); continue }
            var entry = claimed.entry
            entry.logged = true
            outbox.reschedule(claimed, entry: entry)
        }
    }

    /// Replaces events kept while the config was unreadable by entries for each sink that takes them,
    /// keeping their age (for expiry), due now.
    package func expandWaitingEntries(problems: inout [String]) {
        let token = OutboxNames.safeSink(OutboxEntry.anySink)
        let all = ((try? FileSystem.list(outbox.directory)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        let names = all.filter { OutboxNames.sinkToken(of: $0) == token }
        guard !names.isEmpty else { return }
        // Entries a run that died mid-expansion made already (same key: created, event and sink): not twice.
        var existing = Set(all.map { OutboxNames.key(of: $0) })
        for name in names {
            guard let claimed = outbox.claim(name: name) else { continue }
            let entry = claimed.entry
            guard keepForLog(entry, problems: &problems) else {
                claimed.release()
                continue
            }
            do {
                for sink in matchingSinks(for: entry.event).map(\.name) + brokenMatching(entry.event) {
                    var replacement = OutboxEntry(event: entry.event, sink: sink, now: entry.created)
                    guard existing.insert(replacement.key).inserted else { continue }
                    replacement.age = entry.age
                    replacement.nextAttempt = WallClock.nowEpoch()
                    try outbox.add(replacement, sync: true).release()
                }
                outbox.complete(claimed)
            } catch {
                problems.append("cannot queue a kept event: \(error)")
                claimed.release()
            }
        }
    }

    /// Broken sinks keep what they would take (by their settings when readable, else every event that pushes).
    package func brokenMatching(_ event: Event) -> [String] {
        brokenSinks.keys.sorted().filter { name in
            brokenSettings[name].map { $0.accepts(event) } ?? event.kind.pushesByDefault
        }
    }
}
