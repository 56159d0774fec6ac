// Shared by both test targets: the one way a test gets a private directory.
import Glibc

/// A fresh directory under /tmp (`/tmp/hookctl-<purpose>-XXXXXX`), removed with everything in it
/// at deinit. Tests run in parallel: each gets its own, never a fixed path.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ purpose: String) throws {
        var template = Array("/tmp/hookctl-\(purpose)-XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TemporaryDirectoryError(errno: errno)
        }
        path = String(cString: created)
    }

    deinit {
        // rm -rf: it does not follow symbolic links out of the directory.
        var pid: pid_t = 0
        let words: [String] = ["/bin/rm", "-rf", "--", path]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        guard posix_spawn(&pid, "/bin/rm", nil, nil, arguments, environ) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}

/// mkdtemp failed.
public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String { "cannot create a temporary directory under /tmp: \(String(cString: strerror(errno)))" }
}
