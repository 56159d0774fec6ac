/// hookctl as the interpreter of its own hook script: `hookctl-hook` starts with
/// `#!/abs/path/hookctl-front GATE`: the kernel runs the front (`HookFront`, a small static C program) on
/// it, which hands the hook to a warm hookctl (`HookServer`) or else execs the `hookctl` link beside it as
/// `hookctl hook-script GATE SCRIPT ARGS…`, as the kernel did when the line named hookctl itself (it still
/// does where the front's line would not fit: `#!/abs/path/hookctl hook-script GATE`). Either way no shell runs between the agent's
/// command and hookctl (`templates/hook.sh` says the same in shell, which runs where the binary's path
/// cannot be a `#!` line). The arguments are the script's:
///
///   hookctl-hook AGENT [--event NAME]             payload JSON on stdin
///   hookctl-hook codex-notify [PREVIOUS...] JSON  Codex `notify`: the JSON is the last argument; PREVIOUS
///                                                 is the user's own notify program, run inside phone sessions
///                                                 or not, detached and time-bounded, with the same JSON
package enum HookScript {
    /// The interpreter argument the script's `#!` line passes (with the gate variable after a space: the
    /// kernel hands the rest of the line over as one word).
    package static let marker = "hook-script"

    /// The `#!` line for a script run through the front at `front` by `hookctl` at `path` (or by hookctl
    /// directly when the front's line would not fit), or nil when the kernel could not read one (a relative
    /// path, spaces or quotes in it, or too long for the 127 bytes older kernels read).
    package static func interpreterLine(front: String?, hookctl path: String, gate: String) -> String? {
        func plain(_ path: String) -> Bool {
            path.hasPrefix("/") && path.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"'\"\\".unicodeScalars.contains($0) }
        }
        guard plain(path), Shell.isVariableName(gate) else { return nil }
        // The front finds hookctl through the link beside it (`HookFront.linkName`), so its line carries only
        // the gate: it fits where a line with hookctl's path would not.
        if let front, plain(front) {
            let line = "#!\(front) \(gate)"
            if line.utf8.count <= 127 { return line }
        }
        let line = "#!\(path) \(marker) \(gate)"
        return line.utf8.count <= 127 ? line : nil
    }

    /// Whether hookctl was started as the script's interpreter (`arguments` without the program name).
    package static func isInterpreter(_ arguments: [String]) -> Bool {
        arguments.first.map { $0 == marker || $0.hasPrefix(marker + " ") } ?? false
    }

    /// Does what the script says: `arguments` are the interpreter argument, the script's path, then the
    /// script's own arguments.
    package static func run(_ arguments: [String], context: CommandContext) -> Int32 {
        var rest = Array(arguments.dropFirst())
        // Linux passes `hook-script GATE` as one word; a kernel that splits it passes the gate on its own.
        var gate = String(arguments[0].dropFirst(marker.count)).trimmingSpaces()
        if gate.isEmpty, let next = rest.first, Shell.isVariableName(next) { gate = rest.removeFirst() }
        if !Shell.isVariableName(gate) { gate = Product.gateVariable }
        let script = rest.isEmpty ? nil : rest.removeFirst()
        let inSession = !(context.environment[gate] ?? "").isEmpty
        let code = run(script: rest, inSession: inSession, context: context)
        // A hook the agent's own process ran (no warm server answered its front): start one for the next.
        if inSession, HookProcess.front == nil, let script {
            HookFront.startServerIfNeeded(script: script, environment: context.environment)
        }
        return code
    }

    /// The script's own arguments, run.
    private static func run(script arguments: [String], inSession: Bool, context: CommandContext) -> Int32 {
        var rest = arguments
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
