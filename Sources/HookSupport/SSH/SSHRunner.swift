/// The one way hookctl reaches another host: the user's own `ssh` (their config, keys, agent and
/// aliases), never a daemon or a port of ours. `deploy` and the board across hosts both go through it:
/// the options (`BatchMode=yes`, a short `ConnectTimeout`, the control master), the argv, the
/// timeouts, the answer's size cap and the rule for text that comes back (`clean`) live here only.
///
/// Nothing is ever given to a shell here: ssh gets an argv; the remote command is a constant
/// (`RemoteScripts.bootstrap`) or one `RemoteHookctl` builds from its allowlist, every word quoted.
package struct SSHRunner: Sendable {
    /// A host as ssh is asked for it: the label the board shows, the destination ssh takes
    /// (`host`, `user@host`, an alias of the user's ssh config) and the user's `-o` options for it.
    package struct Host: Sendable, Equatable {
        package var name: String
        package var destination: String
        package var options: [String] = []

        package init(
            name: String,
            destination: String,
            options: [String] = []
        ) {
            self.name = name
            self.destination = destination
            self.options = options
        }
    }

    package var ssh: String
    package var environment: [String: String]
    package var connectTimeout = 10
    /// The folder of control sockets (mode 0700, `ControlPath=DIR/%C`); nil: every run makes its own
    /// connection (deploy's long transfers need no master).
    package var controlDirectory: String?
    /// How long an idle master stays up after its last session (ssh's `ControlPersist`).
    package var controlPersist = 600
    /// The link owner's folder (`HostLink`): asks go there first when it runs; nil: always ssh per call.
    package var linkDirectory: String?
    /// The most bytes kept of an answer; a longer one is an error on that host (`Subprocess` drains the rest).
    package var answerLimit = 4 << 20

    /// ssh on PATH (or /usr/bin, /bin).
    package static func locate(environment: [String: String]) throws -> String {
        guard let ssh = Subprocess.findExecutable("ssh", path: environment["PATH"], extraDirectories: ["/usr/bin", "/bin"]) else {
            throw RemoteError.noSSH
        }
        return ssh
    }

    /// ssh's arguments: the user's options first (ssh keeps the first value it gets for each option),
    /// then batch mode, the connect timeout and the control master, then `--`, the destination and the
    /// remote command. `terminal`: `-t` (jump's attach) instead of `-T`.
    package func arguments(_ host: Host, command: String, terminal: Bool = false) -> [String] {
        var arguments = [terminal ? "-t" : "-T"]
        for option in host.options { arguments += ["-o", option] }
        arguments += ["-o", "BatchMode=yes", "-o", "ConnectTimeout=\(connectTimeout)"]
        arguments += controlOptions
        arguments += ["--", host.destination, command]
        return arguments
    }

    /// `ControlMaster=auto` with its socket in `controlDirectory`, kept up `controlPersist` seconds.
    package var controlOptions: [String] {
        guard let controlDirectory else { return [] }
        return ["-o", "ControlMaster=auto", "-o", "ControlPath=\(controlDirectory)/%C", "-o", "ControlPersist=\(controlPersist)"]
    }

    /// Runs `command` on `host`, `input` on ssh's standard input (text never goes on a command line).
    package func run(_ host: Host, command: String, input: [UInt8]? = nil, timeout: Double) throws -> Subprocess.Result {
        var process = Subprocess(executable: ssh, arguments: arguments(host, command: command), environment: environment,
                                 input: input, timeout: timeout)
        process.outputLimit = answerLimit
        return try process.run()
    }

    /// Asks the host's master to exit (`ssh -O exit`): `hosts remove` leaves no socket behind.
    package func closeMaster(_ host: Host) {
        guard controlDirectory != nil else { return }
        var arguments: [String] = []
        for option in host.options { arguments += ["-o", option] }
        arguments += controlOptions + ["-O", "exit", "--", host.destination]
        _ = try? Subprocess(executable: ssh, arguments: arguments, environment: environment, timeout: 5).run()
    }

    /// The control-socket folder under hookctl's runtime folder, made mode 0700 (and refused when it is
    /// a link, another user's, or open to others: a socket there is a logged-in session to the host).
    package static func controlDirectory(paths: Paths) throws -> String {
        var runtime = paths.runtimeDirectory
        // A socket's path has at most 107 bytes, and ssh adds `/%C` (41) and a temporary suffix (17):
        // a runtime folder deeper than that falls back to /tmp's.
        if runtime.utf8.count + "/ssh".utf8.count + 41 + 17 > 107 { runtime = "/tmp/hookctl-\(getuid())" }
        try privateDirectory(runtime)
        return try privateDirectory(runtime + "/ssh")
    }

    /// `path` made a folder of this user's, mode 0700 (refused when it is a link, not a folder, or another user's).
    @discardableResult
    package static func privateDirectory(_ path: String) throws -> String {
        if !FileSystem.exists(path) || FileSystem.isSymlink(path) {
            if FileSystem.isSymlink(path) { throw RemoteError.unsafeControlDirectory(path: path, why: "it is a symbolic link") }
            try FileSystem.makeDirectories(path, mode: 0o700)
        }
        guard let info = FileSystem.status(path, followSymlinks: false), info.st_mode & S_IFMT == S_IFDIR else {
            throw RemoteError.unsafeControlDirectory(path: path, why: "it is not a folder")
        }
        guard info.st_uid == getuid() else { throw RemoteError.unsafeControlDirectory(path: path, why: "another user owns it") }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw RemoteError.unsafeControlDirectory(path: path, why: "others may open it and it cannot be made 0700")
        }
        return path
    }

    /// Text from another host, made safe to print: control characters dropped, one line, capped.
    package static func clean(_ text: String) -> String {
        let visible = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !($0.value < 0x20 || $0.value == 0x7f || (0x80...0x9f).contains($0.value) || (0x202a...0x202e).contains($0.value) || (0x2066...0x2069).contains($0.value))
                || $0 == "\t" || $0 == "\n"
        }))
        return Text.truncate(Text.singleLine(visible), characters: 300)
    }

    /// Another host's text as cleaned lines. Split on the scalars: ssh ends its warnings with CR LF,
    /// which Swift reads as one Character, not as "\n".
    package static func lines(_ text: String) -> [String] {
        text.unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { clean(String(String.UnicodeScalarView($0))) }
    }

    /// What ssh said when it could not run the command (exit 255), and what to do about it.
    package static func failure(_ result: Subprocess.Result, host: String) -> (reason: String, fix: String) {
        let said = lines(result.errorText).filter { !$0.isEmpty && !$0.hasPrefix("Warning: Permanently added") }
        let last = said.last { !$0.hasPrefix("@@@") } ?? said.last ?? "ssh \(result.status)"
        let all = said.joined(separator: " ").lowercased()
        let fix: String
        if all.contains("remote host identification has changed") || all.contains("host key verification failed") {
            fix = "the host key is unknown or changed: connect once with 'ssh \(host)' and check the fingerprint"
        } else if all.contains("permission denied") {
            fix = "the host refused the key: check that 'ssh \(host) true' works without a prompt (ssh-copy-id \(host), ssh-add)"
        } else if all.contains("could not resolve") || all.contains("name or service not known") {
            fix = "check the host name (or add it to ~/.ssh/config)"
        } else if all.contains("connection refused") || all.contains("timed out") || all.contains("no route") || all.contains("unreachable") {
            fix = "the host is unreachable: check that it is up and that sshd listens on the port you use"
        } else if result.status == 127 || all.contains("not found") {
            fix = "the host lacks a POSIX shell tool hookctl uses (sh, head, sha256sum, getconf); see the message"
        } else {
            fix = "run 'ssh \(host) true' to see what is wrong"
        }
        return (last, fix)
    }

    package init(
        ssh: String,
        environment: [String: String],
        connectTimeout: Int = 10,
        controlDirectory: String? = nil,
        controlPersist: Int = 600,
        linkDirectory: String? = nil,
        answerLimit: Int = 4 << 20
    ) {
        self.ssh = ssh
        self.environment = environment
        self.connectTimeout = connectTimeout
        self.controlDirectory = controlDirectory
        self.controlPersist = controlPersist
        self.linkDirectory = linkDirectory
        self.answerLimit = answerLimit
    }
}

