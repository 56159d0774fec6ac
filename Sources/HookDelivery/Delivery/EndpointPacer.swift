import Synchronization

/// The pace and the backoff of each endpoint, kept in memory by the process that sends: the one sender
/// per user (a foreground run, by hand or without a sender, keeps its own). A token bucket (the phone's
/// relay allows 5 requests a second per source with a burst of 10, and answers 429 beyond that) and the
/// time before which the endpoint is left alone after a failure: a quarter of how long it has been
/// failing (1 s to a minute), so a relay back after a short outage is found within seconds, and many
/// failures at once do not push the backoff to its cap. Times are on the monotonic clock, so a
/// wall-clock jump changes nothing. Others learn of a backoff from the sink's health record
/// (`SinkHealth.probeAt`), and the sender of a recovery seen elsewhere (`hookctl test`) the same way.
package final class EndpointPacer: Sendable {
    package let rate: Double
    package let burst: Double

    /// A little under the relay's 5 a second and burst of 10: at the very edge of a limit, timing skew
    /// between two clocks turns some requests into 429s.
    package static let defaultRate: Double = 4.5
    package static let defaultBurst: Double = 8
    /// Requests in flight at once to one endpoint: one, so events reach it in the order they happened
    /// (a relay that takes requests in parallel may show them in any order).
    package static let concurrency = 1
    /// The longest an endpoint that keeps failing is left alone between two tries (unless it asks for more).
    package static let longestProbeInterval: Double = 60

    /// Seconds on CLOCK_MONOTONIC.
    package static func clockSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    private struct State {
        var tokens: Double
        var updated: Double
        var blockedUntil: Double = 0
        /// When the endpoint started failing (0: it delivers).
        var failingSince: Double = 0
    }

    private let states = Mutex<[String: State]>([:])

    package init(rate: Double = EndpointPacer.defaultRate, burst: Double = EndpointPacer.defaultBurst) {
        self.rate = rate
        self.burst = burst
    }

    /// Runs `body` on the endpoint's state, its bucket refilled up to `now`.
    private func withState<T>(_ endpoint: String, now: Double, _ body: (inout State) -> T) -> T {
        states.withLock { states in
            var state = states[endpoint] ?? State(tokens: burst, updated: now)
            state.tokens = min(burst, state.tokens + max(0, now - state.updated) * rate)
            state.updated = max(state.updated, now)
            let result = body(&state)
            states[endpoint] = state
            return result
        }
    }

    /// Takes a token when one is there. Returns 0 when taken, else the wait until one is.
    /// `onCredit`: an event sent in the foreground (a person waits) never waits for the pace; it takes
    /// its token even when the bucket is empty (down to one burst below zero), so the backlog waits longer.
    package func take(_ endpoint: String, onCredit: Bool = false) -> Double {
        withState(endpoint, now: Self.clockSeconds()) { state in
            if onCredit || state.tokens >= 1 {
                state.tokens = max(-burst, state.tokens - 1)
                return 0
            }
            return (1 - state.tokens) / rate
        }
    }

    /// Seconds until the endpoint takes a request at its pace: its backoff, or the wait for a token (0: now).
    package func readyIn(_ endpoint: String, now: Double = EndpointPacer.clockSeconds()) -> Double {
        withState(endpoint, now: now) { max(0, $0.blockedUntil - now, $0.tokens >= 1 ? 0 : (1 - $0.tokens) / rate) }
    }

    /// Whether the endpoint has failed since it last delivered (its queue then goes oldest first).
    package func isFailing(_ endpoint: String) -> Bool {
        withState(endpoint, now: Self.clockSeconds()) { $0.failingSince > 0 }
    }

    /// Seconds until the endpoint's backoff ends (0 when it may be tried).
    package func backoff(_ endpoint: String, now: Double = EndpointPacer.clockSeconds()) -> Double {
        withState(endpoint, now: now) { max(0, $0.blockedUntil - now) }
    }

    /// A try failed in a way worth retrying: the endpoint is left alone for a quarter of the time it has
    /// been failing (1 s to `longestProbeInterval`), or for the server's `hint` when longer; a 429
    /// (`throttled`) also empties the bucket.
    package func failed(_ endpoint: String, hint: Double?, throttled: Bool, now: Double = EndpointPacer.clockSeconds()) {
        withState(endpoint, now: now) { state in
            if state.failingSince == 0 { state.failingSince = now }
            let probe = min(Self.longestProbeInterval, max(1, (now - state.failingSince) / 4))
            state.blockedUntil = max(state.blockedUntil, now + max(probe, RetryHint.clamp(hint) ?? 0))
            if throttled { state.tokens = 0 }
        }
    }

    /// A try delivered: the backoff ends. Returns whether the endpoint had been failing.
    @discardableResult
    package func delivered(_ endpoint: String) -> Bool {
        withState(endpoint, now: Self.clockSeconds()) { state in
            defer { (state.failingSince, state.blockedUntil) = (0, 0) }
            return state.failingSince > 0
        }
    }
}
