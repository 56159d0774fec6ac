import Testing
import Dispatch
@testable import HookSupport
@testable import HookDelivery
@testable import HookAgents
import TestSupport
import Synchronization

/// Real-looking user settings for the three agents, as people have them before installing hookctl.
private enum Seed {
    static let claude = """
    {
      "$schema": "https://json.schemastore.org/claude-code-settings.json",
      "model": "opus",
      "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
      "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "paplay ~/done.oga"}]}]
      },
      "env": {"DISABLE_TELEMETRY": "1"}
    }

    """

    static func codex(home: TemporaryHome) -> String {
        """
        # Codex CLI configuration
        model = "gpt-5-codex"   # the default model
        approval_policy = "on-request"
        notify = [
          "\(home.file("bin/old-notify"))",  # my own notifier
          "--from-codex",
        ]

        [features]
        hooks = true

        # servers
        [mcp_servers.docs]
        command = "npx"
        args = ["-y", "docs-mcp"]

        [profiles.fast]
        model = "gpt-5-mini"

        """
    }

    static let gemini = """
    {
        "theme": "GitHub",
        "security": {
            "auth": {
                "selectedType": "oauth-personal"
            }
        },
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "write_file",
                    "hooks": [
                        {
                            "name": "lint",
                            "type": "command",
                            "command": "npm run lint",
                            "timeout": 30000
                        }
                    ]
                }
            ]
        }
    }
    """

    /// Writes the three agents' settings and the user's own Codex notify program (records its argv).
    static func all(in home: TemporaryHome) throws {
        try home.write(".claude/settings.json", claude, mode: 0o644)
        try home.write(".codex/config.toml", codex(home: home), mode: 0o600)
        try home.write(".gemini/settings.json", gemini, mode: 0o644)
        try home.write("bin/old-notify", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$HOME/old-notify.out\"\n", mode: 0o755)
    }

    static let userFiles = [".claude/settings.json", ".codex/config.toml", ".gemini/settings.json"]
}

/// Every file under `home` (relative path → content), except the receiver's logs and `opt/` (binaries).
func snapshot(_ home: TemporaryHome) -> [String: String] {
    var result: [String: String] = [:]
    func walk(_ relative: String) {
        let directory = relative.isEmpty ? home.path : home.file(relative)
        for name in (try? FileSystem.list(directory)) ?? [] {
            let path = relative.isEmpty ? name : relative + "/" + name
            if name.hasPrefix("receiver-") || path == "opt" { continue }
            if FileSystem.isDirectory(home.file(path)) { walk(path) } else { result[path] = home.read(path) ?? "<unreadable>" }
        }
    }
    walk("")
    return result
}

/// The command string hookctl registered for `event` in a JSON settings file.
func registeredCommand(_ home: TemporaryHome, _ file: String, _ event: String) throws -> String {
    let root = try JSON.parse(home.read(file) ?? "")
    let groups = root["hooks"]?[event]?.arrayValue ?? []
    for group in groups {
        for handler in group["hooks"]?.arrayValue ?? [] {
            if let command = handler["command"]?.stringValue, command.contains("hookctl-hook") { return command }
        }
    }
    throw SystemError.notFound(program: "hookctl hook for \(event) in \(file)")
}

/// Runs a registered command the way the agent does: `shell -c COMMAND` with the payload on stdin.
func runHook(_ command: String, shell: String = "/bin/sh", flag: String = "-c", payload: String, environment: [String: String]) throws -> Subprocess.Result {
    try Subprocess(executable: shell, arguments: [flag, command], environment: environment, input: Array(payload.utf8), timeout: 20).run()
}

private let token = "s3cr3tTOKENabcdefgh"

