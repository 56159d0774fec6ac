/// The pace and the backoff of one endpoint, shared by every hookctl process (hooks and the flusher):
/// a token bucket (the phone's relay allows 5 requests a second per source with a burst of 10, and
/// answers 429 beyond that) and the time before which the endpoint is left alone after a failure: a
/// quarter of how long it has been failing (1 s to a minute), so a relay back after a short outage is
/// found within seconds, and many hooks failing at once do not push the backoff to its cap.
/// One small file per endpoint under `outbox/endpoints/`, read and written under its flock; times are
/// on the monotonic clock, so a wall-clock jump changes nothing (a reboot resets the file).
struct EndpointPacer: Sendable {
    var directory: String
    var rate: Double
    var burst: Double

    /// A little under the relay's 5 a second and burst of 10: at the very edge of a limit, timing skew
    /// between two clocks turns some requests into 429s.
    static let defaultRate: Double = 4.5
    static let defaultBurst: Double = 8
    /// Requests in flight at once to one endpoint from one process: one, so events reach it in the
    /// order they happened (a relay that takes requests in parallel may show them in any order).
    static let concurrency = 1
    /// The longest an endpoint that keeps failing is left alone between two tries (unless it asks for more).
    static let longestProbeInterval: Double = 60

    /// Seconds on CLOCK_MONOTONIC. The pace file holds them and every process compares them with its
    /// own reading, so they are a number every process's clock agrees on, not a `ContinuousClock.Instant`.
    static func clockSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    init(paths: Paths, rate: Double = EndpointPacer.defaultRate, burst: Double = EndpointPacer.defaultBurst) {
        directory = paths.outboxDirectory + "/endpoints"
        self.rate = rate
        self.burst = burst
    }

    struct State {
        var tokens: Double
        var updated: Double
        var blockedUntil: Double
        /// When the endpoint started failing (0: it delivers).
        var failingSince: Double
    }

    /// Runs `body` on the endpoint's state under its lock and saves what it changed. Without a usable
    /// file (read-only disk), `body` sees a fresh state and pacing is per process only.
    private func withState<T>(_ endpoint: String, _ body: (inout State, Double) -> T) -> T {
        let now = Self.clockSeconds()
        var state = State(tokens: burst, updated: now, blockedUntil: 0, failingSince: 0)
        let path = directory + "/" + OutboxNames.safeSink(endpoint)
        // (Not through a link in place of the outbox folder.)
        var opened = FileSystem.isSymlink(FileSystem.parentDirectory(of: directory)) ? nil : try? FileSystem.openStateFile(path, O_RDWR | O_CREAT)
        if opened == nil, !FileSystem.isDirectory(directory), !FileSystem.isSymlink(FileSystem.parentDirectory(of: directory)) {
            try? FileSystem.makeDirectories(directory)
            opened = try? FileSystem.openStateFile(path, O_RDWR | O_CREAT)
        }
        guard let fd = opened else { return body(&state, now) }
        defer { fd.close() }
        // Held for microseconds; a holder that is stopped (Ctrl-Z) must not hold up a hook: after 50 ms
        // this process paces on its own.
        guard (try? fd.lock(wait: .until(.after(seconds: 0.05), retryMicroseconds: 1000))) == true else { return body(&state, now) }
        let stored = (try? fd.read(count: 128, at: 0)) ?? []
        // Whether the file holds this state as read, in range: only then may an unchanged state skip the write.
        var asStored = false
        if !stored.isEmpty {
            let fields = String(decoding: stored, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
            // Times from another boot (the monotonic clock restarted) or damaged values start over.
            if fields.count == 4, fields.allSatisfy(\.isFinite), fields[1] <= now + 1 {
                state = State(tokens: min(burst, max(-burst, fields[0])), updated: fields[1],
                              blockedUntil: min(fields[2], now + RetryHint.maximum + 600), failingSince: min(max(0, fields[3]), now))
                asStored = fields[1] <= now && state.tokens == fields[0] && state.blockedUntil == fields[2] && state.failingSince == fields[3]
            }
        }
        state.tokens = min(burst, state.tokens + max(0, now - state.updated) * rate)
        state.updated = now
        let before = state
        let result = body(&state, now)
        // Unchanged but for the refill, the file stays as it is: refilling from its older time gives the
        // same tokens. A shorter text than the stored one is cut to its length.
        if !asStored || state.tokens != before.tokens || state.blockedUntil != before.blockedUntil || state.failingSince != before.failingSince {
            let text = Array("\(state.tokens) \(state.updated) \(state.blockedUntil) \(state.failingSince)\n".utf8)
            try? fd.writeAll(text, at: 0)
            if text.count < stored.count { try? fd.truncate(to: text.count) }
        }
        return result
    }

    /// Takes a token when one is there. Returns 0 when taken, else the wait until one is.
    /// `onCredit`: an event sent in the foreground (a person waits) never waits for the pace; it takes
    /// its token even when the bucket is empty (down to one burst below zero), so the sender waits longer.
    func take(_ endpoint: String, onCredit: Bool = false) -> Double {
        withState(endpoint) { state, _ in
            if onCredit || state.tokens >= 1 {
                state.tokens = max(-burst, state.tokens - 1)
                return 0
            }
            return (1 - state.tokens) / rate
        }
    }

    /// Seconds until the endpoint's backoff ends (0 when it may be tried).
    func backoff(_ endpoint: String) -> Double {
        withState(endpoint) { state, now in max(0, state.blockedUntil - now) }
    }

    /// A try failed in a way worth retrying: the endpoint is left alone for a quarter of the time it has
    /// been failing (1 s to `longestProbeInterval`), or for the server's `hint` when longer; a 429
    /// (`throttled`) also empties the bucket.
    func failed(_ endpoint: String, hint: Double?, throttled: Bool) {
        withState(endpoint) { state, now in
            if state.failingSince == 0 { state.failingSince = now }
            let probe = min(Self.longestProbeInterval, max(1, (now - state.failingSince) / 4))
            state.blockedUntil = max(state.blockedUntil, now + max(probe, RetryHint.clamp(hint) ?? 0))
            if throttled { state.tokens = 0 }
        }
    }

    /// A try delivered: the backoff ends. Returns whether the endpoint had been failing (its waiting
    /// entries are then due at once).
    @discardableResult
    func delivered(_ endpoint: String) -> Bool {
        withState(endpoint) { state, _ in
            let wasFailing = state.failingSince > 0
            state.failingSince = 0
            state.blockedUntil = 0
            return wasFailing
        }
    }
}
