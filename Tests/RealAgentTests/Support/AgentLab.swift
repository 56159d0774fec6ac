import Glibc
import Testing
@testable import HookSupport
import TestSupport

/// Where the real agents are (scripts/install-real-agents.sh puts them there) and whether their tests run.
enum RealAgents {
    enum Agent: String, Sendable { case claude, aider, codex }

    static let environment = ProcessInfo.processInfo.environment

    /// `HOOKCTL_REAL_AGENTS`, else the install script's default cache.
    static let cache: String = {
        if let explicit = environment["HOOKCTL_REAL_AGENTS"], !explicit.isEmpty { return explicit }
        return "/var/tmp/hookctl-agents"
    }()

    static func executable(_ agent: Agent) -> String {
        switch agent {
        case .claude: cache + "/claude"
        case .aider: cache + "/aider-venv/bin/aider"
        case .codex: cache + "/codex/bin/codex"
        }
    }

    static func installed(_ agent: Agent) -> Bool { FileSystem.isExecutable(executable(agent)) }

    /// On CI a missing agent is a failure (the test runs and `AgentLab` reports it), elsewhere a skip.
    static var onCI: Bool { !(environment["CI"] ?? "").isEmpty }
    static func shouldRun(_ agent: Agent) -> Bool { installed(agent) || onCI }

    /// The package root, from this file's path (Tests/RealAgentTests/Support/AgentLab.swift).
    static let packageRoot: String = {
        var path = #filePath
        for _ in 0..<4 { path = FileSystem.parentDirectory(of: path) }
        return path
    }()

    static let fixtures = packageRoot + "/Tests/Fixtures"

    /// The hookctl binary built beside the tests, or `HOOKCTL_BINARY`.
    static let binary: String = {
        if let explicit = environment["HOOKCTL_BINARY"], !explicit.isEmpty { return explicit }
        let bundleDirectory = FileSystem.parentDirectory(of: currentExecutablePath())
        for candidate in [bundleDirectory + "/hookctl", packageRoot + "/.build/debug/hookctl"] where FileSystem.isExecutable(candidate) {
            return candidate
        }
        return packageRoot + "/.build/debug/hookctl"
    }()
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite where the real `agent` (named `name`) is installed, and always on CI.
    static func whenInstalled(_ agent: RealAgents.Agent, _ name: String) -> Self {
        .enabled(if: RealAgents.shouldRun(agent),
                 "\(name) is not installed (HOOKCTL_REAL_AGENTS, default /var/tmp/hookctl-agents): run scripts/install-real-agents.sh")
    }
}

/// A push as the relay stand-in received it.
struct Push: CustomStringConvertible {
    var title: String
    var body: String
    var priority: String
    var description: String { "[\(priority)] \(title) | \(body)" }
}

/// One real agent in a pane of the phone's tmux session, set up as a user would: a private HOME with
/// `hookctl setup` run in it, a loopback relay stand-in (Tests/Fixtures/receiver.py), a scripted model
/// (Tests/Fixtures/model_server.py) and the session `hookctl session ensure` made on a private tmux
/// server. Everything it started is killed at `close()` or deinit.
final class AgentLab: @unchecked Sendable {
    let agent: RealAgents.Agent
    private let directory: TemporaryDirectory
    var home: String { directory.path }
    let project: String
    let relayLog: String
    let modelLog: String
    private(set) var relayPort = 0
    private(set) var modelPort = 0
    /// The pane the agent runs in (`%N`), the tmux socket and the session's name.
    private(set) var pane = ""
    private(set) var socket = ""
    let sessionName = "phone"
    private var daemons: [pid_t] = []
    private var closed = false

    static let relayToken = "0123456789abcdef0123456789abcdef"

