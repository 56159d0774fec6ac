/// Runs one tmux binary against one server, every call bounded by a timeout (posix_spawn + waitpid
/// through `Subprocess`; a call that does not finish is killed with its process group).
package struct TmuxClient: Sendable {
    package var executable: String
    package var socket: TmuxSocket
    /// The environment tmux runs with: the caller's, without `TMUX`/`TMUX_PANE` (so the caller's
    /// server is never picked up) and without `SSHIDO_SESSION` (a server started here copies its
    /// environment into the global one, which would mark every later session).
    package var environment: [String: String]
    package var timeout: Double

    package static let defaultTimeout = 8.0

    package init(executable: String, socket: TmuxSocket, environment: [String: String], timeout: Double = TmuxClient.defaultTimeout) {
        self.executable = executable
        self.socket = socket
        self.environment = TmuxClient.childEnvironment(environment)
        self.timeout = timeout
    }

    package static let removedVariables: Set<String> = ["TMUX", "TMUX_PANE", Product.gateVariable]

    package static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { !removedVariables.contains($0.key) }
    }

    /// Where tmux is usually installed when a non-login SSH command's PATH misses it.
    package static func usualDirectories(home: String?) -> [String] {
        var directories = ["/usr/local/bin", "/usr/bin", "/bin", "/opt/homebrew/bin", "/home/linuxbrew/.linuxbrew/bin",
                           "/snap/bin", "/opt/local/bin", "/usr/pkg/bin", "/nix/var/nix/profiles/default/bin",
                           "/run/current-system/sw/bin"]
        if let home, !home.isEmpty {
            directories += [home + "/.local/bin", home + "/bin", home + "/.nix-profile/bin", home + "/.linuxbrew/bin"]
        }
        return directories
    }

    /// Finds tmux: `HOOKCTL_TMUX` when set, else the first `tmux` on PATH, else in the usual install locations.
    package static func locate(environment: [String: String], usualDirectories: [String]? = nil) throws -> String {
        if let explicit = environment["HOOKCTL_TMUX"], !explicit.isEmpty {
            guard explicit.hasPrefix("/"), FileSystem.isExecutable(explicit) else { throw TmuxError.notExecutable(path: explicit) }
            return explicit
        }
        let extra = usualDirectories ?? TmuxClient.usualDirectories(home: environment["HOME"])
        if let found = Subprocess.findExecutable("tmux", path: environment["PATH"], extraDirectories: extra) {
            // PATH may hold a relative directory; tmux is reported and exec'd by absolute path.
            if found.hasPrefix("/") { return found }
            if let cwd = currentDirectory() { return cwd + "/" + found }
        }
        throw TmuxError.notFound(searched: extra)
    }

    /// Runs `tmux [socket] ARGS`; a timeout becomes `TmuxError.timedOut`.
    package func run(_ arguments: [String], selectingServer: Bool = true) throws -> Subprocess.Result {
        do {
            return try Subprocess(executable: executable, arguments: (selectingServer ? socket.arguments : []) + arguments,
                                  environment: environment, timeout: timeout).run()
        } catch SystemError.timedOut {
            throw TmuxError.timedOut(command: arguments.first ?? "tmux", seconds: timeout, socket: socket.path)
        } catch SystemError.notFound {
            throw TmuxError.notFound(searched: [executable])
        }
    }

    /// Whether a failed call only means that no server is running: `no server running on PATH` (socket
    /// file left behind), `error connecting to PATH (…)` with no socket file at all, or a server that
    /// was shutting down as we connected (`server exited unexpectedly`).
    package func isNoServer(_ result: Subprocess.Result) -> Bool {
        let message = result.errorText
        if message.contains("no server running on") || message.contains("server exited unexpectedly") { return true }
        if message.contains("error connecting to") {
            let reported = socketPathInMessage(message) ?? socket.path
            return !FileSystem.exists(reported)
        }
        return false
    }

    private func socketPathInMessage(_ message: String) -> String? {
        guard let start = message.firstRange(of: "error connecting to ")?.upperBound,
              let end = message[start...].firstRange(of: " (")?.lowerBound else { return nil }
        return String(message[start..<end])
    }

    package func failure(_ command: String, _ result: Subprocess.Result) -> TmuxError {
        .failed(command: command, status: result.status, message: result.errorText, socket: socket.path)
    }

    /// Every session in one round trip; an empty listing when no server runs.
    package func listSessions() throws -> SessionListing {
        let result = try run(["list-sessions", "-F", SessionRow.format])
        if result.status != 0 {
            if isNoServer(result) { return SessionListing(sessions: []) }
            throw failure("list-sessions", result)
        }
        return try SessionRow.parse(result.outputText, command: "list-sessions")
    }

    /// Looks up at most two sessions (by id, by exact name) in one round trip, without walking every
    /// session as `list-sessions` does. `display-message` on a missing target prints empty fields
    /// and still succeeds, so only rows with an id are kept, and the caller compares them exactly.
    /// A failure other than "no server" yields nothing: the caller then takes the full path.
    package func probe(sessionID: String?, name: String) throws -> SessionListing {
        var arguments: [String] = []
        if let sessionID { arguments += ["display-message", "-p", "-t", sessionID, SessionRow.format, ";"] }
        arguments += ["display-message", "-p", "-t", "=" + name + ":", SessionRow.format]
        let result = try run(arguments)
        guard result.status == 0, let listing = try? SessionRow.parse(result.outputText, command: "display-message") else {
            return SessionListing(sessions: [])
        }
        return listing
    }

    /// The binary's version (`tmux -V` → `3.3a`), for when no server can tell us.
    package func binaryVersion() throws -> String {
        let result = try run(["-V"], selectingServer: false)
        guard result.status == 0 else { throw failure("-V", result) }
        let text = Text.trimmed(result.outputText)
        return text.hasPrefix("tmux ") ? String(text.dropFirst(5)) : text
    }

    /// The command line that replaces hookctl with `tmux attach-session` on `target`.
    package func attachArguments(target: String, socketPath: String) -> [String] {
        ["-S", socketPath, "attach-session", "-t", target]
    }
}

/// tmux versions as `tmux -V` and `#{version}` print them: `3.3a`, `3.2-rc3`, `next-3.6`, `openbsd-7.5`, `master`.
package struct TmuxVersion: Sendable, Comparable {
    package var major: Int
    package var minor: Int

    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// nil for builds without a number (`master`): treat them as new.
    package init?(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        guard let start = scalars.firstIndex(where: { ("0"..."9").contains($0) }) else { return nil }
        var numbers: [Int] = []
        var current = ""
        for scalar in scalars[start...] {
            if ("0"..."9").contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else {
                if let number = Int(current) { numbers.append(number) }
                current = ""
                if scalar != "." || numbers.count >= 2 { break }
            }
        }
        if let number = Int(current), numbers.count < 2 { numbers.append(number) }
        guard let major = numbers.first else { return nil }
        self.major = major
        self.minor = numbers.count > 1 ? numbers[1] : 0
    }

    package static func < (lhs: TmuxVersion, rhs: TmuxVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// `new-session -e` arrived in 3.2.
    package static let sessionEnvironmentFlag = TmuxVersion(major: 3, minor: 2)

    /// "openbsd-7.5" is an OpenBSD release number, not a tmux one; such builds are recent.
    package static func supportsSessionEnvironment(_ text: String?) -> Bool {
        guard let text, !text.hasPrefix("openbsd"), let version = TmuxVersion(text) else { return true }
        return version >= sessionEnvironmentFlag
    }
}
