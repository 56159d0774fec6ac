import Dispatch
import Synchronization

/// How one (event, sink) delivery stands after a run.
package struct DeliveryReport: Sendable {
    package var sink: String
    package var eventID: String
    package var outcome: DeliveryOutcome
    package var attempts: Int
    package var duration: Double
    /// Still in the outbox, to be retried later.
    package var pending: Bool

    package init(
        sink: String,
        eventID: String,
        outcome: DeliveryOutcome,
        attempts: Int,
        duration: Double,
        pending: Bool
    ) {
        self.sink = sink
        self.eventID = eventID
        self.outcome = outcome
        self.attempts = attempts
        self.duration = duration
        self.pending = pending
    }
}

/// Delivers outbox entries to sinks, one try each, every endpoint at its own pace and backoff
/// (`EndpointPacer`), one request in flight each; what does not go out stays in the outbox for the
/// sender. Every attempt is recorded as started (count and next time) before it is sent, and its result
/// per sink in `SinkHealthStore`.
package struct DeliveryEngine: Sendable {
    package var sinks: [any Sink]
    package var outbox: Outbox
    package var defaults: Defaults
    /// Sinks of the config that cannot be built now (name → why): their entries wait, untouched, until
    /// the sink is fixed.
    package var brokenSinks: [String: String]
    /// The shared settings of broken sinks, when readable (which events they take).
    package var brokenSettings: [String: SinkSettings] = [:]
    package var pacer: EndpointPacer
    package var health: SinkHealthStore
    /// Mints the answer buttons of a question's push for the sinks that carry them (nil: none are
    /// offered, as in tests of other things).
    package var answers: AnswerSigner?
    /// The sender's engine: a request is waited for as long as its sink's timeout, never cut off by a
    /// run's deadline, so a slow server is never taken for a failure (and sent the event again).
    package var patient = false

    package init(sinks: [any Sink], outbox: Outbox, defaults: Defaults, brokenSinks: [String: String] = [:]) {
        self.sinks = sinks
        self.outbox = outbox
        self.defaults = defaults
        self.brokenSinks = brokenSinks
        pacer = EndpointPacer()
        health = SinkHealthStore(paths: outbox.paths)
    }

    package var schedule: EntrySchedule { EntrySchedule(policy: defaults.retry) }

    /// Due times further ahead than this are from before a clock was set back: due now.
    package var horizon: Double { max(Outbox.implausiblyFarAhead, schedule.longestPlausibleWait) }

    /// The sinks that take this event.
    package func matchingSinks(for event: Event) -> [any Sink] { sinks.filter { $0.accepts(event) } }

    /// File-name tokens of the sinks whose entries must not be touched now (broken ones, and events
    /// kept for any sink, which are expanded separately).
    package var untouchable: Set<String> {
        Set(brokenSinks.keys.map(OutboxNames.safeSink) + [OutboxNames.safeSink(OutboxEntry.anySink)])
    }

    /// The engine over what the config's sinks give: the usable ones, and the broken ones kept apart.
    package init(usable: (sinks: [any Sink], broken: [(name: String, problem: String, settings: SinkSettings?)]), outbox: Outbox,
                defaults: Defaults, answers: AnswerSigner?) {
        self.init(sinks: usable.sinks, outbox: outbox, defaults: defaults,
                  brokenSinks: Dictionary(usable.broken.map { ($0.name, $0.problem) }, uniquingKeysWith: { first, _ in first }))
        self.answers = answers
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
    package func commit(_ event: Event, sinks names: [String], logged: Bool, syncAtOnce: Bool = true, startAttempt: Bool = true,
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
    package func deliver(_ event: Event, deadline: ContinuousClock.Instant, problems: inout [String]) -> [DeliveryReport] {
        let committed = commit(event, sinks: matchingSinks(for: event).map(\.name), logged: true, syncAtOnce: false)
        if let failure = committed.failure { problems.append("cannot queue the event (\(failure)); delivering it directly") }
        return deliver(fresh: committed.claimed, unqueued: committed.unqueued, deadline: deadline, problems: &problems)
    }

    /// A delivery in the foreground (by hand, `HOOKCTL_NO_BACKGROUND`, or entries that could not be
    /// queued): one try of the hook's own fresh entries (committed, claimed, attempt 1 started), at once.
    /// Retries and the backlog are the sender's.
    /// `logged`: the event has since been logged (or kept for the log): what this run rewrites of the
    /// fresh entries says so, so a retry never keeps it for the log again.
    package func deliver(fresh: [ClaimedEntry], unqueued: [OutboxEntry], logged: Bool = false,
                 deadline: ContinuousClock.Instant, problems: inout [String]) -> [DeliveryReport] {
        func job(_ entry: OutboxEntry, _ claim: ClaimedEntry?) -> Job {
            var entry = entry
            entry.logged = entry.logged || logged
            return Job(claim: claim, entry: entry)
        }
        let jobs = fresh.map { job($0.entry, $0) } + unqueued.map { job($0, nil) }
        var busy = 0
        // The fresh entries reach the disk once their first attempt waits (`OwedSync`), and before the
        // hook returns unless they have left the outbox.
        let sync = OwedSync(directory: outbox.directory)
        fresh.forEach(sync.owe)
        let reports = run(jobs, candidates: [], owing: sync, deadline: deadline, busy: &busy, problems: &problems)
        sync.pay()
        return reports
    }

    // MARK: Flushing

    /// Delivers the outbox's due entries (all of them with `force`) until `deadline`: one try each, each
    /// endpoint at its pace, then the retry schedule spaces the next ones (a flush never hammers a failing
    /// endpoint). First adopts what a crash left: temporary files, events kept for any sink or beside the
    /// outbox. Entries another process is sending right now are counted in `busy`.
    package func flush(deadline: ContinuousClock.Instant, force: Bool, limit: Int = Int.max, busy: inout Int,
                      problems: inout [String]) -> [DeliveryReport] {
        adopt(problems: &problems)
        // What a hook has just committed goes first, without waiting for the pace, to every endpoint that
        // delivers (one that has failed since, even when its backoff has ended, gets its queue oldest first:
        // after an outage nothing jumps ahead).
        let ready = force ? [] : Set(sinks.filter { !pacer.isFailing($0.name) }.map { OutboxNames.safeSink($0.name) })
        let scan = outbox.scan(now: force ? 9_999_999_999 : WallClock.nowEpoch(), limit: limit, excluding: untouchable,
                               firstFor: ready, horizon: horizon)
        let first = Set(scan.due.prefix(scan.justCommitted))
        // Asked for by hand (`force`), even an endpoint that backs off gets one try per entry.
        let sync = OwedSync(directory: outbox.directory)
        defer { sync.pay() }
        return run([], candidates: scan.due, onCredit: first, ignoreBackoff: force,
                   owing: sync, deadline: deadline, busy: &busy, problems: &problems)
    }

    /// Cleans up and takes over what crashed or waiting processes left in the outbox.
    package func adopt(problems: inout [String]) {
        outbox.removeAbandonedTemporaryFiles()
        outbox.adoptKept(problems: &problems)
        expandWaitingEntries(problems: &problems)
        keepUnloggedOfBrokenSinks(problems: &problems)
    }

    // MARK: The delivery loop

    /// An entry being tried, its attempt recorded as started.
    package struct Job {
        package var claim: ClaimedEntry?
        package var entry: OutboxEntry
    }

    /// One try of each of `initial` (this process's own events, sent at once) and of the `candidates`
    /// (names of due entries, oldest first) each endpoint takes at its pace; those `onCredit` (just
    /// committed) take their token even from an empty bucket, so the backlog waits instead of them.
    package func run(_ initial: [Job], candidates: [String], onCredit: Set<String> = [], ignoreBackoff: Bool = false,
             owing sync: OwedSync, deadline: ContinuousClock.Instant, busy: inout Int, problems: inout [String]) -> [DeliveryReport] {
        let sinksByName = Dictionary(sinks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let sinksByToken = Dictionary(sinks.map { (OutboxNames.safeSink($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        let started = ContinuousClock.now
        var reports: [DeliveryReport] = []
        var queue = initial
        var remaining = candidates
        var backingOff: Set<String> = []

        func finish(_ job: Job, _ outcome: DeliveryOutcome, pending: Bool) {
            reports.append(DeliveryReport(sink: job.entry.sink, eventID: job.entry.event.id, outcome: outcome,
                                          attempts: job.entry.attempts, duration: (ContinuousClock.now - started).inSeconds, pending: pending))
        }

        while true {
            var batch: [Job] = []
            var inFlight: [String: Int] = [:]
            var tokenWait = Double.infinity
            var outOfTokens: Set<String> = []
            // One event's entries, one per sink: each goes out at once (someone waits for it), never waiting
            // for the pace (the backlog waits longer instead).
            for job in queue {
                guard let sink = sinksByName[job.entry.sink] else {
                    leaveAlone(job, reason: brokenSinks[job.entry.sink], owing: sync, problems: &problems, finish: finish)
                    continue
                }
                if paced(sink) { _ = pacer.take(sink.name, onCredit: true) }
                inFlight[sink.name, default: 0] += 1
                batch.append(job)
            }
            queue = []
            // Older entries fill what the endpoints have left, claimed one at a time (never thousands of
            // open files), skipping endpoints that back off or have no token left this round.
            var keep: [String] = []
            var index = 0
            while index < remaining.count {
                let name = remaining[index]
                index += 1
                if deadline.hasPassed {
                    keep.append(contentsOf: remaining[(index - 1)...])
                    break
                }
                guard let token = OutboxNames.sinkToken(of: name) else { continue }
                guard let sink = sinksByToken[token] else {
                    // An entry for a sink no longer in the config: dead, not lost.
                    guard let claim = claimOrCount(name, busy: &busy) else { continue }
                    if sinksByName[claim.entry.sink] != nil || brokenSinks[claim.entry.sink] != nil {
                        claim.release()
                        continue
                    }
                    let reason = "the sink '\(claim.entry.sink)' is no longer in the config"
                    keepForLog(claim.entry, problems: &problems)
                    outbox.bury(claim, entry: claim.entry, reason: reason)
                    finish(Job(claim: nil, entry: claim.entry), .failed(reason: reason), pending: false)
                    continue
                }
                if backingOff.contains(sink.name) { continue }
                if inFlight[sink.name, default: 0] >= EndpointPacer.concurrency || (outOfTokens.contains(sink.name) && !onCredit.contains(name)) {
                    keep.append(name)
                    // Every endpoint is full this round: the rest waits for the next one.
                    if sinksByToken.values.allSatisfy({ inFlight[$0.name, default: 0] >= EndpointPacer.concurrency
                        || outOfTokens.contains($0.name) || backingOff.contains($0.name) }) {
                        keep.append(contentsOf: remaining[index...])
                        break
                    }
                    continue
                }
                if !ignoreBackoff, backsOff(sink.name) {
                    backingOff.insert(sink.name)
                    continue
                }
                guard let claim = claimOrCount(name, busy: &busy) else { continue }
                let wait = paced(sink) ? pacer.take(sink.name, onCredit: onCredit.contains(name)) : 0
                if wait > 0 {
                    claim.release()
                    outOfTokens.insert(sink.name)
                    tokenWait = min(tokenWait, wait)
                    keep.append(name)
                    continue
                }
                var job = Job(claim: claim, entry: claim.entry)
                guard startAttempt(&job, owing: sync, problems: &problems) else { finish(job, Self.unrecorded, pending: true); continue }
                inFlight[sink.name, default: 0] += 1
                batch.append(job)
            }
            remaining = keep
            if batch.isEmpty {
                if !remaining.isEmpty, tokenWait.isFinite, .after(seconds: tokenWait) < deadline - .milliseconds(20) {
                    sync.pay()
                    // A wait for the pace is the sender's idle time while a backlog drains: the files hooks
                    // will write into are made now, not by the hooks.
                    outbox.makeSpares()
                    sleepSeconds(tokenWait)
                    continue
                }
                break
            }

            let outcomes = attempt(batch.map { (sinksByName[$0.entry.sink]!, $0.entry.event, $0.entry.attempts) }, deadline: deadline,
                                   owing: sync)
            for (index, var job) in batch.enumerated() {
                let outcome = outcomes[index]
                let sinkName = job.entry.sink
                let now = WallClock.nowEpoch()
                // A request this process cut off at its own deadline says nothing about the endpoint.
                if case .retry(let problem) = outcome, problem.cause != .cutOff {
                    pacer.failed(sinkName, hint: problem.retryAfter, throttled: problem.status == 429)
                }
                recordHealth(sink: sinkName, outcome)
                switch outcome {
                case .delivered:
                    if let claim = job.claim { outbox.complete(claim) }
                    sync.settle(job.entry)
                    pacer.delivered(sinkName)
                    finish(job, outcome, pending: false)
                case .failed(let problem), .gone(let problem):
                    job.entry.lastError = problem.text
                    if let claim = job.claim { outbox.bury(claim, entry: job.entry, reason: problem.text) }
                    sync.settle(job.entry)
                    finish(job, outcome, pending: false)
                case .retry(let problem):
                    let hint = problem.retryAfter
                    job.entry.lastError = problem.text
                    if schedule.expired(job.entry) {
                        let why = "expired after \(DurationText.format(defaults.retry.expire)) and \(job.entry.attempts) attempts; last error: \(problem.text)"
                        if let claim = job.claim { outbox.bury(claim, entry: job.entry, reason: why) }
                        sync.settle(job.entry)
                        finish(job, .failed(reason: why), pending: false)
                        continue
                    }
                    // An endpoint's entries wait on its backoff (one probe at a time) and the server's wait, not on
                    // a schedule each: once it delivers again, all of them are due. Local sinks keep the schedule.
                    job.entry.nextAttempt = now + (sinksByName[sinkName].map(paced) == true ? hint ?? 0 : schedule.nextDelay(job.entry, hint: hint))
                    if let claim = job.claim {
                        if outbox.reschedule(claim, entry: job.entry) { sync.settle(job.entry) }
                    } else {
                        keepUnqueued(job.entry, problems: &problems)
                    }
                    finish(job, outcome, pending: true)
                }
            }
            if remaining.isEmpty || deadline.hasPassed { break }
        }
        return reports
    }

    /// Claims an entry by name; one another process holds is counted in `busy` (set aside as never
    /// readable, or gone, is not busy).
    private func claimOrCount(_ name: String, busy: inout Int) -> ClaimedEntry? {
        let claim = outbox.claim(name: name)
        if claim == nil, FileSystem.status(outbox.directory + "/" + name, followSymlinks: false) != nil { busy += 1 }
        return claim
    }

    /// Whether the endpoint is left alone now. A delivery recorded since by another process (`hookctl
    /// test`, a foreground run) ends the backoff: the sink's health record says so.
    private func backsOff(_ sink: String) -> Bool {
        guard pacer.backoff(sink) > 0 else { return false }
        guard health.load(sink: sink)?.result == .delivered else { return true }
        pacer.delivered(sink)
        return false
    }

    /// Network endpoints are paced; local sinks (file, exec) are not.
    private func paced(_ sink: any Sink) -> Bool { sink.endpoint != nil }

    /// A fresh entry whose sink is not usable: one whose sink cannot be built waits for the fix (what
    /// this run wrote of it stays owed: `sync` pays it before the run ends); one whose sink left the
    /// config is dead.
    private func leaveAlone(_ job: Job, reason broken: String?, owing sync: OwedSync, problems: inout [String],
                            finish: (Job, DeliveryOutcome, Bool) -> Void) {
        if let broken {
            if let claim = job.claim { claim.release() } else { keepUnqueued(job.entry, problems: &problems) }
            finish(job, .retry(after: nil, reason: "the sink cannot be used: \(broken)"), true)
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

    /// An entry that was sent without a file (the outbox could not take it) and must be tried again: in
    /// the outbox, or beside it until the outbox works again.
    private func keepUnqueued(_ entry: OutboxEntry, problems: inout [String]) {
        do {
            let place = try outbox.addOrKeep(entry)
            if place != outbox.directory { problems.append("event \(entry.event.id) is kept in \(place) and goes out once the outbox works again") }
        } catch {
            problems.append("cannot keep event \(entry.event.id) for a later try: \(error)")
        }
    }

    /// An entry written before its event was logged (`logged` false): a hook commits its entries that way
    /// and logs the event before it lets go of them, so the log's tail normally has it; one whose hook died
    /// first is kept for the log (the log catches up), so it is on the board whether or not it is ever
    /// sent. True when the event is logged or kept now.
    @discardableResult
    package func keepForLog(_ entry: OutboxEntry, problems: inout [String]) -> Bool {
        guard !entry.logged else { return true }
        if LogFiles(directory: outbox.paths.stateDirectory).contains(eventID: entry.event.id, through: 1, window: LogFiles.recentWindow) { return true }
        do {
            try outbox.keepUnlogged(entry.event)
            return true
        } catch {
            problems.append("cannot keep event \(entry.event.id) for the event log: \(error)")
            return false
        }
    }

    /// Not tried: its attempt could not be recorded (it waits, and a flush says so).
    package static let unrecorded = DeliveryOutcome.retry(after: nil, reason: "not tried: its attempt could not be recorded")

    /// Records the next attempt as started (count and next time) in the entry's file before it is sent,
    /// without a sync: `sync` owes it (paid once the attempt waits); an entry found not yet in the event
    /// log (its hook died before logging it) is kept for the log.
    private func startAttempt(_ job: inout Job, owing sync: OwedSync, problems: inout [String]) -> Bool {
        if keepForLog(job.entry, problems: &problems) { job.entry.logged = true }
        schedule.start(&job.entry, now: WallClock.nowEpoch())
        do {
            job.claim = try job.claim.map { try outbox.update($0, to: job.entry, sync: false) }
            job.claim.map(sync.owe)
            return true
        } catch {
            problems.append("cannot record an attempt for event \(job.entry.event.id): \(error)")
            // A full disk must not hold the push back: it is sent unrecorded (its file stays as it was).
            if case SystemError.io(_, _, let code) = error, [ENOSPC, EDQUOT, EFBIG].contains(code) { return true }
            job.claim?.release()
            return false
        }
    }

    /// What a try outside the outbox (`hookctl test`) says of a sink: its health, and a recovery (the
    /// endpoint's backoff ends: what waits for it goes out).
    package func noteTry(sink: String, _ outcome: DeliveryOutcome) {
        recordHealth(sink: sink, outcome)
        if outcome == .delivered { pacer.delivered(sink) }
    }

    private func recordHealth(sink: String, _ outcome: DeliveryOutcome) {
        let result: SinkHealth.Result
        switch outcome {
        case .delivered: result = .delivered
        case .retry: result = .retrying
        case .failed, .gone: result = .failed
        }
        // A sink that keeps delivering is rewritten at most once a minute (the hook path saves the write).
        if result == .delivered, let previous = health.load(sink: sink), previous.result == .delivered,
           abs(WallClock.nowEpoch() - previous.lastAttempt) < 60 { return }
        let backoff = pacer.backoff(sink)
        try? health.record(sink: sink, result: result, httpStatus: outcome.problem?.status, error: outcome.problem?.text,
                           probeAt: backoff > 0 ? WallClock.nowEpoch() + backoff : nil)
    }

    /// One attempt for each (sink, event, attempt number), all at once: HTTP through one curl multi loop,
    /// local actions on worker threads. Returns the outcomes in order, every server hint clamped.
    /// An owed sync is paid once the attempt has waited `OwedSync.grace`.
    package func attempt(_ batch: [(any Sink, Event, Int)], deadline: ContinuousClock.Instant, owing sync: OwedSync? = nil) -> [DeliveryOutcome] {
        var requests: [(Int, HTTPRequest)] = []
        var locals: [(Int, @Sendable (ContinuousClock.Instant) -> DeliveryOutcome)] = []
        let results = LockedOutcomes(count: batch.count)
        let receipts = PushReceipts(paths: outbox.paths)
        for (index, (sink, event, attemptNumber)) in batch.enumerated() {
            do {
                // The follow-up of an answered question: the sink's own update of what it pushed, or nothing.
                let delivery: Delivery?
                if let id = AnsweredPushes.answeredID(of: event) {
                    delivery = try sink.answeredDelivery(for: event.outgoing, receipt: receipts.read(sink: sink.name, replaceID: id))
                } else {
                    delivery = try sink.outgoingDelivery(for: event, attempt: attemptNumber, signer: answers)
                }
                switch delivery {
                case .http(let request): requests.append((index, request))
                case .local(let action): locals.append((index, action))
                case nil: results.set(index, .delivered)
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
            let (sink, event, _) = batch[index]
            let outcome = sink.outcome(for: responses[position])
            results.set(index, outcome)
            guard outcome == .delivered else { continue }
            // A question push's receipt is kept for its follow-up; a follow-up sent needs its receipt no more.
            if let id = AnsweredPushes.answeredID(of: event) {
                receipts.remove(sink: sink.name, replaceID: id)
            } else if let id = AnsweredPushes.replaceID(of: event), let receipt = sink.receipt(for: responses[position]) {
                try? receipts.write(receipt, sink: sink.name, replaceID: id)
            }
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
