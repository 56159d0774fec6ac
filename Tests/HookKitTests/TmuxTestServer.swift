import Testing
@testable import HookSupport
import TestSupport

/// A private tmux server for one test: its own temporary directory (HOME, TMUX_TMPDIR, socket),
/// never the default socket; the server is killed and the directory removed at deinit.
final class TmuxTestServer: @unchecked Sendable {
    private let scratch: TemporaryDirectory
    var directory: String { scratch.path }
    var socketPath: String { directory + "/sock" }

    init() throws { scratch = try TemporaryDirectory("tmux") }

    // The directory goes after the server, when `scratch` is released.
    deinit { _ = try? tmuxResult(["kill-server"]) }

    /// What hookctl would be run with: no TMUX, HOME and TMUX_TMPDIR inside the test directory.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["HOME": directory, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TMUX_TMPDIR": directory]
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    func client(timeout: Double = 8, environment extra: [String: String] = [:]) throws -> TmuxClient {
        let environment = self.environment(extra)
        return TmuxClient(executable: try TmuxClient.locate(environment: environment),
                          socket: TmuxSocket(socketPath: socketPath, socketName: nil, environment: environment),
                          environment: environment, timeout: timeout)
    }

    func ensurer(legacyEnvironment: Bool? = nil, environment extra: [String: String] = [:]) throws -> SessionEnsurer {
        SessionEnsurer(client: try client(environment: extra), lockDirectory: directory + "/state/locks",
                       legacyEnvironment: legacyEnvironment)
    }

    /// Runs the real tmux on this server directly (the "user" acting on the server).
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try tmuxResult(arguments)
        guard result.status == 0 else {
            throw TmuxError.failed(command: arguments.joined(separator: " "), status: result.status, message: result.errorText, socket: socketPath)
        }
        return result.outputText
    }

    func tmuxResult(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess(executable: "/usr/bin/env", arguments: ["tmux", "-f", "/dev/null", "-S", socketPath] + arguments,
                       environment: environment(), timeout: 10).run()
    }

    /// `kill-server`, then waits until the server has really gone (kill-server returns before it exits);
    /// a server still there after 10 s is a test failure.
    func killServer() throws {
        try tmux(["kill-server"])
        let deadline = monotonicSeconds() + 10
        while monotonicSeconds() < deadline {
            let result = try tmuxResult(["list-sessions"])
            if result.status != 0 && result.errorText.contains("no server running") { return }
            sleepSeconds(0.01)
        }
        Issue.record("the tmux server on \(socketPath) was still running 10 s after kill-server")
    }

    /// Creates a session the way a user would, without hookctl.
    func newSession(_ name: String) throws {
        try tmux(["new-session", "-d", "-s", name])
    }

    func sessionNames() throws -> [String] {
        try tmux(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").map(String.init).sorted()
    }

    /// A fake tmux: a shell script in the test directory.
    func fakeTmux(_ body: String) throws -> String {
        let path = directory + "/fake-tmux-\(UInt32.random(in: 0...UInt32.max))"
        try FileSystem.writeAtomically(path, text: "#!/bin/sh\n" + body + "\n", mode: 0o755, sync: false)
        return path
    }
}
