/// hookctl as the interpreter of its own hook script: `hookctl-hook` starts with
/// `#!/abs/path/hookctl hook-script GATE`, so the kernel runs hookctl on it directly, with no second shell
/// between the agent's command and the binary (`templates/hook.sh` says the same in shell, which runs
/// where the binary's path cannot be a `#!` line). Scripts of the retired hook front (`LegacyHookFront`)
/// reach it in the same form until setup rewrites them. The arguments are the script's:
///
///   hookctl-hook AGENT [--event NAME]             payload JSON on stdin
///   hookctl-hook codex-notify [PREVIOUS...] JSON  Codex `notify`: the JSON is the last argument; PREVIOUS
///                                                 is the user's own notify program, run inside phone sessions
///                                                 or not, detached and time-bounded, with the same JSON
enum HookScript {
    /// The interpreter argument the script's `#!` line passes (with the gate variable after a space: the
    /// kernel hands the rest of the line over as one word).
    static let marker = "hook-script"

    /// The `#!` line for a script run by `hookctl` at `path`, or nil when the kernel could not read one
    /// (a relative path, spaces or quotes in it, or too long for the 127 bytes older kernels read).
    static func interpreterLine(hookctl path: String, gate: String) -> String? {
        let line = "#!\(path) \(marker) \(gate)"
        let plain = path.hasPrefix("/") && path.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"'\"\\".unicodeScalars.contains($0) }
        return plain && Shell.isVariableName(gate) && line.utf8.count <= 127 ? line : nil
    }

    /// Whether hookctl was started as the script's interpreter (`arguments` without the program name).
    static func isInterpreter(_ arguments: [String]) -> Bool {
        arguments.first.map { $0 == marker || $0.hasPrefix(marker + " ") } ?? false
    }

    /// Does what the script says: `arguments` are the interpreter argument, the script's path, then the
    /// script's own arguments.
    static func run(_ arguments: [String], context: CommandContext) -> Int32 {
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
