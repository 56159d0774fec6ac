import Testing
import TestSupport
@testable import HookSupport
@testable import HookDelivery
@testable import HookAgents

@Suite struct SetupURLTests {
    @Test(arguments: ["https://push.example.com/n/abcdefghijklmnop", "http://127.0.0.1:8080/n/abcdefgh12", "https://[::1]:443/n/tokentoken"])
    func acceptsRelayURLs(url: String) throws {
        let parsed = try NotifyURL(url)
        #expect(parsed.warning == nil)
        #expect(!parsed.redacted.contains("abcdefghijklmnop"))
    }

    @Test(arguments: ["https://push.example.com/n/tok\"en", "https://push.example.com/n/tok'en", "https://push.example.com/n/tok\nen",
                      "https://push.example.com/n/tok en", "ftp://push.example.com/n/token", "https:///n/token", "https://h:99999/n/x",
                      "https://push.example.com/n/$(reboot)", "", "https://push.example.com/n/tok\ten", "https://push.example.com/n/`id`"])
    func refusesUnsafeOrInvalidURLs(url: String) {
        let error = #expect(throws: SetupError.self) { try NotifyURL(url) }
        #expect(error?.exitCode == .usage)
        #expect(error?.description.contains("Nothing was written") == true)
    }

    @Test func warnsButAcceptsOtherShapes() throws {
        #expect(try NotifyURL("https://hooks.example.com/webhook/abc").warning?.contains("does not look like a relay URL") == true)
        #expect(try NotifyURL("http://push.example.com/n/abcdefghijkl").warning?.contains("plain http") == true)
    }
}

@Suite struct SetupCommandStringTests {
    @Test func commandStringDependsOnlyOnTheDataDirectoryAndAgent() {
        let paths = Paths(environment: ["HOME": "/home/u"])
        let layout = HookLayout(paths: paths)
        #expect(layout.command(agent: "claude", gated: true)
                == "[ -n \"${SSHIDO_SESSION:-}\" ] || exit 0; exec '/home/u/.local/share/hookctl/bin/hookctl-hook' claude")
        #expect(layout.command(agent: "codex", gated: false) == "exec '/home/u/.local/share/hookctl/bin/hookctl-hook' codex")
        #expect(HookLayout.isHookctlCommand(layout.command(agent: "claude", gated: true)))
        #expect(!HookLayout.isHookctlCommand("notify-send hookctl-hook-ish"))
    }

    @Test func pathsWithQuotesAndDollarsCannotInject() throws {
        let home = "/tmp/it's $(touch pwned) `x` \"q\""
        let layout = HookLayout(paths: Paths(environment: ["HOME": home]))
        let command = layout.command(agent: "claude", gated: false)
        // The shell reads back exactly the path: printf instead of exec shows the words it got.
        let probe = command.replacing("exec ", with: "printf '%s\\n' ")
        let result = try Subprocess(executable: "/bin/sh", arguments: ["-c", probe], environment: ["PATH": "/usr/bin:/bin"]).run()
        #expect(result.outputText == layout.scriptPath + "\nclaude\n")
        #expect(Shell.quote("a'b") == "'a'\\''b'")
    }

    @Test func gateIsCheckedInTheShell() throws {
        let layout = HookLayout(paths: Paths(environment: ["HOME": "/nonexistent"]))
        let command = layout.command(agent: "claude", gated: true)
        let off = try Subprocess(executable: "/bin/sh", arguments: ["-c", command], environment: ["PATH": "/usr/bin:/bin"]).run()
        #expect(off.status == 0)
        let on = try Subprocess(executable: "/bin/sh", arguments: ["-c", command], environment: ["PATH": "/usr/bin:/bin", "SSHIDO_SESSION": "1"]).run()
        #expect(on.status != 0)  // the script does not exist here: it was really started
    }

    @Test func scriptGetsTheGateAndAQuotedHookctlPath() throws {
        let layout = HookLayout(paths: Paths(environment: ["HOME": "/h"]), gate: "MY_GATE")
        let script = layout.script(template: BuiltinResources.templates["hook.sh"]!, hookctl: "/opt/it's/hookctl")
        #expect(script.contains("[ -n \"${MY_GATE:-}\" ] || exit 0"))
        #expect(script.contains("exec '/opt/it'\\''s/hookctl' notify --agent \"$agent\""))
        #expect(!script.contains("@GATE@") && !script.contains("@HOOKCTL@"))
        #expect(Doctor.scriptTarget(script) == "/opt/it's/hookctl")
        #expect(HookLayout(paths: Paths(environment: ["HOME": "/h"]), gate: "x; rm").gate == "SSHIDO_SESSION")
        // A path the kernel cannot read on a `#!` line: /bin/sh runs the script as written.
        #expect(script.hasPrefix("#!/bin/sh\n"))
    }

    /// Issue 35: the script's `#!` line names hookctl itself, so no second shell starts between the agent's
    /// command and the binary; only where the kernel could not read the path there is it /bin/sh. (Issue
    /// 42: no hook front on that line any more, however short the data folder.)
    @Test func theScriptIsRunByHookctlItselfWhereItsPathFitsAnInterpreterLine() throws {
        let layout = HookLayout(paths: Paths(environment: ["HOME": "/h"]), gate: "MY_GATE")
        let script = layout.script(template: BuiltinResources.templates["hook.sh"]!, hookctl: "/opt/bin/hookctl")
        #expect(script.hasPrefix("#!/opt/bin/hookctl hook-script MY_GATE\n"))
        #expect(Doctor.scriptTarget(script) == "/opt/bin/hookctl")
        #expect(!script.contains("@INTERPRETER@"))
        for refused in ["relative/hookctl", "/opt/my bin/hookctl", "/opt/a\"b/hookctl", "/opt/tab\there", "/" + String(repeating: "d", count: 120)] {
            #expect(HookScript.interpreterLine(hookctl: refused, gate: "G") == nil, "\(refused)")
        }
        #expect(HookScript.isInterpreter(["hook-script SSHIDO_SESSION", "/h/bin/hookctl-hook", "claude"]))
        #expect(HookScript.isInterpreter(["hook-script", "SSHIDO_SESSION", "/h/bin/hookctl-hook", "claude"]))
        #expect(!HookScript.isInterpreter(["hook-scripts"]) && !HookScript.isInterpreter(["notify", "hook-script"]))
    }
}

