/// Small, typed wrappers over the file system calls hookctl relies on: atomic replacement,
/// exclusive creation, directory creation with modes, and whole-file reads with a cap.
package enum FileSystem {
    /// Reads a whole file; nil when it does not exist. Throws on any other failure, and past `limit`
    /// bytes. With `followSymlinks: false` (hookctl's own state files) a link at `path` is refused.
    /// A state file must also be a regular file: a FIFO or device there is refused without blocking.
    package static func read(_ path: String, limit: Int = 64 << 20, followSymlinks: Bool = true) throws -> [UInt8]? {
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try .open(path, O_RDONLY | (followSymlinks ? 0 : Self.stateFileFlags))
        } catch {
            if error.code == ENOENT || error.code == ENOTDIR { return nil }
            if !followSymlinks { throw stateFileError(error, path: path) }
            throw error.at(path)
        }
        if !followSymlinks { try requireRegularFile(fd, path: path) }
        return try onFile(path) { try fd.closeAfter { (fd) throws(Errno) in try fd.readAll(limit: limit) } }
    }

    package static func readString(_ path: String) throws -> String? {
        guard let bytes = try read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What stat(2) (lstat(2) when `followSymlinks` is false) says of `path`; nil when it cannot be
    /// looked at (missing, no permission, a name too long).
    package static func status(_ path: String, followSymlinks: Bool = true) -> stat? {
        var info = stat()
        return (followSymlinks ? stat(path, &info) : lstat(path, &info)) == 0 ? info : nil
    }

    package static func exists(_ path: String) -> Bool {
        status(path, followSymlinks: false) != nil
    }

    package static func isDirectory(_ path: String) -> Bool {
        status(path).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false
    }

    package static func isExecutable(_ path: String) -> Bool {
        status(path).map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false && access(path, X_OK) == 0
    }

    /// Creates `path` and its missing parents; new directories get `mode`.
    package static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        if isDirectory(path) { return }
        let parent = parentDirectory(of: path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent, mode: mode) }
        if mkdir(path, mode) != 0, errno != EEXIST {
            throw SystemError.io(path: path, operation: .create, errno: errno)
        }
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    package static func fileName(of path: String) -> String {
        // On bytes: `/` is ASCII, so its index is a character boundary (Characters cost far more to walk).
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// Follows symlinks to the file that would really be written, so replacing a linked settings
    /// file writes through the link instead of replacing the link with a regular file.
    package static func resolveSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<32 {
            guard let target = linkTarget(current) else { return current }
            current = target.hasPrefix("/") ? target : parentDirectory(of: current) + "/" + target
        }
        return current
    }

    /// What the symbolic link at `path` says, as written (nil when `path` is not a link).
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens one of hookctl's own state files without following a symbolic link at `path`: a link there
    /// is refused with an error naming the path (it could point at any file of the user's).
    /// Anything but a regular file there (a FIFO, a device, a folder) is refused too, and the open never
    /// waits for one (O_NONBLOCK, which a regular file ignores): a FIFO opened for reading would hold the
    /// hook until a writer came.
    package static func openStateFile(_ path: String, _ flags: Int32, mode: mode_t = 0o600,
                                     operation: FileOperation = .write) throws -> FileDescriptor {
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try .open(path, flags | Self.stateFileFlags, mode: mode, operation: operation)
        } catch {
            throw stateFileError(error, path: path)
        }
        // A file this open created (O_EXCL) is a regular one.
        if flags & O_EXCL == 0 { try requireRegularFile(fd, path: path) }
        return fd
    }

    /// How every state file is opened: no link followed, no wait for a FIFO's other end.
    package static let stateFileFlags = O_NOFOLLOW | O_NONBLOCK

    /// A failed open of a state file: a link (ELOOP) or a FIFO without a reader (ENXIO) says what is there.
    private static func stateFileError(_ error: Errno, path: String) -> any Error {
        switch error.code {
        case ELOOP: return SystemError.symlink(path: path)
        case ENXIO: return SystemError.notRegularFile(path: path)
        default: return error.at(path)
        }
    }

    /// Opens one of the event log's files to read it: never waiting for a FIFO's other end, and only a
    /// regular file (else `notRegularFile`). nil when it does not exist (rotated away).
    package static func openLogFile(_ path: String) throws -> FileDescriptor? {
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try .open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            if error.code == ENOENT { return nil }
            throw error.at(path)
        }
        try requireRegularFile(fd, path: path)
        return fd
    }

    /// Closes `fd` and throws unless it is a regular file.
    package static func requireRegularFile(_ fd: FileDescriptor, path: String) throws {
        guard let info = try? fd.status(), (info.st_mode & S_IFMT) == S_IFREG else {
            fd.close()
            throw SystemError.notRegularFile(path: path)
        }
    }

    /// Whether `path` is a symbolic link (not followed).
    package static func isSymlink(_ path: String) -> Bool {
        status(path, followSymlinks: false).map { ($0.st_mode & S_IFMT) == S_IFLNK } ?? false
    }

    /// Replaces `path` atomically: writes a temporary file beside it, flushes it, then renames it over
    /// the target. The mode of an existing file is kept unless `mode` is given. Symlinks are written
    /// through, unless `followSymlinks` is false (hookctl's state files): then a link at `path` is refused.
    package static func writeAtomically(_ path: String, bytes: [UInt8], mode: mode_t? = nil, sync: Bool = true,
                                       followSymlinks: Bool = true) throws {
        if !followSymlinks, isSymlink(path) { throw SystemError.symlink(path: path) }
        let target = followSymlinks ? resolveSymlinks(path) : path
        let directory = parentDirectory(of: target)
        let finalMode: mode_t = mode ?? status(target).map { $0.st_mode & 0o7777 } ?? 0o600
        let temporary = "\(directory)/.\(fileName(of: target)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = try onFile(temporary) { try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: finalMode, operation: .create) }
        do throws(Errno) {
            try fd.closeAfter { (fd) throws(Errno) in
                try fd.writeAll(bytes)
                fchmod(fd.rawValue, finalMode)
                if sync { fd.sync() }
            }
        } catch {
            unlink(temporary)
            throw error.at(target)
        }
        if rename(temporary, target) != 0 {
            let code = errno
            unlink(temporary)
            throw SystemError.io(path: target, operation: .write, errno: code)
        }
    }

    package static func writeAtomically(_ path: String, text: String, mode: mode_t? = nil, sync: Bool = true,
                                       followSymlinks: Bool = true) throws {
        try writeAtomically(path, bytes: Array(text.utf8), mode: mode, sync: sync, followSymlinks: followSymlinks)
    }

    /// Appends `bytes` at the end of the open file `fd` (opened with O_APPEND); a failed or short write is
    /// cut back to the size the file had, so no partial line is ever left for readers.
    package static func appendOrTruncate(_ fd: FileDescriptor, bytes: [UInt8], path: String) throws {
        let before = (try? fd.status()).map { Int($0.st_size) }
        do throws(Errno) {
            try FaultPoint.shortWrite(fd, bytes: bytes)
            try fd.writeAll(bytes)
        } catch {
            if let before { try? fd.truncate(to: before) }
            throw error.at(path)
        }
    }

    /// Appends `bytes` to `path` in one write(2) while holding an exclusive flock, so concurrent
    /// writers never interleave their lines.
    /// With a `deadline`, a lock held elsewhere past it throws `.timedOut` instead of
    /// waiting on, and a FIFO or device at `path` cannot block the open.
    package static func appendLocked(_ path: String, bytes: [UInt8], mode: mode_t = 0o600, deadline: ContinuousClock.Instant? = nil) throws {
        let fd = try onFile(path) {
            try FileDescriptor.open(path, O_WRONLY | O_APPEND | O_CREAT | (deadline == nil ? 0 : O_NONBLOCK), mode: mode, operation: .write)
        }
        try fd.closeAfter { fd in
            try lock(fd, path: path, deadline: deadline)
            try appendOrTruncate(fd, bytes: bytes, path: path)
        }
    }

    /// Takes the exclusive flock on `fd`, waiting at most until `deadline` when
    /// given: a lock held past it throws `.timedOut` naming `path`.
    package static func lock(_ fd: FileDescriptor, exclusive: Bool = true, path: String, deadline: ContinuousClock.Instant?) throws {
        let start = ContinuousClock.now
        let locked = try onFile(path) { try fd.lock(exclusive: exclusive, wait: deadline.map { .until($0) } ?? .forever) }
        if !locked { throw SystemError.timedOut(program: "the lock on \(path)", seconds: (ContinuousClock.now - start).inSeconds) }
    }

    /// Names in a directory (without `.` and `..`); empty when it does not exist.
    package static func list(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw SystemError.io(path: directory, operation: .read, errno: errno)
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

    /// Whether a directory holds a name that `matches`, reading no further than the first one that does
    /// (one `getdents64` for the usual folder, however many names follow it); false when it does not exist.
    package static func containsName(in directory: String, where matches: (String) -> Bool) -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != "..", matches(name) { return true }
        }
        return false
    }

    /// Flushes a directory's entries (a rename or a new file in it) to disk.
    package static func syncDirectory(_ path: String) {
        guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_DIRECTORY) else { return }
        fd.closeAfter { $0.sync() }
    }

    package static func remove(_ path: String) {
        unlink(path)
    }

    /// Removes a folder and everything below it; symbolic links are removed, never followed.
    package static func removeTree(_ path: String) {
        if !isSymlink(path), isDirectory(path) {
            for name in (try? list(path)) ?? [] { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// An exclusive or shared advisory lock (flock) on a lock file, released on `unlock` or deinit.
package final class FileLock {
    private var fd: FileDescriptor?

    /// Blocks until the lock is held (or throws); `wait: false` returns nil when another process holds it.
    /// With a `deadline` it waits at most until then and throws `.timedOut`.
    /// A symbolic link at `path` is refused.
    package init?(path: String, exclusive: Bool = true, wait: Bool = true, deadline: ContinuousClock.Instant? = nil) throws {
        let fd = try FileSystem.openStateFile(path, O_RDWR | O_CREAT, operation: .create)
        do {
            if wait {
                try FileSystem.lock(fd, exclusive: exclusive, path: path, deadline: deadline)
            } else if try !onFile(path, { try fd.lock(exclusive: exclusive, wait: .never) }) {
                fd.close()
                return nil
            }
        } catch {
            fd.close()
            throw error
        }
        self.fd = fd
    }

    package func unlock() {
        guard let fd else { return }
        fd.unlock()
        fd.close()
        self.fd = nil
    }

    deinit { unlock() }
}
