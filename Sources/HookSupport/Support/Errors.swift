/// Exit codes from sysexits(3), as the README's "Exit codes" section lists them.
package enum ExitCode: Int32, Sendable {
    case ok = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    case unavailable = 69
    case software = 70
    case cannotCreate = 73
    case ioError = 74
    case temporaryFailure = 75
    case config = 78
}

/// An error a user can act on: every domain's error enum conforms, and the one top-level handler
/// prints `description` as `hookctl: error: …` and exits with `exitCode`.
package protocol HookctlError: Error, CustomStringConvertible {
    var exitCode: ExitCode { get }
    /// A stable machine-readable name for `--json` errors (`{"error": {"code": …}}`).
    var code: String { get }
}

extension HookctlError {
    package var code: String { "error" }
}

/// A command line that does not fit the command's usage (exit 64): thrown by the
/// argument parser and by domain code that checks what a command was given (`command` names it).
package struct UsageError: HookctlError {
    package var message: String
    package var command: [String] = []
    package var exitCode: ExitCode { .usage }
    package var code: String { "usage" }
    package var description: String { message }

    package init(message: String, command: [String] = []) {
        self.message = message
        self.command = command
    }
}

/// Errors from the small system wrappers in `Support/`.
package enum SystemError: HookctlError {
    case io(path: String, operation: FileOperation, errno: Int32)
    case spawn(program: String, errno: Int32)
    case timedOut(program: String, seconds: Double)
    case notFound(program: String)
    /// A state file is a symbolic link: hookctl never writes state through one (it could point anywhere).
    case symlink(path: String)
    /// A state file is a FIFO, a device or a folder: hookctl keeps its state in regular files only.
    case notRegularFile(path: String)

    package var exitCode: ExitCode {
        switch self {
        case .symlink, .notRegularFile: return .cannotCreate
        case .io(_, let operation, _): return operation.exitCode
        case .spawn, .notFound: return .unavailable
        case .timedOut: return .temporaryFailure
        }
    }

    package var description: String {
        switch self {
        case .io(let path, let operation, let code):
            return "cannot \(operation.rawValue) \(path): \(errnoDescription(code))"
        case .spawn(let program, let code):
            return "cannot run \(program): \(errnoDescription(code))"
        case .timedOut(let program, let seconds):
            return "\(program) did not finish within \(formatSeconds(seconds)) and was stopped"
        case .notFound(let program):
            return "\(program) was not found"
        case .symlink(let path):
            return "refusing to use \(path): it is a symbolic link, and hookctl never follows links for its state files (remove the link)"
        case .notRegularFile(let path):
            return "refusing to use \(path): it is not a regular file (a FIFO, a device or a folder), and hookctl keeps its state in regular files only (remove it)"
        }
    }
}

package func errnoDescription(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}

package func formatSeconds(_ seconds: Double) -> String {
    if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
    if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
    return "\((seconds * 10).rounded() / 10) s"
}
