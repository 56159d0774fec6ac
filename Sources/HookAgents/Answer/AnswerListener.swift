import Synchronization

/// The answer listener's run (`hookctl outbox listen`): the sources it follows and what it does with
/// each answer (`PushAnswer`); its files, start and log are declared with it in the delivery layer.
extension AnswerListener {
    /// Where each source has read to: `{"ntfy <ref>": "<message id>", "telegram <ref>": <offset>}`.
    /// Shared by the sources' threads (one lock around the values and the file).
    package final class Positions: Sendable {
        package let path: String
        private let state: Mutex<(values: JSONObject, dirty: Bool)>

        package init(paths: Paths) {
            path = positionFile(paths)
            let bytes = (try? FileSystem.read(path, limit: 64 << 10, followSymlinks: false)) ?? nil
            state = Mutex((bytes.flatMap { try? JSON.parse($0) }?.objectValue ?? JSONObject(), false))
        }

        package subscript(source: String) -> JSONValue? { state.withLock { $0.values[source] } }

        /// Sets where `source` has read to; flushed to disk now when `durable` (before acting on it).
        package func set(_ source: String, _ value: JSONValue, durable: Bool) throws {
            try state.withLock { state in
                state.values[source] = value
                state.dirty = true
                if durable { try Self.write(&state, path) }
            }
        }

        package func flush() throws {
            try state.withLock { try Self.write(&$0, path) }
        }

        private static func write(_ state: inout (values: JSONObject, dirty: Bool), _ path: String) throws {
            guard state.dirty else { return }
            try FileSystem.writeAtomically(path, text: JSON.serialize(.object(state.values)) + "\n", mode: 0o600, sync: true, followSymlinks: false)
            state.dirty = false
        }
    }

    /// What a source reads from: ntfy reply topics and Telegram bots with answer buttons.
    package static func sources(_ sinks: [any Sink]) -> [any AnswerSource] {
        var sources: [any AnswerSource] = []
        for sink in sinks {
            if let ntfy = sink as? NtfySink, let topic = ntfy.replyTopic {
                sources.append(NtfyReplySource(sink: ntfy, topic: topic))
            } else if let telegram = sink as? TelegramSink, telegram.actions {
                sources.append(TelegramReplySource(sink: telegram))
            }
        }
        return sources
    }

    /// The listener's life: under its lock, each source on its own thread, until no answer is open
    /// (past `answer-open` and the grace), the config changes (true: the caller starts over) or
    /// `maximumLifetime` passes.
    package static func run(sinks: [any Sink], paths: Paths, environment: [String: String], configStamp: @escaping @Sendable () -> String?,
                    maximumLifetime: Double = 86_400 * 2) -> Bool {
        let daemon = daemon(paths)
        guard let lock = daemon.lock() else {
            daemon.log("not started: another listener holds \(daemon.lockFile)")
            return false
        }
        defer { lock.unlock() }
        let sources = sources(sinks)
        let until = openUntil(paths) ?? 0
        if sources.isEmpty {
            log(paths, "stopped at once: no sink takes answers (ntfy reply_topic, telegram actions)")
            return false
        }
        log(paths, "started: answers open until \(WallClock.iso8601(until)); following " + sources.map(\.name).joined(separator: ", "))
        let stamp = configStamp()
        let end = ContinuousClock.Instant.after(seconds: maximumLifetime)
        let stop = Atomic<Int>(0)
        let handler = PushAnswer(paths: paths, environment: environment, positions: Positions(paths: paths))
        let outcome = Mutex((reason: "", restart: false))
        // One thread per source, and one that watches for the end; each source looks at `stop` at least
        // every second (its press, bounded by tmux's timeouts, ends first).
        _ = Parallel.map(sources.count + 1, jobs: sources.count + 1) { index in
            if index < sources.count {
                sources[index].follow(handler: handler, stop: { stop.load(ordering: .relaxed) != 0 })
                return
            }
            while true {
                sleepSeconds(1)
                let found: (String, Bool)?
                if configStamp() != stamp { found = ("the config changed", true) }
                else if end.hasPassed { found = ("its lifetime (\(Int(maximumLifetime)) s) ended", false) }
                else if WallClock.nowEpoch() > (openUntil(paths) ?? 0) + grace { found = ("no answer is open any more", false) }
                else { found = nil }
                if let found {
                    outcome.withLock { $0 = (found.0, found.1) }
                    stop.store(1, ordering: .relaxed)
                    return
                }
            }
        }
        let (reason, restart) = outcome.withLock { ($0.reason, $0.restart) }
        handler.finish()
        log(paths, "stopped: \(reason); \(handler.summary)")
        return restart
    }
}