@Suite struct SetupConfigEditorTests {
    static let template = BuiltinResources.templates["config.yaml"]!
    let url = "https://push.example.com/n/abcdefghijkl"

    @Test func newConfigWithAndWithoutURL() throws {
        let local = try ConfigEditor.apply(existing: nil, url: nil, template: Self.template, path: "c")
        #expect(local == Self.template)
        #expect(local.contains("sinks: []"))
        let relay = try ConfigEditor.apply(existing: nil, url: url, template: Self.template, path: "c")
        #expect(relay.contains("sinks:\n  - name: relay\n    type: relay\n    url: \"\(url)\"\n"))
        let config = try Config.parse(relay, path: "c", environment: [:])
        #expect(config.sinks.map(\.name) == ["relay"])
        #expect(ConfigEditor.relayURL(in: relay) == url)
    }

    @Test func replacesOnlyTheRelayURLKeepingCommentsAndOtherSinks() throws {
        let existing = """
        # mine
        version: 1
        sinks:
          - name: log   # local copy
            type: file
            path: ~/events.jsonl
          - name: relay
            type: relay
            url: 'https://old.example.com/n/oldtokenvalue'  # phone
            kinds: [needs_input, failed]
        # trailing comment
        """
        let updated = try ConfigEditor.apply(existing: existing + "\n", url: url, template: Self.template, path: "c")
        #expect(updated == existing.replacing("'https://old.example.com/n/oldtokenvalue'", with: "\"\(url)\"") + "\n")
        #expect(try ConfigEditor.apply(existing: updated, url: url, template: Self.template, path: "c") == updated)
    }

    @Test func addsTheRelayItemAfterTheUserSinks() throws {
        let existing = "version: 1\nsinks:\n- name: log\n  type: file\n  path: /tmp/x\n\n# notes\ndefaults:\n  budget: 2s\n"
        let updated = try ConfigEditor.apply(existing: existing, url: url, template: Self.template, path: "c")
        #expect(updated == "version: 1\nsinks:\n- name: log\n  type: file\n  path: /tmp/x\n- name: relay\n  type: relay\n  url: \"\(url)\"\n\n# notes\ndefaults:\n  budget: 2s\n")
        let noSinks = try ConfigEditor.apply(existing: "version: 1\n", url: url, template: Self.template, path: "c")
        #expect(noSinks == "version: 1\nsinks:\n  - name: relay\n    type: relay\n    url: \"\(url)\"\n")
    }

