import Dispatch

/// How one (event, sink) delivery stands after a run.
public struct DeliveryReport: Sendable {
    public var sink: String
    public var eventID: String
    public var outcome: DeliveryOutcome
    public var attempts: Int
    public var duration: Double
    /// Still in the outbox, to be retried later.
    public var pending: Bool
}

/// Delivers events to sinks: every matching sink at once, retried with backoff within a deadline, and
/// whatever is not delivered by then kept in the outbox for the next run or the background flusher.
public struct DeliveryEngine: Sendable {
    public var sinks: [any Sink]
    public var outbox: Outbox
    public var defaults: Defaults

    public init(sinks: [any Sink], outbox: Outbox, defaults: Defaults) {
        self.sinks = sinks
        self.outbox = outbox
        self.defaults = defaults
    }

    /// The sinks that take this event.
    public func matchingSinks(for event: Event) -> [any Sink] { sinks.filter { $0.accepts(event) } }

    /// Queues the event for each matching sink (durably, before any attempt), then delivers it together
    /// with whatever else in the outbox is due, until `deadline`.
    /// `alsoNow`: queued entries to send in the same run whatever their age (events kept while the
    /// config was broken).
    public func deliver(_ event: Event, alsoNow: [OutboxEntry] = [], deadline: Double, problems: inout [String]) -> [DeliveryReport] {
        var fresh: [OutboxEntry] = []
        var unqueued: Set<String> = []
        for sink in matchingSinks(for: event) {
            let entry = OutboxEntry(event: event, sink: sink.name)
            do {
                try outbox.add(entry)
            } catch {
                problems.append("cannot queue the event for sink '\(sink.name)' (\(error)); delivering it directly")
                unqueued.insert(entry.fileName)
            }
            fresh.append(entry)
        }
        // Earlier events still waiting: retried ones when due, and first attempts another hook left
        // behind (killed mid-delivery). First attempts of hooks running right now are theirs to make.
        var due: [OutboxEntry] = alsoNow
        let freshNames = Set(fresh.map(\.fileName) + alsoNow.map(\.fileName))
        if let pending = try? outbox.pending(excluding: freshNames, problems: &problems) {
            let now = Clock.nowEpoch()
            due += pending.filter { entry in
                entry.sink != OutboxEntry.anySink && entry.nextAttempt <= now && (entry.attempts > 0 || entry.created < now - 30)
            }
        }
        return run(fresh, extra: due, unqueued: unqueued, deadline: deadline, triesPerEntry: DeliveryEngine.inlineAttempts,
                   problems: &problems)
    }

    /// Delivers the outbox's due entries (all of them with `force`) until `deadline`.
    /// Delivers the outbox's due entries (all of them with `force`) until `deadline`: one try each, then
    /// the retry schedule spaces the next ones (a flush never hammers a failing endpoint). Entries another
    /// process is sending right now are counted in `busy`.
    public func flush(deadline: Double, force: Bool, problems: inout [String]) -> [DeliveryReport] {
        var busy = 0
        return flush(deadline: deadline, force: force, busy: &busy, problems: &problems)
    }

    public func flush(deadline: Double, force: Bool, busy: inout Int, problems: inout [String]) -> [DeliveryReport] {
        guard let pending = try? outbox.pending(problems: &problems) else { return [] }
        let now = Clock.nowEpoch()
        let chosen = pending.filter { $0.sink != OutboxEntry.anySink && (force || $0.nextAttempt <= now) }
        let reports = run([], extra: chosen, unqueued: [], deadline: deadline, triesPerEntry: 1, problems: &problems)
        busy = chosen.count - reports.count
        return reports
    }

    /// Sends an event to the given sinks now, without the outbox (for `hookctl test`).
    public func sendDirectly(_ event: Event, to sinks: [any Sink], deadline: Double) -> [DeliveryReport] {
        var reports: [DeliveryReport] = []
        var waiting = sinks.map { (sink: $0, attempt: 1) }
        while !waiting.isEmpty {
            let start = monotonicSeconds()
            let outcomes = attempt(waiting.map { ($0.sink, event, $0.attempt) }, deadline: deadline)
            var next: [(sink: any Sink, attempt: Int)] = []
            var wait = 0.0
            for (index, item) in waiting.enumerated() {
                let outcome = outcomes[index]
                if case .retry(let hint, _) = outcome, let delay = inlineDelay(attempt: item.attempt, hint: hint, deadline: deadline) {
                    next.append((item.sink, item.attempt + 1))
                    wait = max(wait, delay)
                } else {
                    reports.append(DeliveryReport(sink: item.sink.name, eventID: event.id, outcome: outcome, attempts: item.attempt,
                                                  duration: monotonicSeconds() - start, pending: false))
                }
            }
            sleepSeconds(wait)
            waiting = next
        }
        return reports
    }

    /// The wait before retrying inside this run, or nil when the next try does not fit before the deadline.
    /// `attemptsThisRun`: tries already made in this run; at most `limit` are made before the entry is
    /// left to the outbox schedule, whatever the server's hint says (a `Retry-After: 0` must not turn
    /// one hook into a flood).
    func inlineDelay(attempt attemptsThisRun: Int, limit: Int = DeliveryEngine.inlineAttempts, hint: Double?, deadline: Double) -> Double? {
        guard attemptsThisRun < limit else { return nil }
        let step = min(2.0, 0.2 * pow(2, Double(attemptsThisRun - 1)))
        let backoff = step / 2 + Double.random(in: 0...(step / 2))
        let delay = max(hint ?? 0, backoff)
        return monotonicSeconds() + delay + 0.05 < deadline ? delay : nil
    }

