import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookAgents
@testable import HookCLI
import TestSupport
import CHookFront

/// Issue 35: the hook front and the warm hook server, end to end with the built binary. The registered
/// command runs the front (the script's `#!` line), which hands the hook to a warm hookctl or runs hookctl
/// itself; either way each event is recorded exactly once, with the hook's own stdin, stdout, stderr,
/// environment and exit status, and nothing the front or the socket is sent can take the server down.
@Suite(.onTestThreads) struct HookServerTests {
    /// A HOME set up by `hookctl setup` with a hookctl whose path is short enough for the front's `#!` line
    /// (a link to the binary under test inside the HOME), relaying to a loopback receiver.
    struct Setup {
        let home: TemporaryHome
        let receiver: Receiver
        let binary: String
        let command: String
        var folder: String { home.file(".local/share/hookctl/bin") }
        var script: String { folder + "/hookctl-hook" }

        init(binary name: String = "b/hookctl") throws {
            home = try TemporaryHome()
            receiver = try Receiver(directory: home.path)
            binary = home.file(name)
            try Setup.place(binary)
            let url = "http://127.0.0.1:\(receiver.port)/n/\(TemporaryHome.relayToken)"
            let result = try Subprocess(executable: binary, arguments: ["setup", "--agents", "claude", "--notify-url", url, "-q"],
                                        environment: home.environment(), timeout: 30).run()
            #expect(result.status.succeeded, "\(result.stderr)")
            let settings = try JSON.parse(home.read(".claude/settings.json") ?? "")
            command = settings["hooks"]?["Stop"]?.arrayValue?.first?["hooks"]?.arrayValue?.first?["command"]?.stringValue ?? ""
        }

