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
package enum HookScript {
    /// The interpreter argument the script's `#!` line passes (with the gate variable after a space: the
    /// kernel hands the rest of the line over as one word).
    package static let marker = "hook-script"

    /// The `#!` line for a script run by `hookctl` at `path`, or nil when the kernel could not read one
    /// (a relative path, spaces or quotes in it, or too long for the 127 bytes older kernels read).
    package static func interpreterLine(hookctl path: String, gate: String) -> String? {
        let line = "#!\(path) \(marker) \(gate)"
        let plain = path.hasPrefix("/") && path.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"'\"\\".unicodeScalars.contains($0) }
        return plain && Shell.isVariableName(gate) && line.utf8.count <= 127 ? line : nil
    }

    /// Whether hookctl was started as the script's interpreter (`arguments` without the program name).
    package static func isInterpreter(_ arguments: [String]) -> Bool {
        arguments.first.map { $0 == marker || $0.hasPrefix(marker + " ") } ?? false
    }
}
