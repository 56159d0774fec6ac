/// Why `peek` or `reply` did not act, each with what to do next.
package enum AnswerError: HookctlError, Equatable {
    /// The target names no agent on the board (usage: the candidates are listed).
    case noMatch(target: String, candidates: String)
    /// The target names several agents.
    case ambiguous(target: String, candidates: String)
    /// `--next`, but no agent waits for input.
    case nothingWaiting(candidates: String)
    /// The agent's pane is not one hookctl may type into or read now (gone, another program, no tmux).
    case refused(key: String, reason: String)
    /// Text or keys for a row whose pane a hook named from an inherited environment (Codex's app-server
    /// daemon), while that pane may not be the asking agent's (`InheritedPane`): nothing is typed.
    /// `choice`: a choice refused for the same reason (another session's dialog may be on that pane).
    case paneUncertain(key: String, pane: String, agent: String, reason: String, choice: Bool)
    /// `--choice` names no option on the pane, or several.
    case choiceNotShown(choice: String, options: String)
    case ambiguousChoice(choice: String, options: String)
    /// The pane shows no menu to choose from (numbered, or unnumbered with a cursor): nothing is pressed.
    case noMenu(key: String)
    /// How to do this in the agent's prompts is not known (its manifest has no source for it).
    case keysUnknown(key: String, what: String)
    /// The dialog's cursor could not be brought to the row (no cursor shown, or it stopped moving).
    case cursorNotReached(key: String, row: String)
    /// The options were toggled but the multi-select's Submit row was not reached.
    case submitNotReached(key: String, rows: [String])
    /// The reply text is larger than `reply` takes, or not text.
    case textTooLarge(limit: Int)
    case textNotUTF8
    /// TEXT the agent would run as a command (its manifest's `answer.command_prefixes`), without `--raw`.
    case runsAsCommand(agent: String, prefix: String)

    package var code: String {
        switch self {
        case .noMatch: return "no_such_agent"
        case .ambiguous: return "ambiguous_target"
        case .nothingWaiting: return "nothing_waiting"
        case .refused: return "refused"
        case .paneUncertain: return "pane_uncertain"
        case .choiceNotShown: return "choice_not_shown"
        case .ambiguousChoice: return "ambiguous_choice"
        case .noMenu: return "no_menu"
        case .keysUnknown: return "keys_unknown"
        case .cursorNotReached: return "cursor_not_reached"
        case .submitNotReached: return "submit_not_reached"
        case .textTooLarge: return "text_too_large"
        case .textNotUTF8: return "text_not_utf8"
        case .runsAsCommand: return "runs_as_command"
        }
    }

    package var exitCode: ExitCode {
        switch self {
        case .noMatch, .ambiguous, .nothingWaiting, .ambiguousChoice: return .usage
        case .refused, .paneUncertain, .choiceNotShown, .noMenu, .keysUnknown, .cursorNotReached, .submitNotReached: return .unavailable
        case .textTooLarge, .textNotUTF8, .runsAsCommand: return .dataError
        }
    }

    package var description: String {
        switch self {
        case .noMatch(let target, let candidates):
            return "no agent on the board matches '\(AnswerText.forTerminal(target))'; \(candidates)"
        case .ambiguous(let target, let candidates):
            return "'\(AnswerText.forTerminal(target))' matches several agents; name one by its key: \(candidates)"
        case .nothingWaiting(let candidates):
            return "no agent is waiting for input; \(candidates)"
        case .refused(let key, let reason):
            return "refusing to touch the pane of \(AnswerText.forTerminal(key)): \(reason)"
        case .paneUncertain(let key, let pane, let agent, let reason, let choice):
            return "refusing to \(choice ? "press a choice in" : "type into") the pane of \(AnswerText.forTerminal(key)): its pane "
                + "\(AnswerText.forTerminal(pane)) came from \(agent)'s app-server daemon, which runs the hooks of every \(agent) "
                + "with the environment of the one that started it, and \(reason); nothing was \(choice ? "pressed" : "typed"). "
                + "Answer at that \(agent)'s keyboard, or set 'daemon_auto_start = false' under [features] in ~/.codex/config.toml "
                + "so that each \(agent) started after it runs its own hooks"
        case .choiceNotShown(let choice, let options):
            return "no option '\(AnswerText.forTerminal(choice))' on the pane now"
                + (options.isEmpty ? "" : " (it shows: \(options))") + "; look with 'hookctl peek'"
        case .ambiguousChoice(let choice, let options):
            return "'\(AnswerText.forTerminal(choice))' begins several options (\(options)); give more of the label or its number"
        case .noMenu(let key):
            return "\(AnswerText.forTerminal(key)) shows no menu on its screen now, so nothing was pressed; "
                + "look with 'hookctl peek', then answer with TEXT or --key"
        case .keysUnknown(let key, let what):
            return "\(AnswerText.forTerminal(key)): \(what) is not known; look with 'hookctl peek' and send keys with --key"
        case .cursorNotReached(let key, let row):
            return "\(AnswerText.forTerminal(key)): the dialog's cursor could not be moved to '\(AnswerText.forTerminal(row))' "
                + "(no cursor on the pane, or it stopped moving); nothing was selected; look with 'hookctl peek'"
        case .submitNotReached(let key, let rows):
            return "\(AnswerText.forTerminal(key)): the options are toggled but no "
                + rows.map { "'\(AnswerText.forTerminal($0))'" }.joined(separator: " or ")
                + " row was reached to submit them; look with 'hookctl peek' and send keys with --key"
        case .runsAsCommand(let agent, let prefix):
            return "\(agent) runs text that starts with '\(prefix)' as a command, not as an answer; nothing was typed. "
                + "To send it anyway: hookctl reply --raw TARGET TEXT"
        case .textTooLarge(let limit):
            return "the reply is larger than \(limit / 1024) KiB; send a shorter text"
        case .textNotUTF8:
            return "the reply is not UTF-8 text"
        }
    }
}
