/// Delivers what the hook could not within its budget: a detached `hookctl outbox flush --background`
/// that follows the backoff schedule until the outbox is empty (delivered or expired). One per user,
/// guarded by an flock, so concurrent hooks never start two.
public enum BackgroundFlusher {
    /// Starts the flusher unless one is already running.
    public static func start(paths: Paths, configOverride: String?, environment: [String: String]) {
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

    /// The flusher's loop. Returns when the outbox is empty or another flusher holds the lock.
    public static func run(engine: DeliveryEngine, paths: Paths, maximumLifetime: Double = 86_400 * 2) {
        let started = monotonicSeconds()
        while monotonicSeconds() - started < maximumLifetime {
            guard let lock = try? FileLock(path: paths.flusherLockFile, wait: false) else { return }
            var problems: [String] = []
            while monotonicSeconds() - started < maximumLifetime {
                engine.expandWaitingEntries(problems: &problems)
                _ = engine.flush(deadline: monotonicSeconds() + 60, force: false, problems: &problems)
                guard let pending = try? engine.outbox.pending(problems: &problems),
                      pending.contains(where: { $0.sink != OutboxEntry.anySink }) else { break }
                let nextDue = pending.map(\.nextAttempt).min() ?? Clock.nowEpoch()
                // Rescan at least every few seconds: new entries may be due sooner than the known ones.
                sleepSeconds(min(5, max(0.05, nextDue - Clock.nowEpoch())))
            }
            lock.unlock()
            // A notify may have queued something after the last scan while it saw the lock held.
            guard let pending = try? engine.outbox.pending(problems: &problems),
                  pending.contains(where: { $0.sink != OutboxEntry.anySink }) else { return }
        }
    }
}

extension DeliveryEngine {
    /// Replaces events kept while the config was unreadable by entries for each sink that takes them,
    /// keeping their age (for expiry), and returns the new entries, due now.
    @discardableResult
    public func expandWaitingEntries(problems: inout [String]) -> [OutboxEntry] {
        guard outbox.hasPending(), let pending = try? outbox.pending(problems: &problems) else { return [] }
        var expanded: [OutboxEntry] = []
        for entry in pending where entry.sink == OutboxEntry.anySink {
            guard let claimed = outbox.claim(entry) else { continue }
            do {
                var added: [OutboxEntry] = []
                for sink in matchingSinks(for: entry.event) {
                    var replacement = OutboxEntry(event: entry.event, sink: sink.name, now: entry.created)
                    replacement.nextAttempt = Clock.nowEpoch()
                    try outbox.add(replacement)
                    added.append(replacement)
                }
                outbox.complete(claimed)
                expanded += added
            } catch {
                problems.append("cannot queue a kept event: \(error)")
                claimed.release()
            }
        }
        return expanded
    }
}