private let claudeNotification = #"{"session_id":"c2080807","transcript_path":"/tmp/t.jsonl","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","title":"Claude Code","notification_type":"permission_prompt"}"#
private let claudeStop = #"{"session_id":"c2080807","transcript_path":"/tmp/t.jsonl","cwd":"/home/u/proj","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All tests pass."}"#
private let geminiAfterAgent = #"{"session_id":"g1","transcript_path":"/tmp/g.json","cwd":"/home/u/proj","hook_event_name":"AfterAgent","timestamp":"2026-08-21T16:16:56.000Z","prompt":"fix the bug","prompt_response":"Fixed the off-by-one.","stop_hook_active":false}"#
private let codexTurn = #"{"type":"agent-turn-complete","thread-id":"b5f6c1c2-1111","turn-id":"12345","cwd":"/home/u/proj","client":"codex-tui","input-messages":["Rename foo"],"last-assistant-message":"Rename complete."}"#

@Suite(.onTestThreads) struct SetupEndToEndTests {
    @Test func agentsPushOnlyInsidePhoneSessionsThroughTheRegisteredCommands() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let receiver = try Receiver(directory: home.path)
        let url = receiver.baseURL + "/n/" + token
        let setup = try hookctl(["setup", "--notify-url", url], environment: home.environment())
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(!setup.stdout.contains(token) && !setup.stderr.contains(token))
        let outside = home.environment()
        let inside = home.environment(["SSHIDO_SESSION": "1"])

        // Claude Code: `sh -c COMMAND`, payload on stdin. Outside a phone session: nothing.
        let claude = try registeredCommand(home, ".claude/settings.json", "Notification")
        let quiet = try runHook(claude, payload: claudeNotification, environment: outside)
        #expect(quiet.status == 0 && quiet.stdout.isEmpty)
        home.waitUntilQuiet()
        #expect(receiver.requests().isEmpty)
        #expect(!FileSystem.exists(home.file(".local/state/hookctl/events.jsonl")))

        let pushed = try runHook(claude, payload: claudeNotification, environment: inside)
        #expect(pushed.status == 0 && pushed.stdout.isEmpty, "\(pushed.stderr)")
        var requests = receiver.waitForRequests(1)
        #expect(requests.count == 1)
        #expect(requests.first?["path"]?.stringValue == "/n/" + token)
        let first = try JSON.parse(requests.first?["body"]?.stringValue ?? "")
        #expect(first["priority"]?.stringValue == "high")
        #expect(first["body"]?.stringValue?.contains("permission to use Bash") == true)

        let stop = try runHook(try registeredCommand(home, ".claude/settings.json", "Stop"), payload: claudeStop, environment: inside)
        #expect(stop.status == 0 && stop.stdout.isEmpty)
        requests = receiver.waitForRequests(2)
        #expect(try JSON.parse(requests.last?["body"]?.stringValue ?? "")["body"]?.stringValue == "All tests pass.")

        // Gemini CLI: `bash -c COMMAND`.
        let gemini = try registeredCommand(home, ".gemini/settings.json", "AfterAgent")
        #expect(try runHook(gemini, shell: "/bin/bash", payload: geminiAfterAgent, environment: outside).status == 0)
        #expect(try runHook(gemini, shell: "/bin/bash", payload: geminiAfterAgent, environment: inside).status == 0)
        requests = receiver.waitForRequests(3)
        #expect(requests.count == 3)
        #expect(try JSON.parse(requests.last?["body"]?.stringValue ?? "")["body"]?.stringValue == "Fixed the off-by-one.")