/// One place answers come from.
package protocol AnswerSource: Sendable {
    var name: String { get }
    /// Reads answers and hands each to `handler` until `stop` says so; never spins: waits back off.
    func follow(handler: PushAnswer, stop: @escaping () -> Bool)
}

/// Waits between attempts after failures: 1 s, doubling, at most 60 s; reset by a success.
package struct Backoff {
    package var failures = 0
    package static let longest: Double = 60

    package var next: Double { min(Self.longest, Double(1 << min(failures, 6))) }

    /// Sleeps the next wait (in steps of at most a second, so `stop` is heard), then counts the failure.
    package mutating func wait(stop: () -> Bool) {
        let end = ContinuousClock.Instant.after(seconds: next)
        failures += 1
        while !end.hasPassed, !stop() { sleepSeconds(min(1, max(0.01, end.secondsLeft))) }
    }
}

/// An ntfy reply topic followed as ntfy's JSON stream from `since=` the last message read, through
/// libcurl (`HTTPClient.stream`); each line is handled as it arrives.
package struct NtfyReplySource: AnswerSource {
    package var sink: NtfySink
    package var topic: String
    /// ntfy sends a keepalive every 45 s by default: a stream silent for longer is reconnected (some 5 s
    /// later: libcurl averages the speed over its last seconds).
    package static let silence: Double = 100
    /// A stream that lasted less than this counts as a failed try (the wait before the next one grows).
    package static let shortest: Double = 5

    package var name: String { "ntfy '\(sink.name)'" }
    package var positionKey: String { "ntfy " + Base64.url(Array((SHA256.digest(Array((sink.server + "/" + topic).utf8)) ?? []).prefix(9))) }

    package var headers: [(String, String)] {
        [("User-Agent", Product.userAgent)] + (sink.token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// `since=`: the last message read, else the start of the oldest answer that may still be open.
    package func since(_ handler: PushAnswer) -> String {
        if let id = handler.positions[positionKey]?.stringValue, !id.isEmpty,
           id.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) { return id }
        return String(Int(WallClock.nowEpoch() - AnswerToken.lifetime))
    }

    package func follow(handler: PushAnswer, stop: @escaping () -> Bool) {
        var backoff = Backoff()
        while !stop() {
            let url = sink.server + "/" + topic + "/json?since=" + since(handler)
            let started = ContinuousClock.now
            let end = HTTPClient.stream(url: url, headers: headers, connectTimeout: sink.settings.connectTimeout, silence: Self.silence,
                                        stop: stop) { line in handle(line, handler: handler) }
            var outcome = end.answered
            try? handler.positions.flush()
            if stop() { break }
            // A stream the server ends at once, again and again, is waited for like a failure: never a spin.
            if (ContinuousClock.now - started).inSeconds < Self.shortest { outcome = false }
            if outcome { backoff.failures = 0 } else {
                // The reason never names the topic (a secret): curl's words name the host at most, and are scrubbed anyway.
                let reason = end.why.map { " (" + Text.scrub(Text.truncate(Text.singleLine($0), characters: 120), secrets: [topic]) + ")" } ?? ""
                handler.note("\(name): cannot follow the reply topic\(reason); next try in \(Int(backoff.next)) s")
                backoff.wait(stop: stop)
            }
        }
    }

    /// One line of ntfy's stream: `{"id","time","event","topic","message"}`; only `message` events count.
    package func handle(_ line: [UInt8], handler: PushAnswer) {
        guard let json = try? JSON.parse(line), json["event"]?.stringValue == "message", let id = json["id"]?.stringValue,
              id.utf8.count <= 64 else { return }
        let message = json["message"]?.stringValue ?? ""
        let text = (try? JSON.parse(Array(message.utf8)))?["answer"]?.stringValue ?? Text.trimmed(message)
        guard let token = AnswerToken.parse(text) else {
            try? handler.positions.set(positionKey, .string(id), durable: false)
            handler.ignored(looksLikeAnswer: text.hasPrefix(AnswerToken.prefix + "."), channel: "ntfy")
            return
        }
        // Written down before acting: a kill from here on never presses this answer again.
        do { try handler.positions.set(positionKey, .string(id), durable: true) } catch {
            handler.note("\(name): cannot record where the listener has read to (\(error)); answer \(id) not acted on")
            return
        }
        let outcome = handler.handle(token, channel: "ntfy")
        if case .refused(let why, let verified) = outcome, verified { notifyRefusal(why) }
    }

    /// "not answered: …" on the push topic, for an answer that was really ours.
    package func notifyRefusal(_ why: String) {
        let body = JSON.serialize(.object(JSONObject([("topic", .string(sink.topic)), ("title", .string("Not answered")),
                                                       ("message", .string("not answered: " + why)), ("tags", .array([.string("warning")]))])))
        _ = HTTPClient.send(HTTPRequest(method: "POST", url: sink.server + "/",
                                        headers: [("Content-Type", "application/json")] + headers, body: Array(body.utf8),
                                        timeout: sink.settings.timeout, connectTimeout: sink.settings.connectTimeout))
    }
}

/// A Telegram bot's button presses: `getUpdates` long-polled (25 s) from `offset`, only
/// `callback_query` updates, each answered with `answerCallbackQuery` (the toast says what happened).
package struct TelegramReplySource: AnswerSource {
    package var sink: TelegramSink
    package var name: String { "telegram '\(sink.name)'" }
    package var positionKey: String { "telegram " + Base64.url(Array((SHA256.digest(Array(sink.token.utf8)) ?? []).prefix(9))) }
    package static let longPoll = 25

    package func call(_ method: String, _ object: JSONObject, timeout: Double) -> HTTPResponse {
        HTTPClient.send(HTTPRequest(method: "POST", url: "\(sink.apiURL)/bot\(sink.token)/\(method)",
                                    headers: [("Content-Type", "application/json"), ("User-Agent", Product.userAgent)],
                                    body: Array(JSON.serialize(.object(object)).utf8), timeout: timeout,
                                    connectTimeout: sink.settings.connectTimeout))
    }

    package func follow(handler: PushAnswer, stop: @escaping () -> Bool) {
        var backoff = Backoff()
        var quick = Backoff()
        while !stop() {
            var request = JSONObject([("timeout", .int(Self.longPoll)), ("allowed_updates", .array([.string("callback_query")]))])
            if let offset = handler.positions[positionKey]?.intValue { request["offset"] = .int(offset) }
            let started = ContinuousClock.now
            let response = call("getUpdates", request, timeout: Double(Self.longPoll) + 10)
            guard response.status == 200, response.body.count <= 4 << 20, let json = try? JSON.parse(response.body),
                  json["ok"]?.boolValue == true, let updates = json["result"]?.arrayValue else {
                if stop() { break }
                handler.note("\(name): getUpdates failed (HTTP \(response.status)); next try in \(Int(backoff.next)) s")
                backoff.wait(stop: stop)
                continue
            }
            backoff.failures = 0
            // A server that answers an empty long poll at once, again and again, is not asked in a loop.
            if updates.isEmpty, (ContinuousClock.now - started).inSeconds < 1 { quick.wait(stop: stop) } else { quick.failures = 0 }
            for update in updates.prefix(100) {
                guard let id = update["update_id"]?.intValue else { continue }
                guard let query = update["callback_query"], let queryID = query["id"]?.stringValue else {
                    try? handler.positions.set(positionKey, .int(id + 1), durable: false)
                    continue
                }
                let data = query["data"]?.stringValue ?? ""
                let chat = query["message"]?["chat"]?["id"]?.scalarText ?? ""
                guard let token = AnswerToken.parse(data) else {
                    try? handler.positions.set(positionKey, .int(id + 1), durable: false)
                    handler.ignored(looksLikeAnswer: data.hasPrefix(AnswerToken.prefix + "."), channel: "telegram")
                    _ = call("answerCallbackQuery", JSONObject([("callback_query_id", .string(queryID)), ("text", .string("not answered: not a hookctl answer"))]), timeout: 10)
                    continue
                }
                do { try handler.positions.set(positionKey, .int(id + 1), durable: true) } catch {
                    handler.note("\(name): cannot record where the listener has read to (\(error)); update \(id) not acted on")
                    break
                }
                let outcome: PushAnswer.Outcome
                if chat != sink.chatID, !sink.chatID.hasPrefix("@") {
                    outcome = handler.refuse(token: token, channel: "telegram", why: "the button was pressed in another chat")
                } else {
                    outcome = handler.handle(token, channel: "telegram")
                }
                let toast: String
                switch outcome {
                case .pressed(let label): toast = "answered: " + label
                case .refused(let why, _): toast = "not answered: " + why
                }
                _ = call("answerCallbackQuery", JSONObject([("callback_query_id", .string(queryID)),
                                                           ("text", .string(Text.truncate(toast, characters: 190)))]), timeout: 10)
            }
            try? handler.positions.flush()
        }
    }
}
