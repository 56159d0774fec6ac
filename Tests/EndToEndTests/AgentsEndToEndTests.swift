import Testing
import TestSupport
@testable import HookSupport
@testable import HookAgents
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
        // Qwen Code's command hook timeout is in milliseconds (docs/users/features/hooks.md).
        #expect(root["hooks"]?["Stop"]?.arrayValue?.first?["hooks"]?.arrayValue?.first?["timeout"]?.intValue == 10000)
        let environment = home.environment(inside)
        let notification = #"{"session_id":"q1","transcript_path":"/t","cwd":"/home/u/proj","hook_event_name":"Notification","message":"Qwen Code needs your permission to use Shell","notification_type":"permission_prompt"}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "Notification"), payload: notification, environment: environment).status == 0)
        // The question is delivered before the session's Stop: queued together, the newer would supersede it.
        _ = try receiver.waitForBodies(1)
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
        // Each push is awaited before the next hook: a newer event of the session would supersede a push
        // still queued (newest news wins), and this test is about what each payload becomes.
        _ = try receiver.waitForBodies(1)
        let failed = #"{"conversation_id":"c-1","generation_id":"g-2","hook_event_name":"stop","status":"error","loop_count":0,"workspace_roots":["/home/u/shop"]}"#
        #expect(try runHook(stop, payload: failed, environment: environment).status == 0)
        let response = #"{"conversation_id":"c-1","generation_id":"g-3","hook_event_name":"afterAgentResponse","text":"Here is the plan.","workspace_roots":["/home/u/shop"]}"#
        #expect(try runHook(try listCommand(home, ".cursor/hooks.json", "afterAgentResponse", key: "command"), payload: response, environment: environment).status == 0)
        let bodies = try receiver.waitForBodies(2)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 2)
        #expect(bodies.first?["title"]?.stringValue?.contains("Cursor CLI finished") == true)
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
        // Each push is awaited before the next hook (a newer event supersedes a push still queued).
        _ = try receiver.waitForBodies(1)
        let notify = try listCommand(home, file, "notification", key: "bash")
        let permission = #"{"sessionId":"s-9","timestamp":1704614401000,"cwd":"/home/u/api","hook_event_name":"Notification","message":"Copilot wants to run: rm -rf dist","title":"Permission needed","notification_type":"permission_prompt"}"#
        #expect(try runHook(notify, shell: "/bin/bash", payload: permission, environment: environment).status == 0)
        _ = try receiver.waitForBodies(2)
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

    // opencode's newer events through one plugin instance (anomalyco/opencode session/status.ts,
    // permission, question/index.ts): busy/idle transitions of the top-level session only, a burst of
    // permissions answered within milliseconds never pushed, answers recorded so the board leaves
    // needs_input.
    @Test func opencodePluginFollowsStatusPermissionsAndQuestions() throws {
        let home = try TemporaryHome()
        try home.write(".config/opencode/opencode.json", #"{"theme": "system"}"#)
        let receiver = try setUp(home, agents: "opencode")
        try home.write("run/plugin.mjs", try #require(home.read(".config/opencode/plugin/hookctl.js")))
        let script = """
        const plugin = await import(process.argv[1]);
        const hooks = await plugin.HookctlPlugin({ directory: "/home/u/site" });
        for (const [delay, event] of JSON.parse(process.argv[2])) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          await hooks.event({ event });
        }
        """
        let status = { (id: String, type: String) in #"{"type":"session.status","properties":{"sessionID":"\#(id)","status":{"type":"\#(type)"}}}"# }
        let asked = { (id: String) in #"{"type":"permission.asked","properties":{"id":"\#(id)","sessionID":"ses_1","permission":"bash","patterns":["rm -rf build"],"metadata":{},"always":["rm *"]}}"# }
        let replied = { (id: String) in #"{"type":"permission.replied","properties":{"sessionID":"ses_1","requestID":"\#(id)","reply":"once"}}"# }
        let steps: [(Int, String)] = [
            (0, #"{"type":"session.created","properties":{"info":{"id":"ses_child","parentID":"ses_1","title":"task"}}}"#),
            (0, status("ses_1", "idle")),          // at start: no transition, nothing sent
            (0, status("ses_1", "busy")),
            (0, status("ses_child", "busy")),      // a subagent: never reported
            (300, status("ses_1", "busy")),        // repeated: nothing sent
            // Auto-accepted burst: each answered within milliseconds, none reported.
            (0, asked("per_a")), (5, replied("per_a")), (0, asked("per_b")), (5, replied("per_b")),
            (600, asked("per_c")),                 // a real prompt: reported after the hold
            (900, replied("per_c")),
            (500, #"{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_1","questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":""},{"label":"SQLite","description":""}]}]}}"#),
            (500, #"{"type":"question.replied","properties":{"sessionID":"ses_1","requestID":"que_1","answers":[["SQLite"]]}}"#),
            (500, status("ses_child", "idle")),
            (300, status("ses_1", "idle")),
            (300, #"{"type":"session.idle","properties":{"sessionID":"ses_1"}}"#),  // deprecated twin: not sent again
        ]
        let list = "[" + steps.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]"
        let run = try Subprocess(executable: "/usr/bin/env", arguments: ["node", "--input-type=module", "-e", script, home.file("run/plugin.mjs"), list],
                                 environment: home.environment(inside), timeout: 60).run()
        #expect(run.status == 0, "\(run.errorText)")
        let bodies = try receiver.waitForBodies(3)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 3)
        #expect(bodies.map { $0["body"]?.stringValue ?? "" } == ["rm -rf build", "Which database?", "opencode is waiting for your input"])
        let events = home.loggedEvents()
        #expect(events.map { $0["agent_event"]?.stringValue ?? "" } == ["session.status", "permission.asked", "permission.replied", "question.asked",
                                                                     "question.replied", "session.status"])
        #expect(events.map { $0["kind"]?.stringValue ?? "" } == ["working", "needs_input", "working", "needs_input", "working", "done"])
        #expect(events.allSatisfy { $0["session_id"]?.stringValue == "ses_1" })
        #expect(events[0]["message"]?.stringValue ?? "" == "")
    }

    // opencode 2 loads the same file through its default export {id, setup(ctx)} and streams {type, data}
    // events from ctx.event.subscribe(): a recorded sequence (shapes from mohak34/opencode-notifier
    // src/v2.ts, PR #110; stablyai/orca PR #20410) with an unknown type and a 1 MB payload among them.
    // The stream is never held (the whole sequence is consumed before any hook could have finished), the
    // turn, permission and question are reported as opencode 1's are, and the oversized event is sent
    // without its payload.
    @Test func opencodePluginLoadsInOpencode2() throws {
        let home = try TemporaryHome()
        try home.write(".config/opencode/opencode.json", #"{"theme": "system"}"#)
        let receiver = try setUp(home, agents: "opencode")
        try home.write("run/plugin.mjs", try #require(home.read(".config/opencode/plugin/hookctl.js")))
        let big = String(repeating: "x", count: 1 << 20)
        let steps: [(Int, String)] = [
            (0, #"{"id":"e0","type":"session.created","data":{"sessionID":"ses_child","parentID":"ses_1","title":"task"}}"#),
            (0, #"{"id":"e1","type":"session.execution.started","data":{"sessionID":"ses_1"}}"#),
            (0, #"{"id":"e2","type":"session.execution.started","data":{"sessionID":"ses_child"}}"#),
            (0, #"{"id":"e3","type":"workspace.mystery","data":{"blob":"\#(big)"}}"#),
            (0, #"{"id":"e4","type":"permission.asked","data":{"id":"per_1","sessionID":"ses_1","action":"bash","resources":["rm -rf build"]}}"#),
            (900, #"{"id":"e5","type":"permission.replied","data":{"id":"per_1","sessionID":"ses_1","reply":"once"}}"#),
            (300, #"{"id":"e6","type":"form.created","data":{"form":{"id":"frm_1","sessionID":"ses_1","title":"Which database?","metadata":{"kind":"question"},"fields":[{"options":[{"label":"Postgres"},{"label":"SQLite"}]}]}}}"#),
            (500, #"{"id":"e7","type":"form.replied","data":{"form":{"id":"frm_1","sessionID":"ses_1"}}}"#),
            (0, #"{"id":"e7b","type":"session.error","data":{"sessionID":"ses_1"}}"#),   // opencode 1's name: not a v2 event, dropped
            (300, #"{"id":"e8","type":"session.execution.failed","data":{"sessionID":"ses_1","error":{"name":"APIError","message":"\#(big)"}}}"#),
            (300, #"{"id":"e9","type":"session.execution.succeeded","data":{"sessionID":"ses_1"}}"#),
        ]
        try home.write("run/events.json", "[" + steps.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]")
        let script = """
        import { readFileSync } from "node:fs";
        const plugin = await import(process.argv[1]);
        if (plugin.default.id !== "hookctl" || typeof plugin.default.setup !== "function" || plugin.default.server !== plugin.HookctlPlugin) {
          throw new Error("not a plugin for both versions");
        }
        const steps = JSON.parse(readFileSync(process.argv[2], "utf8"));
        let consumed = 0;
        async function* subscribe() {
          for (const [delay, event] of steps) {
            await new Promise((resolve) => setTimeout(resolve, delay));
            const started = Date.now();
            yield event;
            consumed += 1;
            if (Date.now() - started > 200) throw new Error("the plugin held the stream " + (Date.now() - started) + " ms");
          }
        }
        const dispose = plugin.default.setup({ location: { directory: "/home/u/site" }, event: { subscribe } });
        await new Promise((resolve) => setTimeout(resolve, 3500));
        await dispose();
        if (consumed !== steps.length) throw new Error("consumed " + consumed + " of " + steps.length);
        """
        let run = try Subprocess(executable: "/usr/bin/env", arguments: ["node", "--input-type=module", "-e", script, home.file("run/plugin.mjs"),
                                                                          home.file("run/events.json")],
                                 environment: home.environment(inside), timeout: 60).run()
        #expect(run.status == 0, "\(run.errorText)")
        let bodies = try receiver.waitForBodies(3)
        #expect(bodies.map { $0["body"]?.stringValue ?? "" }.prefix(2) == ["rm -rf build", "Which database?"], "\(bodies)")
        #expect(eventually(timeout: 10) { home.loggedEvents().count >= 7 }, "\(home.loggedEvents())")
        let events = home.loggedEvents()
        #expect(events.map { $0["agent_event"]?.stringValue ?? "" } == ["session.status", "permission.asked", "permission.replied", "question.asked",
                                                                     "question.replied", "session.error", "session.status"], "\(events)")
        #expect(events.map { $0["kind"]?.stringValue ?? "" } == ["working", "needs_input", "working", "needs_input", "working", "failed", "done"])
        #expect(events.allSatisfy { $0["session_id"]?.stringValue == "ses_1" })
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
        #expect(bodies.first?["title"]?.stringValue?.hasPrefix("aider finished") == true)
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

    // Antigravity CLI: ~/.gemini/config/hooks.json, hook names → events → handlers, camelCase payloads
    // that do not name their event (hooks/agy.json cites the sources). A stand-in `agy` on PATH loads the
    // file as agy 1.1.27 does (Tests/Fixtures/standin_agy.py) and runs the handlers without a shell.
    @Test func antigravityCLI() throws {
        let home = try TemporaryHome()
        try home.write("bin/agy", "#!/bin/sh\nexec python3 '\(Harness.fixtures)/standin_agy.py' \"$@\"\n", mode: 0o755)
        // The user's own named hook, in the shape rtk-ai/rtk#1975 shows.
        let seed = """
        {
          "RtkHook": {
            "enabled": true,
            "PreToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": "~/.gemini/hooks/rtk.sh", "timeout": 0}]}]
          }
        }

        """
        try home.write(".gemini/config/hooks.json", seed)
        let path = home.path + "/bin:/usr/local/bin:/usr/bin:/bin"
        let environment = home.environment(["PATH": path])
        let receiver = try Receiver(directory: home.path)
        // No --agents: agy on PATH is what makes setup pick it.
        let setup = try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: environment)
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(setup.stdout.contains("Antigravity CLI"), "\(setup.stdout)")
        let once = snapshot(home)
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token], environment: environment).status == 0)
        #expect(snapshot(home) == once, "a second setup changed a file")
        let root = try JSON.parse(home.read(".gemini/config/hooks.json") ?? "")
        #expect(root.objectValue?.keys == ["RtkHook", "hookctl"])
        let user = try JSON.parse(seed)["RtkHook"]
        #expect(root["RtkHook"] == user)
        let block = try #require(root["hookctl"]?.objectValue)
        #expect(block["enabled"]?.boolValue == true)
        // Lifecycle events: a flat list of handlers, seconds, no shell needed to run the command.
        let stopHandler = try #require(block["Stop"]?.arrayValue?.first)
        #expect(stopHandler["type"]?.stringValue == "command" && stopHandler["timeout"]?.intValue == 10 && stopHandler["hooks"] == nil)
        #expect(stopHandler["command"]?.stringValue?.hasSuffix("hookctl-hook' agy --event Stop") == true)
        // The stand-in agy loads the file (a refused file exits 3) and runs the hooks with its documented payloads.
        func fire(_ event: String, _ payload: String, _ extra: [String: String]) throws {
            let run = try Subprocess(executable: home.path + "/bin/agy", arguments: ["fire", event, payload],
                                     environment: environment.merging(extra) { $1 }, timeout: 30).run()
            #expect(run.status == 0, "agy fire \(event): \(run.errorText)")
        }
        let payload = #"{"artifactDirectoryPath":"/h/.gemini/antigravity-cli/brain/c-9","conversationId":"c-9","transcriptPath":"/h/.gemini/antigravity-cli/brain/c-9/.system_generated/logs/transcript_full.jsonl","workspacePaths":["/home/u/garden"]"#
        // Outside a phone session nothing is recorded or sent.
        try fire("Stop", payload + #","modelName":"gemini-3.7-flash-high","terminationReason":"NO_TOOL_CALL","fullyIdle":true,"executionNum":0}"#, [:])
        home.waitUntilQuiet()
        #expect(receiver.requests().isEmpty && home.loggedEvents().isEmpty)
        try fire("SessionStart", payload + "}", inside)
        try fire("PreInvocation", payload + #","executionNum":0}"#, inside)
        try fire("Stop", payload + #","modelName":"gemini-3.7-flash-high","terminationReason":"NO_TOOL_CALL","fullyIdle":true,"executionNum":0}"#, inside)
        let bodies = try receiver.waitForBodies(1)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 1)
        let title = bodies.first?["title"]?.stringValue ?? ""
        #expect(title.hasPrefix("Antigravity CLI finished") && title.contains("garden"), "\(title)")
        #expect(bodies.first?["body"]?.stringValue == "Antigravity CLI finished its turn")
        let events = home.loggedEvents()
        #expect(events.map { $0["kind"]?.stringValue ?? "" } == ["started", "working", "done"])
        #expect(events.allSatisfy { $0["agent"]?.stringValue == "agy" && $0["session_id"]?.stringValue == "c-9" && $0["cwd"]?.stringValue == "/home/u/garden" })
        #expect(events.last?["detail"]?.stringValue == "NO_TOOL_CALL" && events.last?["agent_event"]?.stringValue == "Stop")
        // Doctor reads the agent's own file through its installer.
        let doctor = try JSON.parse(try hookctl(["doctor", "--json"], environment: environment).stdout)["checks"]?.arrayValue ?? []
        #expect(doctor.contains { $0["name"]?.stringValue == "Antigravity CLI" && $0["status"]?.stringValue == "ok" }, "\(doctor)")
        let uninstall = try hookctl(["uninstall"], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(home.read(".gemini/config/hooks.json") == seed, "hooks.json was not given back")
    }

    // doctor asks agy what it loaded (`agy -p /hooks`, the stand-in's listing) and compares it with what setup
    // wrote: all of hookctl's events listed is ok; a file agy refuses (a user's block in Claude's shape beside
    // hookctl's) is a warning naming the events and quoting agy's first line, cleaned.
    @Test func antigravityDoctorComparesWhatAgyLoaded() throws {
        let home = try TemporaryHome()
        try home.write("bin/agy", "#!/bin/sh\nexec python3 '\(Harness.fixtures)/standin_agy.py' \"$@\"\n", mode: 0o755)
        let environment = home.environment(["PATH": home.path + "/bin:/usr/local/bin:/usr/bin:/bin"])
        #expect(try hookctl(["setup", "--agents", "agy"], environment: environment).status == 0)
        func loadedCheck() throws -> JSONValue? {
            let checks = try JSON.parse(try hookctl(["doctor", "--json"], environment: environment).stdout)["checks"]?.arrayValue ?? []
            return checks.first { ($0["message"]?.stringValue ?? "").contains("agy -p /hooks") }
        }
        let good = try #require(try loadedCheck())
        #expect(good["status"]?.stringValue == "ok", "\(JSON.serialize(good))")
        #expect(good["message"]?.stringValue?.contains("SessionStart, PreInvocation, Stop") == true, "\(JSON.serialize(good))")
        var root = try JSON.parse(try #require(home.read(".gemini/config/hooks.json"))).objectValue ?? JSONObject()
        root["Mine\u{1b}[2J"] = .array([.string("\u{1b}]52;c;evil\u{07}")])
        try home.write(".gemini/config/hooks.json", JSON.serialize(.object(root)))
        let bad = try #require(try loadedCheck())
        #expect(bad["status"]?.stringValue == "warning", "\(JSON.serialize(bad))")
        let message = bad["message"]?.stringValue ?? ""
        #expect(message.contains("does not list hookctl's SessionStart, PreInvocation, Stop") && message.contains("failed to parse hooks.json"), "\(message)")
        #expect(!message.contains("\u{1b}") && !message.contains("\u{07}"), "agy's words are cleaned: \(message)")
    }

    @Test func antigravityCLIFileIsCreatedAndRemovedWhole() throws {
        let home = try TemporaryHome()
        try home.write("bin/agy", "#!/bin/sh\nexec python3 '\(Harness.fixtures)/standin_agy.py' \"$@\"\n", mode: 0o755)
        let environment = home.environment(["PATH": home.path + "/bin:/usr/local/bin:/usr/bin:/bin"])
        #expect(try hookctl(["setup", "--agents", "agy"], environment: environment).status == 0)
        #expect(home.read(".gemini/config/hooks.json") != nil)
        // A block of hookctl's name that is the user's own is not taken over.
        #expect(try hookctl(["uninstall", "--agents", "agy"], environment: environment).status == 0)
        #expect(home.read(".gemini/config/hooks.json") == nil && !FileSystem.exists(home.path + "/.gemini/config"))
        try home.write(".gemini/config/hooks.json", #"{"hookctl": {"Stop": [{"type": "command", "command": "say hi"}]}}"#)
        let refused = try hookctl(["setup", "--agents", "agy"], environment: environment)
        #expect(refused.status != 0 && refused.stderr.contains("not hookctl's"), "\(refused.stderr)")
        #expect(home.read(".gemini/config/hooks.json") == #"{"hookctl": {"Stop": [{"type": "command", "command": "say hi"}]}}"#)
    }

    // Codex: Stop, SessionEnd and Interrupt from hooks.json beside notify (openai/codex PR #33895, #40511,
    // #41432; schemas in codex-rs/hooks/schema/generated). A turn pushes once whether notify, Stop or both
    // report it, in either order and at the same instant.
    @Test func codexTurnsPushOncePerTurnAndSessionsEnd() throws {
        let home = try TemporaryHome()
        try home.write("bin/codex", "#!/bin/sh\necho 'codex-cli 0.152.1'\n", mode: 0o755)
        try home.write(".codex/config.toml", "model = \"gpt-5-codex\"\n")
        let path = home.path + "/bin:/usr/local/bin:/usr/bin:/bin"
        let receiver = try Receiver(directory: home.path)
        let setupEnvironment = home.environment(["PATH": path])
        #expect(try hookctl(["setup", "--notify-url", receiver.baseURL + "/n/" + token, "--agents", "codex"], environment: setupEnvironment).status == 0)
        let hooks = try JSON.parse(home.read(".codex/hooks.json") ?? "")
        for event in ["SessionEnd", "Interrupt"] {
            #expect(hooks["hooks"]?[event]?.arrayValue?.first?["hooks"]?.arrayValue?.first?["timeout"]?.intValue == 3)
        }
        let argv = try #require(try CodexConfigText(home.read(".codex/config.toml") ?? "", path: "config.toml").notifyArguments())
        let environment = home.environment(inside.merging(["PATH": path, "SHELL": "/bin/sh"]) { $1 })
        let stopCommand = try registeredCommand(home, ".codex/hooks.json", "Stop")
        @Sendable func notify(_ turn: String, _ text: String) throws -> Subprocess.Termination {
            let payload = #"{"type":"agent-turn-complete","thread-id":"th-1","turn-id":"\#(turn)","cwd":"/home/u/proj","client":"codex-tui","input-messages":["go"],"last-assistant-message":"\#(text)"}"#
            return try Subprocess(executable: argv[0], arguments: Array(argv.dropFirst()) + [payload], environment: environment, timeout: 20).run().status
        }
        @Sendable func stop(_ turn: String, _ text: String) throws -> Subprocess.Termination {
            let payload = #"{"session_id":"th-1","turn_id":"\#(turn)","transcript_path":null,"cwd":"/home/u/proj","hook_event_name":"Stop","model":"gpt-5-codex","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"\#(text)"}"#
            return try runHook(stopCommand, flag: "-lc", payload: payload, environment: environment).status
        }
        // Turn 1: both at once. Turn 2: Stop first, notify after. Turn 3: notify only (a Codex without hooks.json trust).
        let racing = ThreadGroup(2) { index in index == 0 ? try notify("tu-1", "First done.") : try stop("tu-1", "First done.") }
        #expect(try racing.join() == [0, 0])
        // Each turn's push arrives before the next turn: queued together, the newer would supersede it.
        _ = try receiver.waitForBodies(1)
        #expect(try stop("tu-2", "Second done.") == 0)
        #expect(try notify("tu-2", "Second done.") == 0)
        _ = try receiver.waitForBodies(2)
        #expect(try notify("tu-3", "Third done.") == 0)
        let bodies = try receiver.waitForBodies(3)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 3)
        #expect(bodies.map { $0["body"]?.stringValue ?? "" } == ["First done.", "Second done.", "Third done."])
        let done = home.loggedEvents().filter { $0["kind"]?.stringValue == "done" }
        #expect(done.count == 5)
        #expect(done.filter { $0["quiet"]?.stringValue == "same_turn" }.count == 2)
        // Esc: Interrupt puts the session back at its prompt without a push; exit ends it.
        try expectRecordedOnly(home, receiver, [
            (try registeredCommand(home, ".codex/hooks.json", "UserPromptSubmit"), #"{"session_id":"th-1","turn_id":"tu-4","transcript_path":null,"cwd":"/home/u/proj","hook_event_name":"UserPromptSubmit","model":"gpt-5-codex","permission_mode":"default","prompt":"refactor"}"#, "working"),
            (try registeredCommand(home, ".codex/hooks.json", "Interrupt"), #"{"session_id":"th-1","turn_id":"tu-4","transcript_path":null,"cwd":"/home/u/proj","hook_event_name":"Interrupt","model":"gpt-5-codex","permission_mode":"default"}"#, "done"),
            (try registeredCommand(home, ".codex/hooks.json", "SessionEnd"), #"{"session_id":"th-1","transcript_path":null,"cwd":"/home/u/proj","hook_event_name":"SessionEnd","model":"gpt-5-codex","permission_mode":"default","reason":"other"}"#, "ended"),
        ], environment: environment, shell: "/bin/sh")
        #expect(home.loggedEvents().last(where: { $0["agent_event"]?.stringValue == "Interrupt" })?["quiet"]?.stringValue == "by_user")
        let board = try JSON.parse(try hookctl(["status", "--json"], environment: environment).stdout)
        #expect(board.objectValue != nil)
        #expect((try hookctl(["status", "--json"], environment: environment).stdout).contains("\"ended\""))
    }

    // Codex before 0.130.0 read hooks.json only with [features] codex_hooks = true (the flag was renamed
    // hooks and turned on by default then): doctor says so, and sees a flag turned off.
    @Test(arguments: [
        ("codex-cli 0.129.0", "model = \"o3\"\n", "codex_hooks = true"),
        ("codex-cli 0.129.0", "model = \"o3\"\n[features]\ncodex_hooks = true\n", nil),
        ("codex-cli 0.152.1", "model = \"o3\"\n", nil),
        ("codex-cli 0.152.1", "model = \"o3\"\n[features]\nhooks = false # off\n", "hooks = false"),
        ("codex-cli 0.152.1", "features.hooks = false\n", "hooks = false"),
    ] as [(String, String, String?)])
    func doctorSeesWhetherThisCodexReadsHooksJSON(version: String, config: String, warning: String?) throws {
        let home = try TemporaryHome()
        try home.write("bin/codex", "#!/bin/sh\necho '\(version)'\n", mode: 0o755)
        try home.write(".codex/config.toml", config)
        let environment = home.environment(["PATH": home.path + "/bin:/usr/local/bin:/usr/bin:/bin"])
        let setup = try hookctl(["setup", "--agents", "codex"], environment: environment)
        #expect(setup.status == 0, "\(setup.stderr)")
        let checks = try JSON.parse(try hookctl(["doctor", "--json"], environment: environment).stdout)["checks"]?.arrayValue ?? []
        let flagged = checks.filter { $0["name"]?.stringValue == "Codex" && $0["status"]?.stringValue == "warning" && ($0["message"]?.stringValue ?? "").contains("[features]") }
        if let warning {
            #expect(flagged.count == 1 && (flagged.first?["message"]?.stringValue ?? "").contains(warning), "\(checks)")
            #expect(setup.stdout.contains(warning) || setup.stderr.contains(warning), "setup did not tell: \(setup.stdout)")
        } else {
            #expect(flagged.isEmpty, "\(flagged)")
        }
    }

    // Qwen Code: PermissionRequest, idle_prompt as an idle reminder, StopFailure's loop_detected
    // (QwenLM/qwen-code packages/core/src/hooks/types.ts).
    @Test func qwenCodePermissionsIdleRemindersAndLoops() throws {
        let home = try TemporaryHome()
        try home.write(".qwen/settings.json", "{}\n")
        let receiver = try setUp(home, agents: "qwen")
        let environment = home.environment(inside)
        let base = #""session_id":"q7","transcript_path":"/t","cwd":"/home/u/proj","timestamp":"2026-12-01T10:00:00.000Z""#
        let permission = #"{\#(base),"hook_event_name":"PermissionRequest","permission_mode":"default","tool_name":"run_shell_command","tool_input":{"command":"rm -rf build"},"permission_suggestions":[]}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "PermissionRequest"), payload: permission, environment: environment).status == 0)
        _ = try receiver.waitForBodies(1)  // before the Stop, which would supersede it in the queue
        let stop = #"{\#(base),"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Cleaned.","background_tasks":[],"crons":[]}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "Stop"), payload: stop, environment: environment).status == 0)
        var bodies = try receiver.waitForBodies(2)
        #expect(bodies.first?["priority"]?.stringValue == "high" && (bodies.first?["title"]?.stringValue ?? "").hasPrefix("Qwen Code needs your input"))
        // A minute after the turn: idle_prompt only repeats that Qwen waits. Recorded, not pushed.
        try expectRecordedOnly(home, receiver, [
            (try registeredCommand(home, ".qwen/settings.json", "Notification"), #"{\#(base),"hook_event_name":"Notification","message":"Qwen Code is waiting for your input","notification_type":"idle_prompt"}"#, "needs_input"),
        ], environment: environment)
        #expect(home.loggedEvents().last?["quiet"]?.stringValue == "idle_after_done")
        let loop = #"{\#(base),"hook_event_name":"StopFailure","error":"loop_detected","error_details":"the same tool call repeated 5 times"}"#
        #expect(try runHook(try registeredCommand(home, ".qwen/settings.json", "StopFailure"), payload: loop, environment: environment).status == 0)
        bodies = try receiver.waitForBodies(3)
        #expect(bodies.last?["title"]?.stringValue?.contains("failed (loop_detected)") == true, "\(bodies.last ?? .null)")
        #expect(bodies.last?["body"]?.stringValue == "the same tool call repeated 5 times")
    }

    // Cursor: one event name it does not know voids the whole ~/.cursor/hooks.json, the user's own hooks
    // included; doctor names it.
    @Test func doctorNamesCursorEventsThatVoidTheFile() throws {
        let home = try TemporaryHome()
        try home.write(".cursor/hooks.json", #"{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}}"#)
        #expect(try hookctl(["setup", "--agents", "cursor"], environment: home.environment()).status == 0)
        func cursorChecks() throws -> [JSONValue] {
            (try JSON.parse(try hookctl(["doctor", "--json"], environment: home.environment()).stdout)["checks"]?.arrayValue ?? [])
                .filter { $0["name"]?.stringValue == "Cursor CLI" }
        }
        #expect(try cursorChecks().allSatisfy { $0["status"]?.stringValue != "broken" })
        var root = try #require(try JSON.parse(home.read(".cursor/hooks.json") ?? "").objectValue)
        var hooks = try #require(root["hooks"]?.objectValue)
        hooks["afterFileSave\u{1B}[2J"] = .array([.object(JSONObject([("command", .string("./sync.sh"))]))])
        root["hooks"] = .object(hooks)
        try home.write(".cursor/hooks.json", JSON.serializePretty(.object(root), indent: "  "))
        let broken = try cursorChecks().filter { $0["status"]?.stringValue == "broken" }
        #expect(broken.count == 1, "\(broken)")
        let message = broken.first?["message"]?.stringValue ?? ""
        #expect(message.contains("afterFileSave") && message.contains("ignores the whole file") && !message.contains("\u{1B}"), "\(message)")
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
