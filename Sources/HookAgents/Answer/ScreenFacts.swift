/// What an agent's manifest says about following it where its hooks are silent (`screen` in
/// `hooks/*.json`): how to read its pane and its process. Data, with the observation behind each fact,
/// so that a new agent build is met by editing its manifest.
package struct ScreenFacts: Sendable, Equatable {
    /// Every call of the agent's hook is a new wait: aider runs its notifications command once per
    /// model answer, with no payload, so nothing it sends repeats an earlier push.
    package var callIsNewTurn = false
    /// Arguments that make the agent run without a terminal to answer on (`claude -p`): its hooks still
    /// report permission requests, which it refuses by itself.
    package var nonInteractiveFlags: [String] = []
    /// Lines the pane shows when a dialog was refused or cancelled and no hook fires (Claude Code's
    /// `Interrupted · What should Claude do instead?`).
    package var interrupted: [String] = []
    /// Text on the pane's last line that makes it a question the agent waits on (aider's
    /// `(Y)es/(N)o`), for agents whose hook cannot say what it waits for.
    package var questionLines: [String] = []
    /// Where the answer row of such a question ends: the prompt's own default (`[Yes]:`).
    package var idlePrompt: [String] = []

    package init() {}

    package init(json: JSONValue, fail: (String) -> any Error) throws {
        func strings(_ key: String) throws -> [String] {
            guard let value = json[key] else { return [] }
            guard let items = value["value"]?.arrayValue ?? value.arrayValue else { throw fail("screen.\(key) must be a list of strings") }
            return try items.map { item in
                guard let text = item.stringValue, !text.isEmpty else { throw fail("screen.\(key) must be a list of strings") }
                return text
            }
        }
        callIsNewTurn = json["call_is_new_turn"]?["value"]?.boolValue ?? json["call_is_new_turn"]?.boolValue ?? false
        nonInteractiveFlags = try strings("non_interactive_flags")
        interrupted = try strings("interrupted")
        questionLines = try strings("question_lines")
        idlePrompt = try strings("idle_prompt")
    }

    /// Whether the agent that ran this hook runs without a terminal: one of its ancestors (up to eight
    /// up, read from /proc) is the agent (`names`) started with one of `nonInteractiveFlags`.
    package func callerIsNonInteractive(names: [String], parent: Int32 = getppid()) -> Bool {
        guard !nonInteractiveFlags.isEmpty, !names.isEmpty else { return false }
        var current = parent
        for _ in 0..<8 {
            guard current > 1, let stat = ProcessStat.read(current) else { return false }
            let arguments = ProcessStat.arguments(current)
            let program = arguments.prefix(2).map { FileSystem.fileName(of: $0) }
            if names.contains(where: program.contains) || names.contains(stat.command) {
                return arguments.dropFirst().contains { argument in
                    nonInteractiveFlags.contains(argument) || nonInteractiveFlags.contains { argument.hasPrefix($0 + "=") }
                }
            }
            current = stat.parent
        }
        return false
    }

    /// The question on the pane's last lines, for an agent whose hook says nothing of it (aider): the
    /// last non-blank line when it holds one of `questionLines`, nil otherwise.
    package func question(onScreen lines: [String]) -> String? {
        guard !questionLines.isEmpty, let last = lines.last(where: { !Text.trimmed($0).isEmpty }) else { return nil }
        guard questionLines.contains(where: { last.contains($0) }) else { return nil }
        return Text.trimmed(last)
    }

    /// Whether the pane's last line that is not blank is the agent's idle prompt (aider's `>`).
    package func showsIdlePrompt(_ lines: [String]) -> Bool {
        guard !idlePrompt.isEmpty, let last = lines.last(where: { !Text.trimmed($0).isEmpty }) else { return false }
        return idlePrompt.contains(Text.trimmed(last))
    }

    /// Whether the pane shows the agent back at its prompt after a refused dialog, with no dialog left:
    /// the marker among the last eight lines that are not blank (the prompt box and its footer below it).
    package func showsInterrupted(_ lines: [String]) -> Bool {
        guard !interrupted.isEmpty, ScreenMenu.read(Array(lines.suffix(60))) == nil else { return false }
        return lines.filter { !Text.trimmed($0).isEmpty }.suffix(8).contains { line in interrupted.contains { line.contains($0) } }
    }
}
