import Synchronization
import Testing
@testable import HookSupport
import TestSupport

/// Runs the built `hookctl` binary end to end with a private HOME, and starts loopback servers.
/// Every test gets its own temporary directory: tests run in parallel and share nothing.
enum Harness {
    /// The package root, from this file's path.
    static let packageRoot: String = {
        var path = #filePath
        for _ in 0..<4 { path = FileSystem.parentDirectory(of: path) }
        return path
    }()

    /// The hookctl binary built beside the tests (`swift build` / `swift test` build it into .build/debug).
    static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["HOOKCTL_BINARY"], !explicit.isEmpty { return explicit }
        // The test bundle lives in the same build directory as the executable.
        let bundleDirectory = FileSystem.parentDirectory(of: currentExecutablePath())
        for candidate in [bundleDirectory + "/hookctl", packageRoot + "/.build/debug/hookctl"] where FileSystem.isExecutable(candidate) {
            return candidate
        }
        return packageRoot + "/.build/debug/hookctl"
    }()

    static var fixtures: String { packageRoot + "/Tests/Fixtures" }
}

/// A fresh temporary directory used as HOME, removed at deinit.
final class TemporaryHome: @unchecked Sendable {
    private let directory: TemporaryDirectory
    var path: String { directory.path }

    init() throws { directory = try TemporaryDirectory("test") }

    /// An environment with only what a hook gets: HOME, PATH, and the given extras.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["HOME": path, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// What an agent's hook gets in the phone's session (SSHIDO_SESSION=1), delivering within the hook
    /// only (HOOKCTL_NO_BACKGROUND=1: no background flusher outlives the test), and the given extras.
    func hookEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        environment(["SSHIDO_SESSION": "1", "HOOKCTL_NO_BACKGROUND": "1"].merging(extra) { $1 })
    }

    func file(_ relative: String) -> String { path + "/" + relative }

    func write(_ relative: String, _ text: String, mode: mode_t = 0o600) throws {
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: file(relative)))
        try FileSystem.writeAtomically(file(relative), text: text, mode: mode, sync: false)
    }

    func read(_ relative: String) -> String? { (try? FileSystem.readString(file(relative))) ?? nil }

    /// The socket of this HOME's private tmux server.
    var tmuxSocket: String { file("tmux.sock") }

    /// Runs the real tmux on this HOME's private server (no config file, TMUX_TMPDIR in HOME).
    func tmuxResult(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess(executable: "/usr/bin/env", arguments: ["tmux", "-f", "/dev/null", "-S", tmuxSocket] + arguments,
                       environment: environment(["TMUX_TMPDIR": path]), timeout: 10).run()
    }

    /// `tmuxResult`'s trimmed output.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String { Text.trimmed(try tmuxResult(arguments).outputText) }
}

extension TemporaryHome {
    /// The token in the relay URL `writeConfig` sets up (the URL is a secret: tests check it is never printed).
    static let relayToken = "0123456789abcdef0123456789abcdef"

    /// Writes the config most end-to-end tests use: one relay sink posting to `relay` (none when nil),
    /// `defaults` lines under `defaults:`, and the `extra` sinks after it.
    func writeConfig(relay: Receiver?, defaults: String = "", extra: String = "") throws {
        var yaml = "version: 1\n"
        if !defaults.isEmpty { yaml += "defaults:\n" + defaults }
        yaml += "sinks:\n"
        if let relay { yaml += "  - name: relay\n    type: relay\n    url: \"\(relay.baseURL)/n/\(Self.relayToken)\"\n" }
        try write(".config/hookctl/config.yaml", yaml + extra)
    }

