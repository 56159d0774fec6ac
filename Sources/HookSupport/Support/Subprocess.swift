/// Runs child processes with posix_spawn and waitpid, never Foundation's `Process` (whose
/// `waitUntilExit` polls in 50 ms slices). Every run is bounded by a timeout.
package struct Subprocess: Sendable {
    /// How a child ended.
    package enum Termination: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        /// Decodes waitpid's status.
        package init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }

        /// `status == 0` reads as "exited with status 0".
        package init(integerLiteral value: Int32) { self = .exited(value) }

        package var succeeded: Bool { self == .exited(0) }

        /// Completes "the program …": `exited with status 3`, `was killed by signal 9`.
        package var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal): return "was killed by signal \(signal)"
            }
        }
    }

    package struct Result: Sendable {
        package var status: Termination
        package var standardOutput: [UInt8]
        package var standardError: [UInt8]
        package var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
        package var errorText: String { String(decoding: standardError, as: UTF8.self) }
    }

    package var executable: String
    package var arguments: [String]
    /// nil: inherit this process's environment.
    package var environment: [String: String]?
    package var input: [UInt8]?
    package var timeout: Double
    /// Caps what is kept of each output stream; the rest is drained and dropped.
    package var outputLimit: Int = 16 << 20

    package init(executable: String, arguments: [String], environment: [String: String]? = nil,
                input: [UInt8]? = nil, timeout: Double = 10) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.timeout = timeout
    }

    /// Runs to completion or until the timeout, then kills the child's process group and throws `.timedOut`.
    package func run() throws -> Result {
        let child = try spawn()
        let pumped = pump(child)
        return try reap(child, pumped)
    }

    /// A started child: its pid and this process's ends of its pipes.
    package struct Child {
        package let pid: pid_t
        /// When it was started, and by when it must have finished.
        package let started: ContinuousClock.Instant
        package let deadline: ContinuousClock.Instant
        package let output: FileDescriptor
        package let errors: FileDescriptor
        /// The write end of its standard input (nil: it reads /dev/null).
        package let input: FileDescriptor?
    }

    /// What the child wrote, and how it ended if that was seen while reading.
    package struct Pumped {
        package var output: [UInt8] = []
        package var errors: [UInt8] = []
        /// waitpid's status, when the child exited while something it started still held its pipes.
        package var exitStatus: Int32?
        package var timedOut = false
    }

    /// Starts the child with its standard streams on fresh pipes. Every pipe end is close-on-exec from
    /// its creation (pipe2), so a child another thread spawns meanwhile inherits none of them; the
    /// child gets its own ends through posix_spawn's dup2, which clears close-on-exec on the copy.
    package func spawn() throws -> Child {
        _ = Subprocess.ignoreBrokenPipes
        var opened: [FileDescriptor] = []
        func pipe() throws -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
            do throws(Errno) {
                let ends = try FileDescriptor.pipe()
                opened += [ends.readEnd, ends.writeEnd]
                return ends
            } catch {
                opened.forEach { $0.close() }
                throw SystemError.spawn(program: executable, errno: error.code)
            }
        }
        let outputPipe = try pipe()
        let errorPipe = try pipe()
        let inputPipe = input == nil ? nil : try pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let inputPipe {
            posix_spawn_file_actions_adddup2(&actions, inputPipe.readEnd.rawValue, STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe.writeEnd.rawValue, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errorPipe.writeEnd.rawValue, STDERR_FILENO)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Subprocess.configureChild(&attributes)

        let spawned = Swift.Result<pid_t, Error> {
            try Subprocess.spawn(executable: executable, arguments: arguments, environment: environment,
                                 actions: &actions, attributes: &attributes)
        }
        // The child's ends are the child's now.
        outputPipe.writeEnd.close()
        errorPipe.writeEnd.close()
        inputPipe?.readEnd.close()
        guard case .success(let pid) = spawned else {
            outputPipe.readEnd.close()
            errorPipe.readEnd.close()
            inputPipe?.writeEnd.close()
            _ = try spawned.get()
            throw SystemError.spawn(program: executable, errno: EINVAL)
        }
        let started = ContinuousClock.now
        return Child(pid: pid, started: started, deadline: started + .seconds(clampingSeconds: timeout), output: outputPipe.readEnd,
                     errors: errorPipe.readEnd, input: inputPipe?.writeEnd)
    }

    /// Feeds the child its input and collects its output until both output pipes reach their end, the
    /// child exits leaving them held by something it started, or the deadline passes. Closes every pipe.
    package func pump(_ child: Child) -> Pumped {
        var result = Pumped()
        var pending = input ?? []
        var inputFD = child.input
        if let fd = inputFD {
            fd.setNonBlocking()
            if pending.isEmpty { fd.close(); inputFD = nil }
        }
        var outFD: FileDescriptor? = child.output
        var errFD: FileDescriptor? = child.errors
        var buffer = [UInt8](repeating: 0, count: 65536)
        var drainUntil: ContinuousClock.Instant?

        while outFD != nil || errFD != nil || inputFD != nil {
            let now = ContinuousClock.now
            let remaining = (child.deadline - now).inSeconds
            if remaining <= 0 { result.timedOut = result.exitStatus == nil; break }
            // A child that exited while something it started still holds its pipes (a background
            // grandchild) has finished: take what is already written, then stop waiting for EOF.
            if result.exitStatus == nil, now - child.started > .milliseconds(50) {
                var status: Int32 = 0
                if waitpid(child.pid, &status, WNOHANG) == child.pid {
                    result.exitStatus = status
                    drainUntil = now + .milliseconds(20)
                }
            }
            if let drainUntil, now >= drainUntil { break }
            var watched: [(FileDescriptor, events: Int16)] = []
            if let outFD { watched.append((outFD, Int16(POLLIN))) }
            if let errFD { watched.append((errFD, Int16(POLLIN))) }
            if let inputFD { watched.append((inputFD, Int16(POLLOUT))) }
            // Wake at least every 50 ms to notice a child that exited with its pipes still held open.
            let slice = drainUntil.map { max(0, min(remaining, ($0 - now).inSeconds)) } ?? min(remaining, 0.05)
            guard let events = try? FileDescriptor.poll(watched, timeout: slice) else { break }
            for (index, (fd, _)) in watched.enumerated() where events[index] != 0 {
                if fd == inputFD {
                    do throws(Errno) {
                        pending.removeFirst(try fd.writeSome(pending))
                        if pending.isEmpty { fd.close(); inputFD = nil }
                    } catch where error.code == EAGAIN {
                    } catch {
                        fd.close()
                        inputFD = nil
                    }
                    continue
                }
                let count: Int
                do throws(Errno) {
                    count = try fd.read(into: &buffer)
                } catch where error.code == EAGAIN {
                    continue
                } catch {
                    count = 0  // a pipe that cannot be read ends like one at its end
                }
                if count == 0 {
                    fd.close()
                    if fd == outFD { outFD = nil } else { errFD = nil }
                } else if fd == outFD {
                    if result.output.count < outputLimit { result.output.append(contentsOf: buffer[0..<count]) }
                } else if result.errors.count < outputLimit {
                    result.errors.append(contentsOf: buffer[0..<count])
                }
            }
        }
        for fd in [outFD, errFD, inputFD] { fd?.close() }
        return result
    }

    /// Waits for the child to end, still within the deadline; past it, kills its process group and
    /// throws `.timedOut`.
    package func reap(_ child: Child, _ pumped: Pumped) throws -> Result {
        func result(_ status: Termination) -> Result {
            Result(status: status, standardOutput: pumped.output, standardError: pumped.errors)
        }
        if let exitStatus = pumped.exitStatus { return result(Termination(waitStatus: exitStatus)) }
        var status: Int32 = 0
        if !pumped.timedOut {
            // The pipes are closed; the child is exiting. It usually exits within microseconds: yield the
            // CPU to it at first rather than sleep (a 0.5 ms sleep, longer on a loaded machine, would be
            // most of a fast child's run time).
            let exitWaitStart = ContinuousClock.now
            while true {
                let waited = waitpid(child.pid, &status, WNOHANG)
                if waited == child.pid { return result(Termination(waitStatus: status)) }
                if waited < 0 && errno != EINTR { return result(.exited(127)) }
                let now = ContinuousClock.now
                if now >= child.deadline { break }
                if now - exitWaitStart < .milliseconds(2) { sched_yield() } else { usleep(500) }
            }
        }
        kill(-child.pid, SIGKILL)
        kill(child.pid, SIGKILL)
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        throw SystemError.timedOut(program: FileSystem.fileName(of: executable), seconds: timeout)
    }

    /// A child that exits without reading all its input must give EPIPE here, not kill this process.
    /// (Children get the default SIGPIPE back through POSIX_SPAWN_SETSIGDEF.)
    package static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// A process group of its own (so a timeout can stop the child and anything it started), no signals
    /// blocked, and default SIGPIPE/SIGTERM/SIGXFSZ handling, whatever this process or thread had.
    package static func configureChild(_ attributes: inout posix_spawnattr_t) {
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGXFSZ)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
    }

    package static func spawn(executable: String, arguments: [String], environment: [String: String]?,
                      actions: inout posix_spawn_file_actions_t, attributes: inout posix_spawnattr_t) throws -> pid_t {
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        // ETXTBSY: a program this process has just written (a hook script, a test's fake tmux) is still
        // open for writing in a child another thread forked before its exec closed the copy (the fd is
        // close-on-exec, but only at exec). That lasts microseconds: try again, for at most 50 ms.
        var code: Int32 = 0
        for pause in [0, 1000, 4000, 15000, 30000] as [UInt32] {
            if pause > 0 { usleep(pause) }
            code = envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
                ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            if code != ETXTBSY { break }
        }
        if code != 0 {
            if code == ENOENT { throw SystemError.notFound(program: executable) }
            throw SystemError.spawn(program: executable, errno: code)
        }
        return pid
    }

    /// Starts a program detached from this one (new session, standard streams on /dev/null) and does
    /// not wait for it: the background flusher outlives the hook that started it.
    package static func spawnDetached(executable: String, arguments: [String], environment: [String: String]? = nil) throws {
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
    package static let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// glibc's POSIX_SPAWN_SETSID (a GNU extension the Swift Glibc module does not show).
    package static let spawnSetSID: Int32 = 0x80

    /// Replaces this process with `executable` (used by `session ensure --attach`). Returns only on failure.
    package static func replaceProcess(executable: String, arguments: [String], environment: [String: String]) -> SystemError {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, argv, envp)
        return .spawn(program: executable, errno: errno)
    }

    /// Finds a program on `PATH` (and the usual install locations), like the shell would.
    package static func findExecutable(_ name: String, path: String?, extraDirectories: [String] = []) -> String? {
        if name.contains("/") { return FileSystem.isExecutable(name) ? name : nil }
        let directories = (path ?? "").split(separator: ":").map(String.init) + extraDirectories
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}

/// Sleeps for a number of seconds (fractions allowed).
package func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

/// The absolute path of the running hookctl binary.
package func currentExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    if length > 0 { return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    return CommandLine.arguments.first ?? "hookctl"
}

/// The process's working directory.
package func currentDirectory() -> String? {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let ok = buffer.withUnsafeMutableBufferPointer { pointer in
        pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: pointer.count) { getcwd($0, pointer.count) != nil }
    }
    guard ok, let end = buffer.firstIndex(of: 0) else { return nil }
    return String(decoding: buffer[..<end], as: UTF8.self)
}
