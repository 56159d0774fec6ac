/// The config's switches for `PushPolicy` (`defaults.quiet`).
package struct PushRules: Sendable, Equatable {
    /// An idle reminder for a session whose turn is already reported finished is recorded, not pushed.
    package var quietIdleAfterDone = true
    /// The same push again (same agent session, kind and message) within this many seconds is recorded,
    /// not pushed; 0 pushes every one.
    package var repeatWindow: Double = 600

    package init(quietIdleAfterDone: Bool = true, repeatWindow: Double = 600) {
        self.quietIdleAfterDone = quietIdleAfterDone
        self.repeatWindow = repeatWindow
    }
}

/// An agent event that only repeats that the agent waits at its prompt (Claude's `Notification` with
/// `notification_type: idle_prompt`, sent 60 s after `Stop`). Data from the agent's manifest
/// (`idle_reminders`), since each agent has its own.
package struct IdleReminder: Sendable, Equatable {
    /// The agent's event name (`Notification`).
    package var event: String
    /// The finer reason it must carry (`idle_prompt`); nil matches any.
    package var detail: String? = nil

    package func matches(_ candidate: Event) -> Bool {
        candidate.agentEvent == event && (detail == nil || candidate.detail == detail)
    }

    package init(event: String, detail: String? = nil) {
        self.event = event
        self.detail = detail
    }
}

/// What the board knew about the event's agent session before the event: what `PushPolicy` decides on.
package struct PushHistory: Sendable, Equatable {
    /// The session's state on the board, nil for a session not seen before.
    package var state: AgentState? = nil
    /// The fingerprint (`PushPolicy.fingerprint`) and time of the session's last event that pushed.
    package var lastPush: String? = nil
    package var lastPushAt: Double? = nil
    /// The question the session waits on (the board's `question` while it is needs_input), nil otherwise.
    package var question: Question? = nil
    /// How often the session moved on (`BoardEntry.episode`) and the turn of its last push.
    package var episode: Int = 0
    package var lastPushTurn: String? = nil

    package init(
        state: AgentState? = nil,
        lastPush: String? = nil,
        lastPushAt: Double? = nil,
        question: Question? = nil,
        episode: Int = 0,
        lastPushTurn: String? = nil
    ) {
        self.state = state
        self.lastPush = lastPush
        self.lastPushAt = lastPushAt
        self.question = question
        self.episode = episode
        self.lastPushTurn = lastPushTurn
    }
}

/// What the hook's caller says about the event beyond its payload (from its manifest and processes).
package struct PushCaller: Sendable, Equatable {
    /// Every call of this agent's hook is a new wait (aider runs its command once per model answer):
    /// nothing it sends repeats an earlier push.
    package var callIsNewTurn = false
    /// The agent runs without a terminal to answer on (`claude -p`): its questions are refused at once.
    package var nonInteractive = false

    package init(callIsNewTurn: Bool = false, nonInteractive: Bool = false) {
        self.callIsNewTurn = callIsNewTurn
        self.nonInteractive = nonInteractive
    }
}

/// Whether an event pushes, or is only recorded (and why).
package enum PushDecision: Sendable, Equatable {
    case push
    case recordOnly(QuietReason)
}

/// Why an event was recorded but not pushed; its raw value is the event JSON's `quiet` field.
package enum QuietReason: String, Sendable, CaseIterable {
    /// An idle reminder after the turn was already reported finished: the board keeps `done`.
    case idleAfterDone = "idle_after_done"
    /// The same push as one sent shortly before.
    case repeatPush = "repeat"
    /// Another hook's report of the dialog the session already waits on, and whose question was pushed.
    case sameQuestion = "same_question"
    /// A question from an agent that runs without a terminal (`claude -p`): it refuses the tool itself,
    /// nobody can answer it.
    case nonInteractive = "non_interactive"
    /// An event the user caused at the terminal (Codex `Interrupt`: Esc), per the agent's manifest (`quiet`).
    case byUser = "by_user"
    /// A second report of a turn already reported (Codex `notify` and `Stop`), per `one_push_per_turn`.
    case sameTurn = "same_turn"
    /// Codex `notify` once the user trusted hookctl's `Stop` hook, which reports the turn (`CodexNotify`).
    case besideStopHook = "stop_hook"
    /// The user sat at the agent's tmux session (attached, typing within `quiet.present`): see `TmuxPresence`.
    case present
    /// Queued, then replaced by a newer event of the same session before it went out (newest news wins).
    /// Never in the log: `events` marks it from the outbox's superseded entries.
    case superseded
}

