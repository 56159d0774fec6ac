// Shared by both test targets: elapsed time for tests' waits and timings.
import Glibc

/// Seconds on the monotonic clock, for a test's own deadlines and timings (the product carries
/// `ContinuousClock` instants; a test compares plain numbers in its expectations).
public func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
