import Synchronization
import Testing
@testable import HookSupport
@testable import HookAgents
import TestSupport

/// `UnixSocket`: the one unix-socket layer (the hosts link's owner listens on one).
@Suite struct UnixSocketTests {
    @Test func aConnectionCarriesBytesAndTheKernelNamesItsPeer() throws {
        let scratch = try TemporaryDirectory("sock")
        let path = scratch.path + "/s"
        let listener = try UnixSocket.listen(path)
        defer { listener.close() }
        #expect((FileSystem.status(path)?.st_mode ?? 0o777) & 0o077 == 0, "only this user may connect")
        #expect(listener.accept(timeout: 0.05) == nil, "no connection: nil after the timeout")
        let client = try UnixSocket.connect(path, timeout: 1)
        defer { client.close() }
        let server = try #require(listener.accept(timeout: 5))
        defer { server.close() }
        #expect(server.peer == UnixSocket.Peer(process: getpid(), user: getuid()))
        #expect(server.peerIsThisUser && server.peerProcess == getpid())
        try client.writeAll(Array("hello\n".utf8))
        var lines = StreamLines(server)
        #expect(lines.line(limit: 100, until: .after(seconds: 5)) == Array("hello".utf8))
    }

    @Test func connectingWhereNobodyListensFails() throws {
        let scratch = try TemporaryDirectory("sock")
        #expect(throws: Errno.self) { try UnixSocket.connect(scratch.path + "/none", timeout: 1) }
        #expect(throws: Errno.self) { try UnixSocket.connect(scratch.path + "/" + String(repeating: "x", count: 200)) }
    }

    /// The file appears only once the socket listens: a client that connects the moment it sees the file
    /// (as the hosts link's askers and tests do) is never refused; no temporary name is left behind.
    @Test func theSocketFileAppearsOnlyOnceItListens() throws {
        let scratch = try TemporaryDirectory("sock")
        for round in 0..<50 {
            let path = scratch.path + "/s\(round)"
            let refused = Mutex(false)
            let watcher = ThreadGroup(1) { _ in
                let start = monotonicSeconds()
                while !FileSystem.exists(path), monotonicSeconds() - start < 10 {}
                do { try UnixSocket.connect(path, timeout: 5).close() } catch { refused.withLock { $0 = true } }
            }
            let listener = try UnixSocket.listen(path)
            _ = try watcher.join()
            listener.close()
            #expect(!refused.withLock { $0 }, "round \(round): a connect right after the file appeared was refused")
        }
        #expect(try FileSystem.list(scratch.path).allSatisfy { !$0.hasPrefix(".") }, "a temporary name was left")
    }
}
