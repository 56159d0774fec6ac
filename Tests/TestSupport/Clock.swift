// Shared by both test targets: elapsed time for tests' waits and timings.
import Glibc

/// Seconds on the monotonic clock, for a test's own deadlines and timings (the product carries
/// `ContinuousClock` instants; a test compares plain numbers in its expectations).
public func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Polls `check` every 20 ms until it returns true or `timeout` seconds pass; then checks once more.
public func eventually(timeout: Double = 10, _ check: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicSeconds() + timeout
    while monotonicSeconds() < deadline {
        if try check() { return true }
        usleep(20_000)
    }
    return try check()
}
