/// `outbox flush` by hand, with one owner per entry: whoever holds the sender's lock (`daemons/sender.lock`) is the
/// only process that sends from the outbox. With a sender running, the person's flush hands the work to it
/// (a request file in the outbox wakes it; it tries every entry once, now, as a flush by hand does, and
/// answers) and waits for the answer, within a deadline, saying how much still waits; with none, the flush
/// takes the lock itself, so no sender starts beside it. So a flush never sends what the sender holds or
/// has sent, whatever the timing.
package enum FlushHandOver {
    /// Request and answer files: hidden (no listing of entries sees them), `.flush-<token>.request|answer`.
    package static let prefix = ".flush-"
    package static let requestSuffix = ".request"
    package static let answerSuffix = ".answer"
    /// How long the sender's flush for a request may take (a flush by hand had as long).
    package static let senderDeadline: Double = 30
    /// How long an answer nobody read (its asker was killed) is kept.
    package static let staleAnswer: Double = 600

    package enum Outcome {
        /// No sender runs: this process holds its lock and flushes itself.
        case own(FileLock)
        /// The sender did it.
        case answered(FlushResult)
        /// The sender is still at it when the deadline passed.
        case timedOut
    }

    /// The person's side: asks the running sender, or takes its lock when none runs. `progress` is called
    /// about once a second with the number of entries still waiting.
    package static func ask(paths: Paths, deadline: ContinuousClock.Instant, progress: (Int) -> Void) -> Outcome {
        let outbox = Outbox(paths: paths)
        var token: String?
        defer {
            if let token {
                unlink(path(outbox, token, requestSuffix))
                unlink(path(outbox, token, answerSuffix))
            }
        }
        var nextProgress = ContinuousClock.Instant.after(seconds: 1)
        while true {
            if let token, let bytes = (try? FileSystem.read(path(outbox, token, answerSuffix), limit: 8 << 20, followSymlinks: false)) ?? nil,
               let json = try? JSON.parse(bytes), let result = FlushResult(json: json) {
                return .answered(result)
            }
            // The sender is gone (or never ran): this process is the owner now. A request it wrote is removed.
            if let lock = BackgroundFlusher.daemon(paths).lock() { return .own(lock) }
            if token == nil {
                let made = String(UInt64.random(in: 0...UInt64.max), radix: 16)
                do {
                    try FileSystem.makeDirectories(outbox.directory)
                    try FileSystem.writeAtomically(path(outbox, made, requestSuffix), text: "", mode: 0o600, sync: false, followSymlinks: false)
                    token = made
                } catch {
                    // The outbox cannot take the request: wait for the sender to end, then flush here.
                }
            }
            if deadline.hasPassed { return .timedOut }
            if nextProgress.hasPassed {
                progress(outbox.scan(now: 9_999_999_999).pending)
                nextProgress = .after(seconds: 1)
            }
            sleepSeconds(0.02)
        }
    }

    /// The sender's side: the tokens of the requests waiting (answers nobody read for long are removed).
    package static func requests(_ outbox: Outbox) -> [String] {
        var tokens: [String] = []
        for name in (try? FileSystem.list(outbox.directory)) ?? [] where name.hasPrefix(prefix) {
            if name.hasSuffix(requestSuffix) {
                tokens.append(String(name.dropFirst(prefix.count).dropLast(requestSuffix.count)))
            } else if name.hasSuffix(answerSuffix), let info = FileSystem.status(outbox.directory + "/" + name, followSymlinks: false),
                      WallClock.nowEpoch() - Double(info.st_mtim.tv_sec) > staleAnswer {
                unlink(outbox.directory + "/" + name)
            }
        }
        return tokens
    }

    /// The sender's side: the flush the requests asked for, then one answer each.
    package static func serve(_ tokens: [String], engine: DeliveryEngine, newest: NewestNews) {
        var problems: [String] = []
        var busy = 0
        newest.supersede(engine.outbox)
        let reports = engine.flush(deadline: .after(seconds: senderDeadline), force: true, busy: &busy, problems: &problems)
        let answer = FlushResult(reports: reports, busy: busy, problems: problems)
        for token in tokens {
            // The answer first: a request seen gone with no answer would be asked again.
            try? FileSystem.writeAtomically(path(engine.outbox, token, answerSuffix), bytes: Array(JSON.serialize(answer.json).utf8),
                                            mode: 0o600, sync: false, followSymlinks: false)
            unlink(path(engine.outbox, token, requestSuffix))
        }
    }

    /// Whether an outbox file name is a request (it wakes the sender).
    package static func isRequest(_ name: String) -> Bool { name.hasPrefix(prefix) && name.hasSuffix(requestSuffix) }

    private static func path(_ outbox: Outbox, _ token: String, _ suffix: String) -> String {
        outbox.directory + "/" + prefix + token + suffix
    }
}

/// What a flush by hand did, as `outbox flush --json` prints it (and the sender answers a request with):
/// counts, one line per entry tried, and the problems met.
package struct FlushResult: Sendable {
    package struct Line: Sendable {
        package var eventID: String
        package var sink: String
        package var delivered: Bool
        package var pending: Bool
        package var summary: String
        package var attempts: Int
    }

    package var delivered: Int
    package var pending: Int
    package var failed: Int
    package var busy: Int
    package var lines: [Line]
    package var problems: [String]

    package init(reports: [DeliveryReport], busy: Int, problems: [String]) {
        delivered = reports.filter { $0.outcome == .delivered }.count
        pending = reports.filter(\.pending).count
        failed = reports.count - delivered - pending
        self.busy = busy
        lines = reports.map {
            Line(eventID: $0.eventID, sink: $0.sink, delivered: $0.outcome == .delivered, pending: $0.pending,
                 summary: $0.outcome.summary(), attempts: $0.attempts)
        }
        self.problems = problems
    }

    package init?(json: JSONValue) {
        guard let delivered = json["delivered"]?.intValue, let pending = json["pending"]?.intValue,
              let failed = json["failed"]?.intValue, let busy = json["busy"]?.intValue, let results = json["results"]?.arrayValue else { return nil }
        (self.delivered, self.pending, self.failed, self.busy) = (delivered, pending, failed, busy)
        lines = results.compactMap { line in
            guard let id = line["event_id"]?.stringValue, let sink = line["sink"]?.stringValue,
                  let summary = line["result"]?.stringValue else { return nil }
            return Line(eventID: id, sink: sink, delivered: summary == DeliveryOutcome.delivered.summary(),
                        pending: line["pending"]?.boolValue ?? false, summary: summary, attempts: line["attempts"]?.intValue ?? 0)
        }
        problems = json["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    package var json: JSONValue {
        .object(JSONObject([
            ("delivered", .int(delivered)), ("pending", .int(pending)), ("failed", .int(failed)), ("busy", .int(busy)),
            ("results", .array(lines.map { line in
                .object(JSONObject([("event_id", .string(line.eventID)), ("sink", .string(line.sink)),
                                    ("result", .string(line.summary)), ("attempts", .int(line.attempts)), ("pending", .bool(line.pending))]))
            })),
            ("problems", .array(problems.map(JSONValue.string))),
        ]))
    }
}
