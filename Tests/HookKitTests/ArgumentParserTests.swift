import Testing
@testable import HookSupport
@testable import HookCLI

@Suite struct ArgumentParserTests {
    static let json = Flag("json", help: "JSON")
    static let force = Flag("force", help: "force")
    static let agent = Option<String>("agent", "A", help: "agent")
    static let agents = Option<String>("agents", "LIST", repeatable: true, help: "agents")
    static let count = Option.int("count", "N", help: "count")
    static let wait = Option.seconds("wait", "DURATION", help: "wait")
    static let spec = CommandSpec(
        path: ["demo"], summary: "demo", usage: "[options] [PAYLOAD]",
        options: [json, force, agent, agents, count, wait],
        positionals: [("PAYLOAD", "payload")])

    @Test func flagsValuesAndPositionals() throws {
        let parsed = try ArgumentParser.parse(["--json", "--agent", "codex", "{\"type\":\"x\"}"], spec: Self.spec)
        #expect(parsed.flag(Self.json))
        #expect(!parsed.flag(Self.force))
        #expect(try parsed.value(Self.agent) == "codex")
        #expect(try parsed.value(Self.count) == nil)
        #expect(parsed.positionals == ["{\"type\":\"x\"}"])
    }

    @Test func inlineValuesAndLists() throws {
        let parsed = try ArgumentParser.parse(["--agent=claude", "--agents", "claude, codex", "--agents=gemini"], spec: Self.spec)
        #expect(try parsed.value(Self.agent) == "claude")
        #expect(parsed.list(Self.agents) == ["claude", "codex", "gemini"])
        #expect(try parsed.all(Self.agents) == ["claude, codex", "gemini"])
    }

    @Test func typedValuesAreConvertedWithTheOptionsName() throws {
        let parsed = try ArgumentParser.parse(["--count", "12", "--wait=500ms"], spec: Self.spec)
        #expect(try parsed.value(Self.count) == 12)
        #expect(try parsed.value(Self.wait) == 0.5)
        let bad = try ArgumentParser.parse(["--count", "twelve", "--wait", "0"], spec: Self.spec)
        let count = #expect(throws: UsageError.self) { try bad.value(Self.count) }
        #expect(count?.message == "--count expects a whole number, got 'twelve'")
        let wait = #expect(throws: UsageError.self) { try bad.value(Self.wait) }
        #expect(wait?.message == "--wait expects a duration such as 8, 8s or 500ms, got '0'")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["--", "--json"], spec: Self.spec)
        #expect(parsed.positionals == ["--json"])
        #expect(!parsed.flag(Self.json))
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

    /// `--config` before the command and after it reach the command alike; both at once must agree
    /// (the same value is fine, two different ones are a usage error: neither silently wins).
    @Test(arguments: [["test"], ["doctor"], ["outbox", "flush"], ["setup", "--dry-run", "--agents", "claude"]])
    func configBeforeOrAfterTheCommand(command: [String]) throws {
        let scratch = try BoardScratch()
        let tabbed = scratch.path + "/tabbed.yaml", other = scratch.path + "/other.yaml"
        try FileSystem.writeAtomically(tabbed, text: "version: 1\nsinks:\n\t- name: x\n", sync: false)
        for arguments in [["--config", tabbed] + command, command + ["--config", tabbed], ["--config=" + tabbed] + command + ["--config", tabbed]] {
            let result = scratch.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect((result.stdout + result.stderr).contains(tabbed + ":3:"), "\(arguments): \(result.stdout) \(result.stderr)")
        }
        // Before a `--` terminator, never after it (where it would be an operand).
        let terminated = scratch.run(["--config", tabbed] + command + ["--"])
        #expect(terminated.status == 78 && (terminated.stdout + terminated.stderr).contains(tabbed + ":3:"), "\(terminated.stderr)")
        for arguments in [["--config", other] + command + ["--config", tabbed], ["--config", tabbed] + command + ["--config", other]] {
            let result = scratch.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--config was given more than once"), "\(result.stderr)")
            #expect(result.stdout.isEmpty && !result.stderr.contains(":3:"), "no config was read: \(result.stdout)")
        }
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
