import Synchronization

/// Where a command writes: the real file descriptors in the binary, buffers in tests.
public protocol OutputStream: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes straight to a file descriptor with write(2), retrying short writes and EINTR.
public final class FileDescriptorStream: OutputStream, Sendable {
    private let fd: Int32
    private let lock = Mutex(())

    public init(fd: Int32) { self.fd = fd }

    public static let standardOutput = FileDescriptorStream(fd: STDOUT_FILENO)
    public static let standardError = FileDescriptorStream(fd: STDERR_FILENO)

    public func write(_ text: String) {
        lock.withLock { _ in
            var bytes = Array(text.utf8)
            _ = writeAll(fd: fd, bytes: &bytes)
        }
    }
}

/// Collects output in memory (tests, and commands that build a report before printing it).
public final class BufferStream: OutputStream, Sendable {
    private let storage = Mutex("")

    public init() {}

    public func write(_ text: String) { storage.withLock { $0 += text } }
    public var text: String { storage.withLock { $0 } }
}

/// Writes every byte of `bytes` to `fd`; false when the descriptor refuses them.
@discardableResult
func writeAll(fd: Int32, bytes: inout [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
            Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        }
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += written
    }
    return true
}

/// A pthread mutex locked and unlocked by separate calls, for `Subprocess.spawnLock` only (it spans
/// the pipe creation and the spawn). Everything else uses Synchronization's `Mutex`; this goes when
/// the pipes are made with pipe2(O_CLOEXEC) and the spawn no longer needs a lock.
final class PthreadLock: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        pointer = .allocate(capacity: 1)
        pthread_mutex_init(pointer, nil)
    }

    deinit {
        pthread_mutex_destroy(pointer)
        pointer.deallocate()
    }

    func lock() { pthread_mutex_lock(pointer) }
    func unlock() { pthread_mutex_unlock(pointer) }
}