/// One push per reason: decides, from the event and its session's history, whether it pushes. Pure:
/// no file, clock or config is read here (the caller passes them), so it can sit in any pipeline step.
package enum PushPolicy {
    /// Whether `event` pushes. A repeat is the same hook firing twice for one turn or one dialog, never
    /// a new turn: a prompt, a reply, a tool, any change of state, or another turn id of the agent's
    /// own starts a new one.
    package static func decide(_ event: Event, history: PushHistory, rules: PushRules,
                       idleReminders: [IdleReminder], caller: PushCaller = PushCaller()) -> PushDecision {
        guard event.kind.pushesByDefault, event.kind != .test else { return .push }
        if caller.nonInteractive, event.kind == .needsInput { return .recordOnly(.nonInteractive) }
        if rules.quietIdleAfterDone, event.kind == .needsInput, idleReminders.contains(where: { $0.matches(event) }) {
            // "Still waiting": after a finished turn the finish was the news; during a dialog, the dialog was.
            if history.state?.isAtPrompt == true { return .recordOnly(.idleAfterDone) }
            if history.state == .needsInput, history.lastPushTurn != nil { return .recordOnly(.sameQuestion) }
        }
        guard rules.repeatWindow > 0, !caller.callIsNewTurn, let lastAt = history.lastPushAt,
              event.time - lastAt >= 0, event.time - lastAt < rules.repeatWindow else { return .push }
        // A Stop re-entered after a Stop hook made the agent go on closes the turn its first Stop reported.
        if event.detail == reenteredStop, let turn = event.turn, history.lastPushTurn?.hasPrefix("t:" + turn + "#") == true {
            return .recordOnly(.repeatPush)
        }
        guard history.lastPushTurn == turnMarker(event, episode: history.episode) else { return .push }
        // One dialog, one push: Claude Code reports one permission dialog by PermissionRequest and then
        // Notification (permission_prompt), one AskUserQuestion by PreToolUse and then PermissionRequest.
        if event.kind == .needsInput, history.state == .needsInput, let standing = history.question, let asked = event.question,
           sameDialog(asked, standing) {
            return .recordOnly(.sameQuestion)
        }
        if history.lastPush == fingerprint(event) { return .recordOnly(.repeatPush) }
        return .push
    }

    /// `Event.detail` of a Claude Code `Stop` with `stop_hook_active`.
    package static let reenteredStop = "stop_hook_active"

    /// The turn an event belongs to: the agent's turn id (when it gives one) and the session's episode.
    package static func turnMarker(_ event: Event, episode: Int) -> String {
        (event.turn.map { "t:" + $0 } ?? "") + "#" + String(episode)
    }

    /// Whether `asked` is the dialog the session already waits on: the same question, a notice of it
    /// without options after the hook that listed them (Claude's Notification after its PermissionRequest),
    /// or the same dialog's rows as its pane shows them. Other text or other options are a new question,
    /// which pushes; so does any question once the session has left needs_input (an answer, `reply`,
    /// the turn going on).
    package static func sameDialog(_ asked: Question, _ standing: Question) -> Bool {
        asked == standing || (asked.options.isEmpty && !standing.options.isEmpty) || asked.fromScreen
    }

    /// What makes two pushes "the same": kind and message (the session is the board entry's own).
    package static func fingerprint(_ event: Event) -> String {
        event.kind.rawValue + ":" + String(Text.fnv1a(event.kind.rawValue + "\u{0}" + event.message), radix: 16)
    }

    /// Whether a recorded event counts as a push for the next decision.
    package static func pushed(_ event: Event) -> Bool {
        event.kind.pushesByDefault && event.kind != .test && event.quietReason == nil
    }
}
