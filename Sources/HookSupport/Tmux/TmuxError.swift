/// What can go wrong talking to tmux, each with a message a user can act on and a sysexits code.
package enum TmuxError: HookctlError, Equatable {
    /// No tmux binary where we looked.
    case notFound(searched: [String])
    /// `HOOKCTL_TMUX` names a file that is not an executable.
    case notExecutable(path: String)
    /// A tmux call did not finish within the time limit (a hung server, a stuck socket).
    case timedOut(command: String, seconds: Double, socket: String)
    /// The server is gone where one is needed.
    case noServer(socket: String)
    /// tmux answered with an error we do not handle.
    case failed(command: String, status: Subprocess.Termination, message: String, socket: String)
    /// tmux printed something we could not read.
    case unreadableOutput(command: String, output: String)
    /// Another hookctl holds the session's lock for longer than the time limit.
    case busy(name: String, seconds: Double)
    /// The session name cannot be a tmux session name.
    case invalidName(name: String, reason: String)
    /// The phone's records on standard input are not what `reconcile` expects.
    case invalidRecords(String)

    /// A stable machine-readable code for `--json` errors.
    package var code: String {
        switch self {
        case .notFound, .notExecutable: return "tmux_not_found"
        case .timedOut: return "tmux_timeout"
        case .noServer: return "tmux_no_server"
        case .failed: return "tmux_failed"
        case .unreadableOutput: return "tmux_unreadable_output"
        case .busy: return "session_busy"
        case .invalidName: return "invalid_name"
        case .invalidRecords: return "invalid_records"
        }
    }

    package var exitCode: ExitCode {
        switch self {
        case .notFound, .notExecutable, .noServer, .failed: return .unavailable
        case .timedOut, .busy: return .temporaryFailure
        case .unreadableOutput: return .software
        case .invalidName: return .usage
        case .invalidRecords: return .dataError
        }
    }

    package var description: String {
        switch self {
        case .notFound(let searched):
            return "tmux was not found (looked on PATH and in \(searched.joined(separator: ", "))); "
                + "install it (e.g. 'sudo apt install tmux') or set HOOKCTL_TMUX to its path"
        case .notExecutable(let path):
            return "HOOKCTL_TMUX is '\(path)', which is not an executable file; point it at tmux or unset it"
        case .timedOut(let command, let seconds, let socket):
            return "tmux did not answer '\(command)' within \(formatSeconds(seconds)) on socket \(socket): the server may be hung; "
                + "check it with 'tmux -S \(socket) ls', kill it if stuck, or allow more time with --timeout"
        case .noServer(let socket):
            return "no tmux server is running on \(socket); start one with 'hookctl session ensure'"
        case .failed(let command, let status, let message, let socket):
            let detail = Text.trimmed(message).isEmpty ? "it \(status)" : Text.singleLine(message)
            return "tmux '\(command)' failed on socket \(socket): \(detail)"
        case .unreadableOutput(let command, let output):
            return "could not read the output of tmux '\(command)': \(Text.truncate(Text.singleLine(output), characters: 200)); "
                + "this tmux may be too old or patched, please report it"
        case .busy(let name, let seconds):
            return "another hookctl is still creating session '\(name)' after \(formatSeconds(seconds)); try again"
        case .invalidName(let name, let reason):
            return "cannot use '\(name)' as a tmux session name: \(reason)"
        case .invalidRecords(let message):
            return "the session records on standard input are invalid: \(message)"
        }
    }
}
