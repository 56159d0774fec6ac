import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
@testable import HookAgents

private func builtIn(_ name: String) throws -> AgentManifest {
    try AgentManifest(json: try JSON.parse(BuiltinResources.manifests[name + ".json"]!), source: name)
}

private func context(home: String) -> InstallerContext {
    let paths = Paths(environment: ["HOME": home])
    return InstallerContext(environment: ["HOME": home], layout: HookLayout(paths: paths), state: SetupState(paths: paths),
                            resources: Resources(environment: ["HOME": home], paths: paths, executable: "/nonexistent/bin/hookctl"))
}

@Suite struct AgentFormatTests {
    @Test func newManifestsReadTheirExtensions() throws {
        let copilot = try builtIn("copilot")
        #expect(copilot.format == "hooks-list-json" && copilot.handler.commandKey == "bash" && copilot.handler.timeoutKey == "timeoutSec")
        #expect(copilot.settings.resolve(environment: ["HOME": "/h", "COPILOT_HOME": "/c"]) == "/c/hooks/hookctl.json")
        #expect(copilot.events.allSatisfy { $0.eventArgument })
        #expect(copilot.events.first { $0.name == "notification" }?.kinds["permission_prompt"] == .needsInput)
        let grok = try builtIn("grok")
        #expect(grok.runsHooksOf == ["claude", "cursor"] && grok.callerEnvironment == ["GROK_HOOK_EVENT"])
        #expect(try builtIn("opencode").template == "opencode-plugin.js")
        #expect(try builtIn("aider").events.map(\.name) == ["notifications-command"])
        // Facts for peek/reply in the `answer` shape: every fact a value with its source.
        for name in ["qwen", "cursor", "copilot", "grok", "opencode", "aider"] {
            let answer = try #require(try JSON.parse(BuiltinResources.manifests[name + ".json"]!)["answer"]?.objectValue, "\(name) has no answer facts")
            #expect(answer["question_source"] != nil)
            for (key, fact) in answer.entries {
                #expect(fact["value"] != nil && !(fact["source"]?.stringValue ?? "").isEmpty, "\(name) answer.\(key)")
            }
        }
    }

