import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookAgents
@testable import HookCLI
import TestSupport
import CHookFront

/// Review of the hook front and the warm hook server (issue 35): each test states a rule of the product
/// (an event is recorded once, never lost; the agent is never held without a deadline; a switch that
/// keeps the server off keeps it off) that the front/server pair breaks at 29cd685.
@Suite(.onTestThreads) struct HookServerReviewTests {
    typealias Setup = HookServerTests.Setup

    static func payload(_ text: String, session: String = "s1") -> String {
        HookServerTests.payload(text, session: session)
    }

    static func startHeld(_ setup: Setup, _ extra: [String: String] = [:], input: String? = nil) -> HookServerTests.HeldHook? {
        try? HookServerTests.startHeld(setup, extra, input: input)
    }

    /// A client of the server's socket speaking the front's protocol (hookfront.h) step by step, as the
    /// C front does, but with the timing in the test's hands.
    final class FakeFront {
        let connection: Int32
        init?(setup: Setup, payload: String, extra: [String: String] = [:], arguments given: [String]? = nil) {
            connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard connection >= 0, var address = HookServer.socketAddress(HookServer.socketPath(folder: setup.folder)) else { return nil }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connection, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { close(connection); return nil }
            // READY first (the worker has taken the connection), as the C front waits for it.
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var ready: UInt8 = 0
            guard recv(connection, &ready, 1, 0) == 1, ready == UInt8(HK_FRONT_READY) else { close(connection); return nil }
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { return nil }
            let bytes = Array(payload.utf8)
            _ = write(ends[1], bytes, bytes.count)
            close(ends[1])
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            // The HOME as its working directory: the worker is then the server's child that is in it.
            let cwd = open(setup.home.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(ends[0]); close(null); close(cwd) }
            // The body: ppid, pid, umask, argc, arguments, envc, environment (host order, as the front).
            var body: [UInt8] = []
            func number(_ value: UInt32) { withUnsafeBytes(of: value) { body += $0 } }
            let arguments = given ?? [setup.binary, "hook-script SSHIDO_SESSION", setup.script, "claude"]
            let environment = setup.environment(extra).map { "\($0.key)=\($0.value)" }
            number(UInt32(getppid())); number(UInt32(getpid())); number(0o22); number(UInt32(arguments.count))
            for argument in arguments { body += Array(argument.utf8) + [0] }
            number(UInt32(environment.count))
            for variable in environment { body += Array(variable.utf8) + [0] }
            var header = Array("HKF1".utf8)
            withUnsafeBytes(of: UInt32(body.count)) { header += $0 }
            // One SCM_RIGHTS message with fds 0, 1, 2 and the working directory (CMSG_LEN(16) = 32 on LP64).
            let descriptors: [Int32] = [ends[0], null, null, cwd]
            var control = [UInt8](repeating: 0, count: 32)
            control.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: 32, toByteOffset: 0, as: Int.self)
                raw.storeBytes(of: SOL_SOCKET, toByteOffset: 8, as: Int32.self)
                raw.storeBytes(of: Int32(SCM_RIGHTS), toByteOffset: 12, as: Int32.self)
                for (index, fd) in descriptors.enumerated() { raw.storeBytes(of: fd, toByteOffset: 16 + 4 * index, as: Int32.self) }
            }
            let sent = header.withUnsafeMutableBytes { headerBytes in
                control.withUnsafeMutableBytes { controlBytes in
                    var vector = iovec(iov_base: headerBytes.baseAddress, iov_len: headerBytes.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr(msg_name: nil, msg_namelen: 0, msg_iov: vectorPointer, msg_iovlen: 1,
                                             msg_control: controlBytes.baseAddress, msg_controllen: controlBytes.count, msg_flags: 0)
                        return sendmsg(connection, &message, Int32(MSG_NOSIGNAL))
                    }
                }
            }
            guard sent == header.count, send(connection, body, body.count, Int32(MSG_NOSIGNAL)) == body.count else { return nil }
        }

        deinit { close(connection) }

        /// The server's first byte (ACCEPTED), within `seconds`.
        func answer(within seconds: Int = 5) -> UInt8? {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            return recv(connection, &byte, 1, 0) == 1 ? byte : nil
        }

        /// GO: true when the kernel took it (the C front then never runs hookctl itself).
        func go() -> Bool {
            var byte: UInt8 = 0x47  // HK_FRONT_GO
            return send(connection, &byte, 1, Int32(MSG_NOSIGNAL)) == 1
        }

        /// The wait status the server or the worker sends, within `seconds`.
        func status(within seconds: Int = 10) -> Int32? {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var status: Int32 = 0
            return recv(connection, &status, 4, Int32(MSG_WAITALL)) == 4 ? status : nil
        }
    }

    static func children(of parent: pid_t) -> [pid_t] {
        ((try? FileSystem.list("/proc")) ?? []).compactMap { pid_t($0) }.filter { ProcessStat.read($0)?.parent == parent }
    }

    static func state(_ pid: pid_t) -> UInt8? { ProcessStat.read(pid)?.state }

    // MARK: findings

    /// HOOKCTL_HOOK_SERVER=off and HOOKCTL_NO_BACKGROUND=1 say "each hook runs hookctl as its own process"
    /// (`HookFront.serverAllowed`), but they are only read when a hook decides whether to *start* a
    /// server: once any hook started one, the front hands hooks with either switch to it all the same.
    @Test func aHookWithTheServerSwitchedOffIsNotHandedToARunningServer() throws {
        let setup = try Setup()
        try setup.warm()
        for (name, value) in [("HOOKCTL_HOOK_SERVER", "off"), ("HOOKCTL_NO_BACKGROUND", "1")] {
            let held = try #require(Self.startHeld(setup, [name: value]))
            // The front hands over (or execs hookctl) at once; the stdin pipe holds whichever it became.
            usleep(500_000)
            let exe = FileSystem.resolveSymlinks("/proc/\(held.pid)/exe")
            #expect(exe == FileSystem.resolveSymlinks(setup.binary),
                    "with \(name)=\(value) the hook runs hookctl itself, not a worker of the running server (the agent waits for \(exe))")
            #expect(held.finish(Self.payload("\(name)")).succeeded)
        }
        #expect(setup.texts() == ["warm", "HOOKCTL_HOOK_SERVER", "HOOKCTL_NO_BACKGROUND"])
        setup.stopServer()
    }

    /// "Every wait has a deadline": the front's connect(2) has none. The socket is blocking, so while the
    /// server does not accept (stopped, frozen with its cgroup, stuck) the listen backlog (64) fills with
    /// the connections of fronts that already gave up after 3 s, and every later front blocks in connect
    /// (`unix_wait_for_peer`) until the server accepts again: the agent is held without limit.
    @Test func aFrontDoesNotWaitWithoutDeadlineForAServerThatDoesNotAccept() throws {
        let setup = try Setup()
        try setup.warm()
        let server = try #require(setup.serverPID())
        kill(server, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(server, SIGCONT) } }
        var hooks: [pid_t] = []
        for index in 0..<72 {
            if let held = Self.startHeld(setup, ["HOOKCTL_NO_BACKGROUND": "1"], input: Self.payload("stopped \(index)", session: "s\(index)")) {
                hooks.append(held.pid)
            }
        }
        #expect(hooks.count == 72)
        var statuses: [pid_t: Int32] = [:]
        // Each front gives up on the stopped server after 3 s and runs hookctl itself; 20 s is ample.
        _ = eventually(timeout: 20) {
            for pid in hooks where statuses[pid] == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { statuses[pid] = status }
            }
            return statuses.count == hooks.count
        }
        let stuck = hooks.filter { statuses[$0] == nil }
        let where_ = stuck.prefix(3).map { (try? FileSystem.read("/proc/\($0)/wchan", limit: 64)).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? "?" }
        #expect(stuck.isEmpty, "\(stuck.count) fronts still wait 20 s on, in \(where_)")
        kill(server, SIGCONT)
        resumed = true
        for pid in stuck {
            var status: Int32 = 0
            if !eventually(timeout: 30, { waitpid(pid, &status, WNOHANG) == pid }) { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
        }
        // (A hook that fell back after 3 s starts hookctl with its 2 s budget spent: its event may wait in
        // the outbox for the next hook's catch-up before it reaches the log.)
        #expect(try setup.hook(Self.payload("after"), ["HOOKCTL_NO_BACKGROUND": "1"]).status.succeeded)
        #expect(eventually(timeout: 10) { setup.texts().count == 74 }, "every event once (\(setup.texts().count))")
        let texts = setup.texts()
        #expect(Set(texts).count == texts.count, "no event twice")
        setup.stopServer()
    }

    /// The commit is GO, but a GO the kernel took is not one the worker took: a worker whose wait for GO
    /// (3 s after it sent ACCEPTED) ended a moment before GO arrived exits 0 without running the hook,
    /// the connection is still open (the server holds it until it has reaped the worker), the server then
    /// reports that exit 0 to the front as the hook's status, and the front exits 0: the event is lost
    /// and nobody is told. The C front reaches this when it is held (stopped, descheduled) until just
    /// before its own 3 s deadline and then for a few milliseconds between its deadline check and its
    /// send (a sweep of GO delays without stopping the server hits it at 3.0032-3.0033 s after ACCEPTED).
    /// Here the server is stopped while the worker gives up, which holds that window open.
    @Test func aGoTheWorkerNeverTookIsNotReportedAsTheHooksSuccess() throws {
        let setup = try Setup()
        try setup.warm()
        let server = try #require(setup.serverPID())
        let front = try #require(FakeFront(setup: setup, payload: Self.payload("late go")))
        #expect(front.answer() == 0x41, "ACCEPTED")
        // The worker: the server's child in the fake front's folder (the one forked for the next hook waits in /).
        let here = FileSystem.resolveSymlinks(setup.home.path)
        let worker = try #require(Self.children(of: server).first { FileSystem.resolveSymlinks("/proc/\($0)/cwd") == here })
        kill(server, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(server, SIGCONT) } }
        // The worker's wait for GO ends (it exits 0 and stays a zombie of the stopped server).
        #expect(eventually(timeout: 10) { Self.state(worker) == UInt8(ascii: "Z") })
        let taken = front.go()
        kill(server, SIGCONT)
        resumed = true
        let status = front.status()
        #expect(taken, "the kernel took GO (the C front is now committed: it will never run hookctl itself)")
        if taken, let status, status == 0 {
            #expect(setup.texts().contains("late go"), "the front was told the hook succeeded (status 0), but its event was never recorded")
        }
        setup.stopServer()
    }

    /// A server killed during its warm-up leaves its throwaway HOME (`.warm-XXXXXX`, in the front's
    /// folder) behind for good: no later server removes it, and uninstall, which removes the front, the
    /// socket and the lock, leaves the folder (and whatever state the warm-up wrote there) in place.
    @Test func aWarmUpKilledMidWayLeavesNothingBehind() throws {
        let setup = try Setup()
        var caught = false
        for _ in 0..<20 where !caught {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [setup.binary, HookServer.marker, setup.folder].map { (word: String) in strdup(word) } + [nil]
            let envp: [UnsafeMutablePointer<CChar>?] = setup.environment().map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            guard posix_spawn(&pid, setup.binary, nil, nil, argv, envp) == 0 else { break }
            let deadline = monotonicSeconds() + 5
            while monotonicSeconds() < deadline {
                if ((try? FileSystem.list(setup.folder)) ?? []).contains(where: { $0.hasPrefix(".warm-") }) { caught = true; break }
                if access(HookServer.socketPath(folder: setup.folder), F_OK) == 0 { break }
            }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            unlink(HookServer.socketPath(folder: setup.folder))
        }
        try #require(caught, "the warm-up was never caught in progress")
        // A later server (the next hook starts one) and uninstall both leave the folder clean.
        _ = try setup.hook(Self.payload("after"))
        #expect(eventually(timeout: 10) { setup.serverRunning })
        let result = try Subprocess(executable: setup.binary, arguments: ["uninstall", "-q"], environment: setup.home.environment(), timeout: 30).run()
        #expect(result.status.succeeded, "\(result.stderr)")
        #expect(eventually(timeout: 5) { setup.serverPID() == nil })
        let left = (try? FileSystem.list(setup.folder)) ?? []
        #expect(left.isEmpty, "left in the front's folder after uninstall: \(left)")
    }
    /// The worker runs whatever hookctl command line the client sends (`CommandLineTool.run` of the
    /// message's arguments), not only the hook script's `hook-script GATE SCRIPT …`: any process that can
    /// reach the socket (same uid, but perhaps inside an agent's sandbox, where a path's unix socket stays
    /// reachable) gets `events`, `reply`, `setup`, `deploy`… run outside it, with its own descriptors.
    @Test func aWorkerRunsNothingButTheFoldersHookScript() throws {
        let setup = try Setup()
        try setup.warm()
        for arguments in [[setup.binary, "events", "--limit", "1"], [setup.binary, "hook-script SSHIDO_SESSION", "/elsewhere/script", "claude"]] {
            let front = try #require(FakeFront(setup: setup, payload: "", arguments: arguments))
            let answer = front.answer()
            #expect(answer != 0x41, "ACCEPTED for \(arguments.dropFirst())")
            if answer == 0x41 { _ = front.go(); _ = front.status() }
        }
        setup.stopServer()
    }
    /// A front that gives up on the server (3 s without ACCEPTED) and runs hookctl itself has already
    /// passed its stdin, stdout and stderr in SCM_RIGHTS over a connection the server has not accepted.
    /// Closing its end does not take them back: the kernel keeps them in flight in that connection's
    /// queue until the server accepts it, so the agent's pipes stay open after the hook has ended, and an
    /// agent that reads the hook's output to its end (Codex's `output()`, Node's 'close', Python's
    /// `communicate()`) waits for as long as the server is stopped or stuck (10 minutes, in a run here).
    @Test func aFrontThatFellBackLeavesNoCopyOfTheAgentsPipes() throws {
        let setup = try Setup()
        try setup.warm()
        let server = try #require(setup.serverPID())
        kill(server, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(server, SIGCONT) } }
        var output: [Int32] = [0, 0]
        #expect(pipe(&output) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        posix_spawn_file_actions_addclose(&actions, output[0])
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", setup.command].map { (word: String) in strdup(word) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = setup.environment(["HOOKCTL_NO_BACKGROUND": "1"]).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) == 0)
        close(output[1])
        var status: Int32 = 0
        #expect(eventually(timeout: 20) { waitpid(pid, &status, WNOHANG) == pid }, "the hook ends (it runs hookctl itself)")
        // The hook has ended: its output reaches its end at once.
        var entry = pollfd(fd: output[0], events: Int16(POLLIN), revents: 0)
        var ended = false
        let deadline = monotonicSeconds() + 5
        while monotonicSeconds() < deadline, !ended {
            guard poll(&entry, 1, 200) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            ended = read(output[0], &buffer, buffer.count) <= 0
        }
        #expect(ended, "the hook's stdout and stderr are still open 5 s after it ended (held in flight for the stopped server)")
        kill(server, SIGCONT)
        resumed = true
        close(output[0])
        setup.stopServer()
    }
}
