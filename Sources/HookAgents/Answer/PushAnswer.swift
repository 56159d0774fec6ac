import Synchronization

/// Turns one answer from a push (an `AnswerToken` from ntfy's reply topic or a Telegram button) into
/// the press `reply --choice` makes, or refuses it. In order: the MAC under this user's key and this
/// host's identity, the expiry, the host's record of what the button offered (`AnswerRecords`), the
/// agent it names (still on the board), the nonce (recorded, flushed, before anything is pressed: a
/// replay is refused), the agent still waiting on that question and in the same asking of it (not the same
/// text asked again since), then the reply itself (`Reply`, as `reply --choice` does): the pane
/// and process identity checks, the option's label found among the rows the screen shows now. A refusal presses nothing and is an event (`push_reply_refused`, visible in `events`,
/// never changing the board); the pressed answer is the reply's own event (`push_reply`, with
/// `answer: {channel, option}`). One answer at a time.
package final class PushAnswer: @unchecked Sendable {
    package enum Outcome: Equatable {
        case pressed(String)
        /// `verified`: the token was one of ours (its MAC held), so saying so on the push is safe.
        case refused(String, verified: Bool)
    }

    /// Refusals of answers that were not ours are recorded at most this often a minute (a flooded topic).
    package static let unverifiedPerMinute = 10

    package let paths: Paths
    package let environment: [String: String]
    package let positions: AnswerListener.Positions
    private let turn = Mutex(())
    private let counts = Mutex((pressed: 0, refused: 0, ignored: 0, unverifiedLogged: 0, minute: 0))
    private let lastNote = Mutex("")

    package init(paths: Paths, environment: [String: String], positions: AnswerListener.Positions) {
        self.paths = paths
        self.environment = environment
        self.positions = positions
    }

    package var summary: String {
        counts.withLock { "\($0.pressed) answers pressed, \($0.refused) refused, \($0.ignored) other messages ignored" }
    }

    /// A line for `listener.log`, not repeated while it stays the same.
    package func note(_ line: String) {
        let repeated = lastNote.withLock { last in
            defer { last = line }
            return last == line
        }
        if !repeated { AnswerListener.log(paths, line) }
    }

    /// A message that is no answer token: counted; one that looks like one (truncated, padded) is refused.
    package func ignored(looksLikeAnswer: Bool, channel: String) {
        counts.withLock { $0.ignored += 1 }
        if looksLikeAnswer { _ = record(refusal: "the answer is malformed (truncated or altered)", channel: channel, entry: nil, verified: false) }
    }

    package func finish() { try? positions.flush() }

    package func handle(_ token: AnswerToken, channel: String) -> Outcome {
        turn.withLock { _ in check(token, channel: channel) }
    }

    /// Refuses `token` for a reason the source found (another chat).
    package func refuse(token: AnswerToken, channel: String, why: String) -> Outcome {
        record(refusal: why, channel: channel, entry: nil, verified: false)
    }

    private func check(_ token: AnswerToken, channel: String) -> Outcome {
        let key: [UInt8]
        do {
            guard let found = try AnswerKey.load(paths: paths, create: false) else {
                return record(refusal: "this host has no answer key (no push with answers was sent from here)", channel: channel, entry: nil, verified: false)
            }
            key = found
        } catch {
            return record(refusal: "\(error)", channel: channel, entry: nil, verified: false)
        }
        guard token.verifies(key: key) else {
            return record(refusal: "its signature does not verify (forged, altered, or made on another host or for another user)",
                          channel: channel, entry: nil, verified: false)
        }
        guard Double(token.expiry) >= WallClock.nowEpoch() else {
            return record(refusal: "the answer expired", channel: channel, entry: nil, verified: true)
        }
        let pushed: AnswerRecords.Record
        do {
            guard let found = try AnswerRecords(paths: paths).find(token.nonce) else {
                return record(refusal: "this host has no record of that answer", channel: channel, entry: nil, verified: true)
            }
            pushed = found
        } catch {
            return record(refusal: "the answers' records cannot be read (\(error))", channel: channel, entry: nil, verified: true)
        }
        guard AnswerToken.keyRef(pushed.boardKey) == token.keyRef, AnswerToken.questionRef(pushed.question, asked: pushed.asked) == token.questionRef,
              pushed.position == token.option, let option = pushed.option else {
            return record(refusal: "the answer does not match what was pushed", channel: channel, entry: nil, verified: true)
        }
        let board: BoardState
        do { board = try EventLog(paths: paths).board(warn: { _ in }) } catch {
            return record(refusal: "the board cannot be read (\(error))", channel: channel, entry: nil, verified: true)
        }
        guard let entry = board.ordered.first(where: { $0.key == pushed.boardKey }) else {
            return record(refusal: "the agent is no longer on the board", channel: channel, entry: nil, verified: true)
        }
        do {
            guard try UsedNonces(paths: paths).use(token.nonce, expiry: token.expiry) else {
                return record(refusal: "the answer was already used", channel: channel, entry: entry, verified: true)
            }
        } catch {
            return record(refusal: "the answer cannot be marked as used (\(error)), so it is not pressed", channel: channel, entry: entry, verified: true)
        }
        guard entry.state == .needsInput else {
            return record(refusal: "the agent no longer waits for an answer (it is \(entry.state.rawValue))", channel: channel, entry: entry, verified: true)
        }
        // The same asking of it: the same text asked again after the session moved on (answered at the
        // keyboard, say) is a new dialog that this push's buttons were not made for.
        guard entry.askedSeq == pushed.asked else {
            return record(refusal: "the question was asked again since that push (answer the newer one)", channel: channel, entry: entry, verified: true)
        }
        // The same dialog: the question's text as pushed (the board keeps it when the pane's own rows
        // replace the options a payload could not number), and the option still among its rows.
        guard let question = entry.question, question.text == pushed.question.text,
              question.options.contains(where: { PaneText.matches($0.label, option.label) != .none }) else {
            return record(refusal: "the question changed", channel: channel, entry: entry, verified: true)
        }
        do {
            var session = try AnswerSession.open(target: entry.key, paths: paths, environment: environment, warn: { _ in })
            session.channel = channel
            _ = try Reply(choices: [option.label]).perform(in: session, warn: { _ in })
        } catch {
            return record(refusal: Self.reason(error), channel: channel, entry: entry, verified: true)
        }
        counts.withLock { $0.pressed += 1 }
        AnswerListener.log(paths, "\(channel): pressed '\(AnswerText.forTerminal(Text.truncate(option.label, characters: 60)))' for \(AnswerText.forTerminal(entry.key))")
        return .pressed(option.label)
    }

    /// Why `reply` pressed nothing, in the words a push can say after "not answered: ".
    package static func reason(_ error: any Error) -> String {
        switch error {
        case AnswerError.refused(_, let reason): return "the pane changed: " + reason
        case AnswerError.paneUncertain(_, _, let agent, _, _):
            return "the pane may be another \(agent)'s session (\(agent)'s app-server daemon named it); answer at the keyboard"
        case AnswerError.noMenu: return "the question is no longer on the screen"
        case AnswerError.choiceNotShown, AnswerError.ambiguousChoice: return "the option is not on the screen now"
        case AnswerError.cursorNotReached: return "the dialog's cursor could not be moved to the option"
        default: return Text.truncate(Text.singleLine("\(error)"), characters: 200)
        }
    }

    /// Records a refusal as an event (of the agent's session when known) and counts it.
    @discardableResult
    private func record(refusal why: String, channel: String, entry: BoardEntry?, verified: Bool) -> Outcome {
        let logged = counts.withLock { counts -> Bool in
            counts.refused += 1
            guard !verified else { return true }
            let minute = Int(WallClock.nowEpoch() / 60)
            if counts.minute != minute { counts.minute = minute; counts.unverifiedLogged = 0 }
            counts.unverifiedLogged += 1
            return counts.unverifiedLogged <= Self.unverifiedPerMinute
        }
        if logged {
            var event = Event(agent: entry?.agent ?? "hookctl", kind: .info, agentEvent: Event.pushReplyRefused,
                              title: "Not answered from the push (\(channel))", message: "not answered: " + why,
                              host: shortHostName(), tmux: entry?.tmux, cwd: entry?.cwd, sessionID: entry?.sessionID)
            event.answer = nil
            try? EventLog(paths: paths).append(&event)
            AnswerListener.log(paths, "\(channel): refused an answer" + (entry.map { " for \(AnswerText.forTerminal($0.key))" } ?? "") + ": \(why)")
        }
        return .refused(why, verified: verified)
    }
}