    /// Tries per entry within one hook's run before it waits for its next scheduled time.
    static let inlineAttempts = 3

    func run(_ fresh: [OutboxEntry], extra: [OutboxEntry], unqueued: Set<String>, deadline: Double, triesPerEntry: Int,
             problems: inout [String]) -> [DeliveryReport] {
        let sinksByName = Dictionary(sinks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var reports: [DeliveryReport] = []
        var claimed: [(claim: ClaimedEntry?, entry: OutboxEntry)] = []
        for entry in fresh + extra {
            if unqueued.contains(entry.fileName) {
                // Could not be queued: deliver it anyway, without a file.
                claimed.append((nil, entry))
            } else if let claim = outbox.claim(entry, knownContent: fresh.contains { $0.fileName == entry.fileName }) {
                claimed.append((claim, claim.entry))
            }
        }
        // Attempts made before this run, to count the tries this run makes.
        let attemptsBefore = Dictionary(claimed.map { ($0.entry.fileName, $0.entry.attempts) }, uniquingKeysWith: { first, _ in first })
        let started = monotonicSeconds()
        while !claimed.isEmpty {
            var ready: [Int] = []
            var orphaned: [Int] = []
            for (index, item) in claimed.enumerated() {
                if sinksByName[item.entry.sink] == nil { orphaned.append(index) } else { ready.append(index) }
            }
            for index in orphaned {
                let item = claimed[index]
                let reason = "the sink '\(item.entry.sink)' is no longer in the config"
                if let claim = item.claim { outbox.bury(claim, entry: item.entry, reason: reason) }
                reports.append(DeliveryReport(sink: item.entry.sink, eventID: item.entry.event.id, outcome: .failed(reason: reason),
                                              attempts: item.entry.attempts, duration: 0, pending: false))
            }
            let batch = ready.map { index -> (any Sink, Event, Int) in
                let item = claimed[index]
                return (sinksByName[item.entry.sink]!, item.entry.event, item.entry.attempts + 1)
            }
            let outcomes = attempt(batch, deadline: deadline)
            var retrying: [(claim: ClaimedEntry?, entry: OutboxEntry)] = []
            var wait = 0.0
            for (position, index) in ready.enumerated() {
                var entry = claimed[index].entry
                let claim = claimed[index].claim
                entry.attempts += 1
                let outcome = outcomes[position]
                let now = Clock.nowEpoch()
                switch outcome {
                case .delivered:
                    if let claim { outbox.complete(claim) }
                case .failed(let reason), .gone(let reason):
                    entry.lastError = reason
                    if let claim { outbox.bury(claim, entry: entry, reason: reason) }
                case .retry(let hint, let reason):
                    entry.lastError = reason
                    if now - entry.created >= defaults.retry.expire {
                        let why = "expired after \(Duration.format(defaults.retry.expire)) and \(entry.attempts) attempts; last error: \(reason)"
                        if let claim { outbox.bury(claim, entry: entry, reason: why) }
                        reports.append(report(entry, .failed(reason: why), started, pending: false))
                        continue
                    }
                    let triesThisRun = entry.attempts - (attemptsBefore[entry.fileName] ?? 0)
                    if let delay = inlineDelay(attempt: triesThisRun, limit: triesPerEntry, hint: hint, deadline: deadline) {
                        retrying.append((claim, entry))
                        wait = max(wait, delay)
                        continue
                    }
                    entry.nextAttempt = now + defaults.retry.delay(afterAttempt: entry.attempts, hint: hint)
                    if let claim { outbox.reschedule(claim, entry: entry) } else { try? outbox.add(entry) }
                }
                reports.append(report(entry, outcome, started, pending: !outcome.isFinal))
            }
            claimed = retrying
            if !claimed.isEmpty { sleepSeconds(wait) }
        }
        return reports
    }

    func report(_ entry: OutboxEntry, _ outcome: DeliveryOutcome, _ started: Double, pending: Bool) -> DeliveryReport {
        DeliveryReport(sink: entry.sink, eventID: entry.event.id, outcome: outcome, attempts: entry.attempts,
                       duration: monotonicSeconds() - started, pending: pending)
    }

    /// One attempt for each (sink, event, attempt number), all at once: HTTP through one curl multi loop,
    /// local actions on worker threads. Returns the outcomes in order.
    func attempt(_ batch: [(any Sink, Event, Int)], deadline: Double) -> [DeliveryOutcome] {
        var requests: [(Int, HTTPRequest)] = []
        var locals: [(Int, @Sendable (Double) -> DeliveryOutcome)] = []
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
        let responses = HTTPClient.send(requests.map(\.1), deadline: deadline)
        group?.wait()
        for (position, (index, _)) in requests.enumerated() {
            results.set(index, batch[index].0.outcome(for: responses[position]))
        }
        return results.values
    }
}

/// Outcomes written from worker threads.
private final class LockedOutcomes: @unchecked Sendable {
    private let lock = Mutex()
    private var storage: [DeliveryOutcome]

    init(count: Int) { storage = Array(repeating: .retry(after: nil, reason: "not attempted"), count: count) }

    func set(_ index: Int, _ outcome: DeliveryOutcome) { lock.withLock { storage[index] = outcome } }
    var values: [DeliveryOutcome] { lock.withLock { storage } }
}
