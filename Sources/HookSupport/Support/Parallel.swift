import Synchronization

/// Runs `body` for indices 0..<count on up to `jobs` OS threads at once (each may block on a child
/// process for minutes, which would starve a small shared pool) and returns the results in order.
package enum Parallel {
    package static func map<T: Sendable>(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = ParallelResults<T>(count: count)
        let queue = ParallelQueue(count: count) { index in results.set(index, body(index)) }
        var threads: [pthread_t] = []
        for _ in 0..<max(1, min(jobs, count)) {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(queue).toOpaque()
            if pthread_create(&thread, nil, { raw in
                Unmanaged<ParallelQueue>.fromOpaque(raw!).takeRetainedValue().work()
                return nil
            }, box) == 0 {
                threads.append(thread)
            } else {
                Unmanaged<ParallelQueue>.fromOpaque(box).release()
            }
        }
        if threads.isEmpty { queue.work() }
        for thread in threads { pthread_join(thread, nil) }
        return results.values.map { $0! }
    }
}

/// The indices still to run; each worker thread takes the next one until none is left.
package final class ParallelQueue: Sendable {
    private let next = Mutex(0)
    private let count: Int
    private let body: @Sendable (Int) -> Void

    package init(count: Int, body: @escaping @Sendable (Int) -> Void) {
        self.count = count
        self.body = body
    }

    package func work() {
        while true {
            let index: Int? = next.withLock { next in
                guard next < count else { return nil }
                next += 1
                return next - 1
            }
            guard let index else { return }
            body(index)
        }
    }
}

package final class ParallelResults<T: Sendable>: Sendable {
    private let storage: Mutex<[T?]>
    package init(count: Int) { storage = Mutex(Array(repeating: nil, count: count)) }
    package func set(_ index: Int, _ value: T) { storage.withLock { $0[index] = value } }
    package var values: [T?] { storage.withLock { $0 } }
}

extension Parallel {
    /// Runs `body` on an OS thread of its own and returns at once (a watch's follower of one host).
    package static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        if pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box) == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }
}
