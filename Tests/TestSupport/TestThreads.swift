// Shared by both test targets: where the tests that wait on processes run. Only with Swift Testing
// at hand: a release build of the package (`swift build -c release`, the package and deploy tests)
// builds this target too, without it.
#if canImport(Testing)
import Glibc
import Synchronization
import Testing

/// A few OS threads of the tests' own, as a task executor. Swift Testing runs each test on the Swift
/// concurrency pool, which is as wide as the machine has CPUs (two here); a synchronous test that
/// waits on a child process, a server or a budget holds one of those two threads the whole time,
/// though it uses little CPU (the whole suite used 0.42 of a core on average). Tests of suites marked
/// `.onTestThreads` run here instead, a few more at once, and the pool stays free to start them.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    /// How many tests run at once: twice the CPUs, at least 4, at most 8.
    public static let shared = TestThreads(count: min(8, max(4, 2 * Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))))

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [UnownedJob] = []

    init(count: Int) {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(ready, nil)
        for _ in 0..<count {
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { raw in Unmanaged<TestThreads>.fromOpaque(raw!).takeUnretainedValue().work() },
                                         Unmanaged.passRetained(self).toOpaque())
            precondition(created == 0, "pthread_create failed")
            pthread_detach(thread)
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(lock)
        queue.append(job)
        pthread_cond_signal(ready)
        pthread_mutex_unlock(lock)
    }

    private func work() -> Never {
        while true {
            pthread_mutex_lock(lock)
            while queue.isEmpty { pthread_cond_wait(ready, lock) }
            let job = queue.removeFirst()
            pthread_mutex_unlock(lock)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs every test of the suite it marks on `TestThreads` (see there).
public struct OnTestThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
    }
}

extension Trait where Self == OnTestThreads {
    /// The suite's tests run on the tests' own threads, not the CPU-wide concurrency pool.
    public static var onTestThreads: Self { OnTestThreads() }
}
#endif
