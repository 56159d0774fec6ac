import Testing
@testable import HookSupport
@testable import HookAgents

private func manifest(_ name: String) throws -> AgentManifest {
    try AgentManifest(json: try JSON.parse(BuiltinResources.manifests[name + ".json"]!), source: name)
}

private let command = "[ -n \"${SSHIDO_SESSION:-}\" ] || exit 0; exec '/home/u/.local/share/hookctl/bin/hookctl-hook' claude"

@Suite struct AgentManifestTests {
    @Test func builtInManifestsDescribeTheThreeAgents() throws {
        let claude = try manifest("claude")
        #expect(claude.format == "claude-json")
        #expect(claude.events.map(\.name) == ["Notification", "Stop", "StopFailure", "SessionStart", "UserPromptSubmit", "SessionEnd",
                                              "PreToolUse", "PostToolUse", "PermissionRequest"])
        // Tool hooks only for the question tool, never every tool call.
        #expect(claude.events.filter { $0.name.hasSuffix("ToolUse") }.allSatisfy { $0.matcher == "AskUserQuestion" })
        #expect(claude.kind(forEvent: "Stop") == .done)
        #expect(claude.kind(forEvent: "StopFailure") == .failed)
        #expect(claude.kind(forEvent: "SessionStart") == .started)
        let gemini = try manifest("gemini")
        #expect(gemini.timeoutUnit == .milliseconds)
        #expect(gemini.kind(forEvent: "AfterAgent") == .done)
        #expect(gemini.kind(forEvent: "BeforeAgent") == .working)
        let codex = try manifest("codex")
        #expect(codex.format == "codex-toml")
        #expect(codex.kind(forEvent: "agent-turn-complete") == .done)
        // notify and the Stop hook both report a turn: one push per turn id.
        #expect(codex.kind(forEvent: "Stop") == .done)
        #expect(codex.onePushPerTurn)
        #expect(codex.kind(forEvent: "SessionEnd") == .ended)
        #expect(codex.events.first { $0.name == "Interrupt" }?.quiet == true)
        // SessionEnd and Interrupt hooks time out after 1 s unless set, at most 3 s.
        #expect(codex.events.filter { ["SessionEnd", "Interrupt"].contains($0.name) }.allSatisfy { $0.timeoutSeconds == 3 })
    }

    @Test func overrideVariableMovesTheSettingsFile() throws {
        let claude = try manifest("claude")
        #expect(claude.settings.resolve(environment: ["HOME": "/home/u"]) == "/home/u/.claude/settings.json")
        #expect(claude.settings.resolve(environment: ["HOME": "/home/u", "CLAUDE_CONFIG_DIR": "/srv/claude/"]) == "/srv/claude/settings.json")
        let codex = try manifest("codex")
        #expect(codex.hooksFile?.resolve(environment: ["HOME": "/h", "CODEX_HOME": "/c"]) == "/c/hooks.json")
    }

    @Test(arguments: [
        (#"{"agent":"x y","settings":{"path":"~/a","format":"claude-json"},"events":[{"name":"A","kind":"done"}]}"#, "'agent'"),
        (#"{"agent":"x","settings":{"path":"~/a","format":"yaml"},"events":[{"name":"A","kind":"done"}]}"#, "settings.format"),
        (#"{"agent":"x","settings":{"path":"~/a","format":"claude-json"},"events":[{"name":"A","kind":"bogus"}]}"#, "kind"),
        (#"{"agent":"x","settings":{"path":"~/a","format":"claude-json"},"events":[]}"#, "no event"),
        (#"{"agent":"x","settings":{"format":"claude-json"}}"#, "settings.path"),
    ])
    func invalidManifestsAreRefusedWithTheField(text: String, expected: String) throws {
        let error = #expect(throws: ManifestError.self) { try AgentManifest(json: try JSON.parse(text), source: "m.json") }
        #expect(error?.description.contains(expected) == true)
        #expect(error?.description.contains("m.json") == true)
    }
}

@Suite struct AgentJSONInstallerTests {
    @Test func installsIntoAnEmptyFileWithExplicitTimeouts() throws {
        let installer = JSONHooksInstaller(manifest: try manifest("claude"), command: command)
        let text = try installer.install(into: nil, path: "s.json")
        let root = try JSON.parse(text)
        #expect(root["hooks"]?.objectValue?.keys == ["Notification", "Stop", "StopFailure", "SessionStart", "UserPromptSubmit", "SessionEnd",
                                                     "PreToolUse", "PostToolUse", "PermissionRequest"])
        #expect(root["hooks"]?["PreToolUse"]?.arrayValue?.first?["matcher"]?.stringValue == "AskUserQuestion")
        #expect(root["hooks"]?["PermissionRequest"]?.arrayValue?.first?["matcher"] == nil)
        let handler = root["hooks"]?["Stop"]?.arrayValue?.first?["hooks"]?.arrayValue?.first
        #expect(handler?["type"]?.stringValue == "command")
        #expect(handler?["command"]?.stringValue == command)
        #expect(handler?["timeout"]?.intValue == 10)
        #expect(text.hasSuffix("}\n"))
    }

    @Test func geminiGetsNamedHandlersAndMilliseconds() throws {
        let installer = JSONHooksInstaller(manifest: try manifest("gemini"), command: command)
        let root = try JSON.parse(try installer.install(into: "{}", path: "s.json"))
        let handler = root["hooks"]?["AfterAgent"]?.arrayValue?.first?["hooks"]?.arrayValue?.first
        #expect(handler?["name"]?.stringValue == "hookctl")
        #expect(handler?["timeout"]?.intValue == 10_000)
    }

    @Test func keepsUserHooksKeysAndOrderAndIsIdempotent() throws {
        let original = """
        {
        \t"model": "opus",
        \t"hooks": {
        \t\t"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}],
        \t\t"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]
        \t},
        \t"env": {"A": "1"}
        }
        """
        let installer = JSONHooksInstaller(manifest: try manifest("claude"), command: command)
        let once = try installer.install(into: original, path: "s.json")
        #expect(try installer.install(into: once, path: "s.json") == once)
        #expect(once.contains("\n\t\"model\""))          // the tab indentation is kept
        #expect(!once.hasSuffix("\n"))                    // no trailing newline, as found
        let root = try JSON.parse(once)
        #expect(root.objectValue?.keys == ["model", "hooks", "env"])
        let stop = root["hooks"]?["Stop"]?.arrayValue ?? []
        #expect(stop.count == 2)
        #expect(stop[0]["hooks"]?.arrayValue?.first?["command"]?.stringValue == "say done")
        // The user's PreToolUse group stays first and untouched; hookctl's own, for AskUserQuestion only, follows.
        let preToolUse = root["hooks"]?["PreToolUse"]?.arrayValue ?? []
        #expect(preToolUse.first == (try JSON.parse(original))["hooks"]?["PreToolUse"]?.arrayValue?.first)
        #expect(preToolUse.count == 2)
        #expect(preToolUse.last?["matcher"]?.stringValue == "AskUserQuestion")
        #expect(root["hooks"]?.objectValue?.keys.prefix(2) == ["Stop", "PreToolUse"])

        let removed = try JSONHooksInstaller.uninstall(from: once, path: "s.json")
        #expect(try JSON.parse(removed) == (try JSON.parse(original)))
    }

    @Test func replacesItsOwnEntryInPlaceWhenTheCommandChanges() throws {
        let old = try JSONHooksInstaller(manifest: try manifest("claude"), command: "exec '/old/hookctl-hook' claude").install(into: #"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]}}"#, path: "s")
        let new = try JSONHooksInstaller(manifest: try manifest("claude"), command: command).install(into: old, path: "s")
        let stop = try JSON.parse(new)["hooks"]?["Stop"]?.arrayValue ?? []
        #expect(stop.count == 2)
        #expect(stop[1]["hooks"]?.arrayValue?.first?["command"]?.stringValue == command)
        #expect(!new.contains("/old/"))
    }

    @Test func handlerMixedIntoAUserGroupIsTakenOutNotTheGroup() throws {
        let text = #"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"},{"type":"command","command":"exec '/x/hookctl-hook' claude"}]}]}}"#
        let removed = try JSONHooksInstaller.uninstall(from: text, path: "s")
        #expect(try JSON.parse(removed) == (try JSON.parse(#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]}}"#)))
    }

    @Test func malformedSettingsNameLineAndColumn() throws {
        let installer = JSONHooksInstaller(manifest: try manifest("claude"), command: command)
        let error = #expect(throws: SetupError.self) { try installer.install(into: "{\n  \"a\": 1,\n  oops\n}\n", path: "/h/settings.json") }
        #expect(error?.description.hasPrefix("/h/settings.json:3:3:") == true)
        #expect(error?.exitCode == .dataError)
        #expect(throws: SetupError.self) { try installer.install(into: #"{"hooks": []}"#, path: "s") }
        #expect(throws: SetupError.self) { try installer.install(into: "[1]", path: "s") }
    }

    @Test(arguments: [("{\n    \"a\": 1\n}\n", "    "), ("{\n\t\"a\": 1\n}", "\t"), ("{\"a\":1}", "  "), ("{\n  \"a\": {\n    \"b\": 1\n  }\n}", "  ")])
    func detectsIndentation(text: String, indent: String) {
        #expect(JSONSettingsDocument.detectIndent(text) == indent)
    }
}

@Suite struct AgentCodexTOMLTests {
    static let config = """
    # Codex settings
    model = "gpt-5"  # default model
    notify = [
      "notify-send",   # the desktop notifier
      "Codex",
    ]
    instructions = \"\"\"
    [not a table]
    notify = ["nope"]
    \"\"\"

    [features]
    hooks = true

    [mcp_servers.docs]
    command = "npx"
    notify = ["inside a table"]
    """

    @Test func findsTheTopLevelNotifyAcrossLinesAndIgnoresTablesAndStrings() throws {
        let text = try CodexConfigText(AgentCodexTOMLTests.config, path: "c.toml")
        #expect(try text.notifyArguments() == ["notify-send", "Codex"])
        #expect(text.statements.map(\.key) == ["model", "notify", "instructions"])
        #expect(text.tableHeaders == ["[features]", "[mcp_servers.docs]"])
    }

    @Test func replacesOnlyTheNotifyStatement() throws {
        let text = try CodexConfigText(AgentCodexTOMLTests.config, path: "c.toml")
        let line = CodexConfigText.notifyLine(["/d/hookctl-hook", "codex-notify", "notify-send", "Codex"])
        let updated = text.replacingNotify(with: line)
        #expect(updated == AgentCodexTOMLTests.config.replacing("notify = [\n  \"notify-send\",   # the desktop notifier\n  \"Codex\",\n]", with: line))
        #expect(try CodexConfigText(updated, path: "c").notifyArguments() == ["/d/hookctl-hook", "codex-notify", "notify-send", "Codex"])
    }

    @Test func insertsBeforeTheFirstTableNeverUnderIt() throws {
        let original = "# comment\n[features]\nhooks = true\n"
        let text = try CodexConfigText(original, path: "c")
        let updated = text.replacingNotify(with: "notify = [\"x\"]")
        #expect(updated == "notify = [\"x\"]\n# comment\n[features]\nhooks = true\n")
        let withKeys = try CodexConfigText("model = \"m\"\n\n[t]\na = 1\n", path: "c").replacingNotify(with: "notify = [\"x\"]")
        #expect(withKeys == "model = \"m\"\nnotify = [\"x\"]\n\n[t]\na = 1\n")
        #expect(try CodexConfigText("", path: "c").replacingNotify(with: "notify = [\"x\"]") == "notify = [\"x\"]\n")
        // Removing what was inserted gives the original back.
        #expect(try CodexConfigText(withKeys, path: "c").replacingNotify(with: nil) == "model = \"m\"\n\n[t]\na = 1\n")
    }

    @Test(arguments: [
        (#"notify = ["a", 'b\c', "q\"x", "\u00e9"]"#, ["a", "b\\c", "q\"x", "é"]),
        ("notify = []", []),
    ])
    func parsesStringArrays(line: String, expected: [String]) throws {
        #expect(try CodexConfigText(line, path: "c").notifyArguments() == expected)
    }

    @Test func refusesAnUnclosedValueAndANonArrayNotify() throws {
        #expect(throws: SetupError.self) { try CodexConfigText("notify = [\"a\",\n", path: "c") }
        #expect(throws: SetupError.self) { try CodexConfigText("notify = \"prog\"\n", path: "c").notifyArguments() }
    }

    @Test func notifyLineEscapesForTOML() throws {
        let line = CodexConfigText.notifyLine(["/p/with \"quote\"/hookctl-hook", "codex-notify"])
        #expect(try CodexConfigText(line, path: "c").notifyArguments() == ["/p/with \"quote\"/hookctl-hook", "codex-notify"])
    }
}
