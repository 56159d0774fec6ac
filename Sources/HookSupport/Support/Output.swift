import Synchronization

/// Where a command writes: the real file descriptors in the binary, buffers in tests.
package protocol OutputStream: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes straight to a file descriptor with write(2), retrying short writes and EINTR.
package final class FileDescriptorStream: OutputStream, Sendable {
    private let fd: Int32
    private let lock = Mutex(())

    package init(fd: Int32) { self.fd = fd }

    package static let standardOutput = FileDescriptorStream(fd: STDOUT_FILENO)
    package static let standardError = FileDescriptorStream(fd: STDERR_FILENO)

    package func write(_ text: String) {
        write(utf8: Array(text.utf8))
    }

    package func write(utf8 bytes: [UInt8]) {
        lock.withLock { _ in try? FileDescriptor(rawValue: fd).writeAll(bytes) }
    }
}

extension OutputStream {
    /// Writes UTF-8 bytes made for output (a large JSON document): to a file descriptor as they are,
    /// with no String made of them and checked, else as text.
    package func write(utf8 bytes: [UInt8]) {
        if let stream = self as? FileDescriptorStream { stream.write(utf8: bytes) } else { write(String(decoding: bytes, as: UTF8.self)) }
    }
}

/// Collects output in memory (tests, and commands that build a report before printing it).
package final class BufferStream: OutputStream, Sendable {
    private let storage = Mutex("")

    package init() {}

    package func write(_ text: String) { storage.withLock { $0 += text } }
    package var text: String { storage.withLock { $0 } }
}
