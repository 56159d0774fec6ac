/// Small, typed wrappers over the file system calls hookctl relies on: atomic replacement,
/// exclusive creation, directory creation with modes, and whole-file reads with a cap.
public enum FileSystem {
    /// Reads a whole file; nil when it does not exist. Throws on any other failure.
    public static func read(_ path: String, limit: Int = 64 << 20) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw SystemError.io(path: path, operation: "read", errno: errno)
        }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError.io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
            if result.count > limit { throw SystemError.io(path: path, operation: "read (file too large)", errno: EFBIG) }
        }
        return result
    }

    public static func readString(_ path: String) throws -> String? {
        guard let bytes = try read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    public static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }

    /// Creates `path` and its missing parents; new directories get `mode`.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        if isDirectory(path) { return }
        let parent = parentDirectory(of: path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent, mode: mode) }
        if mkdir(path, mode) != 0, errno != EEXIST {
            throw SystemError.io(path: path, operation: "create", errno: errno)
        }
    }

    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    public static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Follows symlinks to the file that would really be written, so replacing a linked settings
    /// file writes through the link instead of replacing the link with a regular file.
    public static func resolveSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<32 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            if length < 0 { return current }
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : parentDirectory(of: current) + "/" + target
        }
        return current
    }

    /// Opens one of hookctl's own state files without following a symbolic link at `path`: a link there
    /// is refused with an error naming the path (it could point at any file of the user's).
    public static func openStateFile(_ path: String, _ flags: Int32, mode: mode_t = 0o600, operation: String = "write") throws -> Int32 {
        let fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
        if fd < 0 {
            let code = errno
            if code == ELOOP { throw SystemError.symlink(path: path) }
            throw SystemError.io(path: path, operation: operation, errno: code)
        }
        return fd
    }

    /// Whether `path` is a symbolic link (not followed).
    public static func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Replaces `path` atomically: writes a temporary file beside it, flushes it, then renames it over
    /// the target. The mode of an existing file is kept unless `mode` is given. Symlinks are written
    /// through, unless `followSymlinks` is false (hookctl's state files): then a link at `path` is refused.
    public static func writeAtomically(_ path: String, bytes: [UInt8], mode: mode_t? = nil, sync: Bool = true,
                                       followSymlinks: Bool = true) throws {
        if !followSymlinks, isSymlink(path) { throw SystemError.symlink(path: path) }
        let target = followSymlinks ? resolveSymlinks(path) : path
        let directory = parentDirectory(of: target)
        var existing = stat()
        let finalMode: mode_t = mode ?? (stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : 0o600)
        let temporary = "\(directory)/.\(fileName(of: target)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, finalMode)
        if fd < 0 { throw SystemError.io(path: temporary, operation: "create", errno: errno) }
        var data = bytes
        let ok = writeAll(fd: fd, bytes: &data)
        let writeErrno = errno
        if ok { fchmod(fd, finalMode) }
        if ok, sync { fsync(fd) }
        close(fd)
        guard ok else {
            unlink(temporary)
            throw SystemError.io(path: target, operation: "write", errno: writeErrno)
        }
        if rename(temporary, target) != 0 {
            let code = errno
            unlink(temporary)
            throw SystemError.io(path: target, operation: "write", errno: code)
        }
    }

    public static func writeAtomically(_ path: String, text: String, mode: mode_t? = nil, sync: Bool = true,
                                       followSymlinks: Bool = true) throws {
        try writeAtomically(path, bytes: Array(text.utf8), mode: mode, sync: sync, followSymlinks: followSymlinks)
    }

    /// Appends `bytes` at the end of the open file `fd` (opened with O_APPEND); a failed or short write is
    /// cut back to the size the file had, so no partial line is ever left for readers.
    public static func appendOrTruncate(fd: Int32, bytes: [UInt8], path: String) throws {
        var info = stat()
        let before = fstat(fd, &info) == 0 ? off_t(info.st_size) : -1
        var data = bytes
        if FaultPoint.shortWrite(fd: fd, bytes: data) || !writeAll(fd: fd, bytes: &data) {
            let code = errno == 0 ? EIO : errno
            if before >= 0 { _ = ftruncate(fd, before) }
            throw SystemError.io(path: path, operation: "write", errno: code)
        }
    }

    /// Appends `bytes` to `path` in one write(2) while holding an exclusive flock, so concurrent
    /// writers never interleave their lines.
    /// With a `deadline`, a lock held elsewhere past it throws `.timedOut` instead of
    /// waiting on, and a FIFO or device at `path` cannot block the open.
    public static func appendLocked(_ path: String, bytes: [UInt8], mode: mode_t = 0o600, deadline: ContinuousClock.Instant? = nil) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (deadline == nil ? 0 : O_NONBLOCK), mode)
        if fd < 0 { throw SystemError.io(path: path, operation: "write", errno: errno) }
        defer { close(fd) }
        if let deadline {
            let start = ContinuousClock.now
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                if errno != EWOULDBLOCK && errno != EINTR { throw SystemError.io(path: path, operation: "lock", errno: errno) }
                if deadline.hasPassed {
                    throw SystemError.timedOut(program: "the lock on \(path)", seconds: (ContinuousClock.now - start).inSeconds)
                }
                usleep(2000)
            }
        } else {
            while flock(fd, LOCK_EX) != 0 {
                if errno != EINTR { throw SystemError.io(path: path, operation: "lock", errno: errno) }
            }
        }
        try appendOrTruncate(fd: fd, bytes: bytes, path: path)
    }

    /// Names in a directory (without `.` and `..`); empty when it does not exist.
    public static func list(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw SystemError.io(path: directory, operation: "read", errno: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Flushes a directory's entries (a rename or a new file in it) to disk.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    public static func remove(_ path: String) {
        unlink(path)
    }
}

/// An exclusive or shared advisory lock (flock) on a lock file, released on `unlock` or deinit.
public final class FileLock {
    private var fd: Int32

    /// Blocks until the lock is held (or throws); `wait: false` returns nil when another process holds it.
    /// With a `deadline` it waits at most until then and throws `.timedOut`.
    /// A symbolic link at `path` is refused.
    public init?(path: String, exclusive: Bool = true, wait: Bool = true, deadline: ContinuousClock.Instant? = nil) throws {
        fd = try FileSystem.openStateFile(path, O_RDWR | O_CREAT, operation: "create")
        if let deadline, wait {
            let start = ContinuousClock.now
            while flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
                let code = errno
                if code != EWOULDBLOCK && code != EINTR {
                    close(fd)
                    fd = -1
                    throw SystemError.io(path: path, operation: "lock", errno: code)
                }
                if deadline.hasPassed {
                    close(fd)
                    fd = -1
                    throw SystemError.timedOut(program: "the lock on \(path)", seconds: (ContinuousClock.now - start).inSeconds)
                }
                usleep(2000)
            }
            return
        }
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while flock(fd, operation) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            fd = -1
            if code == EWOULDBLOCK { return nil }
            throw SystemError.io(path: path, operation: "lock", errno: code)
        }
    }

    public func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}
