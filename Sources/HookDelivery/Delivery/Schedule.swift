/// Every wait a server asks for (the `Retry-After` header, Discord's `retry_after`, Telegram's
/// `parameters.retry_after`, any sink's hint) passes through this one clamp before hookctl uses it.
package enum RetryHint {
    /// The longest wait a server can impose: one hour. A longer (or infinite) hint waits one hour;
    /// a negative one waits nothing; a hint that is not a number is ignored. Expiry still applies.
    package static let maximum: Double = 3600

    package static func clamp(_ seconds: Double?) -> Double? {
        guard let seconds, !seconds.isNaN else { return nil }
        return min(max(0, seconds), maximum)
    }
}

extension DeliveryOutcome {
    /// The same outcome with its server hint through `RetryHint.clamp`.
    package var clamped: DeliveryOutcome { with { $0.retryAfter = RetryHint.clamp($0.retryAfter) } }
}

/// When an outbox entry is tried next and when it is given up, in terms that survive clock jumps:
/// expiry counts the time the entry has plausibly waited (each interval between attempts bounded by
/// the longest wait hookctl ever schedules), not the wall-clock distance from its creation.
package struct EntrySchedule: Sendable {
    package var policy: RetryPolicy

    package init(policy: RetryPolicy) { self.policy = policy }

    /// The longest interval between two attempts that counts fully towards an entry's age.
    package var longestPlausibleWait: Double { max(policy.max, RetryHint.maximum) + 600 }

    /// Marks attempt `attempts + 1` as started at `now`: counts it, adds the plausible part of the time
    /// since the last attempt to the age, and sets the next attempt (in case this one never reports back).
    package func start(_ entry: inout OutboxEntry, now: Double) {
        let since = now - (entry.lastAttempt ?? entry.created)
        entry.age += min(max(0, since.isFinite ? since : 0), longestPlausibleWait)
        entry.attempts += 1
        entry.lastAttempt = now
        entry.nextAttempt = now + nextDelay(entry, hint: nil)
    }

    /// The wait before the next attempt: exponential backoff (or the server's clamped hint, when longer),
    /// never past the moment the entry expires: expiry is checked when scheduling, not only after trying.
    package func nextDelay(_ entry: OutboxEntry, hint: Double?) -> Double {
        let delay = policy.delay(afterAttempt: max(1, entry.attempts), hint: RetryHint.clamp(hint))
        return max(0, min(delay, policy.expire - entry.age))
    }

    /// Whether the entry has waited long enough to be given up after a failed try.
    package func expired(_ entry: OutboxEntry) -> Bool { entry.age >= policy.expire }
}
