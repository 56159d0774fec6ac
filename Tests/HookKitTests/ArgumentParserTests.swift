import Testing
@testable import HookKit

@Suite struct ArgumentParserTests {
    static let spec = CommandSpec(
        path: ["demo"], summary: "demo", usage: "[options] [PAYLOAD]",
        options: [.flag("json", help: "JSON"), .flag("force", help: "force"), .value("agent", "A", help: "agent"),
                  .value("agents", "LIST", repeatable: true, help: "agents")],
        positionals: [("PAYLOAD", "payload")])

    @Test func flagsValuesAndPositionals() throws {
        let parsed = try ArgumentParser.parse(["--json", "--agent", "codex", "{\"type\":\"x\"}"], spec: Self.spec)
        #expect(parsed.flag("json"))
        #expect(parsed.value("agent") == "codex")
        #expect(parsed.positionals == ["{\"type\":\"x\"}"])
    }

    @Test func inlineValuesAndLists() throws {
        let parsed = try ArgumentParser.parse(["--agent=claude", "--agents", "claude, codex", "--agents=gemini"], spec: Self.spec)
        #expect(parsed.value("agent") == "claude")
        #expect(parsed.list("agents") == ["claude", "codex", "gemini"])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["--", "--json"], spec: Self.spec)
        #expect(parsed.positionals == ["--json"])
        #expect(!parsed.flag("json"))
    }

    @Test(arguments: [
        (["--forse"], "unknown option '--forse' (did you mean '--force'?)"),
        (["--agent"], "--agent needs a value (A)"),
        (["--json=1"], "--json does not take a value"),
        (["a", "b"], "unexpected argument 'b'"),
        (["--agent", "a", "--agent", "b"], "--agent was given more than once"),
        (["-x"], "unknown option '-x'"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try ArgumentParser.parse(arguments, spec: Self.spec) }
        do {
            _ = try ArgumentParser.parse(arguments, spec: Self.spec)
        } catch let error as UsageError {
            #expect(error.message == message)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func unknownCommandExitsWithUsage() {
        let output = BufferStream(), errors = BufferStream()
        let context = CommandContext(environment: [:], standardOutput: output, standardError: errors, standardInput: -1, workingDirectory: "/")
        #expect(CommandLineTool.run(["notfy"], context: context) == 64)
        #expect(errors.text.contains("unknown command 'notfy' (did you mean 'notify'?)"))
        #expect(CommandLineTool.run(["--version"], context: context) == 0)
        #expect(output.text.hasPrefix("hookctl "))
    }

    @Test func helpForEveryCommand() {
        for command in CommandLineTool.commands {
            let output = BufferStream()
            let context = CommandContext(environment: [:], standardOutput: output, standardError: BufferStream(), standardInput: -1, workingDirectory: "/")
            #expect(CommandLineTool.run(command.spec.path + ["--help"], context: context) == 0)
            #expect(output.text.contains("USAGE: hookctl \(command.spec.fullName)"))
            let viaHelp = BufferStream()
            let helpContext = CommandContext(environment: [:], standardOutput: viaHelp, standardError: BufferStream(), standardInput: -1, workingDirectory: "/")
            #expect(CommandLineTool.run(["help"] + command.spec.path, context: helpContext) == 0)
            #expect(viaHelp.text == output.text)
        }
    }
}
