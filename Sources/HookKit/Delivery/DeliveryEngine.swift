import Dispatch
import Synchronization

/// How one (event, sink) delivery stands after a run.
struct DeliveryReport: Sendable {
    var sink: String
    var eventID: String
    var outcome: DeliveryOutcome
    var attempts: Int
    var duration: Double
    /// Still in the outbox, to be retried later.
    var pending: Bool
}

/// Delivers outbox entries to sinks: every endpoint at its own pace (a shared token bucket and a
/// backoff per endpoint, `EndpointPacer`) with a few requests in flight each, retried with backoff
/// within a deadline; whatever is not delivered by then stays in the outbox for the next run or the
/// background flusher. Every attempt is recorded as started (count and next time) before it is sent,
/// and its result per sink in `SinkHealthStore`.
struct DeliveryEngine: Sendable {
    var sinks: [any Sink]
    var outbox: Outbox
    var defaults: Defaults
    /// Sinks of the config that cannot be built now (name → why): their entries wait, untouched, until
    /// the sink is fixed.
    var brokenSinks: [String: String]
    /// The shared settings of broken sinks, when readable (which events they take).
    var brokenSettings: [String: SinkSettings] = [:]
    var pacer: EndpointPacer
    var health: SinkHealthStore
    /// The sender's engine: a request is waited for as long as its sink's timeout, never cut off by a
    /// run's deadline, so a slow server is never taken for a failure (and sent the event again).
    var patient = false

    init(sinks: [any Sink], outbox: Outbox, defaults: Defaults, brokenSinks: [String: String] = [:]) {
        self.sinks = sinks
        self.outbox = outbox
        self.defaults = defaults
        self.brokenSinks = brokenSinks
        pacer = EndpointPacer(paths: outbox.paths)
        health = SinkHealthStore(paths: outbox.paths)
    }

    var schedule: EntrySchedule { EntrySchedule(policy: defaults.retry) }

    /// Due times further ahead than this are from before a clock was set back: due now.
    var horizon: Double { max(Outbox.implausiblyFarAhead, schedule.longestPlausibleWait) }

    /// Tries per entry within one hook's run before it waits for its next scheduled time.
    static let inlineAttempts = 3

    /// The sinks that take this event.
    func matchingSinks(for event: Event) -> [any Sink] { sinks.filter { $0.accepts(event) } }

    /// File-name tokens of the sinks whose entries must not be touched now (broken ones, and events
    /// kept for any sink, which are expanded separately).
    var untouchable: Set<String> {
        Set(brokenSinks.keys.map(OutboxNames.safeSink) + [OutboxNames.safeSink(OutboxEntry.anySink)])
    }

    /// The engine over what the config's sinks give: the usable ones, and the broken ones kept apart.
    init(usable: (sinks: [any Sink], broken: [(name: String, problem: String, settings: SinkSettings?)]), outbox: Outbox,
                defaults: Defaults) {
        self.init(sinks: usable.sinks, outbox: outbox, defaults: defaults,
                  brokenSinks: Dictionary(usable.broken.map { ($0.name, $0.problem) }, uniquingKeysWith: { first, _ in first }))
        for item in usable.broken { if let settings = item.settings { brokenSettings[item.name] = settings } }
    }

    // MARK: The hook's commit

    /// Queues `event` for each named sink with its first attempt already recorded as started, synced to
    /// disk and locked by this process. Entries that cannot be written are returned as `unqueued` (sent
    /// anyway, without a file) with the reason.
    /// `syncAtOnce: false` leaves the fsync to `deliver(fresh:)` (`OwedSync`: paid once the first attempt
    /// waits, and before it returns while an entry is still in the outbox); a caller that does not deliver
    /// must sync at once.
    /// `startAttempt: false`: the entries are left due now for the sender (a hook that only commits).
    func commit(_ event: Event, sinks names: [String], logged: Bool, syncAtOnce: Bool = true, startAttempt: Bool = true,
                now: Double = WallClock.nowEpoch())
        -> (claimed: [ClaimedEntry], unqueued: [OutboxEntry], failure: String?) {
        var claimed: [ClaimedEntry] = []
        var unqueued: [OutboxEntry] = []
        var failure: String?
        for name in names {
            var entry = OutboxEntry(event: event, sink: name, now: now)
            entry.logged = logged
            // A broken sink's entry (or one kept for any sink) is not tried now: no attempt to count.
            if startAttempt, brokenSinks[name] == nil, name != OutboxEntry.anySink { schedule.start(&entry, now: now) }
            do {
                // Synced by `deliver(fresh:)` while the first attempt is in flight (or right here when
                // the caller says so).
                claimed.append(try outbox.add(entry, sync: syncAtOnce))
            } catch {
                failure = failure ?? "\(error)"
                unqueued.append(entry)
            }
        }
        return (claimed, unqueued, failure)
    }

