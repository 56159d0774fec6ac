/// What hookctl was doing when a system call failed. Its text completes "cannot … <path>" in
/// `SystemError.io`, and it picks the exit code there: a failed write or creation is "cannot create"
/// (73), anything else an I/O error (74).
package enum FileOperation: String, Sendable {
    case read
    case write
    case create
    case lock
    case rotate
    case readTooLarge = "read (file too large)"
    case watchInit = "watch (inotify_init1)"
    case watchAdd = "watch (inotify_add_watch)"
    case watchPoll = "watch (poll)"

    package var exitCode: ExitCode { self == .create || self == .write ? .cannotCreate : .ioError }
}

/// A failed system call: errno's code and what hookctl was doing. `at(path)` makes it the error a user sees.
package struct Errno: Error, Sendable, Equatable {
    package var code: Int32
    package var operation: FileOperation

    package init(_ code: Int32, _ operation: FileOperation) {
        self.code = code
        self.operation = operation
    }

    /// errno as the last failed call left it.
    package static func current(_ operation: FileOperation) -> Errno { Errno(errno, operation) }

    /// The user's error, naming the file.
    package func at(_ path: String) -> SystemError { .io(path: path, operation: operation, errno: code) }
}

/// Runs `call` again while it fails with EINTR; any other failure (a negative result) throws errno.
/// The one place hookctl retries an interrupted system call.
@inline(__always)
package func retryingInterrupts<Result: BinaryInteger>(_ operation: FileOperation, _ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result >= 0 { return result }
        let code = errno
        if code != EINTR { throw Errno(code, operation) }
    }
}

/// Runs `body`, turning an `Errno` it throws into the user's error naming `path`.
@inline(__always)
package func onFile<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as Errno { throw error.at(path) }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws `Errno` (the standard library's only rethrows).
    package func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws(Errno) -> T) throws(Errno) -> T {
        try withUnsafeBytes { raw in Swift.Result { () throws(Errno) -> T in try body(raw) } }.get()
    }

    package mutating func withMutableBytes<T>(_ body: (UnsafeMutableRawBufferPointer) throws(Errno) -> T) throws(Errno) -> T {
        try withUnsafeMutableBytes { raw in Swift.Result { () throws(Errno) -> T in try body(raw) } }.get()
    }
}

