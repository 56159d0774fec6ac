/// Where a command writes: the real file descriptors in the binary, buffers in tests.
public protocol OutputStream: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes straight to a file descriptor with write(2), retrying short writes and EINTR.
public final class FileDescriptorStream: OutputStream, @unchecked Sendable {
    private let fd: Int32
    private let lock = Mutex()

    public init(fd: Int32) { self.fd = fd }

    public static let standardOutput = FileDescriptorStream(fd: STDOUT_FILENO)
    public static let standardError = FileDescriptorStream(fd: STDERR_FILENO)

    public func write(_ text: String) {
        lock.withLock { try? FileDescriptor(rawValue: fd).writeAll(Array(text.utf8)) }
    }
}

/// Collects output in memory (tests, and commands that build a report before printing it).
public final class BufferStream: OutputStream, @unchecked Sendable {
    private let lock = Mutex()
    private var storage = ""

    public init() {}

    public func write(_ text: String) { lock.withLock { storage += text } }
    public var text: String { lock.withLock { storage } }
}

/// A plain pthread mutex: Synchronization's `Mutex` is non-copyable and awkward to store in classes shared
/// with C callbacks; this one is a reference type that can be captured freely.
public final class Mutex: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        pointer = .allocate(capacity: 1)
        pthread_mutex_init(pointer, nil)
    }

    deinit {
        pthread_mutex_destroy(pointer)
        pointer.deallocate()
    }

    public func lock() { pthread_mutex_lock(pointer) }
    public func unlock() { pthread_mutex_unlock(pointer) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(pointer)
        defer { pthread_mutex_unlock(pointer) }
        return try body()
    }
}