    /// Commits the event for every matching sink and delivers it in the foreground (tests, and callers
    /// without a pipeline).
    func deliver(_ event: Event, deadline: ContinuousClock.Instant, problems: inout [String]) -> [DeliveryReport] {
        let committed = commit(event, sinks: matchingSinks(for: event).map(\.name), logged: true, syncAtOnce: false)
        if let failure = committed.failure { problems.append("cannot queue the event (\(failure)); delivering it directly") }
        return deliver(fresh: committed.claimed, unqueued: committed.unqueued, deadline: deadline, problems: &problems)
    }

    /// A delivery in the foreground (by hand, `HOOKCTL_NO_BACKGROUND`, or entries that could not be
    /// queued): the hook's own fresh entries (committed, claimed, attempt 1 started), each endpoint at
    /// its pace, retried within the deadline. The backlog is the sender's.
    /// `logged`: the event has since been logged (or kept for the log): what this run rewrites of the
    /// fresh entries says so, so a retry never keeps it for the log again.
    func deliver(fresh: [ClaimedEntry], unqueued: [OutboxEntry], logged: Bool = false,
                 deadline: ContinuousClock.Instant, problems: inout [String]) -> [DeliveryReport] {
        func job(_ entry: OutboxEntry, _ claim: ClaimedEntry?) -> Job {
            var entry = entry
            entry.logged = entry.logged || logged
            return Job(claim: claim, entry: entry, fresh: true, started: true, triesBefore: entry.attempts - 1)
        }
        let jobs = fresh.map { job($0.entry, $0) } + unqueued.map { job($0, nil) }
        var busy = 0
        // The fresh entries reach the disk once their first attempt waits (`OwedSync`), and before the
        // hook returns unless they have left the outbox.
        let sync = OwedSync(directory: outbox.directory)
        fresh.forEach(sync.owe)
        let reports = run(jobs, candidates: [], olderLimit: 0, triesPerEntry: DeliveryEngine.inlineAttempts,
                          owing: sync, deadline: deadline, busy: &busy, problems: &problems)
        sync.pay()
        return reports
    }

    // MARK: Flushing

    /// Delivers the outbox's due entries (all of them with `force`) until `deadline`: one try each, each
    /// endpoint at its pace, then the retry schedule spaces the next ones (a flush never hammers a failing
    /// endpoint). First adopts what a crash left: temporary files, events kept for any sink, recovered
    /// endpoints. Entries another process is sending right now are counted in `busy`.
    func flush(deadline: ContinuousClock.Instant, force: Bool, problems: inout [String]) -> [DeliveryReport] {
        var busy = 0
        return flush(deadline: deadline, force: force, busy: &busy, problems: &problems)
    }

    func flush(deadline: ContinuousClock.Instant, force: Bool, limit: Int = Int.max, busy: inout Int,
                      problems: inout [String]) -> [DeliveryReport] {
        adopt(problems: &problems)
        let scan = outbox.scan(now: force ? 9_999_999_999 : WallClock.nowEpoch(), limit: limit, excluding: untouchable, horizon: horizon)
        // Asked for by hand (`force`), even an endpoint that backs off gets one try per entry.
        let sync = OwedSync(directory: outbox.directory)
        defer { sync.pay() }
        return run([], candidates: scan.due, olderLimit: Int.max, triesPerEntry: 1, ignoreBackoff: force,
                   owing: sync, deadline: deadline, busy: &busy, problems: &problems)
    }