/// What reaching another host can fail with before any host is asked (a host's own failure is a
/// value on its row: `HostAnswer`).
package enum RemoteError: HookctlError {
    case noSSH
    case unsafeControlDirectory(path: String, why: String)
    case unknownHost(name: String, known: [String])
    case host(name: String, reason: String, fix: String?)

    package var exitCode: ExitCode {
        switch self {
        case .unknownHost: return .usage
        case .unsafeControlDirectory: return .cannotCreate
        default: return .unavailable
        }
    }

    package var code: String { "remote" }

    package var description: String {
        switch self {
        case .noSSH: return "ssh was not found on PATH; install the OpenSSH client: sudo apt-get install openssh-client"
        case .unsafeControlDirectory(let path, let why):
            return "hookctl's ssh control folder \(path) is unsafe: \(why); remove it (it is made again, mode 0700)"
        case .unknownHost(let name, let known):
            return "no host named '\(SSHRunner.clean(name))'" + Suggest.hint(for: name, in: known)
                + (known.isEmpty ? "; add one with 'hookctl hosts add NAME [user@]HOST'" : "; hosts: \(known.joined(separator: ", "))")
        case .host(let name, let reason, let fix):
            return "\(name): \(reason)" + (fix.map { "; " + $0 } ?? "")
        }
    }
}
