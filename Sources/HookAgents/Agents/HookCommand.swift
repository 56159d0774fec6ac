/// POSIX shell quoting for everything setup writes into commands and scripts.
package enum Shell {
    /// Single-quotes `text` so any shell reads it back as one literal word: `it's` → `'it'\''s'`.
    package static func quote(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// `text` as is when it is a plain word (letters, digits, `-`, `_`, `.`, `/`), else single-quoted.
    package static func quoteIfNeeded(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCIILetterOrDigit || "-_./".unicodeScalars.contains($0)
        }
        return plain ? text : quote(text)
    }

    /// Whether `name` can be used as a shell variable name (the gate variable).
    package static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.isASCIILetterOrDigit }
    }
}

/// Where the generated hook script lives and the exact strings registered with the agents.
///
/// The registered strings depend only on the data directory, the agent and the gate variable, never
/// on the binary's path or version, so they stay byte-identical across upgrades (Codex keys hook trust
/// on a hash of them). The notify URL never appears in them: it lives in the config.
package struct HookLayout: Sendable, Equatable {
    /// The file name that marks hookctl's entries in every agent's settings.
    package static let scriptName = "hookctl-hook"

    package var scriptPath: String
    package var gate: String

    package init(paths: Paths, gate: String = Product.gateVariable) {
        scriptPath = paths.dataDirectory + "/bin/" + HookLayout.scriptName
        self.gate = Shell.isVariableName(gate) ? gate : Product.gateVariable
    }

    /// The shell command string for an agent that runs hooks through a shell with the payload on stdin.
    /// With `gated`, the shell itself exits when the gate variable is unset, so the common case (no
    /// phone session) does not even start the script.
    package func command(agent: String, gated: Bool) -> String {
        let run = "exec \(Shell.quote(scriptPath)) \(Shell.quoteIfNeeded(agent))"
        return gated ? "[ -n \"${\(gate):-}\" ] || exit 0; \(run)" : run
    }

    /// Codex `notify` argv (no shell; Codex appends the JSON as the last argument). The notify program
    /// the user had before follows, so the script can run it with the same JSON.
    package func codexNotifyArguments(previous: [String]) -> [String] {
        [scriptPath, "codex-notify"] + previous
    }

    /// Whether a registered command or argv element is hookctl's (this data directory or another one).
    /// (Byte searches: `String.contains(_:)` builds a searcher per call, and its first use cost a Codex
    /// `notify` hook 0.57 M instructions over the eight handlers of `hooks.json`.)
    package static func isHookctlCommand(_ command: String) -> Bool {
        Text.containsBytes(command, "/" + scriptName + "'") || Text.containsBytes(command, "/" + scriptName + " ")
            || command.hasSuffix("/" + scriptName)
    }

    /// The hook script, rendered from `templates/hook.sh` with the absolute hookctl path baked in. Its `#!`
    /// line names hookctl itself (`HookScript`: no second shell between the agent and the binary) unless
    /// the kernel could not read that path there; then `/bin/sh` runs the same steps written in shell.
    package func script(template: String, hookctl: String) -> String {
        let interpreter = HookScript.interpreterLine(hookctl: hookctl, gate: gate) ?? "#!/bin/sh"
        return template.replacing("#!@INTERPRETER@", with: interpreter).replacing("@GATE@", with: gate)
            .replacing("@HOOKCTL@", with: Shell.quote(hookctl))
    }
}
