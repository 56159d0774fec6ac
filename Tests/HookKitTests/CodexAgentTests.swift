import Glibc
import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents
import TestSupport

/// Issue 32's Codex facts without the real Codex (Tests/RealAgentTests/CodexRealTests.swift drives it):
/// events registered only where the binary has their schema, notify beside a trusted Stop hook, the
/// request_user_input question, payloads with fields missing or added.
@Suite struct CodexAgentTests {
    static func codexManifest() throws -> AgentManifest {
        try AgentManifest(json: try JSON.parse(BuiltinResources.manifests["codex.json"]!), source: "codex")
    }

    /// A fake `codex` on a private PATH whose bytes hold the schema names given, between filler that
    /// makes them straddle the reader's 1 MiB blocks.
    static func fakeCodex(_ directory: TemporaryDirectory, schemas: [String]) throws -> [String: String] {
        var bytes = [UInt8](repeating: 0x41, count: (1 << 20) - 7)
        for schema in schemas { bytes += Array(schema.utf8) + [UInt8](repeating: 0, count: 100) }
        try FileSystem.makeDirectories(directory.path + "/bin")
        try FileSystem.writeAtomically(directory.path + "/bin/codex", bytes: bytes, mode: 0o755, sync: false)
        return ["PATH": directory.path + "/bin", "HOME": directory.path]
    }

    @Test func stopFailureIsRegisteredOnlyWhereTheBinaryHasItsSchema() throws {
        let manifest = try Self.codexManifest()
        #expect(manifest.events.first { $0.name == "StopFailure" }?.requiresSchema == "stop-failure.command.input")
        let old = try TemporaryDirectory("codex-old")
        let oldEnvironment = try Self.fakeCodex(old, schemas: ["stop.command.input", "session-end.command.input"])
        #expect(ProgramSchemas.leftOut(manifest, environment: oldEnvironment) == ["StopFailure"])
        let new = try TemporaryDirectory("codex-new")
        let newEnvironment = try Self.fakeCodex(new, schemas: ["stop.command.input", "stop-failure.command.input"])
        #expect(ProgramSchemas.leftOut(manifest, environment: newEnvironment).isEmpty)
        // No codex found: the event is left out (it may not be known).
        #expect(ProgramSchemas.leftOut(manifest, environment: ["PATH": old.path + "/none"]) == ["StopFailure"])
        // The installer writes what the binary knows, and takes out a StopFailure an older setup wrote.
        let context = InstallerContext(environment: oldEnvironment, layout: HookLayout(paths: Paths(environment: oldEnvironment)),
                                       state: SetupState(paths: Paths(environment: oldEnvironment)))
        let plan = try makeInstaller(for: manifest, context: context).install()
        let hooks = try #require(plan.changes.first { $0.path.hasSuffix("hooks.json") }?.after)
        let keys = try #require(try JSON.parse(hooks)["hooks"]?.objectValue).keys
        #expect(!keys.contains("StopFailure") && keys.contains("Stop") && keys.contains("PreToolUse"), "\(keys)")
    }

    @Test func schemaSearchFindsANeedleAcrossBlocksAndNotAPrefix() throws {
        #expect(ProgramSchemas.indexOf(Array("ab".utf8), in: Array("xxaxab".utf8)) == 4)
        #expect(ProgramSchemas.indexOf(Array("abc".utf8), in: Array("ab".utf8)) == nil)
        let directory = try TemporaryDirectory("schemas")
        let environment = try Self.fakeCodex(directory, schemas: ["stop-failure.command.input"])
        let path = environment["PATH"]! + "/codex"
        #expect(ProgramSchemas.contains(path, ["stop-failure.command.input", "stop-failure.command.inputX"]) == ["stop-failure.command.input"])
    }

    /// The trust table Codex writes when the user trusts the hooks at start (seen on 0.163.0).
    static func trustedConfig(_ keys: [String]) -> String {
        "model = \"m\"\n\n[hooks.state]\n\n" + keys.map { "[hooks.state.\(JSON.quote($0))]\ntrusted_hash = \"sha256:00\"\n" }.joined(separator: "\n")
    }

    @Test func notifyIsOnlyRecordedOnceTheStopHookIsTrusted() throws {
        let directory = try TemporaryDirectory("codex-trust")
        let codexHome = directory.path + "/.codex"
        try FileSystem.makeDirectories(codexHome)
        let hooksPath = codexHome + "/hooks.json"
        let command = "exec '/h/.local/share/hookctl/bin/hookctl-hook' codex"
        let handler: JSONValue = .object(JSONObject([("type", .string("command")), ("command", .string(command))]))
        let user: JSONValue = .object(JSONObject([("hooks", .array([.object(JSONObject([("type", .string("command")), ("command", .string("true"))]))]))]))
        // The user's own Stop group first: hookctl's handler is group 1 (the trust key names the index).
        let hooks: JSONValue = .object(JSONObject([("hooks", .object(JSONObject([
            ("Stop", .array([user, .object(JSONObject([("hooks", .array([handler]))]))])),
        ])))]))
        try FileSystem.writeAtomically(hooksPath, text: JSON.serialize(hooks), sync: false)
        let environment = ["HOME": directory.path]
        #expect(!CodexNotify.stopHookTrusted(environment: environment), "no config.toml: not trusted")
        try FileSystem.writeAtomically(codexHome + "/config.toml", text: Self.trustedConfig([hooksPath + ":stop:0:0"]), sync: false)
        #expect(!CodexNotify.stopHookTrusted(environment: environment), "only the user's own Stop hook is trusted")
        try FileSystem.writeAtomically(codexHome + "/config.toml", text: Self.trustedConfig([hooksPath + ":stop:1:0"]), sync: false)
        #expect(CodexNotify.stopHookTrusted(environment: environment))
        // CODEX_HOME moves both files.
        #expect(!CodexNotify.stopHookTrusted(environment: ["HOME": directory.path, "CODEX_HOME": directory.path + "/elsewhere"]))
        // A hooks.json that is not JSON: not trusted (notify pushes).
        try FileSystem.writeAtomically(hooksPath, text: "{\"hooks\": [", sync: false)
        #expect(!CodexNotify.stopHookTrusted(environment: environment))
    }