    @Test func refusesBrokenYAMLAndUnknownLayouts() throws {
        let broken = #expect(throws: ConfigError.self) { try ConfigEditor.apply(existing: "sinks: [\n", url: url, template: Self.template, path: "/c.yaml") }
        #expect(broken?.description.contains("/c.yaml") == true)
        #expect(throws: SetupError.self) {
            try ConfigEditor.apply(existing: "sinks: [{name: log, type: file, path: /x}]\n", url: url, template: Self.template, path: "c")
        }
    }

    @Test func gateComesFromTheDefaults() {
        #expect(Config.gate(in: "defaults:\n  gate: PHONE  # mine\nsinks: []\n") == "PHONE")
        #expect(Config.gate(in: "sinks: []\n") == nil)
        // One reader (libyaml) for setup, doctor and notify: flow style reads the same gate as block style.
        #expect(Config.gate(in: "defaults: {gate: MYGATE}\nsinks: []\n") == "MYGATE")
        #expect(Config.gate(in: "{defaults: {gate: \"MYGATE\"}, sinks: []}\n") == "MYGATE")
        #expect((try? Config.parse("defaults: {gate: MYGATE}\n", path: "c", environment: [:]))?.defaults.gate == "MYGATE")
        #expect(ConfigEditor.relayURL(in: "sinks: [{name: relay, type: relay, url: \"https://h.example/n/x\"}]\n") == "https://h.example/n/x")
    }
}

@Suite struct SetupResourceTests {
    /// The copies built into the binary (the EmbedResources build plugin) are hooks/ and templates/, all of them.
    @Test func builtInCopiesMatchTheFiles() throws {
        var root = #filePath
        for _ in 0..<3 { root = FileSystem.parentDirectory(of: root) }
        for (name, text) in BuiltinResources.manifests {
            #expect(try FileSystem.readString(root + "/hooks/" + name) == text, "hooks/\(name) differs from the built-in copy")
        }
        for (name, text) in BuiltinResources.templates {
            #expect(try FileSystem.readString(root + "/templates/" + name) == text, "templates/\(name) differs from the built-in copy")
        }
        #expect(Set(try FileSystem.list(root + "/hooks").filter { $0.hasSuffix(".json") }) == Set(BuiltinResources.manifests.keys))
        #expect(Set(try FileSystem.list(root + "/templates")) == Set(BuiltinResources.templates.keys))
    }

    @Test func userManifestsAddAgentsAndOverrideBuiltIns() throws {
        let scratch = try TemporaryDirectory("unit")
        let home = scratch.path
        let paths = Paths(environment: ["HOME": home])
        try FileSystem.makeDirectories(paths.configDirectory + "/agents")
        try FileSystem.writeAtomically(paths.configDirectory + "/agents/qwen.json", text: """
        {"agent":"qwen","settings":{"path":"~/.qwen/settings.json","format":"claude-json"},"events":[{"name":"Stop","kind":"done","timeout":5}]}
        """)
        try FileSystem.writeAtomically(paths.configDirectory + "/agents/zed.json", text: """
        {"agent":"zed","settings":{"path":"~/.zed/settings.json","format":"claude-json"},"events":[{"name":"Stop","kind":"done"}]}
        """)
        let resources = Resources(environment: ["HOME": home], paths: paths, executable: "/nonexistent/bin/hookctl")
        let manifests = try resources.manifests()
        #expect(manifests.map(\.agent) == ["claude", "codex", "gemini", "agy", "aider", "copilot", "cursor", "grok", "opencode", "qwen", "zed"])
        #expect(manifests.first { $0.agent == "qwen" }?.source.hasSuffix("agents/qwen.json") == true)
        #expect(manifests.first { $0.agent == "qwen" }?.events.map(\.name) == ["Stop"])
        try FileSystem.writeAtomically(paths.configDirectory + "/agents/bad.json", text: "{ nope")
        let error = #expect(throws: ManifestError.self) { try resources.manifests() }
        #expect(error?.description.contains("bad.json:1:3") == true)
    }