    /// Cleans up and takes over what crashed or waiting processes left in the outbox.
    func adopt(problems: inout [String]) {
        outbox.removeAbandonedTemporaryFiles()
        expandWaitingEntries(problems: &problems)
        keepUnloggedOfBrokenSinks(problems: &problems)
    }

    // MARK: The delivery loop

    struct Job {
        var claim: ClaimedEntry?
        var entry: OutboxEntry
        /// This process's own event: its first try goes out at once, its retries wait for the pace.
        var fresh: Bool
        /// The next try is already recorded as started.
        var started: Bool
        /// Attempts made before this run.
        var triesBefore: Int
        /// Tried already in this run: a retry waits for the pace like the backlog does.
        var retried = false
    }

    func run(_ initial: [Job], candidates: [String], olderLimit: Int, triesPerEntry: Int, ignoreBackoff: Bool = false,
             owing sync: OwedSync, deadline: ContinuousClock.Instant, busy: inout Int, problems: inout [String]) -> [DeliveryReport] {
        let sinksByName = Dictionary(sinks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let sinksByToken = Dictionary(sinks.map { (OutboxNames.safeSink($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        let started = ContinuousClock.now
        var reports: [DeliveryReport] = []
        var queue = initial
        var remaining = candidates
        var olderTaken = 0
        var backingOff: Set<String> = []

        func finish(_ job: Job, _ outcome: DeliveryOutcome, pending: Bool) {
            reports.append(DeliveryReport(sink: job.entry.sink, eventID: job.entry.event.id, outcome: outcome,
                                          attempts: job.entry.attempts, duration: (ContinuousClock.now - started).inSeconds, pending: pending))
        }

        while true {
            var batch: [Job] = []
            var deferred: [Job] = []
            var inFlight: [String: Int] = [:]
            var tokenWait = Double.infinity
            var outOfTokens: Set<String> = []
            for var job in queue {
                guard let sink = sinksByName[job.entry.sink] else {
                    leaveAlone(job, reason: brokenSinks[job.entry.sink], owing: sync, problems: &problems, finish: finish)
                    continue
                }
                if inFlight[sink.name, default: 0] >= EndpointPacer.concurrency || outOfTokens.contains(sink.name) {
                    deferred.append(job)
                    continue
                }
                let wait = paced(sink) ? pacer.take(sink.name, onCredit: job.fresh && !job.retried) : 0
                if wait > 0 {
                    outOfTokens.insert(sink.name)
                    tokenWait = min(tokenWait, wait)
                    deferred.append(job)
                    continue
                }
                if !job.started, !startAttempt(&job, owing: sync, problems: &problems) { continue }
                inFlight[sink.name, default: 0] += 1
                batch.append(job)
            }
            // Older entries fill what the endpoints have left, claimed one at a time (never thousands of
            // open files), skipping endpoints that back off or have no token left this round.
            var keep: [String] = []
            var index = 0
            while index < remaining.count {
                let name = remaining[index]
                index += 1
                if olderTaken >= olderLimit || deadline.hasPassed {
                    keep.append(contentsOf: remaining[(index - 1)...])
                    break
                }
                guard let token = OutboxNames.sinkToken(of: name) else { continue }
                guard let sink = sinksByToken[token] else {
                    // An entry for a sink no longer in the config: dead, not lost.
                    if let claim = outbox.claim(name: name) {
                        if sinksByName[claim.entry.sink] != nil || brokenSinks[claim.entry.sink] != nil {
                            claim.release()
                            continue
                        }
                        let reason = "the sink '\(claim.entry.sink)' is no longer in the config"
                        keepForLog(claim.entry, problems: &problems)
                        outbox.bury(claim, entry: claim.entry, reason: reason)
                        finish(Job(claim: nil, entry: claim.entry, fresh: false, started: true, triesBefore: 0), .failed(reason: reason),
                               pending: false)
                    }
                    continue
                }
                if backingOff.contains(sink.name) { continue }
                if inFlight[sink.name, default: 0] >= EndpointPacer.concurrency || outOfTokens.contains(sink.name) {
                    keep.append(name)
                    // Every endpoint is full this round: the rest waits for the next one.
                    if sinksByToken.values.allSatisfy({ inFlight[$0.name, default: 0] >= EndpointPacer.concurrency
                        || outOfTokens.contains($0.name) || backingOff.contains($0.name) }) {
                        keep.append(contentsOf: remaining[index...])
                        break
                    }
                    continue
                }
                if !ignoreBackoff, pacer.backoff(sink.name) > 0 {
                    backingOff.insert(sink.name)
                    continue
                }
                guard let claim = outbox.claim(name: name) else {
                    // Set aside (never readable) or gone is not busy.
                    if FileSystem.status(outbox.directory + "/" + name, followSymlinks: false) != nil { busy += 1 }
                    continue
                }
                let wait = paced(sink) ? pacer.take(sink.name) : 0
                if wait > 0 {
                    claim.release()
                    outOfTokens.insert(sink.name)
                    tokenWait = min(tokenWait, wait)
                    keep.append(name)
                    continue
                }
                var job = Job(claim: claim, entry: claim.entry, fresh: false, started: false, triesBefore: claim.entry.attempts)
                guard startAttempt(&job, owing: sync, problems: &problems) else { continue }
                olderTaken += 1
                inFlight[sink.name, default: 0] += 1
                batch.append(job)
            }
            remaining = keep
            if batch.isEmpty {
                let moreCandidates = !remaining.isEmpty && olderTaken < olderLimit
                let waitable = (!deferred.isEmpty || moreCandidates) && tokenWait.isFinite
                    && .after(seconds: tokenWait) < deadline - .milliseconds(20)
                if waitable {
                    sync.pay()
                    sleepSeconds(tokenWait)
                    queue = deferred
                    continue
                }
                for job in deferred { leaveAlone(job, reason: nil, owing: sync, problems: &problems, finish: finish) }
                break
            }

            let outcomes = attempt(batch.map { (sinksByName[$0.entry.sink]!, $0.entry.event, $0.entry.attempts) }, deadline: deadline,
                                   owing: sync)
            var retrying: [Job] = []
            var retryWait = 0.0
            for (index, var job) in batch.enumerated() {
                let outcome = outcomes[index]
                let sinkName = job.entry.sink
                let now = WallClock.nowEpoch()
                recordHealth(sink: sinkName, outcome)
                switch outcome {
                case .delivered:
                    if let claim = job.claim { outbox.complete(claim) }
                    sync.settle(job.entry)
                    if pacer.delivered(sinkName) { outbox.makeDue(sink: sinkName) }
                    finish(job, outcome, pending: false)
                case .failed(let reason), .gone(let reason):
                    job.entry.lastError = reason
                    if let claim = job.claim { outbox.bury(claim, entry: job.entry, reason: reason) }
                    sync.settle(job.entry)
                    finish(job, outcome, pending: false)
                case .retry(let hint, let reason):
                    job.entry.lastError = reason
                    // A request this process cut off at its own deadline says nothing about the endpoint.
                    if !reason.hasPrefix(HTTPClient.budgetEnded) {
                        pacer.failed(sinkName, hint: hint, throttled: reason.hasPrefix("HTTP 429"))
                    }
                    if schedule.expired(job.entry) {
                        let why = "expired after \(DurationText.format(defaults.retry.expire)) and \(job.entry.attempts) attempts; last error: \(reason)"
                        if let claim = job.claim { outbox.bury(claim, entry: job.entry, reason: why) }
                        sync.settle(job.entry)
                        finish(job, .failed(reason: why), pending: false)
                        continue
                    }
                    let triesThisRun = job.entry.attempts - job.triesBefore
                    if let delay = inlineDelay(attempt: triesThisRun, limit: triesPerEntry, hint: hint, deadline: deadline) {
                        job.started = false
                        job.retried = true
                        retrying.append(job)
                        retryWait = max(retryWait, delay)
                        continue
                    }
                    job.entry.nextAttempt = now + schedule.nextDelay(job.entry, hint: hint)
                    if let claim = job.claim {
                        if outbox.reschedule(claim, entry: job.entry) { sync.settle(job.entry) }
                    } else if let claim = try? outbox.add(job.entry, sync: true) {
                        claim.release()
                    }
                    finish(job, outcome, pending: true)
                }
            }
            queue = deferred + retrying
            if queue.isEmpty && (remaining.isEmpty || olderTaken >= olderLimit) { break }
            if deadline.hasPassed {
                for job in queue { leaveAlone(job, reason: nil, owing: sync, problems: &problems, finish: finish) }
                break
            }
            if !retrying.isEmpty {
                sync.pay()
                sleepSeconds(min(retryWait, max(0, deadline.secondsLeft)))
            }
        }
        return reports
    }

    /// Network endpoints are paced; local sinks (file, exec) are not.
    private func paced(_ sink: any Sink) -> Bool { sink.endpoint != nil }

    /// Not tried now: a fresh entry keeps its recorded schedule (it is retried when due); one whose sink
    /// cannot be built waits for the fix; one whose sink left the config is dead. What this run wrote of
    /// an entry left in the outbox stays owed (`sync` pays it before the run ends).
    private func leaveAlone(_ job: Job, reason broken: String?, owing sync: OwedSync, problems: inout [String],
                            finish: (Job, DeliveryOutcome, Bool) -> Void) {
        if sinks.contains(where: { $0.name == job.entry.sink }) || broken != nil {
            if let claim = job.claim {
                claim.release()
            } else if let claim = try? outbox.add(job.entry, sync: true) {
                claim.release()
            }
            let reason = broken.map { "the sink cannot be used: \($0)" } ?? "not tried within the delivery budget"
            finish(job, .retry(after: nil, reason: reason), true)
            return
        }
        let reason = "the sink '\(job.entry.sink)' is no longer in the config"
        if let claim = job.claim {
            keepForLog(job.entry, problems: &problems)
            outbox.bury(claim, entry: job.entry, reason: reason)
        }
        sync.settle(job.entry)
        finish(job, .failed(reason: reason), false)
    }

    /// An entry written before its event was logged (`logged` false): a hook commits its entries that way
    /// and logs the event before it lets go of them, so the log's tail normally has it; one whose hook died
    /// first is kept for the log (the log catches up), so it is on the board whether or not it is ever
    /// sent. True when the event is logged or kept now.
    @discardableResult
    func keepForLog(_ entry: OutboxEntry, problems: inout [String]) -> Bool {
        guard !entry.logged else { return true }
        if LogFiles(directory: outbox.paths.stateDirectory).recentlyContains(eventID: entry.event.id) { return true }
        do {
            try outbox.keepUnlogged(entry.event)
            return true
        } catch {
            problems.append("cannot keep event \(entry.event.id) for the event log: \(error)")
            return false
        }
    }

    /// Records the next attempt as started (count and next time) in the entry's file before it is sent,
    /// without a sync: `sync` owes it (paid once the attempt waits); an entry found not yet in the event
    /// log (its hook died before logging it) is kept for the log.
    private func startAttempt(_ job: inout Job, owing sync: OwedSync, problems: inout [String]) -> Bool {
        if keepForLog(job.entry, problems: &problems) { job.entry.logged = true }
        schedule.start(&job.entry, now: WallClock.nowEpoch())
        guard let claim = job.claim else {
            job.started = true
            return true
        }
        do {
            let updated = try outbox.update(claim, to: job.entry, sync: false)
            sync.owe(updated)
            job.claim = updated
            job.started = true
            return true
        } catch {
            problems.append("cannot record an attempt for event \(job.entry.event.id): \(error)")
            claim.release()
            return false
        }
    }

    /// What a try outside the outbox (`hookctl test`) says of a sink: its health, and a recovery (what
    /// waits for its endpoint is then due at once).
    func noteTry(sink: String, _ outcome: DeliveryOutcome) {
        recordHealth(sink: sink, outcome)
        if outcome == .delivered, pacer.delivered(sink) { outbox.makeDue(sink: sink) }
    }

    private func recordHealth(sink: String, _ outcome: DeliveryOutcome) {
        let result: SinkHealth.Result
        var reason: String?
        switch outcome {
        case .delivered: result = .delivered
        case .retry(_, let why): result = .retrying; reason = why
        case .failed(let why), .gone(let why): result = .failed; reason = why
        }
        var status: Int?
        if let reason, reason.hasPrefix("HTTP "), let code = Int(reason.dropFirst(5).prefix(3)) { status = code }
        // A sink that keeps delivering is rewritten at most once a minute (the hook path saves the write).
        if result == .delivered, let previous = health.load(sink: sink), previous.result == .delivered,
           abs(WallClock.nowEpoch() - previous.lastAttempt) < 60 { return }
        try? health.record(sink: sink, result: result, httpStatus: status, error: reason)
    }

    /// The wait before retrying inside this run, or nil when the next try does not fit before the deadline.
    /// `attemptsThisRun`: tries already made in this run; at most `limit` are made before the entry is
    /// left to the outbox schedule, whatever the server's hint says (a `Retry-After: 0` must not turn
    /// one hook into a flood).
    func inlineDelay(attempt attemptsThisRun: Int, limit: Int = DeliveryEngine.inlineAttempts, hint: Double?, deadline: ContinuousClock.Instant) -> Double? {
        guard attemptsThisRun < limit else { return nil }
        let step = min(2.0, 0.2 * pow(2, Double(attemptsThisRun - 1)))
        let backoff = step / 2 + Double.random(in: 0...(step / 2))
        let delay = max(RetryHint.clamp(hint) ?? 0, backoff)
        return .after(seconds: delay + 0.05) < deadline ? delay : nil
    }

    /// One attempt for each (sink, event, attempt number), all at once: HTTP through one curl multi loop,
    /// local actions on worker threads. Returns the outcomes in order, every server hint clamped.
    /// An owed sync is paid once the attempt has waited `OwedSync.grace`.
    func attempt(_ batch: [(any Sink, Event, Int)], deadline: ContinuousClock.Instant, owing sync: OwedSync? = nil) -> [DeliveryOutcome] {
        var requests: [(Int, HTTPRequest)] = []
        var locals: [(Int, @Sendable (ContinuousClock.Instant) -> DeliveryOutcome)] = []
        let results = LockedOutcomes(count: batch.count)
        for (index, (sink, event, attemptNumber)) in batch.enumerated() {
            do {
                switch try sink.outgoingDelivery(for: event, attempt: attemptNumber) {
                case .http(let request): requests.append((index, request))
                case .local(let action): locals.append((index, action))
                }
            } catch {
                results.set(index, .failed(reason: Text.scrub("\(error)", secrets: sink.secrets)))
            }
        }
        FaultPoint.reach("sending")
        // The sender waits for each request as long as its sink's timeout allows.
        let longest = patient ? batch.map { $0.0.settings.timeout + 1 }.max() : nil
        let deadline = longest.map { max(deadline, .after(seconds: $0)) } ?? deadline
        // Local actions run on worker threads while this thread drives the HTTP transfers; Dispatch is
        // only started when there is local work (it costs start-up time on the hook path).
        var group: DispatchGroup?
        if !locals.isEmpty {
            let started = DispatchGroup()
            for (index, action) in locals {
                DispatchQueue.global().async(group: started) { results.set(index, action(deadline)) }
            }
            group = started
        }
        let responses = HTTPClient.send(requests.map(\.1), deadline: deadline,
                                        whileWaiting: sync.map { sync in (after: OwedSync.grace, work: { sync.pay() }) })
        if let group {
            if let sync, group.wait(timeout: .now() + .milliseconds(Int(OwedSync.grace / .milliseconds(1)))) == .timedOut { sync.pay() }
            group.wait()
        }
        for (position, (index, _)) in requests.enumerated() {
            results.set(index, batch[index].0.outcome(for: responses[position]))
        }
        FaultPoint.reach("sent")
        // Every reason stored or shown from here on is free of the sink's secrets, whatever produced it
        // (a server's body, a program's stderr, an error).
        return results.values.enumerated().map { $1.scrubbed(batch[$0].0.secrets).clamped }
    }
}

/// Outcomes written from worker threads.
private final class LockedOutcomes: Sendable {
    private let storage: Mutex<[DeliveryOutcome]>

    init(count: Int) { storage = Mutex(Array(repeating: .retry(after: nil, reason: "not attempted"), count: count)) }

    func set(_ index: Int, _ outcome: DeliveryOutcome) { storage.withLock { $0[index] = outcome } }
    var values: [DeliveryOutcome] { storage.withLock { $0 } }
}
