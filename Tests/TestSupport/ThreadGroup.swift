// Shared by both test targets: tests that need real OS threads.
import Glibc

/// `count` OS threads running `body(index)` (not the test runner's small task pool, whose threads
/// may all be busy); `join` waits for them and returns their results in order.
public final class ThreadGroup<T: Sendable>: @unchecked Sendable {
    private var threads: [pthread_t] = []
    private let slots: [ThreadSlot<T>]

    public init(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) {
        slots = (0..<count).map { ThreadSlot(index: $0, body: body) }
        for slot in slots {
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { raw in
                Unmanaged<ThreadTask>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, Unmanaged.passRetained(slot as ThreadTask).toOpaque())
            precondition(created == 0, "pthread_create failed")
            threads.append(thread)
        }
    }

    public func join() throws -> [T] {
        for thread in threads { pthread_join(thread, nil) }
        threads = []
        return try slots.map { try $0.result!.get() }
    }
}

/// What a thread runs (not generic: a C thread entry point cannot capture a generic type).
class ThreadTask: @unchecked Sendable {
    func run() {}
}

/// One thread's work and result.
final class ThreadSlot<T: Sendable>: ThreadTask, @unchecked Sendable {
    let index: Int
    let body: @Sendable (Int) throws -> T
    var result: Result<T, Error>?
    init(index: Int, body: @escaping @Sendable (Int) throws -> T) {
        self.index = index
        self.body = body
    }
    override func run() { result = Result { try body(index) } }
}
