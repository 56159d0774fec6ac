import Testing
@testable import HookSupport
@testable import HookAgents

/// Issue 32, item 4: hookctl's entry in Antigravity CLI's ~/.gemini/config/hooks.json against the shape agy
/// reads (google-antigravity/antigravity-cli#925; rohitg00/agentmemory PR #1146): a named block
/// `{"enabled": true, "<Event>": [...]}`, lifecycle events as flat `{type, command, timeout}` handlers, and
/// never a tool hook (a PreToolUse hook that answers `{}` denies the tool).
@Suite struct AgyShapeTests {
    @Test func hookctlsBlockIsFlatLifecycleHandlersAndNoToolHook() throws {
        let manifest = try AgentManifest(json: try JSON.parse(BuiltinResources.manifests["agy.json"]!), source: "agy")
        let names = manifest.events.map(\.name)
        #expect(!names.contains("PreToolUse") && !names.contains("PostToolUse"), "a tool hook could deny the tool: \(names)")
        let environment = ["HOME": "/home/u", "PATH": "/usr/bin:/bin"]
        let context = InstallerContext(environment: environment, layout: HookLayout(paths: Paths(environment: environment)),
                                       state: SetupState(paths: Paths(environment: environment)))
        let block = NamedHooksInstaller(manifest: manifest, context: context).block
        #expect(block["enabled"]?.boolValue == true)
        for (key, value) in block.entries where key != "enabled" {
            #expect(["SessionStart", "PreInvocation", "PostInvocation", "Stop"].contains(key), "\(key) is no lifecycle event")
            for handler in value.arrayValue ?? [] {
                #expect(handler["type"]?.stringValue == "command" && handler["command"]?.stringValue != nil && handler["hooks"] == nil,
                        "a flat handler: \(JSON.serialize(handler))")
                #expect(handler["timeout"]?.intValue != nil)
            }
        }
    }
}