    @Test(arguments: [
        (#"{"agent":"x","settings":{"path":"~/a","format":"hooks-list-json"},"events":[{"name":"a","kind":"done","kinds":{"e":"boom"}}]}"#, "kinds.e"),
        (#"{"agent":"x","settings":{"path":"~/a","format":"plugin-file"},"template":"../etc/passwd","events":[]}"#, "template"),
        (#"{"agent":"x","settings":{"path":"~/a","format":"aider-yaml"},"events":[]}"#, "exactly one"),
        (#"{"agent":"x","settings":{"path":"~/a","format":"hooks-list-json"},"payload_keys":{"cwd":"x"},"events":[{"name":"a","kind":"done"}]}"#, "payload_keys.cwd"),
    ])
    func badExtensionsAreRefusedWithTheField(json: String, field: String) throws {
        let error = #expect(throws: ManifestError.self) { try AgentManifest(json: try JSON.parse(json), source: "m.json") }
        #expect(error?.description.contains(field) == true, "\(error?.description ?? "")")
    }

    @Test func payloadKeysFillOnlyWhatIsMissing() throws {
        let cursor = try builtIn("cursor")
        let object = try #require(try JSON.parse(#"{"conversation_id":"c","workspace_roots":["/w/a","/w/b"]}"#).objectValue)
        let normalized = cursor.normalize(object)
        #expect(normalized["session_id"]?.stringValue == "c" && normalized["cwd"]?.stringValue == "/w/a")
        let own = try #require(try JSON.parse(#"{"session_id":"mine","conversation_id":"c","cwd":"/x","workspace_roots":[]}"#).objectValue)
        #expect(cursor.normalize(own)["session_id"]?.stringValue == "mine" && cursor.normalize(own)["cwd"]?.stringValue == "/x")
        #expect(JSONPath.value(at: "workspace_roots.5", in: object) == nil)
    }

    @Test func theRealCallerIsTheMostSpecificRunner() throws {
        let manifests = try ["claude", "cursor", "grok"].map(builtIn)
        #expect(HookCaller.realCaller(of: "claude", environment: ["GROK_HOOK_EVENT": "Stop", "CURSOR_PROJECT_DIR": "/p"], manifests: manifests)?.agent == "grok")
        #expect(HookCaller.realCaller(of: "claude", environment: ["CURSOR_PROJECT_DIR": "/p"], manifests: manifests)?.agent == "cursor")
        #expect(HookCaller.realCaller(of: "cursor", environment: ["CURSOR_PROJECT_DIR": "/p"], manifests: manifests) == nil)
        #expect(HookCaller.realCaller(of: "cursor", environment: ["GROK_HOOK_EVENT": "stop"], manifests: manifests)?.agent == "grok")
        #expect(HookCaller.realCaller(of: "claude", environment: ["GROK_HOOK_EVENT": ""], manifests: manifests) == nil)
        #expect(HookCaller.realCaller(of: "codex", environment: ["GROK_HOOK_EVENT": "x"], manifests: manifests) == nil)
        #expect(HookCaller.builtInCallerVariables == ["GROK_HOOK_EVENT", "CURSOR_PROJECT_DIR"])
        // The list made at build time is what AgentManifest reads from every built-in manifest.
        let everyBuiltIn = try BuiltinResources.manifests.map { try AgentManifest(json: JSON.parse($0.value), source: $0.key) }
        #expect(HookCaller.builtInCallerVariables == Set(everyBuiltIn.flatMap(\.callerEnvironment)))
        // A built-in agent's own hook, no other runner's variable: no manifest is even asked for.
        let plain = HookCaller.resolve(agent: "claude", payload: nil, environment: ["CLAUDECODE": "1"]) {
            Issue.record("manifests were read on the plain hook path")
            return []
        }
        #expect(plain.agent == "claude" && plain.duplicateOf == nil)
    }

    @Test func hooksListKeepsTheUsersHandlersAndReplacesAStaleOneInPlace() throws {
        let scratch = try TemporaryDirectory("unit")
        let home = scratch.path
        let installer = HooksListInstaller(manifest: try builtIn("cursor"), context: context(home: home))
        let stale = #"{"command": "exec '/old/share/hookctl/bin/hookctl-hook' cursor"}"#
        let text = #"{"hooks": {"stop": [\#(stale), {"command": "say done"}], "afterFileEdit": [\#(stale)]}, "version": 2}"#
        try FileSystem.makeDirectories(home + "/.cursor")
        try FileSystem.writeAtomically(home + "/.cursor/hooks.json", text: text, sync: false)
        let plan = try installer.install()
        #expect(plan.hadEntries)
        let root = try JSON.parse(try #require(plan.changes.first?.after))
        let stop = try #require(root["hooks"]?["stop"]?.arrayValue)
        // hookctl's handler stays first (in place, brought up to date), the user's after it.
        #expect(stop.count == 2 && stop.last?["command"]?.stringValue == "say done")
        #expect(stop.first?["command"]?.stringValue == installer.command(for: installer.manifest.events[0]))
        // An event this manifest does not hook loses only hookctl's handler; the user's version stays.
        #expect(root["hooks"]?["afterFileEdit"] == nil && root["version"]?.intValue == 2)
        let registered = installer.registeredEvents(plan.changes.first?.after)
        #expect(Set(registered.keys) == Set(installer.manifest.events.map(\.name)))
    }

    /// Point 8: every agent fact lives in its manifest. The facts built in at compile time (display name,
    /// event kinds) are what AgentManifest reads from the same files, and the code reads them there.
    @Test func hookFactsAreTheManifestsOwn() throws {
        let everyBuiltIn = try BuiltinResources.manifests.map { try AgentManifest(json: JSON.parse($0.value), source: $0.key) }
        #expect(Set(BuiltinResources.hookFactAgents) == Set(everyBuiltIn.map(\.agent)))
        for manifest in everyBuiltIn {
            #expect(HookFacts.builtIn(manifest.agent) == manifest.hookFacts, "\(manifest.agent)")
            #expect(Event.displayName(manifest.agent) == manifest.displayName)
        }
        #expect(Event.displayName("cursor") == "Cursor CLI" && Event.displayName("agy") == "Antigravity CLI")
        #expect(Event.displayName("zed") == "Zed")
        func kind(_ agent: String, _ json: String) throws -> EventKind {
            let object = try #require(try JSON.parse(json).objectValue)
            return PayloadParser.classify(agent: agent, agentEvent: object["hook_event_name"]?.stringValue ?? "", object: object).0
        }
        // Notification types from claude.json's `kinds`.
        #expect(try kind("claude", #"{"hook_event_name":"Notification","notification_type":"agent_completed"}"#) == .done)
        #expect(try kind("claude", #"{"hook_event_name":"Notification","notification_type":"auth_success"}"#) == .info)
        #expect(try kind("claude", #"{"hook_event_name":"Notification","notification_type":"permission_prompt"}"#) == .needsInput)
        // A tool hook's kind is the manifest's only for the tool its matcher names; another tool: working.
        #expect(try kind("claude", #"{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion"}"#) == .needsInput)
        #expect(try kind("claude", #"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#) == .working)
        #expect(try kind("gemini", #"{"hook_event_name":"BeforeTool","tool_name":"ask_user"}"#) == .needsInput)
        // An event the agent's manifest does not list is read as Claude Code's of that name (Copilot's PascalCase Stop).
        #expect(try kind("copilot", #"{"hook_event_name":"Stop"}"#) == .done)
        #expect(try kind("codex", #"{"hook_event_name":"Interrupt"}"#) == .done)
        #expect(try kind("qwen", #"{"hook_event_name":"StopFailure","error":"loop_detected"}"#) == .failed)
        #expect(HookFacts.builtIn("codex")?.onePushPerTurn == true && HookFacts.builtIn("codex")?.events["Interrupt"]?.quiet == true)
        #expect(HookFacts.builtIn("claude")?.kinds["Notification"]?["agent_completed"] == .done)
    }

    @Test(arguments: [("AskUserQuestion", "AskUserQuestion", true), ("AskUserQuestion", "Bash", false), ("^ask_user$", "ask_user", true),
                      ("^ask_user$", "ask_user_2", false), ("Edit|Write", "Write", true), ("mcp__.*", "anything", true), ("", "x", true)])
    func matchersTakeTheirToolsOnly(matcher: String, tool: String, matches: Bool) {
        #expect(HookFacts.matches(matcher, tool: tool) == matches)
    }

    @Test func versionsAndFeatureFlagsAreRead() throws {
        #expect(AgentVersion.first(in: "codex-cli 0.129.0\n") == AgentVersion("0.129.0"))
        #expect(AgentVersion.first(in: "agy v1.1.27 (linux/amd64)")?.description == "1.1.27")
        #expect(AgentVersion.first(in: "no version here 7") == nil)
        #expect(try #require(AgentVersion("0.129.9")) < #require(AgentVersion("0.130.0")))
        #expect(try #require(AgentVersion("0.130")) == #require(AgentVersion("0.130.0")))
        #expect(AgentVersion("0.x") == nil && AgentVersion("") == nil)
        let config = """
        features.codex_hooks = true
        [features]
        hooks = false   # off for now
        "web_search" = true
        [profiles.x]
        hooks = true
        """
        #expect(CodexConfigText.featureFlags(config, names: ["hooks", "codex_hooks"]) == ["codex_hooks": true, "hooks": false])
        #expect(CodexConfigText.featureFlags("[features]\n# hooks = false\n", names: ["hooks"]).isEmpty)
    }

    // A share folder's manifest is found by its name, `<agent>.json`, so every one is named after its agent.
    @Test func everyManifestIsNamedAfterItsAgent() throws {
        for (name, text) in BuiltinResources.manifests {
            #expect(try AgentManifest(json: JSON.parse(text), source: name).agent + ".json" == name)
        }
    }

    // One agent's manifests (a hook's fast path) read that agent's file in a share folder, not its
    // neighbours (a PermissionRequest hook opened all ten, twice); with no such file the folder is
    // searched as before; the user's folder is always searched; a run's memo reads them once.
    @Test func oneAgentsManifestsReadItsOwnFile() throws {
        let scratch = try TemporaryDirectory("manifest-only")
        let share = scratch.path + "/share"
        try FileSystem.makeDirectories(share + "/hooks")
        // Not the built-in text (that would be taken as the built-in copy).
        let codex = BuiltinResources.manifests["codex.json"]!.replacing("\"display_name\": \"Codex\"", with: "\"display_name\": \"Codex here\"")
        try FileSystem.writeAtomically(share + "/hooks/codex.json", text: codex, sync: false)
        // A neighbour that names the agent but does not parse: reading it would fail the whole call.
        try FileSystem.writeAtomically(share + "/hooks/zz-broken.json", text: #"{"agent": "codex", oops"#, sync: false)
        var resources = Resources(environment: ["HOME": scratch.path, "HOOKCTL_SHARE_DIR": share], paths: Paths(environment: ["HOME": scratch.path]))
        resources.executable = "/nonexistent/bin/hookctl"
        let found = try resources.manifests(only: "codex")
        #expect(found.map(\.agent) == ["codex"] && found[0].source == share + "/hooks/codex.json", "\(found.map(\.source))")
        #expect(throws: ManifestError.self) { try resources.manifests() }
        // No codex.json: the folder is searched, and a manifest under another name is found.
        FileSystem.remove(share + "/hooks/codex.json")
        FileSystem.remove(share + "/hooks/zz-broken.json")
        try FileSystem.writeAtomically(share + "/hooks/my-codex.json", text: codex, sync: false)
        #expect(try resources.manifests(only: "codex").first?.source == share + "/hooks/my-codex.json")
        // The user's own folder is searched whatever the names.
        try FileSystem.makeDirectories(scratch.path + "/.config/hookctl/agents")
        try FileSystem.writeAtomically(scratch.path + "/.config/hookctl/agents/mine.json", text: codex, sync: false)
        #expect(try resources.manifests(only: "codex").first?.source == scratch.path + "/.config/hookctl/agents/mine.json")
        // With a memo the first answer stands for the run.
        resources.memo = ManifestMemo()
        let first = try resources.manifests(only: "codex")
        FileSystem.remove(scratch.path + "/.config/hookctl/agents/mine.json")
        #expect(try resources.manifests(only: "codex").map(\.source) == first.map(\.source))
    }

    @Test func aTurnIsClaimedOnce() throws {
        let scratch = try TemporaryDirectory("turns")
        let paths = Paths(environment: ["HOME": scratch.path, "XDG_STATE_HOME": scratch.path + "/state"])
        #expect(TurnClaim.claim(agent: "codex", session: "th-1", turn: "tu-1", paths: paths, now: 1000))
        #expect(!TurnClaim.claim(agent: "codex", session: "th-1", turn: "tu-1", paths: paths, now: 1001))
        #expect(TurnClaim.claim(agent: "codex", session: "th-2", turn: "tu-1", paths: paths, now: 1002))
        // Eight threads race for one turn: exactly one wins.
        let racing = ThreadGroup(8) { _ in TurnClaim.claim(agent: "codex", session: "th-3", turn: "tu-9", paths: paths, now: 1003) }
        #expect(try racing.join().filter { $0 }.count == 1)
        // Old markers go when a new turn is claimed.
        let directory = paths.stateDirectory + "/turns"
        func markers() throws -> [String] { try FileSystem.list(directory).filter { $0.hasPrefix("turn-") } }
        #expect(try markers().count == 3)
        #expect(TurnClaim.claim(agent: "codex", session: "th-4", turn: "tu-1", paths: paths, now: Double(time(nil)) + TurnClaim.keepSeconds + 10))
        #expect(try markers().count == 1)
    }

    /// Issue 42: the turn marker is a file of its own (made with O_EXCL), not an outbox spare borrowed:
    /// the outbox's spares stay for the outbox's entries; racing claims still have one winner.
    @Test func aTurnClaimLeavesTheOutboxSparesAlone() throws {
        let scratch = try TemporaryDirectory("turns-spare")
        let paths = Paths(environment: ["HOME": scratch.path, "XDG_STATE_HOME": scratch.path + "/state"])
        try FileSystem.makeDirectories(paths.outboxDirectory)
        var inodes: Set<UInt64> = []
        for slot in 0..<3 {
            let spare = paths.outboxDirectory + "/.spare.\(slot)"
            try FileSystem.writeAtomically(spare, text: "", mode: 0o600, sync: false)
            inodes.insert(UInt64(FileSystem.status(spare)!.st_ino))
        }
        let now = Double(time(nil))
        #expect(TurnClaim.claim(agent: "codex", session: "th-1", turn: "tu-1", paths: paths, now: now))
        let marker = try #require(try FileSystem.list(paths.stateDirectory + "/turns").first { $0.hasPrefix("turn-") })
        let info = try #require(FileSystem.status(paths.stateDirectory + "/turns/" + marker))
        #expect(!inodes.contains(UInt64(info.st_ino)), "the marker is not a spare")
        #expect(!TurnClaim.claim(agent: "codex", session: "th-1", turn: "tu-1", paths: paths, now: now))
        let racing = ThreadGroup(8) { _ in TurnClaim.claim(agent: "codex", session: "th-3", turn: "tu-9", paths: paths, now: now) }
        #expect(try racing.join().filter { $0 }.count == 1)
        #expect(try FileSystem.list(paths.outboxDirectory).filter { $0.hasPrefix(".spare.") }.count == 3, "every spare still there")
    }

    // The markers are looked over at most once an hour, not at every claim (a scan of the day's markers
    // per turn): an old marker outlives a claim made soon after a look, and goes at the next one due.
    @Test func oldTurnMarkersAreLookedForOnceAnHour() throws {
        let scratch = try TemporaryDirectory("turns-hourly")
        let paths = Paths(environment: ["HOME": scratch.path, "XDG_STATE_HOME": scratch.path + "/state"])
        let now = Double(time(nil))
        let directory = paths.stateDirectory + "/turns"
        #expect(TurnClaim.claim(agent: "codex", session: "th-1", turn: "tu-1", paths: paths, now: now))
        // A marker two days old appears (a claim made then).
        let old = directory + "/turn-0ld"
        try FileSystem.writeAtomically(old, text: "", sync: false)
        var times = [timespec(tv_sec: Int(now - 2 * TurnClaim.keepSeconds), tv_nsec: 0), timespec(tv_sec: Int(now - 2 * TurnClaim.keepSeconds), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, old, &times, 0) == 0)
        #expect(TurnClaim.claim(agent: "codex", session: "th-2", turn: "tu-1", paths: paths, now: now + 60))
        #expect(FileSystem.exists(old), "looked over a minute ago: no scan")
        #expect(TurnClaim.claim(agent: "codex", session: "th-3", turn: "tu-1", paths: paths, now: now + TurnClaim.pruneEverySeconds + 1))
        #expect(!FileSystem.exists(old), "an hour later the old marker goes")
        #expect(FileSystem.exists(directory + "/turn-" + String(Text.fnv1a("codex\u{0}th-1\u{0}tu-1"), radix: 16)))
    }

    @Test func namedHooksFileKeepsOtherHooksAndItsBlockIsWholeAndItsOwn() throws {
        let scratch = try TemporaryDirectory("agy")
        let installer = NamedHooksInstaller(manifest: try builtIn("agy"), context: context(home: scratch.path))
        let seed = #"{"rtk": {"enabled": true, "PreToolUse": [{"matcher": "run_command", "hooks": [{"type": "command", "command": "rtk"}]}]}, "hookctl": {"Stop": [{"type": "command", "command": "exec '/old/hookctl-hook' agy --event Stop"}], "BeforeAgent": []}}"#
        try FileSystem.makeDirectories(scratch.path + "/.gemini/config")
        try FileSystem.writeAtomically(scratch.path + "/.gemini/config/hooks.json", text: seed, sync: false)
        let plan = try installer.install()
        #expect(plan.hadEntries)
        let root = try JSON.parse(try #require(plan.changes.first?.after))
        let user = try JSON.parse(seed)["rtk"]
        #expect(root.objectValue?.keys == ["rtk", "hookctl"] && root["rtk"] == user)
        // hookctl's block is rewritten whole: stale events go, each lifecycle event is a flat handler list.
        let block = try #require(root["hookctl"]?.objectValue)
        #expect(block.keys == ["enabled", "SessionStart", "PreInvocation", "Stop"])
        #expect(block["Stop"]?.arrayValue?.first?["command"]?.stringValue == "'\(scratch.path)/.local/share/hookctl/bin/hookctl-hook' agy --event Stop")
        #expect(installer.registeredEvents(plan.changes.first?.after) == ["SessionStart", "PreInvocation", "Stop"])
        // A command without a shell word: agy may split it itself.
        let command = block["Stop"]?.arrayValue?.first?["command"]?.stringValue ?? "exec"
        #expect(!command.contains("exec"))
    }

    @Test(arguments: [
        "",
        "# only a comment\n",
        "model: sonnet",
        "notifications: yes\nnotifications-command: 'notify-send \"aider: done\"'  # mine\n",
        "notifications-command: >-\n  notify-send\n  aider\nmodel: x\n",
        "\"notifications\": false\nmodel: \"x # not a comment\"\n",
    ])
    func aiderEditsReadBackAndKeepEveryOtherByte(text: String) throws {
        let installer = AiderInstaller(manifest: try builtIn("aider"), context: context(home: "/home/u"))
        let after = try #require(try installer.install(intoOriginal: text))
        let root = try #require(try YAML.parse(after))
        #expect(AiderInstaller.isTrue(root["notifications"]?.value ?? ""))
        #expect(root["notifications-command"]?.value == installer.command)
        #expect(installer.command.hasPrefix("[ -n \"${SSHIDO_SESSION:-}\" ] || exit 0; '/home/u/.local/share/hookctl/bin/hookctl-hook' aider"))
        // Keys other than the two are untouched.
        let before = try YAML.parse(text)
        for pair in before?.pairs ?? [] where !pair.key.value.hasPrefix("notifications") {
            #expect(root[pair.key.value]?.value == pair.value.value)
        }
        // Setup over its own result changes nothing.
        #expect(try installer.install(intoOriginal: after) == after)
    }
}
