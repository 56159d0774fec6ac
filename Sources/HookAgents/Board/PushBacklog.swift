/// What became of pushes that did not go out at once, per sink: how many wait in the outbox and until
/// when they are retried, how many were given up, and the sink's last delivery result
/// (`SinkHealthStore`). `status` and `doctor` both say it from here, in the same words.
package struct PushBacklog: Sendable {
    /// One sink's part of the backlog.
    package struct SinkBacklog: Sendable, Equatable {
        /// The sink's name; `*` for events kept while the config could not be read.
        package var sink: String
        package var waiting: Int
        package var givenUp: Int
        /// The last moment a waiting event is still retried (its creation plus `retry.expire`).
        package var retryUntil: Double?
        /// The earliest next attempt of a waiting event.
        package var nextAttempt: Double?
        /// Why the last attempt did not deliver: the health record's, else a waiting entry's last error.
        package var lastProblem: String?
        /// Why the newest given-up event was given up, whole (on one line).
        package var deadReason: String?
        package var health: SinkHealth?

        /// `relay: HTTP 503, retrying until 19:18 tomorrow`.
        package func summary(now: Double) -> String {
            var parts: [String] = []
            if let lastProblem { parts.append(lastProblem) }
            if waiting > 0, let retryUntil { parts.append("retrying until \(PushBacklog.clockTime(retryUntil, now: now))") }
            let name = sink == OutboxEntry.anySink ? "every sink, once the config can be read" : sink
            return parts.isEmpty ? name : "\(name): \(parts.joined(separator: ", "))"
        }

        package var json: JSONValue {
            var object = JSONObject()
            object["sink"] = .string(sink)
            object["waiting"] = .int(waiting)
            object["given_up"] = .int(givenUp)
            if let retryUntil { object["retry_until"] = .string(WallClock.iso8601(retryUntil)) }
            if let nextAttempt { object["next_attempt"] = .string(WallClock.iso8601(nextAttempt)) }
            if let lastProblem { object["last_problem"] = .string(lastProblem) }
            if let deadReason { object["dead_reason"] = .string(deadReason) }
            if let health {
                object["last_attempt"] = .string(WallClock.iso8601(health.lastAttempt))
                object["last_result"] = .string(health.result.rawValue)
                if let status = health.httpStatus { object["http_status"] = .int(status) }
            }
            return .object(object)
        }
    }

    package var sinks: [SinkBacklog]
    /// Outbox entries that could not be read (named in doctor).
    package var problems: [String]

    package var waiting: Int { sinks.reduce(0) { $0 + $1.waiting } }
    package var givenUp: Int { sinks.reduce(0) { $0 + $1.givenUp } }

    /// Reads the outbox and the health records. `sinkNames` adds sinks with no backlog (for their last
    /// result); `expire` is the config's `retry.expire`.
    package static func load(paths: Paths, sinkNames: [String] = [],
                            expire: () -> Double = { RetryPolicy().expire }) -> PushBacklog {
        var problems: [String] = []
        let outbox = Outbox(paths: paths)
        let pending = (try? outbox.pending(problems: &problems)) ?? []
        let dead = (try? outbox.dead(problems: &problems)) ?? []
        let health = SinkHealthStore(paths: paths)
        var names = sinkNames
        let expire = pending.isEmpty ? 0 : expire()
        for name in pending.map(\.sink) + dead.map(\.sink) where !names.contains(name) { names.append(name) }
        let sinks = names.map { name -> SinkBacklog in
            let waiting = pending.filter { $0.sink == name }
            let givenUp = dead.filter { $0.sink == name }
            let record = health.load(sink: name)
            let lastError = waiting.max(by: { $0.nextAttempt < $1.nextAttempt })?.lastError
            return SinkBacklog(
                sink: name, waiting: waiting.count, givenUp: givenUp.count,
                retryUntil: waiting.map { $0.created + expire }.max(),
                nextAttempt: waiting.map(\.nextAttempt).min(),
                lastProblem: record.flatMap(problem) ?? (record?.result == .delivered ? nil : lastError.map(shortReason)),
                deadReason: givenUp.max(by: { $0.created < $1.created })?.deadReason.map { Text.truncate(Text.singleLine(OutgoingText.clean($0)), characters: 240) },
                health: record)
        }
        return PushBacklog(sinks: sinks, problems: problems)
    }

    /// The words for a failed attempt: `HTTP 503`, or the transport error; nil when it delivered.
    package static func problem(_ health: SinkHealth) -> String? {
        guard health.result != .delivered else { return nil }
        if let status = health.httpStatus, status > 0 { return "HTTP \(status)" }
        return health.error.map(shortReason) ?? health.result.rawValue
    }

    /// `will retry: HTTP 503: {"error":…}` → `HTTP 503`; a transport error stays whole, on one line.
    package static func shortReason(_ reason: String) -> String {
        // A server's answer is quoted in it: nothing in it may drive the terminal that shows it.
        var text = Text.singleLine(OutgoingText.clean(reason))
        for prefix in ["will retry: ", "failed: ", "endpoint gone: "] where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
        }
        if text.hasPrefix("HTTP "), let colon = text.firstIndex(of: ":") { text = String(text[..<colon]) }
        return Text.truncate(text, characters: 80)
    }

    /// What `status` says under the board; empty when every push went out.
    package func statusLines(now: Double) -> [String] {
        var lines: [String] = []
        let waitingSinks = sinks.filter { $0.waiting > 0 }
        if waiting > 0 {
            let what = waiting == 1 ? "1 push not delivered yet" : "\(waiting) pushes not delivered yet"
            lines.append("\(what) (\(waitingSinks.map { $0.summary(now: now) }.joined(separator: "; ")))")
        }
        let deadSinks = sinks.filter { $0.givenUp > 0 }
        if givenUp > 0 {
            let what = givenUp == 1 ? "1 push was given up" : "\(givenUp) pushes were given up"
            let why = deadSinks.map { "\($0.sink)\($0.deadReason.map { ": " + PushBacklog.shortReason($0) } ?? "")" }.joined(separator: "; ")
            lines.append("\(what) (\(why)); see 'hookctl outbox list'")
        }
        return lines
    }

    package var json: JSONValue {
        var object = JSONObject()
        object["waiting"] = .int(waiting)
        object["given_up"] = .int(givenUp)
        object["sinks"] = .array(sinks.filter { $0.waiting > 0 || $0.givenUp > 0 }.map(\.json))
        return .object(object)
    }

    /// `19:18`, `19:18 tomorrow`, or `12-01 19:18` further away, in the host's time zone.
    package static func clockTime(_ epoch: Double, now: Double) -> String {
        func local(_ value: Double) -> tm {
            var seconds = time_t(value.rounded(.down))
            var parts = tm()
            localtime_r(&seconds, &parts)
            return parts
        }
        let when = local(epoch), today = local(now), tomorrow = local(now + 86_400)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let clock = "\(two(when.tm_hour)):\(two(when.tm_min))"
        func sameDay(_ a: tm, _ b: tm) -> Bool { a.tm_year == b.tm_year && a.tm_yday == b.tm_yday }
        if sameDay(when, today) { return clock }
        if sameDay(when, tomorrow) { return clock + " tomorrow" }
        return "\(two(when.tm_mon + 1))-\(two(when.tm_mday)) \(clock)"
    }
}
