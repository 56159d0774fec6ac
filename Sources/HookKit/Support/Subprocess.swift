/// Runs child processes with posix_spawn and waitpid, never Foundation's `Process` (whose
/// `waitUntilExit` polls in 50 ms slices). Every run is bounded by a timeout.
public struct Subprocess: Sendable {
    public struct Result: Sendable {
        public var status: Int32          // exit status, or 128 + signal when killed by one
        public var standardOutput: [UInt8]
        public var standardError: [UInt8]
        public var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
        public var errorText: String { String(decoding: standardError, as: UTF8.self) }
    }

    public var executable: String
    public var arguments: [String]
    /// nil: inherit this process's environment.
    public var environment: [String: String]?
    public var input: [UInt8]?
    public var timeout: Double
    /// Caps what is kept of each output stream; the rest is drained and dropped.
    public var outputLimit: Int = 16 << 20

    public init(executable: String, arguments: [String], environment: [String: String]? = nil,
                input: [UInt8]? = nil, timeout: Double = 10) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.timeout = timeout
    }

    /// Runs to completion or until the timeout, then kills the child's process group and throws `.timedOut`.
    public func run() throws -> Result {
        _ = Subprocess.ignoreBrokenPipes
        // Pipes are made close-on-exec and the child spawned under one lock, so a child spawned by another
        // thread (concurrent exec sinks) never inherits this child's pipe ends and holds them open.
        Subprocess.spawnLock.lock()
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        guard Subprocess.makePipe(&stdoutPipe), Subprocess.makePipe(&stderrPipe),
              input == nil || Subprocess.makePipe(&stdinPipe) else {
            let code = errno
            Subprocess.spawnLock.unlock()
            throw SystemError.spawn(program: executable, errno: code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], STDERR_FILENO)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Subprocess.configureChild(&attributes)

        let spawned = Swift.Result<pid_t, Error> {
            try Subprocess.spawn(executable: executable, arguments: arguments, environment: environment,
                                 actions: &actions, attributes: &attributes)
        }
        close(stdoutPipe[1])
        close(stderrPipe[1])
        if input != nil { close(stdinPipe[0]) }
        Subprocess.spawnLock.unlock()
        guard case .success(let pid) = spawned else {
            for fd in [stdoutPipe[0], stderrPipe[0], stdinPipe[1]] where fd >= 0 { close(fd) }
            _ = try spawned.get()
            throw SystemError.spawn(program: executable, errno: EINVAL)
        }

        let deadline = monotonicSeconds() + timeout
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var pending = input ?? []
        var inputFD: Int32 = input != nil ? stdinPipe[1] : -1
        if inputFD >= 0 {
            _ = fcntl(inputFD, F_SETFL, fcntl(inputFD, F_GETFL) | O_NONBLOCK)
            if pending.isEmpty { close(inputFD); inputFD = -1 }
        }
        var outFD = stdoutPipe[0]
        var errFD = stderrPipe[0]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        var exitedStatus: Int32?
        var drainUntil = Double.infinity

        while outFD >= 0 || errFD >= 0 || inputFD >= 0 {
            let now = monotonicSeconds()
            let remaining = deadline - now
            if remaining <= 0 { timedOut = exitedStatus == nil; break }
            // A child that exited while something it started still holds its pipes (a background
            // grandchild) has finished: take what is already written, then stop waiting for EOF.
            if exitedStatus == nil, now - (deadline - timeout) > 0.05 {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    exitedStatus = status
                    drainUntil = now + 0.02
                }
            }
            if now >= drainUntil { break }
            var fds: [pollfd] = []
            if outFD >= 0 { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
            if errFD >= 0 { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
            if inputFD >= 0 { fds.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
            // Wake at least every 50 ms to notice a child that exited with its pipes still held open.
            let slice = exitedStatus == nil ? min(remaining, 0.05) : max(0, min(remaining, drainUntil - now))
            let ready = poll(&fds, nfds_t(fds.count), Int32((slice * 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == inputFD {
                    let written = pending.withUnsafeBytes { Glibc.write(inputFD, $0.baseAddress, $0.count) }
                    if written > 0 { pending.removeFirst(written) }
                    if written < 0 && errno != EAGAIN && errno != EINTR || pending.isEmpty {
                        close(inputFD)
                        inputFD = -1
                    }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == outFD {
                        if output.count < outputLimit { output.append(contentsOf: buffer[0..<count]) }
                    } else if errors.count < outputLimit {
                        errors.append(contentsOf: buffer[0..<count])
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    if entry.fd == outFD { outFD = -1 } else { errFD = -1 }
                }
            }
        }
        for fd in [outFD, errFD, inputFD] where fd >= 0 { close(fd) }

        if let exitedStatus {
            return Result(status: Subprocess.decode(exitedStatus), standardOutput: output, standardError: errors)
        }
        var status: Int32 = 0
        if !timedOut {
            // The pipes are closed; the child is exiting. Wait for it, still within the deadline.
            // It usually exits within microseconds: yield the CPU to it at first rather than sleep
            // (a 0.5 ms sleep, longer on a loaded machine, would be most of a fast child's run time).
            let exitWaitStart = monotonicSeconds()
            while true {
                let waited = waitpid(pid, &status, WNOHANG)
                if waited == pid { return Result(status: Subprocess.decode(status), standardOutput: output, standardError: errors) }
                if waited < 0 && errno != EINTR { return Result(status: 127, standardOutput: output, standardError: errors) }
                let now = monotonicSeconds()
                if now >= deadline { timedOut = true; break }
                if now - exitWaitStart < 0.002 { sched_yield() } else { usleep(500) }
            }
        }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        throw SystemError.timedOut(program: FileSystem.fileName(of: executable), seconds: timeout)
    }

    static let spawnLock = PthreadLock()

    /// A child that exits without reading all its input must give EPIPE here, not kill this process.
    /// (Children get the default SIGPIPE back through POSIX_SPAWN_SETSIGDEF.)
    static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    /// A process group of its own (so a timeout can stop the child and anything it started), no signals
    /// blocked, and default SIGPIPE/SIGTERM handling, whatever this process or thread had.
    public static func configureChild(_ attributes: inout posix_spawnattr_t) {
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
    }

    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        if signal == 0 { return (status >> 8) & 0xff }
        return 128 + signal
    }

    static func spawn(executable: String, arguments: [String], environment: [String: String]?,
                      actions: inout posix_spawn_file_actions_t, attributes: inout posix_spawnattr_t) throws -> pid_t {
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let code: Int32
        if let environment {
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        if code != 0 {
            if code == ENOENT { throw SystemError.notFound(program: executable) }
            throw SystemError.spawn(program: executable, errno: code)
        }
        return pid
    }

    /// Starts a program detached from this one (new session, standard streams on /dev/null) and does
    /// not wait for it: the background flusher outlives the hook that started it.
    public static func spawnDetached(executable: String, arguments: [String], environment: [String: String]? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        // Only fds 0-2: a caller waiting for EOF on a pipe this process inherited must not wait for the child.
        if let closeFrom = closeFromAction { _ = closeFrom(&actions, 3) } else {
            for fd in ((try? FileSystem.list("/proc/self/fd")) ?? []).compactMap(Int32.init) where fd > 2 {
                posix_spawn_file_actions_addclose(&actions, fd)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(spawnSetSID | POSIX_SPAWN_SETSIGMASK))
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        _ = try spawn(executable: executable, arguments: arguments, environment: environment,
                      actions: &actions, attributes: &attributes)
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which the Swift Glibc module does not show.
    static let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// glibc's POSIX_SPAWN_SETSID (a GNU extension the Swift Glibc module does not show).
    static let spawnSetSID: Int32 = 0x80

    /// Replaces this process with `executable` (used by `session ensure --attach`). Returns only on failure.
    public static func replaceProcess(executable: String, arguments: [String], environment: [String: String]) -> SystemError {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, argv, envp)
        return .spawn(program: executable, errno: errno)
    }

    /// Finds a program on `PATH` (and the usual install locations), like the shell would.
    public static func findExecutable(_ name: String, path: String?, extraDirectories: [String] = []) -> String? {
        if name.contains("/") { return FileSystem.isExecutable(name) ? name : nil }
        let directories = (path ?? "").split(separator: ":").map(String.init) + extraDirectories
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}

/// Seconds on the monotonic clock, for deadlines and timings.
public func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Sleeps for a number of seconds (fractions allowed).
public func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

/// The absolute path of the running hookctl binary.
public func currentExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    if length > 0 { return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    return CommandLine.arguments.first ?? "hookctl"
}

/// The process's working directory.
public func currentDirectory() -> String? {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let ok = buffer.withUnsafeMutableBufferPointer { pointer in
        pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: pointer.count) { getcwd($0, pointer.count) != nil }
    }
    guard ok, let end = buffer.firstIndex(of: 0) else { return nil }
    return String(decoding: buffer[..<end], as: UTF8.self)
}