    /// A new HOME whose config (`writeConfig`) has one relay sink, posting to a new receiver answering `responses`.
    static func withRelay(_ responses: [String] = ["204"], defaults: String = "") throws -> (home: TemporaryHome, receiver: Receiver) {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: responses)
        try home.writeConfig(relay: receiver, defaults: defaults)
        return (home, receiver)
    }

    /// Waits until nothing of this HOME's can still send or record: no process runs the hookctl
    /// binary with this HOME (a hook's detached notify, as opencode's plugin and aider's bell start
    /// it) but the background sender, and a running sender has nothing left to send (the outbox holds
    /// no entry: an entry leaves it only once its attempt has an outcome; an idle sender lingers,
    /// sending nothing, until it exits). After this, "no more requests arrived" is a fact, not a guess after a
    /// pause: the receiver logs a request before it answers, so every request made is in its log.
    func waitUntilQuiet(timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) {
        let outbox = file(".local/state/hookctl/outbox")
        func quiet() -> Bool {
            let running = runningHookctls()
            guard running.allSatisfy(\.isSender) else { return false }
            // No sender: what waits in the outbox waits for a later test step, not for now.
            return running.isEmpty || !((try? FileSystem.list(outbox)) ?? []).contains { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        }
        let settled = eventually(timeout: timeout) { quiet() }
        #expect(settled, "hookctl was still busy for this HOME after \(timeout) s: \(runningHookctls())", sourceLocation: sourceLocation)
    }

    /// A live process running the hookctl under test with HOME set to this HOME.
    struct RunningHookctl: CustomStringConvertible {
        var pid: String
        var arguments: [String]
        /// The background sender (`outbox flush --background`), which lingers idle after its work.
        var isSender: Bool { arguments.dropFirst().starts(with: ["outbox", "flush", "--background"]) }
        var description: String { "\(pid): \(arguments.joined(separator: " "))" }
    }

    /// The live processes that run the hookctl under test with HOME set to this HOME.
    func runningHookctls() -> [RunningHookctl] {
        let binary = FileSystem.resolveSymlinks(Harness.binary)
        let marker = Array("HOME=\(path)".utf8)
        return ((try? FileSystem.list("/proc")) ?? []).compactMap { pid in
            guard pid.allSatisfy(\.isNumber), FileSystem.resolveSymlinks("/proc/\(pid)/exe") == binary,
                  let environ = try? FileSystem.read("/proc/\(pid)/environ", limit: 1 << 20),
                  environ.split(separator: 0).contains(where: { Array($0) == marker }),
                  let cmdline = try? FileSystem.read("/proc/\(pid)/cmdline", limit: 1 << 20) else { return nil }
            return RunningHookctl(pid: pid, arguments: cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// The path of `name` in this HOME's state folder (`~/.local/state/hookctl/`).
    func stateFile(_ name: String) -> String { file(".local/state/hookctl/" + name) }

    /// Writes `yaml` as this HOME's config file and returns its path.
    @discardableResult
    func writeConfigFile(_ yaml: String) throws -> String {
        try write(".config/hookctl/config.yaml", yaml)
        return file(".config/hookctl/config.yaml")
    }

    /// The events in this HOME's event log: `events.jsonl`, or the older generation `file`
    /// (`events.1.jsonl`, ...). A corrupt line is a test failure (`jsonLines`), never dropped.
    func loggedEvents(_ file: String = "events.jsonl", sourceLocation: SourceLocation = #_sourceLocation) -> [JSONValue] {
        jsonLines(read(".local/state/hookctl/" + file) ?? "", sourceLocation: sourceLocation)
    }
}

extension Subprocess.Result {
    var stdout: String { outputText }
    var stderr: String { errorText }
}

/// Runs `hookctl ARGS` with the given environment and standard input.
func hookctl(_ arguments: [String], environment: [String: String], input: String? = nil, timeout: Double = 30) throws -> Subprocess.Result {
    try Subprocess(executable: Harness.binary, arguments: arguments, environment: environment,
                   input: input.map { Array($0.utf8) }, timeout: timeout).run()
}

/// Starts a child that keeps running (own process group, stdin on /dev/null) with its stdout on a pipe;
/// stderr goes to `errorFile` when given. Returns the pid and the pipe's read end.
func spawnWithOutputPipe(executable: String, arguments: [String], environment: [String: String]?,
                         errorFile: String? = nil) throws -> (pid_t, Int32) {
    // Both ends close-on-exec from the start (the child's stdout is a dup2, which is not): a child another
    // test thread spawns meanwhile must not inherit them. With the read end in some long-lived process,
    // a follower whose reader closed its end would never see the hang-up.
    let pipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
    do { pipe = try FileDescriptor.pipe() } catch { throw SystemError.spawn(program: executable, errno: error.code) }
    let ends = [pipe.readEnd.rawValue, pipe.writeEnd.rawValue]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
    posix_spawn_file_actions_addclose(&actions, ends[1])
    if let errorFile {
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    Subprocess.configureChild(&attributes)
    let spawned = Result {
        try Subprocess.spawn(executable: executable, arguments: arguments, environment: environment,
                             actions: &actions, attributes: &attributes)
    }
    close(ends[1])
    guard case .success(let pid) = spawned else {
        close(ends[0])
        _ = try spawned.get()
        throw SystemError.spawn(program: executable, errno: EINVAL)
    }
    return (pid, ends[0])
}

/// A child process that keeps running while the test talks to it (a loopback HTTP receiver, a tmux server).
final class BackgroundProcess: @unchecked Sendable {
    let pid: pid_t
    private let outputFD: Int32
    private let stopped = Atomic<Bool>(false)

    /// Starts `executable` with stdout on a pipe this object reads lines from.
    init(executable: String, arguments: [String], environment: [String: String]? = nil) throws {
        (pid, outputFD) = try spawnWithOutputPipe(executable: executable, arguments: arguments, environment: environment)
    }

    /// Reads one line of the child's stdout, waiting at most `timeout` seconds.
    func readLine(timeout: Double = 10) -> String? {
        var line: [UInt8] = []
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            var entry = pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(1, (deadline - monotonicSeconds()) * 1000)))
            if ready <= 0 { continue }
            var byte: UInt8 = 0
            if Glibc.read(outputFD, &byte, 1) != 1 { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }

    /// Kills and reaps the child and closes its pipe, once: a second call (an explicit stop and then the
    /// `defer` or deinit) must not close a descriptor number another test thread has since opened, nor
    /// signal a process group whose id was reused.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(outputFD)
    }
}

/// Starts a loopback server from Tests/Fixtures that prints its port first; the process and the port.
/// `python`: the interpreter and its options; -S by default, as the stand-ins need only the standard library
/// and the site module's imports (a .pth that loads certifi, here) cost about 50 ms of CPU on every start.
func startFixture(_ script: String, _ arguments: [String], python: [String] = ["/usr/bin/env", "python3", "-S"],
                  timeout: Double = 15) throws -> (BackgroundProcess, Int) {
    let process = try BackgroundProcess(executable: python[0], arguments: Array(python.dropFirst()) + [Harness.fixtures + "/" + script] + arguments)
    guard let line = process.readLine(timeout: timeout), let port = Int(line) else {
        process.stop()
        throw SystemError.spawn(program: script, errno: EIO)
    }
    return (process, port)
}

/// A loopback stand-in that appends each request it gets to `logFile` as one JSON line.
protocol RequestLogging {
    var logFile: String { get }
}

extension RequestLogging {
    /// Requests received so far (for the receiver: method, path, headers with lower-case names, body text).
    func requests() -> [JSONValue] {
        guard let text = (try? FileSystem.readString(logFile)) ?? nil else { return [] }
        // A last line the stand-in is still writing (no newline yet) is left for the next read.
        return jsonLines(String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]))
    }

    /// Waits until at least `count` requests arrived (or the timeout passes) and returns them.
    func waitForRequests(_ count: Int, timeout: Double = 10) -> [JSONValue] {
        let deadline = monotonicSeconds() + timeout
        var seen = requests()
        while seen.count < count, monotonicSeconds() < deadline {
            sleepSeconds(0.02)
            seen = requests()
        }
        return seen
    }
}

