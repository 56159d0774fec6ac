import Testing
import TestSupport
@testable import HookKit

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
        #expect(AgentManifest.value(at: "workspace_roots.5", in: object) == nil)
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
