/// Delivers what the hook could not within its budget: a detached `hookctl outbox flush --background`
/// that follows the backoff schedule, each endpoint at its pace, until nothing deliverable waits
/// (delivered, expired, or waiting for a broken sink to be fixed) and the event log has caught up.
/// One per user, guarded by an flock, so concurrent hooks never start two.
enum BackgroundFlusher {
    /// Starts the flusher unless one is already running.
    static func start(paths: Paths, configOverride: String?, environment: [String: String]) {
        if environment["HOOKCTL_NO_BACKGROUND"] == "1" { return }
        do {
            try FileSystem.makeDirectories(paths.stateDirectory)
            // Held by a running flusher: it rescans the outbox often and will see the new entries.
            guard let probe = try FileLock(path: paths.flusherLockFile, wait: false) else { return }
            probe.unlock()
            var arguments = ["outbox", "flush", "--background"]
            if let configOverride { arguments += ["--config", configOverride] }
            try Subprocess.spawnDetached(executable: currentExecutablePath(), arguments: arguments, environment: environment)
        } catch {
            // The entries stay in the outbox; the next notify or `outbox flush` delivers them.
        }
    }

    /// Entries the flusher takes per pass (the pacer spreads them over time).
    static let entriesPerPass = 64

    /// The flusher's loop. Returns when nothing deliverable waits or another flusher holds the lock.
    static func run(engine: DeliveryEngine, log: EventLog, paths: Paths, maximumLifetime: Double = 86_400 * 2) {
        let end = ContinuousClock.Instant.after(seconds: maximumLifetime)
        // Passes in a row in which the log took nothing it was given (a link in its place, a full disk).
        var catchUpFailures = 0
        while !end.hasPassed {
            guard let lock = try? FileLock(path: paths.flusherLockFile, wait: false) else { return }
            var problems: [String] = []
            while !end.hasPassed {
                // A log lock held elsewhere (a board rebuild) costs a pass at most a second: the catch-up is
                // tried again next pass, and the deliveries do not wait behind it.
                var logTakes = true
                if engine.outbox.hasUnlogged() {
                    let left = LogCatchUp.run(outbox: engine.outbox, log: log, deadline: .after(seconds: 1), problems: &problems)
                    catchUpFailures = left > 0 ? catchUpFailures + 1 : 0
                    logTakes = left == 0
                }
                var busy = 0
                // Keep one token per endpoint for hooks: a fresh event never waits behind the backlog.
                _ = engine.flush(deadline: .after(seconds: 30), force: false, limit: entriesPerPass, reserve: 1,
                                 busy: &busy, problems: &problems)
                if logTakes, engine.outbox.hasUnlogged() {
                    LogCatchUp.run(outbox: engine.outbox, log: log, deadline: .after(seconds: 1), problems: &problems)
                }
                problems.removeAll()
                // A log that keeps refusing (a link in its place, a full disk) is left to the next notify.
                guard let wait = nextWait(engine, waitForLog: catchUpFailures < 20) else { break }
                sleepSeconds(wait)
            }
            lock.unlock()
            // A notify may have queued something, or kept an event for the log, after the last scan
            // while it saw the lock held (so it started no flusher).
            guard nextWait(engine, waitForLog: catchUpFailures < 20) != nil else { return }
        }
    }

    /// How long to sleep before the next pass, or nil when nothing deliverable waits.
    static func nextWait(_ engine: DeliveryEngine, waitForLog: Bool) -> Double? {
        let scan = engine.outbox.scan(excluding: engine.untouchable, horizon: engine.horizon)
        let unlogged = waitForLog && engine.outbox.hasUnlogged()
        guard scan.pending - scan.excludedDue > 0 || unlogged else { return nil }
        if unlogged { return 0.5 }
        if !scan.due.isEmpty {
            // Due now: as soon as an endpoint may be tried again (its backoff or its next token).
            let backoffs = engine.sinks.map { engine.pacer.backoff($0.name) }
            return min(5, max(0.05, backoffs.min() ?? 0.2))
        }
        // Rescan at least every few seconds: new entries may be due sooner than the known ones.
        return min(5, max(0.05, (scan.nextDue ?? WallClock.nowEpoch()) - WallClock.nowEpoch()))
    }
}

/// Appends to the event log the events that could not be logged when they happened (the log's lock was
/// held past the hook's deadline, a write failed, or the hook died between committing and logging).
enum LogCatchUp {
    /// How many waiting events a hook appends at the end of its run; the flusher takes the rest.
    static let perHook = 4

    /// Returns how many events still wait for the log. At most `limit` are appended, none once the
    /// deadline has passed (each append first looks for the event in the last two log files, so a hook
    /// takes a few and leaves the rest to the flusher).
    @discardableResult
    static func run(outbox: Outbox, log: EventLog, deadline: ContinuousClock.Instant, limit: Int = Int.max,
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
    func keepUnloggedOfBrokenSinks(problems: inout [String]) {
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
    func expandWaitingEntries(problems: inout [String]) {
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
    func brokenMatching(_ event: Event) -> [String] {
        brokenSinks.keys.sorted().filter { name in
            brokenSettings[name].map { $0.accepts(event) } ?? event.kind.pushesByDefault
        }
    }
}
