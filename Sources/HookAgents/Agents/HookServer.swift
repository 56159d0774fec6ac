import CHookFront

/// The hook's own process facts. In a process the agent started they are this process's; in a warm
/// server's worker (`HookServer`) they are the front's, the process the agent really waits for.
package enum HookProcess {
    /// The front's pid and parent, set once in a worker before the hook runs.
    nonisolated(unsafe) static var front: (pid: Int32, parent: Int32)?
    /// The process that started the hook (the agent, or the shell it ran the command in).
    package static var parent: Int32 { front?.parent ?? getppid() }
    /// The hook's process: its start time is when the agent started the hook.
    package static var pid: Int32 { front?.pid ?? getpid() }
}

/// The warm hook server: `hookctl hook-server FOLDER`, started detached by a hook that found none. It
/// listens on `FOLDER/hookctl-hook.sock` (the front's folder, 0700, made by setup) and keeps one worker
/// forked ahead of the next hook; each front's connection is handed to it (a new one forked at once when
/// none waits), and the next is forked after the hand-over. The worker takes over the front's stdin,
/// stdout, stderr, working directory, umask, environment and arguments, and runs the hook exactly as the
/// process the agent started would have (`CommandLineTool.run`), with no Swift process to start. The server
/// itself does nothing but accept, hand over, fork and report each worker's wait status; it is
/// single-threaded, so a fork is safe. It is warmed once before it listens (`warmUp`).
///
/// It stops when its socket file is removed or replaced (uninstall, a new server), when its binary on
/// disk changes or a front names another hookctl (an upgrade: the front then runs the new binary itself),
/// and after `idleSeconds` without a hook. See Sources/CHookFront/include/hookfront.h for the protocol.
package enum HookServer {
    /// The interpreter-style argument that starts it (`hookctl hook-server FOLDER`; not a listed command).
    package static let marker = "hook-server"
    package static let idleSeconds = 600
    /// Workers at once; a front beyond that is refused and runs hookctl itself.
    package static let maxWorkers = 64
    /// The bytes a worker sends up its channel: this server must retire (its binary is not the front's); the
    /// front has been sent ACCEPTED (only then does the server report the worker's status to it).
    package static let retire: UInt8 = 0x52
    package static let accepted: UInt8 = 0x61
    /// And: the worker took GO (it acts from now on).
    package static let tookGo: UInt8 = 0x67

    package static func socketPath(folder: String) -> String { folder + "/" + HK_FRONT_SOCKET }
    package static func lockPath(folder: String) -> String { folder + "/" + HK_FRONT_LOCK }

    /// Whether a server answers on the folder's socket (a connect, closed at once: the server's worker
    /// then gets no message and ends without doing anything).
    package static func isRunning(folder: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard var address = socketAddress(socketPath(folder: folder)) else { return false }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    package static func socketAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }

    /// The identity of a file on disk: a replaced binary differs in one of these.
    package struct FileIdentity: Equatable {
        package var device: UInt64, inode: UInt64, size: Int64, modified: Int, modifiedNanoseconds: Int
        package init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev); inode = UInt64(info.st_ino); size = Int64(info.st_size)
            modified = Int(info.st_mtim.tv_sec); modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        }
    }

    /// A forked worker: its channel (a socket pair: the worker's bytes up, a connection down) and the
    /// connection it serves, -1 while it waits for one (the worker forked ahead of the next hook).
    private struct Worker {
        var pid: pid_t
        var connection: Int32
        var channel: Int32
        var accepted = false
        var tookGo = false
        var isIdle: Bool { connection < 0 }
    }

    /// Runs the server until it has reason to stop; returns its exit code.
    package static func run(folder: String) -> Int32 {
        let socketFile = socketPath(folder: folder)
        guard var address = socketAddress(socketFile) else { return ExitCode.usage.rawValue }
        let executable = FileSystem.resolveSymlinks(currentExecutablePath())
        guard let binary = FileIdentity(executable) else { return ExitCode.unavailable.rawValue }
        // One server per folder: the lock is held for the server's life.
        let lock = open(lockPath(folder: folder), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else { return ExitCode.ok.rawValue }
        // Warm before listening: a front either finds no server (and runs hookctl itself at once) or one
        // that forks its worker at once. (A warm-up a killed server left behind goes first.)
        HookFront.removeWarmUps(folder: folder)
        warmUp(folder: folder)
        unlink(socketFile)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { return ExitCode.unavailable.rawValue }
        let oldMask = umask(0o077)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(oldMask)
        guard bound == 0, listen(listener, 64) == 0, let socketIdentity = FileIdentity(socketFile) else {
            close(listener)
            return ExitCode.unavailable.rawValue
        }
        _ = chdir("/")
        // Every disposition at its default (a worker is then a fresh process in this), but SIGPIPE: a
        // front gone before its status is an error to ignore, not this server's death.
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { _ = Glibc.signal(signal, SIG_DFL) }
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        var listening = true
        var workers: [Worker] = []
        var lastActivity = ContinuousClock.now
        var lastCheck = ContinuousClock.now
        let uid = getuid()
        // For the benchmarks (bench/delivery/registered_command.py): each worker's CPU time, one line each.
        let statistics = getenv("HOOKCTL_HOOK_SERVER_STATS").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }

        func stopListening() {
            guard listening else { return }
            listening = false
            if FileIdentity(socketFile).map({ $0.inode == socketIdentity.inode && $0.device == socketIdentity.device }) == true {
                unlink(socketFile)
            }
            close(listener)
            // A worker waiting for a hook gets none now: its channel closed, it ends.
            for index in workers.indices where workers[index].isIdle {
                shutdown(workers[index].channel, Int32(SHUT_WR))
            }
        }

        // The first hook's worker, forked ahead.
        if let worker = start(connection: nil, listener: listener, lock: lock, folder: folder, others: [], expected: binary) { workers.append(worker) }

        while listening || !workers.isEmpty {
            var polled = [pollfd]()
            if listening { polled.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
            for worker in workers { polled.append(pollfd(fd: worker.channel, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&polled, nfds_t(polled.count), 1000)
            if ready < 0 && errno != EINTR { break }
            // The workers this poll covered (accepting below adds more).
            let polledWorkers = workers.count
            var index = 0
            if listening {
                if polled[0].revents & Int16(POLLIN) != 0 {
                    lastActivity = ContinuousClock.now
                    accepting: while true {
                        let connection = hk_front_accept(listener)
                        guard connection >= 0 else { break accepting }
                        // Only this user's fronts; a binary replaced on disk stops this server (the front
                        // then runs the new one itself).
                        guard peerUID(connection) == uid, workers.count < maxWorkers, FileIdentity(executable) == binary else {
                            if FileIdentity(executable) != binary { stopListening() }
                            close(connection)
                            if !listening { break accepting }
                            continue
                        }
                        // The worker forked ahead takes it (no fork while the agent waits), else a new one.
                        if let idle = workers.firstIndex(where: \.isIdle), hk_front_send_fd(workers[idle].channel, connection) == 0 {
                            workers[idle].connection = connection
                        } else if let worker = start(connection: connection, listener: listener, lock: lock, folder: folder, others: workers, expected: binary) {
                            workers.append(worker)
                        } else {
                            close(connection)
                        }
                    }
                    // The next hook's worker, forked now (after this one's hand-over).
                    if listening, !workers.contains(where: \.isIdle), workers.count < maxWorkers,
                       let worker = start(connection: nil, listener: listener, lock: lock, folder: folder, others: workers, expected: binary) {
                        workers.append(worker)
                    }
                }
                index = 1
            }
            var finished: [Int] = []
            for (offset, worker) in workers.prefix(polledWorkers).enumerated() {
                let events = polled[index + offset].revents
                guard events != 0 else { continue }
                var byte: UInt8 = 0
                let count = read(worker.channel, &byte, 1)
                if count == 1 {
                    if byte == retire { stopListening() }
                    if byte == Self.accepted { workers[offset].accepted = true }
                    if byte == Self.tookGo { workers[offset].tookGo = true }
                    continue
                }
                guard count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) else { continue }
                // The worker ended (its end of the channel closed with it): its wait status to a front it accepted
                // (one it refused sees the connection close, and runs hookctl itself).
                var status: Int32 = 0
                var usage = rusage()
                while wait4(worker.pid, &status, 0, &usage) < 0 && errno == EINTR {}
                if let statistics, !worker.isIdle { recordUsage(usage, pid: worker.pid, to: statistics) }
                if worker.accepted {
                    // A worker that never took GO never ran the hook: the front runs hookctl itself.
                    var report = worker.tookGo ? status : Int32(bitPattern: UInt32(HK_FRONT_NOT_RUN))
                    _ = withUnsafeBytes(of: &report) { send(worker.connection, $0.baseAddress, 4, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                }
                if !worker.isIdle { close(worker.connection) }
                close(worker.channel)
                finished.append(offset)
                lastActivity = ContinuousClock.now
            }
            for offset in finished.reversed() { workers.remove(at: offset) }
            // Once a second: is this still the folder's server, and the binary the one it runs?
            let now = ContinuousClock.now
            if listening, now - lastCheck >= .seconds(1) {
                lastCheck = now
                let current = FileIdentity(socketFile)
                if current == nil || current!.inode != socketIdentity.inode || current!.device != socketIdentity.device
                    || FileIdentity(executable) != binary
                    || (workers.allSatisfy(\.isIdle) && now - lastActivity >= .seconds(idleSeconds)) {
                    stopListening()
                }
            }
        }
        if listening { stopListening() }
        close(lock)
        return ExitCode.ok.rawValue
    }

    /// A few whole hooks run once in a throwaway HOME (Claude's `Stop`, Codex's `PermissionRequest` and
    /// `Stop`, with a relay sink that takes only failures, so nothing is sent, and HOOKCTL_NO_BACKGROUND,
    /// so no process is started), so the code,
    /// type metadata and lazily bound symbols every hook needs are set up in this process once and every
    /// worker forks with them ready. What a hook reads from the
    /// environment into a static is read again in each worker (`FaultPoint`, `HTTPClient.caBundle`).
    package static func warmUp(folder: String) {
        var template = Array((folder + "/.warm-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return }
        let home = String(cString: made)
        defer { FileSystem.removeTree(home) }
        let config = "version: 1\nsinks:\n  - name: relay\n    type: relay\n    url: \"https://push.invalid/n/0123456789abcdef0123456789abcdef\"\n    kinds: [failed]\n"
        try? FileSystem.makeDirectories(home + "/.config/hookctl", mode: 0o700)
        try? FileSystem.writeAtomically(home + "/.config/hookctl/config.yaml", text: config, mode: 0o600, sync: false)
        let environment = ["HOME": home, "PATH": "/usr/bin:/bin", Product.gateVariable: "1", "HOOKCTL_HOOK_SERVER": "off",
                           "HOOKCTL_NO_BACKGROUND": "1"]
        // The hooks that come most: Claude's Stop, Codex's PermissionRequest and Stop (its manifest, its
        // turn claim).
        let hooks = [
            ("claude", #"{"hook_event_name":"Stop","session_id":"warm-up","cwd":"/","last_assistant_message":"warm-up"}"#),
            ("codex", #"{"hook_event_name":"PermissionRequest","session_id":"warm-up","turn_id":"t","cwd":"/","tool_name":"Bash","tool_input":{"command":"true"}}"#),
            ("codex", #"{"hook_event_name":"Stop","session_id":"warm-up","turn_id":"t","cwd":"/","last_assistant_message":"warm-up"}"#),
        ]
        for (agent, payload) in hooks {
            var ends: [Int32] = [0, 0]
            guard hk_front_pipe(&ends) == 0 else { return }
            let bytes = Array(payload.utf8)
            _ = write(ends[1], bytes, bytes.count)
            close(ends[1])
            let context = CommandContext(environment: environment, standardOutput: FileDescriptorStream(fd: -1),
                                         standardError: FileDescriptorStream(fd: -1), standardInput: ends[0], workingDirectory: home)
            _ = CommandLineTool.run(["notify", "--agent", agent], context: context)
            close(ends[0])
        }
    }

    /// Appends "PID USER_MICROSECONDS SYSTEM_MICROSECONDS" for one reaped worker.
    private static func recordUsage(_ usage: rusage, pid: pid_t, to path: String) {
        let user = Int(usage.ru_utime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec)
        let system = Int(usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_stime.tv_usec)
        try? FileSystem.appendLocked(path, bytes: Array("\(pid) \(user) \(system)\n".utf8))
    }

    private static func peerUID(_ connection: Int32) -> uid_t? {
        var pid: pid_t = 0, uid: uid_t = 0
        return hk_front_peer(connection, &pid, &uid) == 0 ? uid : nil
    }

    private static func peerPID(_ connection: Int32) -> pid_t? {
        var pid: pid_t = 0, uid: uid_t = 0
        return hk_front_peer(connection, &pid, &uid) == 0 ? pid : nil
    }

    /// Forks the worker for one front's connection, or (nil) one that waits on its channel for the next
    /// hook's; nil when it could not.
    private static func start(connection: Int32?, listener: Int32, lock: Int32, folder: String, others: [Worker],
                              expected: FileIdentity) -> Worker? {
        var ends: [Int32] = [0, 0]
        guard hk_front_channel(&ends) == 0 else { return nil }
        let pid = fork()
        if pid == 0 {
            // Nothing of the server's: a worker outliving a killed server must not keep the next one out.
            close(listener)
            close(lock)
            close(ends[0])
            for other in others {
                if !other.isIdle { close(other.connection) }
                close(other.channel)
            }
            // Forked ahead: the server hands the connection over (the channel's end: the server is gone).
            let served = connection ?? hk_front_receive_fd(ends[1])
            guard served >= 0 else { _exit(0) }
            work(connection: served, channel: ends[1], folder: folder, expected: expected)
        }
        close(ends[1])
        guard pid > 0 else {
            close(ends[0])
            return nil
        }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return Worker(pid: pid, connection: connection ?? -1, channel: ends[0])
    }

    /// The worker: takes the front's message, becomes the hook's process, runs it, exits with its code.
    /// Until the front's GO it changes nothing outside itself, and ends quietly on anything unexpected.
    private static func work(connection: Int32, channel: Int32, folder: String, expected: FileIdentity) -> Never {
        // Every signal is at its default already but SIGPIPE, which hookctl ignores anyway (`Subprocess`).
        var empty = sigset_t()
        sigemptyset(&empty)
        sigprocmask(SIG_SETMASK, &empty, nil)
        // READY: the front sends its descriptors only to a worker that has taken its connection.
        var ready = UInt8(HK_FRONT_READY)
        guard send(connection, &ready, 1, Int32(MSG_NOSIGNAL)) == 1 else { _exit(0) }
        var fds: [Int32] = Array(repeating: -1, count: Int(HK_FRONT_FDS))
        let length = hk_front_receive_header(connection, &fds)
        guard length >= 0 else { _exit(0) }
        var body = [UInt8](repeating: 0, count: Int(length))
        guard length == 0 || hk_front_read_exactly(connection, &body, Int(length), Int32(HK_FRONT_MESSAGE_MS)) == 0,
              let message = FrontMessage(body), let frontPID = peerPID(connection), frontPID == message.pid,
              let hookctl = message.arguments.first else { _exit(0) }
        // Nothing but this folder's hook script (`hook-script GATE FOLDER/hookctl-hook …`, the gate split
        // off or not): a client of the socket gets no other command run.
        let script = folder + "/" + HookLayout.scriptName
        let words = Array(message.arguments.dropFirst())
        guard HookScript.isInterpreter(words),
              words.count > 1 && words[1] == script || words.count > 2 && words[0] == HookScript.marker && words[2] == script else { _exit(0) }
        // A front whose #! line names another hookctl (setup run with a new one): this server retires and
        // the front runs that hookctl itself.
        guard FileIdentity(FileSystem.resolveSymlinks(hookctl)) == expected else {
            var byte = retire
            _ = write(channel, &byte, 1)
            _exit(0)
        }
        // The hook's own switches: HOOKCTL_HOOK_SERVER=off or HOOKCTL_NO_BACKGROUND=1 keep it a process of
        // its own (the front runs hookctl).
        var switches: [String: String] = [:]
        for name in ["HOOKCTL_HOOK_SERVER", "HOOKCTL_NO_BACKGROUND"] {
            let prefix = Array((name + "=").utf8)
            if let variable = message.environment.first(where: { $0.starts(with: prefix) }) {
                switches[name] = String(decoding: variable.dropFirst(prefix.count), as: UTF8.self)
            }
        }
        guard HookFront.serverAllowed(environment: switches) else { _exit(0) }
        clearenv()
        for variable in message.environment where variable.contains(UInt8(ascii: "=")) && variable.first != UInt8(ascii: "=") {
            // putenv keeps the string: a copy that lives as long as the process.
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: variable.count + 1)
            variable.withUnsafeBufferPointer { source in
                copy.withMemoryRebound(to: UInt8.self, capacity: variable.count + 1) { target in
                    target.update(from: source.baseAddress!, count: variable.count)
                    target[variable.count] = 0
                }
            }
            // The first of a name counts, as for a process that reads its environment (getenv).
            let equals = variable.firstIndex(of: UInt8(ascii: "="))!
            copy[equals] = 0
            let taken = getenv(copy) != nil
            copy[equals] = CChar(UInt8(ascii: "="))
            if taken { copy.deallocate(); continue }
            _ = putenv(copy)
        }
        guard fchdir(fds[3]) == 0 else { _exit(0) }
        umask(mode_t(message.umask & 0o777))
        for (index, fd) in fds.prefix(3).enumerated() where dup2(fd, Int32(index)) < 0 { _exit(0) }
        for fd in fds where fd > 2 { close(fd) }
        // The server hears of it first: once the front may have read ACCEPTED, a death of this worker is
        // the front's to know (its status), never a silent close that would make the front run hookctl.
        var mark = Self.accepted
        guard write(channel, &mark, 1) == 1 else { _exit(0) }
        var acceptedByte = UInt8(HK_FRONT_ACCEPTED)
        guard send(connection, &acceptedByte, 1, Int32(MSG_NOSIGNAL)) == 1 else { _exit(0) }
        var go: UInt8 = 0
        guard hk_front_read_exactly(connection, &go, 1, Int32(HK_FRONT_MESSAGE_MS)) == 0, go == UInt8(HK_FRONT_GO) else { _exit(0) }
        // Told before acting: a worker that dies before this line is reported as never having run the hook.
        var took = Self.tookGo
        _ = write(channel, &took, 1)
        HookProcess.front = (message.pid, message.parent)
        // What this process read from its environment before (the warm-up), read again from the front's.
        FaultPoint.armed = FaultPoint.read()
        HTTPClient.caBundle = HTTPClient.readCABundle()
        let code = CommandLineTool.run(Array(message.arguments.dropFirst()), context: .process())
        // Done: the agent's pipes closed and the status sent now, so the front exits while this process is
        // still being torn down (the server's own report, after the reap, then finds the front gone).
        for fd: Int32 in 0...2 { close(fd) }
        var status = (code & 0xff) << 8
        _ = send(connection, &status, 4, Int32(MSG_NOSIGNAL))
        _exit(code)
    }
}

/// The body of a front's message (hookfront.h): checked field by field; nil when anything is off.
package struct FrontMessage: Equatable {
    package var parent: Int32
    package var pid: Int32
    package var umask: UInt32
    package var arguments: [String]
    /// "NAME=value" entries as the front had them (bytes: a value need not be UTF-8).
    package var environment: [[UInt8]]

    package init?(_ body: [UInt8]) {
        var at = 0
        func number() -> UInt32? {
            guard at + 4 <= body.count else { return nil }
            defer { at += 4 }
            // Host order, as the front wrote it.
            return body.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
        }
        func strings() -> [[UInt8]]? {
            guard let count = number(), count <= HK_FRONT_MAX_STRINGS else { return nil }
            var result: [[UInt8]] = []
            result.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard at <= body.count, let end = body[at...].firstIndex(of: 0) else { return nil }
                result.append(Array(body[at..<end]))
                at = end + 1
            }
            return result
        }
        guard let parent = number(), let pid = number(), let mask = number(), let arguments = strings(),
              arguments.count >= 2, let environment = strings(), at == body.count else { return nil }
        self.parent = Int32(bitPattern: parent)
        self.pid = Int32(bitPattern: pid)
        umask = mask
        self.arguments = arguments.map { String(decoding: $0, as: UTF8.self) }
        self.environment = environment
    }
}
