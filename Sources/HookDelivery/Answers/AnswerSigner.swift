/// The answer buttons of a `needs_input` push, minted by the delivery side (the engine holds one signer
/// and hands each sink with answers, `ntfy` with `reply_topic` and `telegram` with `actions`, its
/// `AnswerButton`s: a sink only lays them out). Which options get a button, and a token for each
/// (`AnswerToken`). Making a token marks answers as open until it expires (`answer-open`) and makes sure
/// the listener runs (`AnswerListener.start`): the sender starts its sibling, one per user.
package struct AnswerSigner: Sendable {
    package var paths: Paths
    package var environment: [String: String]
    /// The config the listener reads (the sender's own `--config`).
    package var configFile: String
    /// False for a preview (`test --dry-run`, `doctor`): no key is made, no listener started, and the
    /// tokens are placeholders.
    package var live = true

    /// The signer of the user whose state `paths` names; the listener it starts reads `paths.configFile`.
    package init(paths: Paths, environment: [String: String], live: Bool = true) {
        self.paths = paths
        self.environment = environment
        configFile = paths.configFile
        self.live = live
    }

    /// A preview's (`test --dry-run`, `doctor`): placeholders, no key, no listener.
    package static let preview = AnswerSigner(paths: Paths(environment: [:]), environment: [:], live: false)

    /// The options a push offers as buttons, of a single-answer question: a Yes/No dialog gives its Yes
    /// and No rows; else the first `limit`. Each is pressed by its label, found among the rows the
    /// screen shows then (so the digit pressed is the screen's), as `reply --choice LABEL` does.
    package static func offered(_ question: Question?, limit: Int) -> [Question.Option] {
        guard let question, !question.multiSelect, question.count <= 1 else { return [] }
        let numbered = question.options
        func plain(_ label: String) -> String { Text.trimmed(label).lowercased() }
        if let yes = numbered.first(where: { plain($0.label) == "yes" }),
           let no = numbered.first(where: { plain($0.label) == "no" || plain($0.label).hasPrefix("no,") || plain($0.label).hasPrefix("no ") }) {
            return Array([yes, no].prefix(limit))
        }
        return Array(numbered.prefix(limit))
    }

    /// A button, with its token, for each offered option of `event`'s question, in order; empty when the event asks
    /// nothing that can be answered from a push, or the key cannot be had (the push then goes without buttons).
    package func buttons(for event: Event, limit: Int) -> [AnswerButton] {
        guard event.kind == .needsInput, let question = event.question else { return [] }
        let options = Self.offered(question, limit: limit)
        guard !options.isEmpty else { return [] }
        let expiry = Int(WallClock.nowEpoch() + AnswerToken.lifetime)
        guard live else { return options.map { AnswerButton(option: $0, token: "(answer token)") } }
        guard let key = (try? AnswerKey.load(paths: paths, create: true)) ?? nil else { return [] }
        let boardKey = BoardState.key(for: event)
        // Which asking of the question this push is: the board's, read now. A push for an earlier asking
        // than the board shows (a late send) offers no buttons; with none on the board, none either.
        guard let entry = EventLog(paths: paths).storedEntry(for: event), entry.state == .needsInput, let asked = entry.askedSeq,
              event.seq.map({ $0 >= asked }) ?? true else { return [] }
        var records: [AnswerRecords.Record] = []
        var buttons: [AnswerButton] = []
        for option in options {
            guard let position = question.options.firstIndex(of: option).map({ $0 + 1 }) else { continue }
            let token = AnswerToken.mint(key: key, boardKey: boardKey, question: question, asked: asked, option: position, expiry: expiry)
            records.append(AnswerRecords.Record(nonce: token.nonce, boardKey: boardKey, question: question, asked: asked,
                                                position: position, expiry: expiry))
            buttons.append(AnswerButton(option: option, token: token.text))
        }
        // Kept before the push goes out: an answer whose record is missing is refused.
        guard (try? AnswerRecords(paths: paths).add(records)) != nil else { return [] }
        AnswerListener.open(until: expiry, paths: paths)
        AnswerListener.start(paths: paths, configFile: configFile, environment: environment)
        return buttons
    }
}

/// An option a push offers as a button, with the answer token that presses it (`AnswerSigner`).
package struct AnswerButton: Sendable, Equatable {
    package var option: Question.Option
    package var token: String
}