        // Codex `notify`: argv without a shell, the JSON appended last; the user's own notify still runs,
        // inside a phone session or not.
        let codexConfig = try CodexConfigText(home.read(".codex/config.toml") ?? "", path: "config.toml")
        let argv = try #require(try codexConfig.notifyArguments())
        #expect(argv == [home.file(".local/share/hookctl/bin/hookctl-hook"), "codex-notify", home.file("bin/old-notify"), "--from-codex"])
        let codexOutside = try Subprocess(executable: argv[0], arguments: Array(argv.dropFirst()) + [codexTurn], environment: outside).run()
        #expect(codexOutside.status == 0)
        #expect(eventually(timeout: 5) { home.read("old-notify.out") == "--from-codex\n\(codexTurn)\n" })
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 3)
        FileSystem.remove(home.file("old-notify.out"))
        let codexInside = try Subprocess(executable: argv[0], arguments: Array(argv.dropFirst()) + [codexTurn], environment: inside).run()
        #expect(codexInside.status == 0 && codexInside.stdout.isEmpty)
        requests = receiver.waitForRequests(4)
        #expect(requests.count == 4)
        #expect(try JSON.parse(requests.last?["body"]?.stringValue ?? "")["body"]?.stringValue == "Rename complete.")
        #expect(eventually(timeout: 5) { home.read("old-notify.out") == "--from-codex\n\(codexTurn)\n" })

        // Codex hooks.json: `$SHELL -lc COMMAND`; SessionStart is recorded for the board, not pushed.
        let codexHook = try registeredCommand(home, ".codex/hooks.json", "SessionStart")
        let sessionStart = #"{"session_id":"x","turn_id":"t","transcript_path":null,"cwd":"/home/u/proj","hook_event_name":"SessionStart","model":"gpt-5","permission_mode":"default","source":"startup"}"#
        #expect(try runHook(codexHook, flag: "-lc", payload: sessionStart, environment: inside).status == 0)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 4)
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("\"kind\":\"started\"") == true)
    }

    @Test func secondSetupChangesNoByteAndUninstallRestoresTheUserFiles() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let before = snapshot(home)
        let url = "https://push.example.com/n/" + token
        #expect(try hookctl(["setup", "--notify-url", url], environment: home.environment()).status == 0)
        let once = snapshot(home)
        for file in Seed.userFiles { #expect(once[file] != before[file], "\(file) was not changed") }
        #expect(once[".claude/settings.json.hookctl-backup"] == before[".claude/settings.json"])

        let again = try hookctl(["setup", "--notify-url", url], environment: home.environment())
        #expect(again.status == 0)
        #expect(snapshot(home) == once)
        #expect(again.stdout.split(separator: "\n").filter { $0.contains("unchanged") }.count == 5)

        let uninstall = try hookctl(["uninstall"], environment: home.environment())
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let after = snapshot(home)
        for file in Seed.userFiles { #expect(after[file] == before[file], "\(file) differs after uninstall") }
        #expect(after[".codex/hooks.json"] == nil)
        #expect(after.keys.filter { $0.hasSuffix(".hookctl-backup") }.isEmpty)
        #expect(after[".local/share/hookctl/bin/hookctl-hook"] == nil)
        // The config (the user's sinks) is kept.
        #expect(after[".config/hookctl/config.yaml"] != nil)
        // Uninstalling twice is harmless.
        #expect(try hookctl(["uninstall"], environment: home.environment()).status == 0)
        #expect(snapshot(home) == after)
    }

    @Test func malformedSettingsAreLeftUntouchedWithFileAndLine() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n  }\n"
        try home.write(".claude/settings.json", broken)
        let result = try hookctl(["setup"], environment: home.environment())
        #expect(result.status == 65)
        #expect(result.stderr.contains(home.file(".claude/settings.json") + ":5:3"), "\(result.stderr)")
        #expect(home.read(".claude/settings.json") == broken)
        #expect(!FileSystem.exists(home.file(".claude/settings.json.hookctl-backup")))
        // The other agents are still set up.
        #expect(home.read(".gemini/settings.json")?.contains("hookctl-hook") == true)

        try home.write(".codex/config.toml", "model = \"x\"\nnotify = [\"a\",\n")
        let codex = try hookctl(["setup", "--agents", "codex"], environment: home.environment())
        #expect(codex.status == 65)
        #expect(codex.stderr.contains("config.toml:2:1"))
        #expect(home.read(".codex/config.toml") == "model = \"x\"\nnotify = [\"a\",\n")
    }

    @Test func overrideDirectoriesAreHonoured() throws {
        let home = try TemporaryHome()
        try home.write("alt-claude/settings.json", "{\"model\": \"opus\"}\n")
        try home.write("alt-codex/config.toml", "model = \"gpt-5\"\n")
        let environment = home.environment(["CLAUDE_CONFIG_DIR": home.file("alt-claude"), "CODEX_HOME": home.file("alt-codex")])
        let result = try hookctl(["setup", "--agents", "claude,codex"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(home.read("alt-claude/settings.json")?.contains("hookctl-hook") == true)
        #expect(home.read("alt-codex/config.toml")?.hasPrefix("model = \"gpt-5\"\nnotify = [") == true)
        #expect(home.read("alt-codex/hooks.json")?.contains("hookctl-hook") == true)
        #expect(!FileSystem.exists(home.file(".claude")) && !FileSystem.exists(home.file(".codex")))
        #expect(try hookctl(["uninstall"], environment: environment).status == 0)
        #expect(home.read("alt-claude/settings.json") == "{\"model\": \"opus\"}\n")
        #expect(home.read("alt-codex/config.toml") == "model = \"gpt-5\"\n")
    }

    @Test func concurrentSetupsDoNotCorruptAnyFile() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let urls = (0..<4).map { "https://push.example.com/n/token\($0)abcdefgh" }
        let statuses = Mutex<[Subprocess.Termination]>([])
        DispatchQueue.concurrentPerform(iterations: urls.count) { index in
            let status = (try? hookctl(["setup", "--notify-url", urls[index]], environment: home.environment()).status) ?? -1
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == [0, 0, 0, 0])
        for file in [".claude/settings.json", ".gemini/settings.json", ".codex/hooks.json"] {
            let root = try JSON.parse(home.read(file) ?? "")
            for (event, groups) in root["hooks"]?.objectValue?.entries ?? [] {
                let ours = (groups.arrayValue ?? []).filter { ($0["hooks"]?.arrayValue ?? []).contains { $0["command"]?.stringValue?.contains("hookctl-hook") == true } }
                #expect(ours.count <= 1, "\(file) \(event) has \(ours.count) hookctl groups")
            }
        }
        let codex = try CodexConfigText(home.read(".codex/config.toml") ?? "", path: "c")
        #expect(codex.statements.filter { $0.key == "notify" }.count == 1)
        #expect(try codex.notifyArguments()?.suffix(2) == [home.file("bin/old-notify"), "--from-codex"])
        let config = try #require(try Config.load(path: home.file(".config/hookctl/config.yaml"), environment: [:]))
        #expect(config.sinks.map(\.name) == ["relay"])
        #expect(try urls.contains(config.sinks[0].requiredString("url")))
        // And it still uninstalls to the exact original.
        #expect(try hookctl(["uninstall"], environment: home.environment()).status == 0)
        for file in Seed.userFiles { #expect(home.read(file) == (file == ".codex/config.toml" ? Seed.codex(home: home) : file.contains("claude") ? Seed.claude : Seed.gemini)) }
    }

    @Test(arguments: ["https://push.example.com/n/tok\"en12345678", "https://push.example.com/n/token\n12345678",
                      "https://push.example.com/n/tok'en12345678", "push.example.com/n/token12345678"])
    func unsafeNotifyURLsAreRefusedBeforeAnythingIsWritten(url: String) throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let before = snapshot(home)
        let result = try hookctl(["setup", "--notify-url", url], environment: home.environment())
        #expect(result.status == 64)
        #expect(result.stderr.contains("Nothing was written"))
        #expect(!result.stderr.contains("token12345678") && !result.stderr.contains("en12345678"))
        #expect(snapshot(home) == before)
    }

    @Test func dryRunPrintsRedactedDiffsAndWritesNothing() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let before = snapshot(home)
        let result = try hookctl(["setup", "--notify-url", "https://push.example.com/n/" + token, "--dry-run"], environment: home.environment())
        #expect(result.status == 0)
        #expect(snapshot(home) == before)
        #expect(result.stdout.contains("+++ \(home.file(".claude/settings.json"))"))
        #expect(result.stdout.contains("+notify = [\"\(home.file(".local/share/hookctl/bin/hookctl-hook"))\", \"codex-notify\""))
        #expect(result.stdout.contains("-notify = ["))
        #expect(result.stdout.contains("https://push.example.com/n/s3…(redacted)"))
        #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
        let json = try hookctl(["setup", "--notify-url", "https://push.example.com/n/" + token, "--dry-run", "--json"], environment: home.environment())
        let report = try JSON.parse(json.stdout)
        #expect(report["dry_run"]?.boolValue == true)
        #expect(report["agents"]?.arrayValue?.prefix(3).map { $0["status"]?.stringValue ?? "" } == ["installed", "installed", "installed"])
        #expect(report["agents"]?.arrayValue?.dropFirst(3).allSatisfy { $0["status"]?.stringValue == "skipped" } == true)
        #expect(!json.stdout.contains(token))
    }

    @Test func localDefaultFirstThenTheRelayWithoutTouchingAnythingElse() throws {
        let home = try TemporaryHome()
        try home.write(".claude/settings.json", Seed.claude)
        let local = try hookctl(["setup"], environment: home.environment())
        #expect(local.status == 0)
        let configPath = ".config/hookctl/config.yaml"
        #expect(home.read(configPath)?.contains("sinks: []") == true)
        var info = stat()
        #expect(stat(home.file(configPath), &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(home.file(".config/hookctl"), &info) == 0 && info.st_mode & 0o777 == 0o700)
        // In a phone session the event is recorded for the board, nothing is pushed.
        let command = try registeredCommand(home, ".claude/settings.json", "Stop")
        #expect(try runHook(command, payload: claudeStop, environment: home.environment(["SSHIDO_SESSION": "1"])).status == 0)
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("All tests pass.") == true)

        // The user edits the config; adding the relay later keeps every byte of it.
        let edited = (home.read(configPath) ?? "").replacing("sinks: []", with: "sinks:\n  # my log\n  - name: log\n    type: file\n    path: ~/agent-events.jsonl")
        try home.write(configPath, edited)
        let settingsBefore = home.read(".claude/settings.json")
        let relay = try hookctl(["setup", "--notify-url", "https://push.example.com/n/" + token], environment: home.environment())
        #expect(relay.status == 0)
        #expect(home.read(configPath) == edited + "  - name: relay\n    type: relay\n    url: \"https://push.example.com/n/\(token)\"\n")
        #expect(home.read(".claude/settings.json") == settingsBefore)
        #expect(stat(home.file(configPath), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func symlinkedSettingsAreWrittenThrough() throws {
        let home = try TemporaryHome()
        try home.write("dotfiles/claude-settings.json", Seed.claude, mode: 0o644)
        try FileSystem.makeDirectories(home.file(".claude"))
        #expect(symlink(home.file("dotfiles/claude-settings.json"), home.file(".claude/settings.json")) == 0)
        #expect(try hookctl(["setup", "--agents", "claude"], environment: home.environment()).status == 0)
        var info = stat()
        #expect(lstat(home.file(".claude/settings.json"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        #expect(home.read("dotfiles/claude-settings.json")?.contains("hookctl-hook") == true)
        #expect(stat(home.file("dotfiles/claude-settings.json"), &info) == 0 && info.st_mode & 0o777 == 0o644)
        #expect(try hookctl(["uninstall"], environment: home.environment()).status == 0)
        #expect(lstat(home.file(".claude/settings.json"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        #expect(home.read("dotfiles/claude-settings.json") == Seed.claude)
    }

    @Test func agentsNotInstalledAreSkippedUnlessNamed() throws {
        let home = try TemporaryHome()
        try home.write(".gemini/settings.json", Seed.gemini)
        let result = try hookctl(["setup", "--json"], environment: home.environment())
        #expect(result.status == 0)
        let agents = try JSON.parse(result.stdout)["agents"]?.arrayValue ?? []
        #expect(agents.map { $0["status"]?.stringValue ?? "" } == ["skipped", "skipped", "installed"] + Array(repeating: "skipped", count: 7))
        #expect(agents.first?["reason"]?.stringValue?.contains("not installed (no claude on PATH, no ~/.claude)") == true)
        // The reason names what was looked for: aider's own file, not the home folder it sits in.
        let aider = agents.first { $0["agent"]?.stringValue == "aider" }?["reason"]?.stringValue
        #expect(aider?.contains("no aider on PATH, no ~/.aider.conf.yml") == true, "\(aider ?? "")")
        #expect(!FileSystem.exists(home.file(".claude")))
        let named = try hookctl(["setup", "--agents", "claude"], environment: home.environment())
        #expect(named.status == 0)
        #expect(home.read(".claude/settings.json")?.contains("hookctl-hook") == true)
        let unknown = try hookctl(["setup", "--agents", "claud"], environment: home.environment())
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("did you mean 'claude'"))
    }

    @Test func aUserManifestAddsAnAgentWithAKnownFormat() throws {
        let home = try TemporaryHome()
        try home.write(".config/hookctl/agents/qwen.json", """
        {"agent": "qwen", "display_name": "Qwen Code", "settings": {"path": "~/.qwen/settings.json", "format": "claude-json"},
         "timeout_unit": "seconds", "events": [{"name": "Stop", "kind": "done", "timeout": 7}, {"name": "Notification", "kind": "needs_input"}]}
        """)
        try home.write(".qwen/settings.json", "{}\n")
        let result = try hookctl(["setup"], environment: home.environment())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Qwen Code"))
        let command = try registeredCommand(home, ".qwen/settings.json", "Stop")
        #expect(command.hasSuffix("hookctl-hook' qwen"))
        #expect(try hookctl(["uninstall", "--agents", "qwen"], environment: home.environment()).status == 0)
        #expect(home.read(".qwen/settings.json") == "{}\n")
        // An empty settings file comes back empty.
        try home.write(".qwen/settings.json", "")
        #expect(try hookctl(["setup", "--agents", "qwen"], environment: home.environment()).status == 0)
        #expect(home.read(".qwen/settings.json")?.contains("hookctl-hook") == true)
        let dryRun = try hookctl(["uninstall", "--agents", "qwen", "--dry-run"], environment: home.environment())
        #expect(dryRun.status == 0 && dryRun.stdout.contains("-") && home.read(".qwen/settings.json")?.contains("hookctl-hook") == true)
        #expect(try hookctl(["uninstall", "--agents", "qwen"], environment: home.environment()).status == 0)
        #expect(home.read(".qwen/settings.json") == "")
    }

    @Test func anUpgradedBareBinaryKeepsEveryRegisteredCommand() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let receiver = try Receiver(directory: home.path)
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: home.environment()).status == 0)
        let before = snapshot(home)
        // A copy of the binary with no share folder and no source tree next to it: built-in manifests and templates.
        try FileSystem.makeDirectories(home.file("opt/bin"))
        let copy = try Subprocess(executable: "/bin/cp", arguments: [Harness.binary, home.file("opt/bin/hookctl")], timeout: 60).run()
        #expect(copy.status == 0)
        let upgrade = try Subprocess(executable: home.file("opt/bin/hookctl"), arguments: ["setup"], environment: home.environment()).run()
        #expect(upgrade.status == 0, "\(upgrade.errorText)")
        let after = snapshot(home)
        let changed = Set(after.keys.filter { after[$0] != before[$0] })
        #expect(changed == [".local/share/hookctl/bin/hookctl-hook"])
        #expect(Doctor.scriptTarget(after[".local/share/hookctl/bin/hookctl-hook"] ?? "") == home.file("opt/bin/hookctl"))
        // The unchanged command now runs the new binary.
        let command = try registeredCommand(home, ".claude/settings.json", "Stop")
        #expect(try runHook(command, payload: claudeStop, environment: home.environment(["SSHIDO_SESSION": "1"])).status == 0)
        #expect(receiver.waitForRequests(1).count == 1)
    }

    /// Issue 42: an installation by the release with the hook front (the script's `#!` line naming
    /// `hookctl-front`, the front, its `hookctl` link, the warm server's socket and lock, a warm-up's
    /// `.warm-*` HOME): doctor reports it, setup rewrites the script to name hookctl itself and removes the
    /// rest, uninstall removes it too. A `hookctl` there that is no link is the user's and stays.
    @Test func setupUninstallAndDoctorDealWithWhatTheRetiredHookFrontLeft() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let receiver = try Receiver(directory: home.path)
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: home.environment()).status == 0)
        let folder = ".local/share/hookctl/bin"
        let fresh = try #require(home.read(folder + "/hookctl-hook"))
        #expect(fresh.hasPrefix("#!" + Harness.binary + " hook-script SSHIDO_SESSION\n"))
        let leftovers = ["hookctl-front", "hookctl", "hookctl-hook.sock", "hookctl-hook.lock", ".warm-x"]
        func installPreviousRelease() throws {
            let body = fresh.drop { $0 != "\n" }
            try home.write(folder + "/hookctl-hook", "#!" + home.file(folder + "/hookctl-front") + " SSHIDO_SESSION" + body, mode: 0o755)
            try home.write(folder + "/hookctl-front", "\u{7F}ELF the old front", mode: 0o755)
            #expect(symlink(Harness.binary, home.file(folder + "/hookctl")) == 0)
            try home.write(folder + "/hookctl-hook.sock", "")
            try home.write(folder + "/hookctl-hook.lock", "")
            try home.write(folder + "/.warm-x/.config/hookctl/config.yaml", "sinks: []\n")
        }
        func present() -> [String] { leftovers.filter { FileSystem.status(home.file(folder + "/" + $0), followSymlinks: false) != nil } }
        func frontCheck() throws -> JSONValue? {
            let doctor = try hookctl(["doctor", "--json"], environment: home.environment())
            return try JSON.parse(doctor.stdout)["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "hook front" }
        }

        try installPreviousRelease()
        #expect(present() == leftovers)
        let reported = try #require(try frontCheck(), "doctor does not report the front's files")
        #expect(reported["status"]?.stringValue == "warning" && reported["fix"]?.stringValue == "hookctl setup", "\(reported)")
        #expect(reported["message"]?.stringValue?.contains("hookctl-front") == true, "\(reported)")
        let setup = try hookctl(["setup"], environment: home.environment())
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(home.read(folder + "/hookctl-hook") == fresh, "the script names hookctl itself again")
        #expect(present().isEmpty, "left: \(present())")
        #expect(try frontCheck() == nil)
        // The rewritten script still takes a hook.
        let stop = try runHook(try registeredCommand(home, ".claude/settings.json", "Stop"), payload: claudeStop,
                               environment: home.hookEnvironment())
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(receiver.waitForRequests(1).count == 1)

        // A hookctl binary of the user's in that folder is no link of the front's: kept.
        try home.write(folder + "/hookctl", "#!/bin/sh\n", mode: 0o755)
        #expect(try hookctl(["setup"], environment: home.environment()).status == 0)
        #expect(home.read(folder + "/hookctl") == "#!/bin/sh\n")
        #expect(try frontCheck() == nil)
        FileSystem.remove(home.file(folder + "/hookctl"))

        try installPreviousRelease()
        let uninstall = try hookctl(["uninstall"], environment: home.environment())
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(present().isEmpty, "left: \(present())")
        #expect(!FileSystem.exists(home.file(folder)), "the script's folder is gone")
    }

    /// Issue 42: a script of the previous release still reaches hookctl through the old front, which (no
    /// warm server answering) runs its link as `hookctl "hook-script GATE" SCRIPT ARGS…`: that form still
    /// records and pushes the event.
    @Test func theOldFrontsFallbackCallStillRecordsTheEvent() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let receiver = try Receiver(directory: home.path)
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: home.environment()).status == 0)
        let script = home.file(".local/share/hookctl/bin/hookctl-hook")
        let hook = try hookctl(["hook-script SSHIDO_SESSION", script, "claude", "--event", "Stop"],
                               environment: home.hookEnvironment(), input: claudeStop)
        #expect(hook.status == 0 && hook.stdout.isEmpty, "\(hook.stderr)")
        let requests = receiver.waitForRequests(1)
        #expect(requests.count == 1)
        #expect(try JSON.parse(requests.first?["body"]?.stringValue ?? "")["body"]?.stringValue == "All tests pass.")
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("All tests pass.") == true)
        // Outside a phone session the same call records nothing.
        let outside = try hookctl(["hook-script SSHIDO_SESSION", script, "claude", "--event", "Stop"],
                                  environment: home.environment(["HOOKCTL_NO_BACKGROUND": "1"]), input: claudeStop)
        #expect(outside.status == 0)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 1)
    }

    @Test func doctorAndTestReportWithoutLeakingTheToken() throws {
        let home = try TemporaryHome()
        try Seed.all(in: home)
        let receiver = try Receiver(directory: home.path)
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: home.environment()).status == 0)
        let doctor = try hookctl(["doctor", "--json"], environment: home.environment())
        #expect(doctor.status == 0, "\(doctor.stdout)")
        let checks = try JSON.parse(doctor.stdout)["checks"]?.arrayValue ?? []
        #expect(checks.contains { $0["name"]?.stringValue == "sink relay" && $0["status"]?.stringValue == "ok" })
        // Freshly installed Codex hooks are not trusted yet: a warning (approvals will not push), not info.
        #expect(checks.contains { $0["name"]?.stringValue == "Codex trust" && $0["status"]?.stringValue == "warning" })
        #expect(!doctor.stdout.contains(token))
        #expect(receiver.requests().isEmpty)  // reachability only: nothing was sent

        let test = try hookctl(["test"], environment: home.environment())
        #expect(test.status == 0, "\(test.stderr)")
        #expect(test.stdout.contains("relay") && test.stdout.contains("delivered") && test.stdout.contains(" ms"))
        let request = try #require(receiver.waitForRequests(1).first)
        #expect(try JSON.parse(request["body"]?.stringValue ?? "")["title"]?.stringValue?.contains("test") == true)
        #expect(!test.stdout.contains(token) && !test.stderr.contains(token))
        #expect(try hookctl(["test", "--sink", "relya"], environment: home.environment()).status == 64)

        // A relay nobody answers: doctor says what is broken and how to fix it, exit 1.
        #expect(try hookctl(["setup", "--notify-url", "http://127.0.0.1:1/n/" + token], environment: home.environment()).status == 0)
        let broken = try hookctl(["doctor"], environment: home.environment())
        #expect(broken.status == 69)
        #expect(broken.stdout.contains("FAIL") && broken.stdout.contains("fix:"))
        #expect(!broken.stdout.contains(token))
        let failedTest = try hookctl(["test", "--json"], environment: home.environment())
        #expect(failedTest.status == 69)
        #expect(try JSON.parse(failedTest.stdout)["results"]?.arrayValue?.first?["delivered"]?.boolValue == false)
    }
}
