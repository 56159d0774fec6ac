/// The hook script run: what `hookctl hook-script GATE SCRIPT ARGS…` does (see `HookScript`).
extension HookScript {
    /// Does what the script says: `arguments` are the interpreter argument, the script's path, then the
    /// script's own arguments.
    package static func run(_ arguments: [String], context: CommandContext) -> Int32 {
        var rest = Array(arguments.dropFirst())
        // Linux passes `hook-script GATE` as one word; a kernel that splits it passes the gate on its own.
        var gate = String(arguments[0].dropFirst(marker.count)).trimmingSpaces()
        if gate.isEmpty, let next = rest.first, Shell.isVariableName(next) { gate = rest.removeFirst() }
        if !Shell.isVariableName(gate) { gate = Product.gateVariable }
        if !rest.isEmpty { rest.removeFirst() }  // the script's own path
        let inSession = !(context.environment[gate] ?? "").isEmpty
        let agent = rest.first ?? ""
        if agent == "codex-notify" {
            rest.removeFirst()
            let payload = rest.last ?? ""
            if rest.count > 1 { runPrevious(rest, environment: context.environment) }
            guard inSession else { return ExitCode.ok.rawValue }
            // Codex's notify gives no payload on stdin: nothing is read from whatever it left there.
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if null >= 0 { dup2(null, STDIN_FILENO); close(null) }
            return CommandLineTool.run(["notify", "--agent", "codex", payload], context: context)
        }
        // Outside a phone session nothing is sent.
        guard inSession else { return ExitCode.ok.rawValue }
        if !rest.isEmpty { rest.removeFirst() }
        return CommandLineTool.run(["notify", "--agent", agent] + rest, context: context)
    }

    /// The user's own notify program, with the same JSON as its last argument: detached (stdio on
    /// /dev/null), bounded by `timeout 60` when there is one.
    private static func runPrevious(_ command: [String], environment: [String: String]) {
        let bounded = AgentManifest.findProgram("timeout", environment: environment).map { [$0, "60"] + command }
        let argv = bounded ?? command
        guard let executable = AgentManifest.findProgram(argv[0], environment: environment) else { return }
        try? Subprocess.spawnDetached(executable: executable, arguments: Array(argv.dropFirst()), environment: environment)
    }
}
