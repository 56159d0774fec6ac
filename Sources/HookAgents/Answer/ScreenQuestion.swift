/// What the agent's own pane says about a wait its hook reports: the dialog's rows as the screen
/// numbers them (a permission dialog's payload lists none), or, for an agent whose hook carries no
/// payload (aider), whether it waits on a question or at its prompt. Read by `notify` from the pane
/// the hook ran in; agent text, so it is cleaned and bounded like a payload's.
package enum ScreenQuestion {
    /// The caller's pane's visible screen as clean lines (one `capture-pane` through `PaneDriver`, as
    /// `peek` reads a pane), nil when it cannot be read.
    package static func capture(_ tmux: TmuxLocation, environment: [String: String], timeout: Double = 1) -> [String]? {
        guard let executable = try? TmuxClient.locate(environment: environment,
                                                      usualDirectories: ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]) else { return nil }
        let client = TmuxClient(executable: executable,
                                socket: TmuxSocket(socketPath: tmux.socket, socketName: nil, environment: environment),
                                environment: TmuxClient.childEnvironment(environment), timeout: timeout)
        guard let text = try? PaneDriver(client: client, pane: tmux.pane).capture(history: 0).text else { return nil }
        return PaneText.lines(text)
    }

    /// A `needs_input` event's question with the rows its pane shows now, when it shows a menu. The
    /// question's own text stays (the pane's rows only replace options the payload could not number).
    package static func refine(_ question: Question?, message: String, screen lines: [String]) -> Question? {
        if let question, !question.options.isEmpty, !question.options.contains(where: { $0.n == nil }) { return question }
        guard let menu = ScreenMenu.read(Array(lines.suffix(60)), expected: question?.options.map(\.label) ?? []) else { return question }
        if let question, !question.options.isEmpty {
            // The payload's labels must be on the screen: else this menu is not its dialog.
            guard question.options.allSatisfy({ option in menu.rows.contains { PaneText.matches($0.label, option.label) != .none } })
            else { return question }
        }
        let text = question?.text ?? Question.clean(message)
        return menu.question(text: Text.truncate(text.isEmpty ? "Choose an option" : text, characters: Question.textLimit),
                             multiSelect: question?.multiSelect ?? false, count: question?.count ?? 1)
    }

    /// For an agent whose hook says nothing of what it waits for (`ScreenFacts.questionLines`): looks at
    /// its pane until it shows a question or its prompt, at most `within` seconds (the hook runs
    /// detached from the agent, which prints its question right after calling it). The question line,
    /// or nil when the agent waits at its prompt or the pane says nothing in time.
    package static func waitForQuestion(_ facts: ScreenFacts, within seconds: Double, capture: () -> [String]?) -> String? {
        guard !facts.questionLines.isEmpty else { return nil }
        let deadline = ContinuousClock.Instant.after(seconds: seconds)
        repeat {
            if let lines = capture() {
                if let question = facts.question(onScreen: lines) { return Question.clean(question) }
                if let last = lines.last(where: { !Text.trimmed($0).isEmpty }),
                   facts.idlePrompt.contains(where: { Text.trimmed(last) == $0 }) { return nil }
            }
            sleepSeconds(0.05)
        } while !deadline.hasPassed
        return nil
    }
}