    /// The thread-title side request's notify names a thread of its own: beside a trusted Stop hook it
    /// neither takes the pane from the user's session nor pushes.
    @Test func theTitleThreadsNotifyDoesNotTakeThePane() {
        func event(_ session: String, _ kind: EventKind, _ agentEvent: String, at time: Double, quiet: QuietReason? = nil) -> Event {
            var event = Event(time: time, agent: "codex", kind: kind, agentEvent: agentEvent, title: "", message: agentEvent, host: "h",
                              tmux: TmuxLocation(pane: "%1", socket: "/tmp/s"), sessionID: session)
            event.quietReason = quiet
            return event
        }
        var board = BoardState()
        board.apply(event("main", .working, "UserPromptSubmit", at: 100))
        board.apply(event("title", .done, CodexNotify.event, at: 101, quiet: .besideStopHook))
        board.apply(event("main", .done, "Stop", at: 102))
        board.apply(event("main", .done, CodexNotify.event, at: 103, quiet: .besideStopHook))
        #expect(board.entries.map(\.sessionID) == ["main"], "\(board.entries.map { $0.sessionID ?? "" })")
        #expect(board.entries.first?.state == .done && board.entries.first?.agentEvent == "Stop")
        // Without the trusted Stop hook (no quiet reason) notify is the report and makes its row.
        var untrusted = BoardState()
        untrusted.apply(event("title", .done, CodexNotify.event, at: 101))
        #expect(untrusted.entries.count == 1)
    }

    /// Codex's question: PreToolUse for request_user_input carries `questions[]` with an `id` (0.163.0),
    /// its options numbered as the screen draws them (its own `None of the above` row comes after).
    static func parse(_ payload: String) throws -> Event {
        PayloadParser.event(payload: try JSON.parse(payload), overrides: EventOverrides(agent: "codex"), host: "box",
                            tmux: nil, fallbackCWD: "/fallback")
    }

    @Test func requestUserInputIsAQuestionWithItsOptions() throws {
        let payload = #"{"session_id":"s","turn_id":"t","cwd":"/p","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"request_user_input","tool_input":{"questions":[{"id":"db","header":"DB","question":"Which database?","options":[{"label":"Postgres","description":"a server"},{"label":"SQLite","description":"a file"}]}]},"tool_use_id":"c"}"#
        let event = try Self.parse(payload)
        #expect(event.kind == .needsInput)
        #expect(event.question?.options.map(\.label) == ["Postgres", "SQLite"])
        #expect(event.question?.options.map(\.n) == [1, 2])
        // Another tool's PreToolUse is no question (the registration's matcher is narrow, the reader too).
        let other = payload.replacing("\"tool_name\":\"request_user_input\"", with: "\"tool_name\":\"Bash\"")
        #expect(try Self.parse(other).question == nil)
    }

    /// Text the agent would run as a command, per agent, from the manifests' answer facts.
    @Test(arguments: [
        ("codex", "!rm -rf ~", "!"), ("codex", "/exit", "/"), ("codex", "use !important", nil), ("codex", "ok", nil),
        ("opencode", "!ls", "!"), ("gemini", " !ls", "!"), ("gemini", "\t/quit", "/"), ("claude", "/exit", nil),
    ])
    func replyTextTheAgentRunsAsACommandIsNamed(agent: String, text: String, prefix: String?) throws {
        let manifest = try AgentManifest(json: try JSON.parse(BuiltinResources.manifests[agent + ".json"]!), source: agent)
        #expect(manifest.answer.commandPrefix(of: text) == prefix, "\(agent) \(text)")
    }

    @Test func commandPrefixesMustBeAList() {
        let fail = { (message: String) in ManifestError(source: "t", message: message) }
        #expect(throws: ManifestError.self) {
            try AnswerFacts(json: try JSON.parse(#"{"command_prefixes": {"value": "!", "source": "s"}}"#), fail: fail)
        }
        #expect(throws: ManifestError.self) {
            try AnswerFacts(json: try JSON.parse(#"{"command_prefixes": {"value": [""], "source": "s"}}"#), fail: fail)
        }
    }

    /// Codex payloads with fields missing or added: a clear event, never a crash or a lost one.
    @Test(arguments: [
        #"{"hook_event_name":"Stop"}"#,
        #"{"hook_event_name":"Stop","turn_id":7,"session_id":null,"last_assistant_message":{"nested":true}}"#,
        #"{"hook_event_name":"Stop","session_id":"s","turn_id":"t","last_assistant_message":"ok","future_field":[1,2,3],"hook_event_name_v2":"x"}"#,
        #"{"hook_event_name":"PermissionRequest","tool_name":"Bash"}"#,
        #"{"hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_input":{"questions":"not a list"}}"#,
        #"{"type":"agent-turn-complete","thread-id":"t"}"#,
        #"{"type":"agent-turn-complete","thread-id":"t","turn-id":"u","input-messages":null,"last-assistant-message":null,"client":"codex-tui","extra":{}}"#,
    ])
    func payloadsWithMissingOrExtraFieldsAreRead(payload: String) throws {
        let event = try Self.parse(payload)
        #expect(event.agent == "codex")
        #expect(event.kind != .info || payload.contains("questions"), "\(event.kind) for \(payload)")
    }
}