/// The loopback HTTP receiver in Tests/Fixtures/receiver.py: records every request and answers
/// from a script of responses (status, delay, headers, body), on a port it picks itself.
final class Receiver: RequestLogging, @unchecked Sendable {
    let process: BackgroundProcess
    let port: Int
    let logFile: String

    /// `responses`: what to answer, in order; the last one repeats. Each is `status[:delay_seconds]`,
    /// e.g. `["500", "500", "200"]` or `["200:0.3"]`; `hang` never answers.
    init(directory: String, responses: [String] = ["204"], extraArguments: [String] = []) throws {
        logFile = directory + "/receiver-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        (process, port) = try startFixture("receiver.py", ["--log", logFile, "--responses", responses.joined(separator: ",")] + extraArguments)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The JSON bodies of at least `count` requests (waiting as `waitForRequests` does); a request
    /// whose body is missing or not JSON is a test failure, never dropped.
    func waitForBodies(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
        try waitForRequests(count).map { try JSON.parse(try #require($0["body"]?.stringValue, sourceLocation: sourceLocation)) }
    }

    /// Changes the scripted responses while running (e.g. a server that comes back).
    func setResponses(_ responses: [String]) throws {
        try FileSystem.writeAtomically(logFile + ".responses", text: responses.joined(separator: ","), sync: false)
    }

    deinit { process.stop() }
}

/// Expects `request`, as the receiver logged it, to be a POST of JSON to `path`.
func expectJSONPost(_ request: JSONValue, to path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(request["method"]?.stringValue == "POST", sourceLocation: sourceLocation)
    #expect(request["path"]?.stringValue == path, sourceLocation: sourceLocation)
    #expect(request["headers"]?["content-type"]?.stringValue == "application/json", sourceLocation: sourceLocation)
}

/// The JSON documents of JSON lines (the event log, `events --json`, the receiver's log); a line
/// that does not parse is a test failure, never dropped.
func jsonLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [JSONValue] {
    text.split(separator: "\n").compactMap { line in
        do { return try JSON.parse(String(line)) } catch {
            Issue.record("corrupt JSON line: \(line)", sourceLocation: sourceLocation)
            return nil
        }
    }
}