/// An open file descriptor: the one wrapper over open/read/write/fstat/flock/poll/close that the
/// outbox, the event log and its readers, the payload reader and `Subprocess` use. A value with no
/// ownership of its own: whoever opens one closes it, `closeAfter` when it does not outlive a scope.
/// Every descriptor hookctl opens is close-on-exec, so no child inherits one.
package struct FileDescriptor: Sendable, Hashable {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)
    package static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO)
    package static let standardError = FileDescriptor(rawValue: STDERR_FILENO)

    /// Opens `path` (close-on-exec is added). A failure throws errno with `operation`.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600,
                            operation: FileOperation = .read) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts(operation) { Glibc.open(path, flags | O_CLOEXEC, mode) })
    }

    /// A pipe whose two ends are close-on-exec from the start (pipe2), so a child another thread spawns
    /// at the same moment cannot inherit them.
    package static func pipe() throws(Errno) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try retryingInterrupts(.create) { pipe2(&ends, O_CLOEXEC) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// glibc's pipe2 (2.9+), which the Swift Glibc module does not show (it is a GNU extension).
    private static let pipe2: @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else { fatalError("this C library has no pipe2") }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()

    package func close() { _ = Glibc.close(rawValue) }

    /// Runs `body` with the descriptor, then closes it, whatever `body` did.
    package func closeAfter<T, E: Error>(_ body: (FileDescriptor) throws(E) -> T) throws(E) -> T {
        defer { close() }
        return try body(self)
    }

    // MARK: Reading

    /// One read(2) into `buffer`; 0 at end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryingInterrupts(.read) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Waits for input until `deadline` (nil: no limit), then reads once: nil when
    /// the deadline came first, 0 at end of file. For input whose writer may never close it.
    package func read(into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant?) throws(Errno) -> Int? {
        while true {
            let remaining = deadline?.secondsLeft
            if let remaining, remaining <= 0 { return nil }
            if try poll(Int16(POLLIN), timeout: remaining) == 0 { continue }
            do throws(Errno) {
                return try read(into: buffer)
            } catch where error.code == EAGAIN {
                continue
            }
        }
    }

    /// One read(2) into the whole of `buffer`; 0 at end of file.
    package func read(into buffer: inout [UInt8]) throws(Errno) -> Int {
        try buffer.withMutableBytes { raw throws(Errno) in try read(into: raw) }
    }

    /// One pread(2) at `offset` into the whole of `buffer`; 0 at end of file.
    package func read(into buffer: inout [UInt8], at offset: Int) throws(Errno) -> Int {
        try buffer.withMutableBytes { raw throws(Errno) in try read(into: raw, at: offset) }
    }

    /// `read(into:until:)` into the whole of `buffer`.
    package func read(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant?) throws(Errno) -> Int? {
        try buffer.withMutableBytes { raw throws(Errno) in try read(into: raw, until: deadline) }
    }

    /// One pread(2) at `offset`; 0 at end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        try retryingInterrupts(.read) { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Reads `count` bytes at most from `offset` (fewer at the end of the file).
    package func read(count: Int, at offset: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try read(into: &bytes, at: offset)
        bytes.removeSubrange(got...)
        return bytes
    }

    /// Reads to the end of the file. More than `limit` bytes fails with EFBIG (`.readTooLarge`).
    package func readAll(limit: Int) throws(Errno) -> [UInt8] {
        var info = stat()
        // Sized to the file when it says how big it is: small state files cost no large buffer.
        let hint = fstat(rawValue, &info) == 0 && info.st_size > 0 ? Int(info.st_size) + 1 : 65536
        // Read straight into the result, not zeroed first (a board file is 100s of KiB), grown when the
        // file is larger than it said: no chunk copies.
        var failure: Errno?
        var ended = false
        var result = [UInt8](unsafeUninitializedCapacity: min(max(hint, 4096), limit + 1)) { buffer, filled in
            while filled < buffer.count {
                do throws(Errno) {
                    let count = try read(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[filled...])))
                    if count == 0 {
                        ended = true
                        return
                    }
                    filled += count
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        if result.count > limit { throw Errno(EFBIG, .readTooLarge) }
        if ended { return result }
        var filled = result.count
        while true {
            if filled == result.count { result += repeatElement(0, count: min(result.count, limit + 1 - result.count)) }
            let count = try result.withMutableBytes { raw throws(Errno) in
                try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
            }
            if count == 0 {
                result.removeLast(result.count - filled)
                return result
            }
            filled += count
            if filled > limit { throw Errno(EFBIG, .readTooLarge) }
        }
    }

    // MARK: Writing

    /// Writes every byte, retrying short writes.
    package func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try bytes.withBytes { raw throws(Errno) in
                try retryingInterrupts(.write) { Glibc.write(rawValue, raw.baseAddress! + offset, raw.count - offset) }
            }
        }
    }

    /// Writes every byte at `offset` with pwrite(2), whatever the file position.
    package func writeAll(_ bytes: [UInt8], at offset: Int) throws(Errno) {
        var written = 0
        while written < bytes.count {
            written += try bytes.withBytes { raw throws(Errno) in
                try retryingInterrupts(.write) {
                    pwrite(rawValue, raw.baseAddress! + written, raw.count - written, off_t(offset + written))
                }
            }
        }
    }

    /// One write(2) of what the descriptor takes now (a non-blocking pipe may take part): the count written.
    package func writeSome(_ bytes: [UInt8]) throws(Errno) -> Int {
        try bytes.withBytes { raw throws(Errno) in
            try retryingInterrupts(.write) { Glibc.write(rawValue, raw.baseAddress, raw.count) }
        }
    }

    /// Cuts the file back to `size` bytes.
    package func truncate(to size: Int) throws(Errno) {
        _ = try retryingInterrupts(.write) { ftruncate(rawValue, off_t(size)) }
    }

    /// Flushes the file to disk (fsync). A failure is not reported: callers sync for durability on a
    /// best-effort basis, as before.
    package func sync() { _ = fsync(rawValue) }

    // MARK: State

    /// fstat(2).
    package func status() throws(Errno) -> stat {
        var info = stat()
        _ = try retryingInterrupts(.read) { fstat(rawValue, &info) }
        return info
    }

    /// A second descriptor for the same open file (close-on-exec); nil when none could be made.
    package func duplicate() -> FileDescriptor? {
        let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? FileDescriptor(rawValue: copy) : nil
    }

    package func setNonBlocking() { _ = fcntl(rawValue, F_SETFL, fcntl(rawValue, F_GETFL) | O_NONBLOCK) }

    package var isTerminal: Bool { isatty(rawValue) == 1 }

    // MARK: Locks

    /// How long `lock` waits for a lock another process holds.
    package enum LockWait: Sendable {
        /// Until it is free.
        case forever
        /// Not at all.
        case never
        /// Until `deadline`, trying again every `retryMicroseconds`.
        case until(ContinuousClock.Instant, retryMicroseconds: UInt32 = 2000)
    }

    /// Takes an exclusive or shared flock. False when another process holds it past `wait`.
    package func lock(exclusive: Bool = true, wait: LockWait) throws(Errno) -> Bool {
        let kind = exclusive ? LOCK_EX : LOCK_SH
        switch wait {
        case .forever:
            _ = try retryingInterrupts(.lock) { flock(rawValue, kind) }
            return true
        case .never:
            do {
                _ = try retryingInterrupts(.lock) { flock(rawValue, kind | LOCK_NB) }
                return true
            } catch where error.code == EWOULDBLOCK {
                return false
            }
        case .until(let deadline, let retry):
            while flock(rawValue, kind | LOCK_NB) != 0 {
                let code = errno
                if code != EWOULDBLOCK && code != EINTR { throw Errno(code, .lock) }
                if deadline.hasPassed { return false }
                usleep(retry)
            }
            return true
        }
    }

    package func unlock() { _ = flock(rawValue, LOCK_UN) }

    // MARK: Waiting

    /// Waits until one of `descriptors` has one of its events or `timeout` seconds pass (nil: no limit),
    /// and returns the events each got (empty for all when nothing happened in time, or when a signal
    /// interrupted the wait: callers loop on their own deadline).
    package static func poll(_ descriptors: [(FileDescriptor, events: Int16)], timeout: Double?) throws(Errno) -> [Int16] {
        var entries = descriptors.map { pollfd(fd: $0.0.rawValue, events: $0.events, revents: 0) }
        let ready = Glibc.poll(&entries, nfds_t(entries.count), pollMilliseconds(timeout))
        if ready < 0 {
            let code = errno
            if code == EINTR { return entries.map { _ in 0 } }
            throw Errno(code, .read)
        }
        return entries.map(\.revents)
    }

    /// `poll` of this descriptor alone: the events that came (0 when the time ran out or a signal came).
    /// No arrays: a hook reading its payload makes no array types for it (each costs the runtime ~10 K
    /// instructions to set up the first time).
    package func poll(_ events: Int16, timeout: Double?) throws(Errno) -> Int16 {
        var entry = pollfd(fd: rawValue, events: events, revents: 0)
        let ready = Glibc.poll(&entry, 1, FileDescriptor.pollMilliseconds(timeout))
        if ready < 0 {
            let code = errno
            if code == EINTR { return 0 }
            throw Errno(code, .read)
        }
        return entry.revents
    }

    /// poll(2)'s timeout: seconds rounded up to whole milliseconds, -1 for none.
    private static func pollMilliseconds(_ timeout: Double?) -> Int32 {
        timeout.map { Int32(min(max(0, ($0 * 1000).rounded(.up)), Double(Int32.max))) } ?? -1
    }

    /// Whether the descriptor has something to read now.
    package var hasInput: Bool {
        ((try? poll(Int16(POLLIN), timeout: 0)) ?? 0) & Int16(POLLIN) != 0
    }
}