        /// The binary under test at `path`: a hard link where the file system allows, else a copy.
        static func place(_ path: String) throws {
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path))
            if link(FileSystem.resolveSymlinks(Harness.binary), path) != 0 {
                let bytes = try FileSystem.read(Harness.binary, limit: 1 << 30) ?? []
                try FileSystem.writeAtomically(path, bytes: bytes, mode: 0o755, sync: false)
            }
        }

        /// The environment of a hook in the phone's session (background processes allowed: the server is one).
        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            home.environment(["SSHIDO_SESSION": "1"].merging(extra) { $1 })
        }

        /// Runs the registered command as the agent would, with `payload` on stdin.
        func hook(_ payload: String, _ extra: [String: String] = [:], arguments: String = "") throws -> Subprocess.Result {
            try Subprocess(executable: "/bin/sh", arguments: ["-c", command + arguments], environment: environment(extra),
                           input: Array(payload.utf8), timeout: 30).run()
        }

        var serverRunning: Bool { HookServer.isRunning(folder: folder) }

        /// The pid of the warm server for this HOME (nil when none runs).
        func serverPID() -> pid_t? {
            for name in (try? FileSystem.list("/proc")) ?? [] where name.allSatisfy(\.isNumber) {
                guard let cmdline = try? FileSystem.read("/proc/\(name)/cmdline", limit: 1 << 16) else { continue }
                let words = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if words.count == 3, words[1] == HookServer.marker, words[2] == folder { return pid_t(name) }
            }
            return nil
        }

        func texts() -> [String] {
            home.loggedEvents().compactMap { $0["message"]?.stringValue }
        }

        /// The first hook (no server yet: it runs hookctl itself and starts one), and the server answering.
        func warm() throws {
            _ = try hook(HookServerTests.payload("warm"))
            #expect(eventually(timeout: 10) { serverRunning }, "the first hook starts the server")
        }

        /// Stops the server (the socket removed, as uninstall does) and waits for it.
        func stopServer() {
            unlink(HookServer.socketPath(folder: folder))
            _ = eventually(timeout: 5) { serverPID() == nil }
        }
    }

    static func payload(_ text: String, session: String = "s1") -> String {
        #"{"session_id":"\#(session)","cwd":"/w/api","hook_event_name":"Stop","last_assistant_message":"\#(text)"}"#
    }

    /// A hook started with its stdin on a pipe this test holds (the worker blocks reading it), its
    /// stdout and stderr in files; with `input`, its stdin written and closed at once (`input` -1).
    struct HeldHook {
        let pid: pid_t
        let input: Int32
        func finish(_ text: String) -> Subprocess.Termination {
            if input >= 0 {
                let bytes = Array(text.utf8)
                _ = write(input, bytes, bytes.count)
                close(input)
            }
            var status: Int32 = 0
            let ended = eventually(timeout: 30) { waitpid(pid, &status, WNOHANG) == pid }
            if !ended { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
            return Subprocess.Termination(waitStatus: status)
        }
    }

    static func startHeld(_ setup: Setup, _ extra: [String: String] = [:], input: String? = nil) throws -> HeldHook {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, setup.home.file("held.out"), O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, setup.home.file("held.err"), O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addclose(&actions, ends[1])
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", setup.command].map { (word: String) in strdup(word) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = setup.environment(extra).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) == 0)
        close(ends[0])
        if let input {
            let bytes = Array(input.utf8)
            _ = write(ends[1], bytes, bytes.count)
            close(ends[1])
            return HeldHook(pid: pid, input: -1)
        }
        return HeldHook(pid: pid, input: ends[1])
    }

    /// The script names the front; the first hook (no server yet) runs hookctl itself and starts the
    /// server; the next ones are handed over. Every event is recorded once, in order, and pushed.
    @Test func hooksAreHandedToTheWarmServerAndEachIsRecordedOnce() throws {
        let setup = try Setup()
        let firstLine = setup.home.read(".local/share/hookctl/bin/hookctl-hook")?.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLine == "#!\(setup.folder)/hookctl-front SSHIDO_SESSION")
        #expect(FileSystem.resolveSymlinks(setup.folder + "/hookctl") == setup.binary, "the front runs the hookctl setup ran with")
        #expect(HookFront.isCurrent(setup.folder + "/hookctl-front"))
        #expect(try setup.hook(Self.payload("turn 0")).status.succeeded)
        #expect(eventually(timeout: 10) { setup.serverRunning }, "the first hook starts the server")
        for turn in 1...5 {
            let result = try setup.hook(Self.payload("turn \(turn)", session: "s\(turn)"))
            #expect(result.status.succeeded && result.stderr.isEmpty, "\(result.status) \(result.stderr)")
        }
        #expect(setup.texts() == (0...5).map { "turn \($0)" })
        #expect(setup.receiver.waitForRequests(6).count == 6)
        setup.home.waitUntilQuiet()
        #expect(setup.receiver.requests().count == 6, "no event pushed twice")
        setup.stopServer()
    }

    /// While the worker reads the hook's stdin, the process the agent waits for is the front (the C
    /// program, not hookctl), the worker is the server's child in the hook's working directory with the
    /// hook's environment, and the front ends with the worker's status.
    @Test func theFrontWaitsWhileTheServersWorkerRunsTheHookInTheHooksPlace() throws {
        let setup = try Setup()
        try setup.warm()
        let server = try #require(setup.serverPID())
        let held = try Self.startHeld(setup, ["MY_MARK": "mark-\(UInt32.random(in: 0...UInt32.max))"])
        // The worker: the server's child in the hook's working directory (the one forked ahead for the next
        // hook waits in /). (Its environment is the hook's, but /proc/PID/environ shows what a process was
        // exec'd with: the fault test below shows a variable of the hook's own reaching the worker.)
        let here = FileSystem.resolveSymlinks(currentDirectory() ?? "/")
        #expect(here != "/")
        #expect(eventually(timeout: 10) {
            ((try? FileSystem.list("/proc")) ?? []).contains { name in
                name.allSatisfy(\.isNumber) && ProcessStat.read(pid_t(name) ?? 0)?.parent == server
                    && FileSystem.resolveSymlinks("/proc/\(name)/cwd") == here
            }
        }, "a worker runs in the hook's folder")
        #expect(FileSystem.resolveSymlinks("/proc/\(held.pid)/exe") == FileSystem.resolveSymlinks(setup.folder + "/hookctl-front"),
                "the agent waits for the front, not for a hookctl it started")
        #expect(held.finish(Self.payload("held")).succeeded)
        #expect(setup.texts() == ["warm", "held"])
        setup.stopServer()
    }

    /// The hook's stderr and exit status come back through the front: a warning the worker writes reaches
    /// the agent, and a worker killed mid-hook (an injected fault, read from the hook's own environment,
    /// not the server's) kills the front with the same signal.
    @Test func exitStatusesStderrAndSignalsComeBackThroughTheFront() throws {
        let setup = try Setup()
        try setup.warm()
        let warned = try setup.hook(#"{"hook_event_name":"Stop","session_id":"s1","cwd":"/w","last_assistant_message":"bad"#)
        #expect(warned.status.succeeded, "\(warned.status)")
        #expect(warned.stderr.contains("not valid JSON"), "\(warned.stderr)")
        let killed = try setup.hook(Self.payload("killed"), ["HOOKCTL_FAULT": "logged"])
        #expect(killed.status == .signalled(SIGKILL), "\(killed.status) \(killed.stderr)")
        #expect(setup.serverRunning, "a worker's death is not the server's")
        #expect(try setup.hook(Self.payload("after")).status.succeeded)
        #expect(setup.texts().filter { !$0.contains("bad") } == ["warm", "killed", "after"], "the fault struck once the event was logged: recorded once")
        setup.stopServer()
    }

    /// The server killed while its worker runs: the worker finishes and answers the front itself; the next
    /// hook finds no server, runs hookctl itself and starts another. Nothing lost, nothing twice.
    @Test func aServerKilledMidHookLosesAndRepeatsNothing() throws {
        let setup = try Setup()
        try setup.warm()
        for round in 0..<3 {
            let server = try #require(setup.serverPID())
            let held = try Self.startHeld(setup)
            #expect(eventually(timeout: 10) {
                ((try? FileSystem.list("/proc")) ?? []).contains { ProcessStat.read(pid_t($0) ?? 0)?.parent == server }
            })
            kill(server, SIGKILL)
            #expect(held.finish(Self.payload("held \(round)")).succeeded)
            #expect(try setup.hook(Self.payload("next \(round)")).status.succeeded, "the fallback")
            #expect(eventually(timeout: 10) { setup.serverRunning && setup.serverPID().map { $0 != server } ?? false }, "a new server")
        }
        #expect(setup.texts() == ["warm"] + (0..<3).flatMap { ["held \($0)", "next \($0)"] })
        setup.stopServer()
    }

    /// Whatever reaches the socket (nothing, noise, a wrong magic, an absurd length, a header without
    /// descriptors, a body cut short, a flood of connections), the server answers no one, records nothing,
    /// and the next real hook is handed over and recorded once.
    @Test func garbageOnTheSocketRecordsNothingAndTheServerStaysUp() throws {
        let setup = try Setup()
        try setup.warm()
        let server = try #require(setup.serverPID())
        let socketPath = HookServer.socketPath(folder: setup.folder)
        var header = Array("HKF1".utf8) + [0xff, 0xff, 0xff, 0x7f]
        let attempts: [[UInt8]] = [[], Array("GET / HTTP/1.1\r\n\r\n".utf8), Array("XXXX\u{0}\u{0}\u{0}\u{0}".utf8), header,
                                   Array("HKF1".utf8) + [16, 0, 0, 0] + Array(repeating: 0x41, count: 16),
                                   [UInt8](repeating: 0x1b, count: 1 << 16)]
        var connections: [Int32] = []
        for bytes in attempts {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = try #require(HookServer.socketAddress(socketPath))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(connected == 0)
            if !bytes.isEmpty { _ = send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) }
            connections.append(fd)
        }
        // Each is closed with nothing but READY (at the latest when the worker's wait for the message ends):
        // never ACCEPTED.
        for (fd, bytes) in zip(connections, attempts) {
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var answers: [UInt8] = []
            var answer: UInt8 = 0
            while recv(fd, &answer, 1, 0) == 1 { answers.append(answer) }
            #expect(answers.count <= 1 && answers.allSatisfy { $0 == UInt8(HK_FRONT_READY) }, "\(answers) for \(bytes.prefix(8))")
            close(fd)
        }
        header = []
        #expect(setup.serverPID() == server)
        #expect(try setup.hook(Self.payload("real")).status.succeeded)
        #expect(setup.texts() == ["warm", "real"])
        setup.stopServer()
    }

    /// A front whose `#!` line names another hookctl (setup run with a new binary) retires the old server;
    /// that hook runs the new hookctl itself, once, and the next server is the new binary's.
    @Test func aScriptNamingAnotherHookctlRetiresTheServer() throws {
        let setup = try Setup()
        _ = try setup.hook(Self.payload("old"))
        #expect(eventually(timeout: 10) { setup.serverRunning })
        let old = try #require(setup.serverPID())
        let newer = setup.home.file("c/hookctl")
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: newer))
        let bytes = try FileSystem.read(Harness.binary, limit: 1 << 30) ?? []
        try FileSystem.writeAtomically(newer, bytes: bytes, mode: 0o755, sync: false)
        let result = try Subprocess(executable: newer, arguments: ["setup", "--agents", "claude", "-q"], environment: setup.home.environment(), timeout: 30).run()
        #expect(result.status.succeeded, "\(result.stderr)")
        #expect(try setup.hook(Self.payload("new")).status.succeeded)
        #expect(eventually(timeout: 10) { setup.serverPID().map { $0 != old } ?? false }, "the old server retired, a new one runs")
        let server = try #require(setup.serverPID())
        #expect(FileSystem.resolveSymlinks("/proc/\(server)/exe") == FileSystem.resolveSymlinks(newer))
        #expect(try setup.hook(Self.payload("newer")).status.succeeded)
        #expect(setup.texts() == ["old", "new", "newer"])
        setup.stopServer()
    }

    /// Uninstall removes the front, the socket and the lock, and the server stops; with
    /// HOOKCTL_HOOK_SERVER=off no server starts and hooks still work; a front whose stdout is closed runs
    /// hookctl itself.
    @Test func uninstallStopsTheServerAndTheSwitchAndClosedOutputFallBack() throws {
        let setup = try Setup()
        #expect(try setup.hook(Self.payload("off"), ["HOOKCTL_HOOK_SERVER": "off"]).status.succeeded)
        usleep(300_000)
        #expect(!setup.serverRunning, "no server with HOOKCTL_HOOK_SERVER=off")
        let closed = try Subprocess(executable: "/bin/sh", arguments: ["-c", "exec >&-; " + setup.command], environment: setup.environment(),
                                    input: Array(Self.payload("closed").utf8), timeout: 30).run()
        #expect(closed.status.succeeded, "\(closed.status) \(closed.stderr)")
        #expect(eventually(timeout: 10) { setup.serverRunning })
        #expect(try setup.hook(Self.payload("on")).status.succeeded)
        let result = try Subprocess(executable: setup.binary, arguments: ["uninstall", "-q"], environment: setup.home.environment(), timeout: 30).run()
        #expect(result.status.succeeded, "\(result.stderr)")
        #expect(eventually(timeout: 5) { setup.serverPID() == nil }, "the server stops once its socket is gone")
        #expect(((try? FileSystem.list(setup.folder)) ?? []).isEmpty, "\((try? FileSystem.list(setup.folder)) ?? [])")
        #expect(setup.texts() == ["off", "closed", "on"])
    }
}

