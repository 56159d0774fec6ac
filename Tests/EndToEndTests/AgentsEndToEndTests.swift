import Testing
@testable import HookKit
import TestSupport

/// The agents beyond Claude Code, Codex and Gemini CLI, end to end: setup into the user's own settings, the registered command run the
/// way the agent runs it (built binary, temporary HOME, loopback receiver) with the payloads the
/// agents document, a second setup changing no byte, uninstall giving the file back.
private let token = "agentTOKENabcdefgh12"

/// The registered command of a `hooks-list-json` file (Cursor `command`, Copilot `bash`).
private func listCommand(_ home: TemporaryHome, _ file: String, _ event: String, key: String) throws -> String {
    let root = try JSON.parse(home.read(file) ?? "")
    for handler in root["hooks"]?[event]?.arrayValue ?? [] {
        if let command = handler[key]?.stringValue, command.contains("hookctl-hook") { return command }
    }
    throw SystemError.notFound(program: "hookctl hook for \(event) in \(file)")
}

/// Setup, a second setup that changes nothing, and the receiver, for one agent.
private func setUp(_ home: TemporaryHome, agents: String) throws -> Receiver {
    let receiver = try Receiver(directory: home.path)
    let setup = try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token, "--agents", agents], environment: home.environment())
    #expect(setup.status == 0, "\(setup.stderr)")
    let once = snapshot(home)
    let again = try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token, "--agents", agents], environment: home.environment())
    #expect(again.status == 0)
    #expect(snapshot(home) == once, "a second setup changed a file")
    return receiver
}

