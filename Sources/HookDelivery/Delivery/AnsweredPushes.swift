/// Replace once answered: when an agent session leaves `needs_input` (answered anywhere: from a push,
/// by `reply`, at the keyboard), the question's push is updated where the sink can do that, so the phone
/// does not keep a stale question. One mechanism for every sink: a follow-up entry in the outbox (durable,
/// sent by the sender like any push, never on a hook's time), which each sink turns into its own update
/// (`Sink.answeredDelivery`): ntfy publishes again under the question's sequence id, Telegram edits the
/// message it sent (its `message_id`, kept as the push's receipt), Pushover cancels an emergency push's
/// retries by its tag. The relay's contract has no field for APNs' collapse id (see `RelaySink`), so it
/// gets none.
package enum AnsweredPushes {
    /// The agent event of a follow-up (never in the event log: it lives only in the outbox).
    package static let agentEvent = "answered"

    /// The stable id of one question of one agent session: `q-` and 16 hex digits of a hash of the board
    /// key and the question push's fingerprint. At most 64 bytes, in `[-_A-Za-z0-9]`, and no secret in it.
    package static func replaceID(boardKey: String, fingerprint: String) -> String {
        let hash = String(Text.fnv1a(boardKey + "\u{0}" + fingerprint), radix: 16)
        return "q-" + String(repeating: "0", count: 16 - hash.count) + hash
    }

    /// The replace id of a question push (nil for an event that asks nothing).
    package static func replaceID(of event: Event) -> String? {
        guard event.kind == .needsInput else { return nil }
        return replaceID(boardKey: BoardState.key(for: event), fingerprint: PushPolicy.fingerprint(event))
    }

    /// Whether `event` is a follow-up, and the replace id of the question it answers.
    package static func answeredID(of event: Event) -> String? {
        event.agentEvent == agentEvent && event.kind == .info ? event.detail : nil
    }

    /// The follow-up for the session `previous` describes, when `event` takes it out of a question that was
    /// pushed: nil otherwise (still asking, a new question, nothing pushed, another session).
    /// `option`: the option pressed, when the event says (a push's answer); else the neutral "answered".
    package static func followUp(after event: Event, previous: BoardEntry?, option: String? = nil) -> Event? {
        // info and notice leave the board's state as it was (a key that only moved a cursor, a message).
        guard let previous, previous.state == .needsInput, ![.needsInput, .test, .info, .notice].contains(event.kind),
              let fingerprint = previous.lastPush, fingerprint.hasPrefix(EventKind.needsInput.rawValue + ":"),
              previous.key == BoardState.key(for: event) else { return nil }
        let id = replaceID(boardKey: previous.key, fingerprint: fingerprint)
        let words = option.map { "answered: " + $0 } ?? "answered"
        var followUp = Event(id: followUpID(replaceID: id, pushedAt: previous.lastPushAt ?? 0), time: event.time,
                             agent: previous.agent, kind: .info, agentEvent: agentEvent, title: previous.title, message: words, priority: .low, host: event.host,
                             tmux: previous.tmux ?? event.tmux, cwd: previous.cwd ?? event.cwd, sessionID: previous.sessionID,
                             detail: id)
        followUp.project = event.project
        return followUp
    }

    /// The follow-up's event id: the same for every caller that read the same question push off the board
    /// (its replace id and the time it was pushed), so hooks racing on one transition make one follow-up
    /// (`AnsweredClaims`), while the same question asked and pushed again later gets a follow-up of its own.
    /// Shaped as a UUID, as the outbox's file names expect of an event id.
    package static func followUpID(replaceID: String, pushedAt: Double) -> String {
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        let seed = "answered\u{0}" + replaceID + "\u{0}" + OutboxNames.digits(pushedAt)
        let first = Text.fnv1a(seed)
        // 8-4-4-4-12 hex digits, built from bytes: `String(characters[range])` runs generic and costs a
        // hook's first call a conformance search (0.2 M instructions).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for (index, byte) in (hex(first) + hex(Text.fnv1a(seed + "\u{0}" + hex(first)))).utf8.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The sinks a follow-up goes to: those that can replace a push and took the session's question.
    package static func sinks(for followUp: Event, engine: DeliveryEngine) -> [String] {
        var question = followUp
        question.kind = .needsInput
        return engine.sinks.filter { $0.canReplace && $0.accepts(question) }.map(\.name)
    }

    /// The follow-up after an event recorded outside a hook (`reply`, an answer pressed from a push: the
    /// latter names its option), queued for the sender, which is started unless `HOOKCTL_NO_BACKGROUND`.
    package static func queue(after event: Event, previous: BoardEntry?, config: Config?, paths: Paths, configOverride: String?,
                      environment: [String: String]) -> [String] {
        guard let config, let followUp = followUp(after: event, previous: previous, option: event.answer?.option) else { return [] }
        let engine = DeliveryEngine(usable: SinkRegistry.makeUsableSinks(config: config), outbox: Outbox(paths: paths), defaults: config.defaults,
                                    answers: AnswerSigner(paths: paths, environment: environment))
        var problems: [String] = []
        if !commit(followUp, engine: engine, problems: &problems).isEmpty, environment["HOOKCTL_NO_BACKGROUND"] != "1" {
            BackgroundFlusher.start(paths: paths, configOverride: configOverride, environment: environment)
        }
        return problems
    }

    /// Commits the follow-up for the sender (no attempt here: never on the caller's time), unless another
    /// caller already queued it (`AnsweredClaims`); returns the sinks it was queued for.
    @discardableResult
    package static func commit(_ followUp: Event, engine: DeliveryEngine, problems: inout [String]) -> [String] {
        let names = sinks(for: followUp, engine: engine)
        guard !names.isEmpty else { return [] }
        let claims = AnsweredClaims(paths: engine.outbox.paths)
        // Claimed once it is queued, not before: a caller killed between a claim and its commit (an agent
        // ends a slow hook) would leave the claim and no follow-up, and the question on the phone (a Pushover
        // emergency repeating for an hour). Two callers racing through this window both queue it: the same
        // update twice, which every sink that replaces takes as one.
        guard !claims.isClaimed(followUp.id) else { return [] }
        let committed = engine.commit(followUp, sinks: names, logged: true, syncAtOnce: true, startAttempt: false)
        committed.claimed.forEach { $0.release() }
        if let failure = committed.failure {
            problems.append("cannot queue the answered update of the push: \(failure)")
        }
        guard !committed.claimed.isEmpty else { return [] }
        claims.record(followUp.id)
        return names
    }
}

/// At most one follow-up per question push. Two hooks racing on one transition (say `reply` and the agent's
/// own hook an instant later, or two of the agent's hooks) can both read the board while it still shows the
/// question, before either's event is logged, and both would queue the follow-up. Its id is the same for
/// both (`AnsweredPushes.followUpID`); `state/answered/<id>` is made once it is queued, and a caller that
/// finds it queues nothing, even once the first was sent (only two callers inside the same few milliseconds
/// both queue it: the same update twice). Claims are small empty files, removed after a day when a new one is
/// made (a race is over in seconds; a question pushed again has another id).
package struct AnsweredClaims: Sendable {
    package static let kept: Double = 24 * 3600
    package let directory: String

    package init(paths: Paths) { directory = paths.stateDirectory + "/answered" }

    /// Records that follow-up `id` is queued. A claim that cannot be written (no room, no permission) is
    /// left unwritten: a later caller queues the follow-up again, and sent twice it is the same update,
    /// where never sent the question would stay on the phone.
    package func record(_ id: String, now: Double = WallClock.nowEpoch()) {
        guard (try? FileSystem.makeDirectories(directory)) != nil,
              let fd = try? FileSystem.openStateFile(directory + "/" + SinkText.identifier(id), O_WRONLY | O_CREAT | O_EXCL)
        else { return }
        fd.close()
        prune(now: now)
    }

    /// Whether follow-up `id` was queued already (its claim exists).
    package func isClaimed(_ id: String) -> Bool {
        FileSystem.status(directory + "/" + SinkText.identifier(id), followSymlinks: false) != nil
    }

    private func prune(now: Double) {
        for name in (try? FileSystem.list(directory)) ?? [] where !name.hasPrefix(".") {
            let path = directory + "/" + name
            guard let info = FileSystem.status(path, followSymlinks: false), now - Double(info.st_mtim.tv_sec) > Self.kept else { continue }
            FileSystem.remove(path)
        }
    }
}

/// What a sink's service answered for a question push that a later update needs (Telegram's `message_id`),
/// one small file per (sink, replace id) under `state/receipts/`, written by the sender when the push is
/// delivered and read when its follow-up is sent. A receipt is removed once its
/// follow-up went out.
package struct PushReceipts: Sendable {
    package let directory: String

    package init(paths: Paths) { directory = paths.stateDirectory + "/receipts" }

    package func file(sink: String, replaceID: String) -> String {
        directory + "/" + OutboxNames.safeSink(sink) + "-" + SinkText.identifier(replaceID) + ".txt"
    }

    package func write(_ receipt: String, sink: String, replaceID: String) throws {
        try FileSystem.makeDirectories(directory)
        try FileSystem.writeAtomically(file(sink: sink, replaceID: replaceID), text: receipt, mode: 0o600, sync: true)
    }

    package func read(sink: String, replaceID: String) -> String? {
        guard let text = (try? FileSystem.readString(file(sink: sink, replaceID: replaceID))) ?? nil else { return nil }
        let trimmed = Text.trimmed(text)
        return trimmed.isEmpty || trimmed.count > 64 ? nil : trimmed
    }

    package func remove(sink: String, replaceID: String) {
        FileSystem.remove(file(sink: sink, replaceID: replaceID))
    }
}