/// The front's message as the server reads it: every malformed body is refused.
@Suite struct FrontMessageTests {
    static func body(_ numbers: [UInt32], _ arguments: [String], _ environment: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        func number(_ value: UInt32) { withUnsafeBytes(of: value) { bytes += $0 } }
        numbers.forEach(number)
        number(UInt32(arguments.count))
        for argument in arguments { bytes += Array(argument.utf8) + [0] }
        number(UInt32(environment.count))
        for variable in environment { bytes += Array(variable.utf8) + [0] }
        return bytes
    }

    @Test func aWellFormedBodyReadsBackAndEveryCutOrExtraByteIsRefused() throws {
        let good = Self.body([7, 8, 0o22], ["/h/hookctl", "hook-script SSHIDO_SESSION", "/h/script", "claude"], ["HOME=/h", "X=\u{1b}]52;c;"])
        let message = try #require(FrontMessage(good))
        #expect(message.parent == 7 && message.pid == 8 && message.umask == 0o22)
        #expect(message.arguments == ["/h/hookctl", "hook-script SSHIDO_SESSION", "/h/script", "claude"])
        #expect(message.environment.map { String(decoding: $0, as: UTF8.self) } == ["HOME=/h", "X=\u{1b}]52;c;"])
        for cut in 0..<good.count { #expect(FrontMessage(Array(good.prefix(cut))) == nil, "cut at \(cut)") }
        #expect(FrontMessage(good + [0]) == nil)
        #expect(FrontMessage(Self.body([1, 2, 3], ["only-one"], [])) == nil, "no script")
        var absurd = Self.body([1, 2, 3], [], [])
        absurd.replaceSubrange(12..<16, with: [0xff, 0xff, 0xff, 0xff])
        #expect(FrontMessage(absurd) == nil)
    }
}