private func expectRestored(_ home: TemporaryHome, agents: String, files: [String: String?]) throws {
    let uninstall = try hookctl(["uninstall", "--agents", agents], environment: home.environment())
    #expect(uninstall.status == 0, "\(uninstall.stderr)")
    for (file, content) in files { #expect(home.read(file) == content, "\(file) was not given back") }
}

private let inside = ["SSHIDO_SESSION": "1"]

/// Runs `command` with each payload and checks that nothing is pushed and each is recorded with its kind.
private func expectRecordedOnly(_ home: TemporaryHome, _ receiver: Receiver, _ runs: [(command: String, payload: String, kind: String)],
                                environment: [String: String], shell: String = "/bin/sh") throws {
    let pushed = receiver.requests().count
    let logged = home.loggedEvents().count
    for run in runs {
        #expect(try runHook(run.command, shell: shell, payload: run.payload, environment: environment).status == 0)
    }
    home.waitUntilQuiet()
    #expect(receiver.requests().count == pushed)
    #expect(home.loggedEvents().dropFirst(logged).map { $0["kind"]?.stringValue ?? "" } == runs.map(\.kind))
}

@Suite(.onTestThreads) struct AgentsEndToEndTests {
    // Qwen Code: Claude-compatible payloads (qwenlm.github.io/qwen-code-docs hooks-reference).
    @Test func qwenCode() throws {
        let home = try TemporaryHome()
        let seed = """
        {
          "model": {"name": "qwen3-coder-plus"},
          "hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}]}
        }

        """
        try home.write(".qwen/settings.json", seed)
        let receiver = try setUp(home, agents: "qwen")
        let root = try JSON.parse(home.read(".qwen/settings.json") ?? "")
        #expect(root["hooks"]?["PreToolUse"]?.arrayValue?.first != nil && root["model"]?["name"]?.stringValue == "qwen3-coder-plus")
        #expect(root["hooks"]?["Stop"]?.arrayValue?.first?["hooks"]?.arrayValue?.first?["timeout"] == nil)
        let environment = home.environment(inside)
        let notification = #"{"session_id":"q1","transcript_path":"/t","cwd":"/home/u/proj","hook_event_name":"Notification","message":"Qwen Code needs your permission to use Shell","notification_type":"permission_prompt"}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "Notification"), payload: notification, environment: environment).status == 0)
        let stop = #"{"session_id":"q1","transcript_path":"/t","cwd":"/home/u/proj","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Refactor done."}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "Stop"), payload: stop, environment: environment).status == 0)
        let start = #"{"session_id":"q1","transcript_path":"/t","cwd":"/home/u/proj","hook_event_name":"SessionStart","source":"startup"}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "SessionStart"), payload: start, environment: environment).status == 0)
        let bodies = try receiver.waitForBodies(2)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 2)
        #expect(bodies.first?["priority"]?.stringValue == "high" && bodies.first?["title"]?.stringValue?.hasPrefix("Qwen Code") == true)
        #expect(bodies.last?["body"]?.stringValue == "Refactor done.")
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("\"kind\":\"started\"") == true)
        let failure = #"{"session_id":"q1","transcript_path":"/t","cwd":"/home/u/proj","hook_event_name":"StopFailure","error":"rate_limit","error_details":"429 from the API"}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "StopFailure"), payload: failure, environment: environment).status == 0)
        #expect(try receiver.waitForBodies(3).last?["priority"]?.stringValue == "high")
        try expectRecordedOnly(home, receiver, [
            (try registeredCommand(home, ".qwen/settings.json", "UserPromptSubmit"), #"{"session_id":"q1","transcript_path":"/t","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"add tests"}"#, "working"),
            (try registeredCommand(home, ".qwen/settings.json", "SessionEnd"), #"{"session_id":"q1","transcript_path":"/t","cwd":"/p","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}"#, "ended"),
        ], environment: environment)
        try expectRestored(home, agents: "qwen", files: [".qwen/settings.json": seed])
    }

    // Cursor CLI: cursor.com/docs/agent/hooks (stop: conversation_id, status, loop_count, workspace_roots).
    @Test func cursorCLI() throws {
        let home = try TemporaryHome()
        let seed = #"{"version": 1, "hooks": {"stop": [{"command": "afplay done.aiff", "loop_limit": 3}], "afterFileEdit": [{"command": "./fmt.sh"}]}}"# + "\n"
        try home.write(".cursor/hooks.json", seed)
        let receiver = try setUp(home, agents: "cursor")
        let root = try JSON.parse(home.read(".cursor/hooks.json") ?? "")
        #expect(root["version"]?.intValue == 1)
        #expect(root["hooks"]?["stop"]?.arrayValue?.count == 2 && root["hooks"]?["stop"]?.arrayValue?.first?["loop_limit"]?.intValue == 3)
        #expect(root["hooks"]?["afterFileEdit"]?.arrayValue?.count == 1)
        let environment = home.environment(inside.merging(["CURSOR_PROJECT_DIR": "/home/u/proj"]) { $1 })
        let stop = try listCommand(home, ".cursor/hooks.json", "stop", key: "command")
        // Cursor's payload starts with a UTF-8 byte-order mark (robot-council/cli wiki "Harness differences", Cursor 3.7.21).
        let completed = "\u{FEFF}" + #"{"conversation_id":"c-1","generation_id":"g-1","hook_event_name":"stop","status":"completed","loop_count":0,"workspace_roots":["/home/u/shop"]}"#
        #expect(try runHook(stop, payload: completed, environment: environment).status == 0)
        let failed = #"{"conversation_id":"c-1","generation_id":"g-2","hook_event_name":"stop","status":"error","loop_count":0,"workspace_roots":["/home/u/shop"]}"#
        #expect(try runHook(stop, payload: failed, environment: environment).status == 0)
        let response = #"{"conversation_id":"c-1","generation_id":"g-3","hook_event_name":"afterAgentResponse","text":"Here is the plan.","workspace_roots":["/home/u/shop"]}"#
        #expect(try runHook(try listCommand(home, ".cursor/hooks.json", "afterAgentResponse", key: "command"), payload: response, environment: environment).status == 0)
        let bodies = try receiver.waitForBodies(2)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 2)
        #expect(bodies.first?["title"]?.stringValue?.contains("Cursor finished") == true)
        #expect(bodies.first?["title"]?.stringValue?.contains("shop") == true)
        #expect(bodies.last?["priority"]?.stringValue == "high")
        let log = home.read(".local/state/hookctl/events.jsonl") ?? ""
        #expect(log.contains("\"session_id\":\"c-1\"") && log.contains("Here is the plan."))
        try expectRecordedOnly(home, receiver, [
            (try listCommand(home, ".cursor/hooks.json", "beforeSubmitPrompt", key: "command"), #"{"conversation_id":"c-1","generation_id":"g-4","hook_event_name":"beforeSubmitPrompt","prompt":"fix the build","attachments":[],"workspace_roots":["/home/u/shop"]}"#, "working"),
            (try listCommand(home, ".cursor/hooks.json", "sessionStart", key: "command"), #"{"conversation_id":"c-2","hook_event_name":"sessionStart","workspace_roots":["/home/u/shop"]}"#, "started"),
            (stop, #"{"conversation_id":"c-1","generation_id":"g-5","hook_event_name":"stop","status":"aborted","loop_count":0,"workspace_roots":["/home/u/shop"]}"#, "info"),
            (try listCommand(home, ".cursor/hooks.json", "sessionEnd", key: "command"), #"{"conversation_id":"c-2","hook_event_name":"sessionEnd","reason":"user_close","workspace_roots":["/home/u/shop"]}"#, "ended"),
        ], environment: environment)
        try expectRestored(home, agents: "cursor", files: [".cursor/hooks.json": seed])
    }

    // GitHub Copilot CLI: github/docs cli-hooks-reference.md (camelCase payloads without the event name,
    // snake_case ones for PascalCase names); the file is hookctl's own under $COPILOT_HOME/hooks.
    @Test func copilotCLI() throws {
        let home = try TemporaryHome()
        let userHooks = #"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./guard.sh"}]}}"#
        try home.write("copilot-home/hooks/mine.json", userHooks)
        try home.write("copilot-home/config.json", #"{"model": "gpt-5"}"#)
        let receiver = try Receiver(directory: home.path)
        let base = home.environment(["COPILOT_HOME": home.file("copilot-home")])
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: base).status == 0)
        let once = snapshot(home)
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: base).status == 0)
        #expect(snapshot(home) == once)
        let file = "copilot-home/hooks/hookctl.json"
        let root = try JSON.parse(home.read(file) ?? "")
        #expect(root["version"]?.intValue == 1 && root["hooks"]?["agentStop"]?.arrayValue?.first?["type"]?.stringValue == "command")
        #expect(root["hooks"]?["agentStop"]?.arrayValue?.first?["timeoutSec"]?.intValue == 10)
        #expect(!FileSystem.exists(home.file(".copilot")))
        var environment = base
        environment["SSHIDO_SESSION"] = "1"
        let stop = try listCommand(home, file, "agentStop", key: "bash")
        let agentStop = #"{"sessionId":"s-9","timestamp":1704614400000,"cwd":"/home/u/api","transcriptPath":"/t.jsonl","stopReason":"end_turn"}"#
        #expect(try runHook(stop, shell: "/bin/bash", payload: agentStop, environment: environment).status == 0)
        let notify = try listCommand(home, file, "notification", key: "bash")
        let permission = #"{"sessionId":"s-9","timestamp":1704614401000,"cwd":"/home/u/api","hook_event_name":"Notification","message":"Copilot wants to run: rm -rf dist","title":"Permission needed","notification_type":"permission_prompt"}"#
        #expect(try runHook(notify, shell: "/bin/bash", payload: permission, environment: environment).status == 0)
        let shell = #"{"sessionId":"s-9","timestamp":1704614402000,"cwd":"/home/u/api","hook_event_name":"Notification","message":"npm test finished","notification_type":"shell_completed"}"#
        #expect(try runHook(notify, shell: "/bin/bash", payload: shell, environment: environment).status == 0)
        let error = #"{"sessionId":"s-9","timestamp":1704614403000,"cwd":"/home/u/api","error":{"message":"model quota exceeded","name":"RateLimitError"},"errorContext":"model_call","recoverable":false}"#
        #expect(try runHook(try listCommand(home, file, "errorOccurred", key: "bash"), shell: "/bin/bash", payload: error, environment: environment).status == 0)
        var bodies = try receiver.waitForBodies(3)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 3)
        #expect(bodies.first?["title"]?.stringValue?.contains("Copilot CLI finished") == true)
        #expect(bodies.dropFirst().first?["priority"]?.stringValue == "high" && bodies.dropFirst().first?["body"]?.stringValue == "Copilot wants to run: rm -rf dist")
        #expect(bodies.last?["body"]?.stringValue == "model quota exceeded")
        // The snake_case payload Copilot sends for a PascalCase event name (a `Stop` hook).
        let snake = #"{"hook_event_name":"Stop","session_id":"s-10","timestamp":"2026-01-07T10:00:00Z","cwd":"/home/u/api","transcript_path":"/t.jsonl","stop_reason":"end_turn"}"#
        let script = home.file(".local/share/hookctl/bin/hookctl-hook")
        #expect(try Subprocess(executable: script, arguments: ["copilot"], environment: environment, input: Array(snake.utf8)).run().status == 0)
        bodies = try receiver.waitForBodies(4)
        #expect(bodies.count == 4 && bodies.last?["title"]?.stringValue?.contains("finished") == true)
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("\"session_id\":\"s-9\"") == true)
        try expectRecordedOnly(home, receiver, [
            (try listCommand(home, file, "sessionStart", key: "bash"), #"{"sessionId":"s-11","timestamp":1704614400000,"cwd":"/home/u/api","source":"new","initialPrompt":"Create a new feature"}"#, "started"),
            (try listCommand(home, file, "userPromptSubmitted", key: "bash"), #"{"sessionId":"s-11","timestamp":1704614400500,"cwd":"/home/u/api","prompt":"add a health check"}"#, "working"),
            (try listCommand(home, file, "errorOccurred", key: "bash"), #"{"sessionId":"s-11","timestamp":1704614401000,"cwd":"/home/u/api","error":{"message":"ENOENT","name":"Error"},"errorContext":"tool_execution","recoverable":true}"#, "info"),
            (try listCommand(home, file, "sessionEnd", key: "bash"), #"{"sessionId":"s-11","timestamp":1704618000000,"cwd":"/home/u/api","reason":"user_exit"}"#, "ended"),
        ], environment: environment, shell: "/bin/bash")
        #expect(try hookctl(["uninstall"], environment: base).status == 0)
        #expect(!FileSystem.exists(home.file(file)) && home.read("copilot-home/hooks/mine.json") == userHooks)
    }

    // Grok Build: docs.x.ai/build/features/hooks (camelCase payload; GROK_HOOK_EVENT in every hook).
    @Test func grokBuild() throws {
        let home = try TemporaryHome()
        try home.write(".grok/hooks/lint.json", #"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "make lint"}]}]}}"#)
        let receiver = try setUp(home, agents: "grok")
        #expect(home.read(".grok/hooks/lint.json")?.contains("make lint") == true)
        let stop = #"{"hookEventName":"Stop","sessionId":"gk-1","cwd":"/home/u/web","workspaceRoot":"/home/u/web","stopHookActive":false,"lastAssistantMessage":"Deployed the preview."}"#
        let environment = home.environment(inside.merging(["GROK_HOOK_EVENT": "Stop", "GROK_SESSION_ID": "gk-1"]) { $1 })
        #expect(try runHook(try registeredCommand(home, ".grok/hooks/hookctl.json", "Stop"), payload: stop, environment: environment).status == 0)
        let bodies = try receiver.waitForBodies(1)
        #expect(bodies.first?["body"]?.stringValue == "Deployed the preview.")
        #expect(bodies.first?["title"]?.stringValue?.hasPrefix("Grok Build finished") == true)
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("\"session_id\":\"gk-1\"") == true)
        try expectRecordedOnly(home, receiver, [
            (try registeredCommand(home, ".grok/hooks/hookctl.json", "SessionStart"), #"{"hookEventName":"SessionStart","sessionId":"gk-1","cwd":"/home/u/web","workspaceRoot":"/home/u/web","source":"startup"}"#, "started"),
            (try registeredCommand(home, ".grok/hooks/hookctl.json", "UserPromptSubmit"), #"{"hookEventName":"UserPromptSubmit","sessionId":"gk-1","cwd":"/home/u/web","workspaceRoot":"/home/u/web","prompt":"ship it"}"#, "working"),
        ], environment: environment)
        try expectRestored(home, agents: "grok", files: [".grok/hooks/hookctl.json": nil])
        #expect(home.read(".grok/hooks/lint.json")?.contains("make lint") == true)
    }

    // A Claude Code hook run by Grok (and by Cursor): one event, never two pushes.
    @Test func aClaudeHookRunByAnotherAgentPushesOnce() throws {
        let home = try TemporaryHome()
        try home.write(".claude/settings.json", "{}\n")
        try home.write(".grok/hooks/.keep", "")
        try home.write(".cursor/hooks.json", #"{"version": 1, "hooks": {}}"#)
        let receiver = try setUp(home, agents: "claude,grok,cursor")
        let claudeStop = try registeredCommand(home, ".claude/settings.json", "Stop")
        let payload = #"{"hookEventName":"Stop","sessionId":"gk-2","cwd":"/home/u/web","workspaceRoot":"/home/u/web","lastAssistantMessage":"Once only."}"#
        let grok = home.environment(inside.merging(["GROK_HOOK_EVENT": "Stop", "GROK_SESSION_ID": "gk-2", "CLAUDE_PROJECT_DIR": "/home/u/web"]) { $1 })
        // Grok runs both its own hook and the one in ~/.claude/settings.json.
        #expect(try runHook(try registeredCommand(home, ".grok/hooks/hookctl.json", "Stop"), payload: payload, environment: grok).status == 0)
        #expect(try runHook(claudeStop, payload: payload, environment: grok).status == 0)
        #expect(try receiver.waitForBodies(1).count == 1)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 1)
        let log = home.read(".local/state/hookctl/events.jsonl") ?? ""
        #expect(log.split(separator: "\n").count == 1 && log.contains("\"agent\":\"grok\""))

        // Cursor running Claude Code's hook while its own hooks are set up: nothing from the borrowed one.
        let cursorEnvironment = home.environment(inside.merging(["CURSOR_PROJECT_DIR": "/home/u/web", "CLAUDE_PROJECT_DIR": "/home/u/web"]) { $1 })
        let cursorPayload = #"{"conversation_id":"c-7","hook_event_name":"Stop","status":"completed","workspace_roots":["/home/u/web"]}"#
        #expect(try runHook(claudeStop, payload: cursorPayload, environment: cursorEnvironment).status == 0)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 1)

        // Without Grok's own hooks the borrowed Claude hook reports it, once, under Grok's name.
        #expect(try hookctl(["uninstall", "--agents", "grok"], environment: home.environment()).status == 0)
        let second = payload.replacing("Once only.", with: "Reported by the borrowed hook.")
        #expect(try runHook(claudeStop, payload: second, environment: grok).status == 0)
        let bodies = try receiver.waitForBodies(2)
        #expect(bodies.count == 2 && bodies.last?["title"]?.stringValue?.hasPrefix("Grok Build") == true)
        #expect(bodies.last?["body"]?.stringValue == "Reported by the borrowed hook.")
        // Claude Code itself (no other agent's variables) still pushes as Claude Code.
        let claude = #"{"session_id":"cc-1","transcript_path":"/t","cwd":"/home/u/web","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Claude here."}"#
        #expect(try runHook(claudeStop, payload: claude, environment: home.environment(inside.merging(["CLAUDECODE": "1"]) { $1 })).status == 0)
        #expect(try receiver.waitForBodies(3).last?["title"]?.stringValue?.hasPrefix("Claude Code") == true)
    }

    // opencode: the plugin rendered into ~/.config/opencode/plugin/, run by node as opencode (Bun) would.
    @Test func opencodePlugin() throws {
        let home = try TemporaryHome()
        try home.write(".config/opencode/opencode.json", #"{"$schema": "https://opencode.ai/config.json", "theme": "system"}"#)
        let receiver = try setUp(home, agents: "opencode")
        let plugin = try #require(home.read(".config/opencode/plugin/hookctl.js"))
        #expect(plugin.contains(#"const GATE = "SSHIDO_SESSION""#))
        try home.write("run/plugin.mjs", plugin)
        func fire(_ event: String, _ environment: [String: String]) throws {
            let script = """
            const plugin = await import(process.argv[1]);
            const hooks = await plugin.HookctlPlugin({ directory: "/home/u/site" });
            await hooks.event({ event: JSON.parse(process.argv[2]) });
            """
            let result = try Subprocess(executable: "/usr/bin/env", arguments: ["node", "--input-type=module", "-e", script, home.file("run/plugin.mjs"), event],
                                        environment: environment, timeout: 20).run()
            #expect(result.status == 0, "\(result.errorText)")
        }
        // Event shapes: opencode session.idle / session.error / permission.updated bus events.
        let idle = #"{"type":"session.idle","properties":{"sessionID":"ses_1"}}"#
        try fire(idle, home.environment())
        home.waitUntilQuiet()
        #expect(receiver.requests().isEmpty)
        try fire(idle, home.environment(inside))
        try fire(#"{"type":"permission.updated","properties":{"id":"per_1","type":"bash","sessionID":"ses_1","messageID":"m","title":"rm -rf build","metadata":{},"time":{"created":1}}}"#, home.environment(inside))
        try fire(#"{"type":"session.error","properties":{"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"429 Too Many Requests"}}}}"#, home.environment(inside))
        try fire(#"{"type":"message.updated","properties":{}}"#, home.environment(inside))
        // Hostile: an error name with line breaks, escapes and a huge length stays one short line in the title.
        let hostileName = "Boom\\n\\u001b[2J" + String(repeating: "x", count: 5000)
        try fire(#"{"type":"session.error","properties":{"sessionID":"ses_2","error":{"name":"\#(hostileName)","data":{"message":"second failure"}}}}"#, home.environment(inside))
        let bodies = try receiver.waitForBodies(4)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 4)
        let byBody = Set(bodies.compactMap { $0["body"]?.stringValue })
        #expect(byBody == ["opencode is waiting for your input", "rm -rf build", "429 Too Many Requests", "second failure"])
        let hostileTitle = try #require(bodies.first { $0["body"]?.stringValue == "second failure" }?["title"]?.stringValue)
        #expect(!hostileTitle.contains("\n") && !hostileTitle.contains("\u{1B}") && hostileTitle.count < 200, "\(hostileTitle)")
        #expect(home.read(".local/state/hookctl/events.jsonl")?.contains("\"session_id\":\"ses_1\"") == true)
        try expectRestored(home, agents: "opencode", files: [".config/opencode/plugin/hookctl.js": nil])
        #expect(!FileSystem.exists(home.file(".config/opencode/plugin")))
        #expect(home.read(".config/opencode/opencode.json")?.contains("system") == true)
    }

    // aider: Aider-AI/aider io.py ring_bell runs notifications-command with sh, no payload, synchronously.
    @Test func aiderConfig() throws {
        let home = try TemporaryHome()
        let seed = "# my aider settings\nmodel: sonnet   # the default\nauto-commits: false\nnotifications: false\nnotifications-command: notify-send aider\n"
        try home.write(".aider.conf.yml", seed)
        let receiver = try setUp(home, agents: "aider")
        let text = home.read(".aider.conf.yml") ?? ""
        #expect(text.hasPrefix("# my aider settings\nmodel: sonnet   # the default\nauto-commits: false\nnotifications: true\nnotifications-command: \""))
        let root = try #require(try YAML.parse(text))
        let command = try #require(root["notifications-command"]?.value)
        try validateAgainstAiderSchema(root, home: home)
        // Outside a phone session aider's bell command does nothing; inside, it returns at once and pushes.
        #expect(try Subprocess(executable: "/bin/sh", arguments: ["-c", command], environment: home.environment(), timeout: 10).run().status == 0)
        home.waitUntilQuiet()
        #expect(receiver.requests().isEmpty)
        let run = try Subprocess(executable: "/bin/sh", arguments: ["-c", command], environment: home.environment(inside.merging(["PWD": "/home/u/tool"]) { $1 }), timeout: 10).run()
        #expect(run.status == 0 && run.outputText.isEmpty)
        let bodies = try receiver.waitForBodies(1)
        #expect(bodies.first?["body"]?.stringValue == "aider is waiting for your input")
        #expect(bodies.first?["title"]?.stringValue?.hasPrefix("Aider finished") == true)
        try expectRestored(home, agents: "aider", files: [".aider.conf.yml": seed])

        // Edited after setup: uninstall puts the user's values back and keeps the edit.
        #expect(try hookctl(["setup", "--agents", "aider"], environment: home.environment()).status == 0)
        try home.write(".aider.conf.yml", (home.read(".aider.conf.yml") ?? "") + "dark-mode: true\n")
        #expect(try hookctl(["uninstall", "--agents", "aider"], environment: home.environment()).status == 0)
        #expect(home.read(".aider.conf.yml") == seed + "dark-mode: true\n")
        // No file before: none after.
        FileSystem.remove(home.file(".aider.conf.yml"))
        #expect(try hookctl(["setup", "--agents", "aider"], environment: home.environment()).status == 0)
        try validateAgainstAiderSchema(try #require(try YAML.parse(home.read(".aider.conf.yml") ?? "")), home: home)
        try expectRestored(home, agents: "aider", files: [".aider.conf.yml": nil])
    }

    @Test func aiderConfigThatIsNotAMappingIsLeftAlone() throws {
        let home = try TemporaryHome()
        try home.write(".aider.conf.yml", "- a\n- b\n")
        let result = try hookctl(["setup", "--agents", "aider"], environment: home.environment())
        #expect(result.status != 0 && result.stderr.contains(".aider.conf.yml"))
        #expect(home.read(".aider.conf.yml") == "- a\n- b\n")
        try home.write(".aider.conf.yml", "{model: x}\n")
        #expect(try hookctl(["setup", "--agents", "aider"], environment: home.environment()).status != 0)
        #expect(home.read(".aider.conf.yml") == "{model: x}\n")
    }

    @Test func doctorReportsTheNewAgents() throws {
        let home = try TemporaryHome()
        try home.write(".qwen/settings.json", "{\"disableAllHooks\": true}\n")
        try home.write(".aider.conf.yml", "model: sonnet\n")
        #expect(try hookctl(["setup", "--agents", "qwen,aider"], environment: home.environment()).status == 0)
        var checks = try JSON.parse(try hookctl(["doctor", "--json"], environment: home.environment()).stdout)["checks"]?.arrayValue ?? []
        #expect(checks.contains { $0["name"]?.stringValue == "aider" && $0["status"]?.stringValue == "ok" })
        #expect(checks.contains { $0["name"]?.stringValue == "Qwen Code" && $0["status"]?.stringValue == "warning" && $0["message"]?.stringValue?.contains("disableAllHooks") == true })
        try home.write(".aider.conf.yml", (home.read(".aider.conf.yml") ?? "").replacing("notifications: true", with: "notifications: false"))
        checks = try JSON.parse(try hookctl(["doctor", "--json"], environment: home.environment()).stdout)["checks"]?.arrayValue ?? []
        #expect(checks.contains { $0["name"]?.stringValue == "aider" && $0["status"]?.stringValue == "broken" && $0["fix"]?.stringValue == "hookctl setup --agents aider" })
    }
}

/// The keys hookctl writes into aider's config, as SchemaStore's published schema types them
/// (src/schemas/json/aider-0.82.json, SchemaStore/schemastore 3370d514: "model" string,
/// "notifications" boolean, "notifications-command" string; the schema sets no
/// additionalProperties, so other keys are free). The two keys hookctl owns are also required here.
private let aiderSchemaExcerpt = """
{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
 "required": ["notifications", "notifications-command"],
 "properties": {
  "model": {"type": "string"},
  "notifications": {"type": "boolean"},
  "notifications-command": {"type": "string"}}}
"""

/// Validates the aider config against the schema excerpt above with python3-jsonschema.
private func validateAgainstAiderSchema(_ root: YAMLNode, home: TemporaryHome) throws {
    try home.write("aider-schema.json", aiderSchemaExcerpt)
    let schema = home.file("aider-schema.json")
    func json(_ node: YAMLNode) -> JSONValue {
        switch node.kind {
        case .mapping: return .object(JSONObject(node.pairs.map { ($0.key.value, json($0.value)) }))
        case .sequence: return .array(node.items.map(json))
        default:
            if !node.isQuoted, ["true", "false"].contains(node.value) { return .bool(node.value == "true") }
            return .string(node.value)
        }
    }
    try home.write("aider-config.json", JSON.serialize(json(root)))
    let check = "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))"
    let result = try Subprocess(executable: "/usr/bin/env", arguments: ["python3", "-c", check, schema, home.file("aider-config.json")], timeout: 30).run()
    #expect(result.status == 0, "\(result.errorText)")
}