    /// One agent's manifests, as peek and reply read them, are the ones the whole list gives: with installed
    /// copies of the built-ins in a share folder (read once, not parsed again) and a user override.
    @Test func oneAgentsManifestIsTheOneTheWholeListGives() throws {
        let scratch = try TemporaryDirectory("unit")
        let paths = Paths(environment: ["HOME": scratch.path + "/home"])
        try FileSystem.makeDirectories(scratch.path + "/share/hookctl/hooks")
        for (name, text) in BuiltinResources.manifests {
            try FileSystem.writeAtomically(scratch.path + "/share/hookctl/hooks/" + name, text: text)
        }
        try FileSystem.makeDirectories(paths.configDirectory + "/agents")
        try FileSystem.writeAtomically(paths.configDirectory + "/agents/mine.json", text: """
        {"agent" :
          "codex","settings":{"path":"~/.codex/config.toml","format":"codex-toml"},"events":[{"name":"agent-turn-complete","kind":"done"}]}
        """)
        let resources = Resources(environment: ["HOME": scratch.path + "/home"], paths: paths, executable: scratch.path + "/bin/hookctl")
        let all = try resources.manifests()
        #expect(all.first { $0.agent == "codex" }?.source.hasSuffix("agents/mine.json") == true)
        for manifest in all {
            let one: [AgentManifest] = try resources.manifests(only: manifest.agent)
            let found: AgentManifest? = one.first { $0.agent == manifest.agent }
            #expect(found == manifest, "\(manifest.agent)")
        }
        #expect(Resources.mayDescribe(#"{"agent": "claude"}"#, agent: "claude"))
        #expect(Resources.mayDescribe("{\"agent\"\n\t:\"claude\"}", agent: "claude"))
        #expect(!Resources.mayDescribe(#"{"agent": "cursor", "runs_hooks_of": "claude"}"#, agent: "claude"))
        #expect(!Resources.mayDescribe(#"{"agent": "claudex"}"#, agent: "claude"))
        #expect(!Resources.mayDescribe(#"{"agent": "claude"#, agent: "claude"))
    }

    @Test func diffShowsRemovalsBeforeAdditions() {
        let diff = LineDiff.unified(old: "a\nb\nc\n", new: "a\nB\nc\n", path: "f")
        #expect(diff == "--- f\n+++ f\n a\n-b\n+B\n c\n")
        #expect(LineDiff.unified(old: "x\n", new: "x\n", path: "f") == "")
    }

    @Test func redactsSecretsInConfigDiffs() {
        let change = FileChange(path: "c", before: nil, after: "sinks:\n  - url: \"https://push.example.com/n/abcdefghijklmnop\"\n", secret: true)
        #expect(!change.diff().contains("abcdefghijklmnop"))
        #expect(change.diff().contains("https://push.example.com/n/ab…(redacted)"))
    }
}

@Suite struct SetupDoctorTests {
    @Test func codexTrustEntriesAreMatchedToHookctlsHookPositions() throws {
        let hooks = #"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"mine"}]},{"hooks":[{"type":"command","command":"exec '/d/bin/hookctl-hook' codex"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"exec '/d/bin/hookctl-hook' codex"}]}]}}"#
        let keys = Doctor.codexTrustKeys(hooksPath: "/h/.codex/hooks.json", hooksText: hooks)
        #expect(keys == ["/h/.codex/hooks.json:session_start:1:0", "/h/.codex/hooks.json:user_prompt_submit:0:0"])
        let config = """
        model = "x"
        [hooks.state."/h/.codex/hooks.json:session_start:1:0"]
        trusted_hash = "sha256:abc"
        enabled = true
        [hooks.state."/h/.codex/hooks.json:user_prompt_submit:0:0"]
        enabled = true
        """
        #expect(Doctor.codexTrustedKeys(configText: config) == ["/h/.codex/hooks.json:session_start:1:0"])
        // The same file with CRLF line ends (it was read as one line: "\r\n" is one Character), and a table
        // header with spaces and a key in single quotes.
        #expect(Doctor.codexTrustedKeys(configText: config.replacing("\n", with: "\r\n")) == ["/h/.codex/hooks.json:session_start:1:0"])
        #expect(Doctor.codexTrustedKeys(configText: "[hooks.state. '/h/x:stop:0:0' ]\r\n  trusted_hash = \"sha256:1\"\r\n") == ["/h/x:stop:0:0"])
        #expect(Doctor.snakeCase("PermissionRequest") == "permission_request")
        #expect(Doctor.snakeCase("SessionStart") == "session_start" && Doctor.snakeCase("Stop") == "stop" && Doctor.snakeCase("") == "")
        #expect(Doctor.snakeCase("ÉtatChangé") == "état_changé")
        // Handlers are hookctl's by the script's path in their command, byte for byte.
        #expect(HookLayout.isHookctlCommand("exec '/d/bin/hookctl-hook' codex") && HookLayout.isHookctlCommand("/d/bin/hookctl-hook codex")
                && HookLayout.isHookctlCommand("/d/bin/hookctl-hook"))
        #expect(!HookLayout.isHookctlCommand("exec '/d/bin/hookctl-hooks' codex") && !HookLayout.isHookctlCommand("hookctl-hook codex")
                && !HookLayout.isHookctlCommand(""))
    }
}
