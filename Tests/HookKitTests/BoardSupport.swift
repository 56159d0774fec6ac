@testable import HookSupport
@testable import HookCore
@testable import HookCLI
import TestSupport

/// A temporary state directory for board tests, removed at deinit. Tests run in parallel: each gets its own.
final class BoardScratch: @unchecked Sendable {
    private let directory: TemporaryDirectory
    var path: String { directory.path }

    init() throws { directory = try TemporaryDirectory("board") }

    var paths: Paths { Paths(environment: ["HOME": path]) }
    var environment: [String: String] { ["HOME": path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"] }

    func log(maxLogSize: Int = EventLog.defaultMaxLogSize, keep: Int = EventLog.defaultKeptGenerations) -> EventLog {
        EventLog(paths: paths, maxLogSize: maxLogSize, keptGenerations: keep)
    }

    /// Runs a command in-process, as the binary would, and returns its exit code and output.
    func run(_ arguments: [String], environment extra: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
        let out = BufferStream(), err = BufferStream()
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        let context = CommandContext(environment: environment, standardOutput: out, standardError: err,
                                     standardInput: -1, workingDirectory: path)
        let status = CommandLineTool.run(arguments, context: context)
        return (status, out.text, err.text)
    }
}

/// An event as notify builds it from one agent hook call.
func hookEvent(_ kind: EventKind, agent: String = "claude", session: String? = "s1", pane: String? = nil,
               socket: String? = nil, tmuxSession: String? = nil, cwd: String? = "/tmp/project",
               message: String = "", time: Double = WallClock.nowEpoch()) -> Event {
    Event(time: time, agent: agent, kind: kind, agentEvent: kind.rawValue, title: "\(agent) \(kind.rawValue)",
          message: message, host: "testhost",
          tmux: pane.map { TmuxLocation(session: tmuxSession, pane: $0, socket: socket) }, cwd: cwd, sessionID: session)
}

