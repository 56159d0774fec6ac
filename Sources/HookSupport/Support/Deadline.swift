/// Deadlines are instants of `ContinuousClock` (monotonic: a wall-clock jump moves none of them) and
/// what is left of them is a `Duration`, so they cannot be mixed with wall-clock epoch seconds (the
/// outbox's due times, events' times). Seconds as a `Double` appear only where a value crosses to C
/// (curl's and poll's millisecond timeouts, `Subprocess.timeout`), to a file other processes read (the endpoint pacer's),
/// to the config's durations, or to text.
extension ContinuousClock.Instant {
    /// The instant `seconds` from now; a non-finite or absurd count saturates instead of trapping.
    package static func after(seconds: Double) -> ContinuousClock.Instant {
        .now + .seconds(clampingSeconds: seconds)
    }

    /// Seconds left until this instant (negative once it has passed): for C timeouts and messages.
    package var secondsLeft: Double { (self - .now).inSeconds }

    package var hasPassed: Bool { ContinuousClock.now >= self }
}

extension Duration {
    /// The duration in seconds, for C calls and the config's text forms.
    package var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// `seconds` as a duration, saturating at a century either way (NaN is zero): never a trap.
    package static func seconds(clampingSeconds seconds: Double) -> Duration {
        guard !seconds.isNaN else { return .zero }
        return .seconds(min(max(seconds, -3.2e9), 3.2e9))
    }
}
