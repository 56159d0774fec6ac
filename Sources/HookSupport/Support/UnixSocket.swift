/// A unix stream socket: listen on a path (made with mode 0600 under umask 077), accept with a timeout,
/// connect with a bound on the wait, and the peer's credentials. The one place hookctl touches unix sockets.
package struct UnixSocket: Sendable {
    package let fd: FileDescriptor

    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Errno(ENAMETOOLONG, .create) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// Connects to `path`, waiting at most `timeout` seconds (a listener that stopped accepting and has a
    /// full queue would otherwise hold connect(2) forever); writes to it get the same bound.
    package static func connect(_ path: String, timeout: Double = 5) throws -> UnixSocket {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Errno.current(.create) }
        var bound = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        let code = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard code == 0 else {
            let error = Errno.current(.create)
            Glibc.close(fd)
            throw error
        }
        return UnixSocket(fd: FileDescriptor(rawValue: fd))
    }

    /// Listens on `path`. The socket is bound under a temporary name in the same folder and renamed into
    /// place once it listens, so a client never finds the file before it takes connections (a connect in
    /// between would be refused); where the temporary name would not fit an address, it is bound in place.
    package static func listen(_ path: String) throws -> UnixSocket {
        let temporary = FileSystem.parentDirectory(of: path) + "/.\(getpid()).listen"
        let bound = (try? address(temporary)) == nil ? path : temporary
        var address = try address(bound)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Errno.current(.create) }
        if bound != path { unlink(bound) }
        let old = umask(0o077)
        let code = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard code == 0, Glibc.listen(fd, 64) == 0, bound == path || rename(bound, path) == 0 else {
            let error = Errno.current(.create)
            if code == 0, bound != path { unlink(bound) }
            Glibc.close(fd)
            throw error
        }
        return UnixSocket(fd: FileDescriptor(rawValue: fd))
    }

    /// The next connection, or nil when none came within `timeout` seconds. Writes to it give up after
    /// `sendTimeout` seconds without progress (an asker that stopped reading, or was stopped, does not
    /// hold the thread answering it: the write fails and the connection is closed).
    package func accept(timeout: Double, sendTimeout: Double = 5) -> UnixSocket? {
        guard ((try? fd.poll(Int16(POLLIN), timeout: timeout)) ?? 0) & Int16(POLLIN) != 0 else { return nil }
        let client = Glibc.accept(fd.rawValue, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var bound = timeval(tv_sec: Int(sendTimeout), tv_usec: Int((sendTimeout - sendTimeout.rounded(.down)) * 1_000_000))
        _ = setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        return UnixSocket(fd: FileDescriptor(rawValue: client))
    }

    /// Who is at the other end, as the kernel saw it at connect(2) (SO_PEERCRED).
    package struct Peer: Equatable, Sendable {
        package var process: Int32
        package var user: uid_t
    }

    /// The connected process and its user; nil when the kernel does not say.
    package var peer: Peer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (not shown by the Swift Glibc module).
        var credentials: [UInt32] = [0, 0, 0]
        var size = socklen_t(12)
        guard getsockopt(fd.rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, size == 12 else { return nil }
        return Peer(process: Int32(bitPattern: credentials[0]), user: credentials[1])
    }

    /// The process at the other end (for a log line).
    package var peerProcess: Int32? { peer.flatMap { $0.process > 0 ? $0.process : nil } }

    /// The connecting process runs as this user (a socket in a 0700 folder is checked a second time).
    package var peerIsThisUser: Bool { peer?.user == getuid() }

    package func writeAll(_ bytes: [UInt8]) throws { try fd.writeAll(bytes) }
    package func close() { fd.close() }
}