    init(_ agent: RealAgents.Agent, sourceLocation: SourceLocation = #_sourceLocation) throws {
        self.agent = agent
        directory = try TemporaryDirectory("real")
        project = directory.path + "/project"
        relayLog = directory.path + "/relay.jsonl"
        modelLog = directory.path + "/model.jsonl"
        try #require(RealAgents.installed(agent),
                     "\(agent.rawValue) is not installed at \(RealAgents.executable(agent)): run scripts/install-real-agents.sh \(RealAgents.cache)",
                     sourceLocation: sourceLocation)
        try FileSystem.makeDirectories(project)
        try FileSystem.makeDirectories(home + "/tmux")
        relayPort = try startDaemon("relay", [RealAgents.fixtures + "/receiver.py", "--log", relayLog]) { Int($0) }
        modelPort = try startDaemon("model", [RealAgents.fixtures + "/model_server.py", "--log", modelLog]) {
            $0.hasPrefix("PORT ") ? Int($0.dropFirst(5)) : nil
        }
        try prepareAgent()
        let setup = try hookctl(["setup", "--notify-url-file", "-", "--agents", agent.rawValue],
                                input: "http://127.0.0.1:\(relayPort)/n/\(Self.relayToken)\n")
        try #require(setup.status == 0, "hookctl setup: \(setup.errorText)", sourceLocation: sourceLocation)
        let ensure = try hookctl(["session", "ensure", "--name", sessionName, "--json"])
        try #require(ensure.status == 0, "hookctl session ensure: \(ensure.errorText)", sourceLocation: sourceLocation)
        let session = try JSON.parse(ensure.outputText)
        socket = try #require(session["socket"]?.stringValue)
        // Wide enough that no dialog row wraps (the numbered rows are compared with the pane's lines).
        _ = try tmux(["resize-window", "-t", "=" + sessionName, "-x", "200", "-y", "50"])
        pane = Text.trimmed(try tmux(["display-message", "-p", "-t", "=" + sessionName + ":", "#{pane_id}"]).outputText)
        try #require(pane.hasPrefix("%"), "no pane in the session: \(pane)", sourceLocation: sourceLocation)
    }

    deinit { close() }

    // MARK: Environment and commands

    /// What the test's own hookctl calls get (the phone's side: status, reply, dismiss), as an SSH login has
    /// it: the tmux server `session ensure` starts passes TERM and SHELL on to the agent.
    var environment: [String: String] {
        ["HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TMUX_TMPDIR": home + "/tmux",
         "HOOKCTL_NO_BACKGROUND": "1", "TERM": "xterm-256color", "SHELL": "/bin/bash"]
    }

    /// What the agent is started with, on top of `environment` (the pane's SSHIDO_SESSION=1 comes from the session).
    var agentEnvironment: [String: String] {
        switch agent {
        case .claude:
            ["ANTHROPIC_BASE_URL": "http://127.0.0.1:\(modelPort)", "ANTHROPIC_API_KEY": "sk-ant-test-key",
             "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
             "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1"]
        case .aider:
            ["OPENAI_API_BASE": "http://127.0.0.1:\(modelPort)/v1", "OPENAI_API_KEY": "x", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
             "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
             "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid"]
        // The provider in config.toml reads its key from STANDIN_API_KEY (prepareAgent).
        case .codex: ["STANDIN_API_KEY": "sk-test-key"]
        }
    }

    /// Runs the built hookctl as the phone would; `reply` and `dismiss` calls are kept for failure messages.
    func hookctl(_ arguments: [String], input: String? = nil, timeout: Double = 30) throws -> Subprocess.Result {
        let result = try Subprocess(executable: RealAgents.binary, arguments: arguments, environment: environment,
                                    input: input.map { Array($0.utf8) }, timeout: timeout).run()
        if ["reply", "dismiss"].contains(arguments.first ?? "") {
            transcript.append("$ hookctl \(arguments.joined(separator: " ")) → exit \(result.status)\n\(result.outputText)\(result.errorText)")
        }
        return result
    }

    private(set) var transcript: [String] = []

    @discardableResult
    func tmux(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess(executable: "/usr/bin/tmux", arguments: ["-S", socket] + arguments, environment: environment, timeout: 10).run()
    }

    /// First-run screens skipped, the model stand-in's price map, a git repository for aider.
    private func prepareAgent() throws {
        switch agent {
        case .claude:
            let config: JSONValue = .object(JSONObject([
                ("hasCompletedOnboarding", .bool(true)),
                ("customApiKeyResponses", .object(JSONObject([("approved", .array([.string("sk-ant-test-key")])), ("rejected", .array([]))]))),
                ("projects", .object(JSONObject([(project, .object(JSONObject([("hasTrustDialogAccepted", .bool(true)),
                                                                                ("allowedTools", .array([]))])))]))),
            ]))
            try FileSystem.writeAtomically(home + "/.claude.json", text: JSON.serialize(config), mode: 0o600, sync: false)
        case .codex:
            // What keeps Codex 0.163.0 on the loopback model (docs/agents.md): a model provider of its
            // own with the Responses API at the stand-in, no update check, no analytics, the project
            // trusted (no "trust this folder?" screen). hookctl setup adds its notify line to this file.
            try FileSystem.makeDirectories(home + "/.codex")
            try FileSystem.writeAtomically(home + "/.codex/config.toml", text: Self.codexConfig(modelPort: modelPort, project: project),
                                           mode: 0o600, sync: false)
        case .aider:
            try FileSystem.makeDirectories(home + "/.aider/caches")
            try FileSystem.writeAtomically(home + "/.aider/caches/model_prices_and_context_window.json", text: "{}", sync: false)
            try FileSystem.writeAtomically(project + "/app.py", text: "print('hello')\n", sync: false)
            let git = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-C", project]
            for arguments in [["init", "-q"], ["add", "app.py"], ["commit", "-q", "-m", "start"]] {
                let result = try Subprocess(executable: "/usr/bin/git", arguments: git + arguments, environment: environment).run()
                try #require(result.status == 0, "git \(arguments): \(result.errorText)")
            }
        }
    }

    // MARK: The agent in the pane

    /// Writes a script that exports the agent's environment (a login shell may reset PATH) and runs the
    /// agent with the arguments it is given, and returns the command line that starts it.
    func agentCommand(_ arguments: [String]) throws -> String {
        let script = home + "/run-\(agent.rawValue).sh"
        let exports = (environment.merging(agentEnvironment) { $1 }).sorted { $0.key < $1.key }
            .map { "export \($0.key)=\(Self.shellQuote($0.value))" }.joined(separator: "\n")
        try FileSystem.writeAtomically(script, text: """
            #!/bin/sh
            \(exports)
            cd \(Self.shellQuote(project)) || exit 1
            exec \(Self.shellQuote(RealAgents.executable(agent))) "$@"

            """, mode: 0o755, sync: false)
        return ([script] + arguments).map(Self.shellQuote).joined(separator: " ")
    }

    /// Starts the agent from the pane's shell and waits until it shows its input prompt.
    func start(_ arguments: [String]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let defaults: [String] = switch agent {
        case .claude: ["--permission-mode", "default"]
        case .aider: ["--model", "openai/gpt-4o", "--no-check-update", "--analytics-disable", "--no-show-release-notes",
                      "--no-show-model-warnings", "--no-gitignore", "--no-auto-commits"]
        case .codex: []
        }
        try typeLine(try agentCommand(arguments ?? defaults))
        let ready = eventually(timeout: 60) { self.agentReady(self.capture()) }
        try #require(ready, "\(agent.rawValue) did not show its prompt within 60 s:\n\(capture())", sourceLocation: sourceLocation)
    }

    /// The agent's idle input prompt is on the screen.
    func agentReady(_ screen: String) -> Bool {
        switch agent {
        // `⏸ manual mode on · ? for shortcuts`, or in auto mode `⏵⏵ auto mode on (shift+tab to cycle)`.
        case .claude: screen.contains("? for shortcuts") || screen.contains("(shift+tab to cycle)")
        case .aider: screen.split(separator: "\n").last.map { $0.hasPrefix(">") } ?? false
        // `› Ask Codex to do anything` over `? for shortcuts`; at start the hooks' review comes first.
        case .codex: screen.contains("? for shortcuts") || screen.contains("Hooks need review")
        }
    }

    /// Types `text` as a person would, waits, then presses Enter as its own key.
    func typeLine(_ text: String) throws {
        try tmux(["send-keys", "-t", pane, "-l", text])
        sleepSeconds(0.5)
        try tmux(["send-keys", "-t", pane, "Enter"])
    }

    func press(_ key: String) throws { try tmux(["send-keys", "-t", pane, key]) }

    /// Opens another pane in the phone's session (its shell, as the first pane's) and returns its id.
    func splitPane(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let id = Text.trimmed(try tmux(["split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane]).outputText)
        try #require(id.hasPrefix("%") && id != pane, "no second pane: \(id)", sourceLocation: sourceLocation)
        return id
    }

    /// Runs `body` with `other` as the lab's pane: `start`, `typeLine`, `press`, `capture` and the waits act there.
    func inPane<T>(_ other: String, _ body: () throws -> T) rethrows -> T {
        let saved = pane
        pane = other
        defer { pane = saved }
        return try body()
    }

    /// The pane's screen as text, trailing blank lines dropped.
    func capture() -> String {
        let text = (try? tmux(["capture-pane", "-p", "-t", pane]).outputText) ?? ""
        return String(text.reversed().drop { $0 == "\n" || $0 == " " }.reversed())
    }

    /// Waits until the pane shows `text`; fails the test (with the screen) when it does not.
    @discardableResult
    func waitForScreen(_ text: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let shown = eventually(timeout: timeout) { self.capture().contains(text) }
        #expect(shown, "the pane did not show \"\(text)\" within \(timeout) s:\n\(capture())\n\(eventSummary())", sourceLocation: sourceLocation)
        return shown
    }

    /// The last line that starts with the input prompt `❯` (or aider's `>`): what is typed there now.
    static func inputLine(_ screen: String) -> String? {
        screen.split(separator: "\n").map { Text.trimmed(String($0)) }.last { $0.hasPrefix("❯") || $0.hasPrefix(">") }
    }

    /// The numbered rows of the last menu on `screen` (`❯ 1. Yes`, `  2. No`): number → label.
    static func menu(_ screen: String) -> [Int: String] {
        var runs: [[Int: String]] = []
        var current: [Int: String] = [:]
        var next = 1
        for line in screen.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let (number, label) = numberedRow(String(line)) else { continue }
            if number == 1 {
                if !current.isEmpty { runs.append(current) }
                current = [1: label]
                next = 2
            } else if number == next {
                current[number] = label
                next += 1
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs.last ?? [:]
    }

    /// `❯ 3. Yes, and …` → (3, "Yes, and …"): a row numbered `N.` after optional cursor marks and spaces.
    static func numberedRow(_ line: String) -> (Int, String)? {
        let trimmed = line.drop { $0 == " " || $0 == "❯" || $0 == "›" || $0 == ">" || $0 == "│" }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 2, let number = Int(digits) else { return nil }
        let rest = trimmed.dropFirst(digits.count)
        guard rest.hasPrefix(". ") else { return nil }
        let label = Text.trimmed(String(rest.dropFirst(2)))
        return label.isEmpty ? nil : (number, String(label))
    }

    /// The agent process in the pane (the pane's shell's child), if one runs.
    func agentPID() -> pid_t? {
        guard let shell = pid_t(Text.trimmed((try? tmux(["display-message", "-p", "-t", pane, "#{pane_pid}"]).outputText) ?? "")) else { return nil }
        return Self.children(of: shell).first
    }

    // MARK: What the phone sees

    /// Every push the relay stand-in received, in order.
    func pushes() -> [Push] {
        guard let text = (try? FileSystem.readString(relayLog)) ?? nil else { return [] }
        let complete = text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
        return complete.split(separator: "\n").compactMap { line in
            guard let request = try? JSON.parse(String(line)), let raw = request["body"]?.stringValue,
                  let body = try? JSON.parse(raw) else {
                Issue.record("the relay received a request that is not a JSON push: \(line)")
                return nil
            }
            return Push(title: body["title"]?.stringValue ?? "", body: body["body"]?.stringValue ?? "",
                        priority: body["priority"]?.stringValue ?? "")
        }
    }

    /// Waits until at least `count` pushes arrived and returns them all.
    @discardableResult
    func waitForPushes(_ count: Int, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) -> [Push] {
        let arrived = eventually(timeout: timeout) { self.pushes().count >= count }
        #expect(arrived, "expected \(count) pushes within \(timeout) s, got: \(pushes())\n\(eventSummary())", sourceLocation: sourceLocation)
        return pushes()
    }

    /// The events hookctl recorded (the event log), for diagnostics and for knowing a hook has run.
    func events() -> [JSONValue] {
        guard let text = (try? FileSystem.readString(home + "/.local/state/hookctl/events.jsonl")) ?? nil else { return [] }
        return text.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
    }

    /// One line per recorded event: agent event, kind, quiet, message; for failure messages.
    func eventSummary() -> String {
        "events:\n" + events().map { event in
            ["agent_event", "kind", "quiet", "message"].map { event[$0]?.stringValue ?? "-" }.joined(separator: " | ")
        }.joined(separator: "\n") + (transcript.isEmpty ? "" : "\nreplies:\n" + transcript.joined(separator: "\n"))
    }

    /// Waits until an event of the agent's hook `agentEvent` has been recorded `count` times.
    @discardableResult
    func waitForEvent(_ agentEvent: String, count: Int = 1, timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let seen = eventually(timeout: timeout) { self.events().filter { $0["agent_event"]?.stringValue == agentEvent }.count >= count }
        #expect(seen, "no \(agentEvent) event (×\(count)) within \(timeout) s\n\(eventSummary())\n\(diagnostics())", sourceLocation: sourceLocation)
        return seen
    }

    /// What the agent and its model stand-in did, for a failure message: the screen, the requests the
    /// stand-in answered, and the end of the log of Codex's app-server daemon (which runs the turns and hooks).
    func diagnostics() -> String {
        var text = "screen:\n" + capture() + "\nmodel requests:\n"
        text += modelRequests().map { JSON.serialize($0) }.joined(separator: "\n")
        if agent == .codex, let log = (try? FileSystem.readString(home + "/.codex/app-server-daemon/daemon.stderr.log")) ?? nil {
            text += "\ndaemon.stderr.log (end):\n" + log.split(separator: "\n").suffix(40).joined(separator: "\n")
        }
        return text
    }

    /// The requests the model stand-in received: the user's typed line and any tool result.
    func modelRequests() -> [JSONValue] {
        guard let text = (try? FileSystem.readString(modelLog)) ?? nil else { return [] }
        return text.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
    }

    /// `status --json`'s agents.
    func board(sourceLocation: SourceLocation = #_sourceLocation) -> [JSONValue] {
        guard let result = try? hookctl(["status", "--json"]), result.status == 0,
              let board = try? JSON.parse(result.outputText) else {
            Issue.record("hookctl status --json failed", sourceLocation: sourceLocation)
            return []
        }
        return board["agents"]?.arrayValue ?? []
    }

    /// The board entry of the agent in this lab's pane (the newest one when several sessions ran there).
    func entry(sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
        board(sourceLocation: sourceLocation).last { $0["agent"]?.stringValue == agent.rawValue && $0["key"]?.stringValue != nil }
    }

    var key: String? { entry()?["key"]?.stringValue }

    /// Waits until the agent's board entry is in `state` (polling `status --json`).
    @discardableResult
    func waitForState(_ state: String, timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
        var last: JSONValue?
        let reached = eventually(timeout: timeout) {
            last = entry(sourceLocation: sourceLocation)
            return last?["state"]?.stringValue == state
        }
        #expect(reached, "the board did not say \(state) within \(timeout) s: \(last.map { JSON.serialize($0) } ?? "no entry")\n\(eventSummary())",
                sourceLocation: sourceLocation)
        return reached ? last : nil
    }

    // MARK: Processes

    /// Starts a Python fixture server with its stdout in a file and waits for the line saying its port.
    // MARK: Answers from the push

    /// A loopback ntfy server (Tests/Fixtures/ntfy_server.py) and an ntfy sink `phone-ntfy` with the
    /// reply topic `replyTopic`, added to the config setup wrote; its requests go to `ntfyLog`.
    func addNtfy(replyTopic: String) throws {
        ntfyPort = try startDaemon("ntfy", [RealAgents.fixtures + "/ntfy_server.py", "--log", ntfyLog]) { Int($0) }
        let path = home + "/.config/hookctl/config.yaml"
        let config = try #require(try FileSystem.readString(path))
        let sink = "sinks:\n  - name: phone-ntfy\n    type: ntfy\n    url: http://127.0.0.1:\(ntfyPort)/claude_push\n    reply_topic: \(replyTopic)\n"
        try #require(config.contains("sinks:\n"), "the config has no sinks list: \(config)")
        try FileSystem.writeAtomically(path, text: config.replacing("sinks:\n", with: sink), mode: 0o600)
    }

    var ntfyLog: String { home + "/ntfy.jsonl" }
    var ntfyURL: String { "http://127.0.0.1:\(ntfyPort)" }

    /// The JSON publishes the ntfy server received.
    func ntfyPushes() -> [JSONValue] {
        let text = ((try? FileSystem.readString(ntfyLog)) ?? nil) ?? ""
        return text[..<(text.lastIndex(of: "\n") ?? text.startIndex)].split(separator: "\n").compactMap { line in
            guard let request = try? JSON.parse(String(line)), request["path"]?.stringValue == "/",
                  let body = request["body"]?.stringValue else { return nil }
            return try? JSON.parse(body)
        }
    }

    /// The answer listener (`hookctl outbox listen`), killed at `close()`.
    func startListener() throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, home + "/listener.out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, home + "/listener.err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Subprocess.configureChild(&attributes)
        daemons.append(try Subprocess.spawn(executable: RealAgents.binary, arguments: ["outbox", "listen"], environment: environment,
                                            actions: &actions, attributes: &attributes))
    }

    private(set) var ntfyPort = 0

    private func startDaemon(_ name: String, _ arguments: [String], port: (String) -> Int?) throws -> Int {
        let output = home + "/\(name).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, home + "/\(name).err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Subprocess.configureChild(&attributes)
        let pid = try Subprocess.spawn(executable: "/usr/bin/python3", arguments: arguments, environment: environment,
                                       actions: &actions, attributes: &attributes)
        daemons.append(pid)
        var found: Int?
        _ = eventually(timeout: 15) {
            let text = ((try? FileSystem.readString(output)) ?? nil) ?? ""
            found = text.split(separator: "\n").first.flatMap { port(String($0)) }
            return found != nil
        }
        return try #require(found, "\(name) did not start: \(((try? FileSystem.readString(home + "/\(name).err")) ?? nil) ?? "")")
    }

    /// The children of `pid` (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let text = ((try? FileSystem.readString("/proc/\(pid)/task/\(pid)/children")) ?? nil) ?? ""
        return text.split(separator: " ").compactMap { pid_t(Text.trimmed(String($0))) }
    }

    /// `pid` and everything under it.
    static func tree(_ pid: pid_t) -> [pid_t] { [pid] + children(of: pid).flatMap(tree) }

    /// Kills the panes' processes and their children, the tmux server and the fixture servers, and what
    /// runs from the lab's home (Codex's app-server daemon leaves its pane: its parent is init).
    func close() {
        guard !closed else { return }
        closed = true
        defer { killStrays() }
        if !socket.isEmpty {
            let panes = (try? tmux(["list-panes", "-a", "-F", "#{pane_pid}"]).outputText) ?? ""
            let pids = panes.split(separator: "\n").compactMap { pid_t(String($0)) }.flatMap(Self.tree)
            for pid in pids.reversed() { kill(pid, SIGKILL) }
            _ = try? tmux(["kill-server"])
        }
        for pid in daemons {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Every process whose executable lies under the lab's home: Codex 0.163.0 copies itself to
    /// `~/.codex/packages/app-server-daemon/…/codex` and starts it detached (`app-server --managed-daemon`).
    func killStrays() {
        for name in (try? FileSystem.list("/proc")) ?? [] {
            guard let pid = pid_t(name), pid != getpid(),
                  let target = Self.readLink("/proc/\(name)/exe"), target.hasPrefix(home + "/") else { continue }
            kill(pid, SIGKILL)
        }
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The config.toml a Codex user pointing it at their own Responses API endpoint would write.
    static func codexConfig(modelPort: Int, project: String) -> String {
        """
        model = "gpt-5.1-codex"
        model_provider = "standin"
        check_for_update_on_startup = false

        [model_providers.standin]
        name = "Loopback stand-in"
        base_url = "http://127.0.0.1:\(modelPort)/v1"
        wire_api = "responses"
        env_key = "STANDIN_API_KEY"

        [analytics]
        enabled = false

        [projects.\(JSON.quote(project))]
        trust_level = "trusted"

        """
    }

    static func shellQuote(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }
}
