/// What an agent session is doing, as the board shows it.
///
/// `idle` is a session that has started but was given no prompt yet; `done` one whose turn finished
/// (or was interrupted): in both the agent waits at its prompt without having asked anything (that
/// would be `needs_input`).
package enum AgentState: String, Sendable, CaseIterable {
    case needsInput = "needs_input"
    case working
    case failed
    case done
    case idle
    case ended

    /// Board order: what needs the user first.
    package var rank: Int {
        switch self {
        case .needsInput: return 0
        case .working: return 1
        case .failed: return 2
        case .done: return 3
        case .idle: return 4
        case .ended: return 5
        }
    }

    /// The agent sits at its prompt with nothing asked: a finished turn, or a session given no prompt yet.
    package var isAtPrompt: Bool { self == .done || self == .idle }

    /// The state an event of `kind` leads to from `current` (nil: no change).
    /// `started` makes a new or finished session `idle` but does not interrupt a busy one:
    /// Claude fires `SessionStart` again after compacting a conversation in the middle of work.
    package static func next(from current: AgentState?, on kind: EventKind) -> AgentState? {
        switch kind {
        case .started:
            // A session that starts again (resume, compaction) keeps what it was doing, or its failure.
            if let current, current == .working || current == .needsInput || current == .failed || current == .done {
                return current
            }
            return .idle
        case .working: return .working
        case .needsInput: return .needsInput
        case .done: return .done
        case .failed: return .failed
        case .ended: return .ended
        case .test, .info, .notice: return nil
        }
    }
}

/// Why a session is `ended`.
package enum EndReason: String, Sendable {
    /// The agent reported the end of its session.
    case sessionEnd = "session_end"
    /// Its tmux pane (or the whole tmux server) no longer exists.
    case paneGone = "pane_gone"
    /// Another agent session started in the same tmux pane.
    case replaced
    /// The agent's process exited without a word (its shell is back in the pane).
    case agentExited = "agent_exited"
    /// The user took it off the board (`hookctl dismiss`).
    case dismissed
}

/// Why a session left `needs_input` or `working` without a hook saying so: what its pane showed.
package enum SettleReason: String, Sendable {
    /// The dialog was refused or cancelled (Esc, No): Claude Code shows `Interrupted` and fires no hook.
    case interrupted
    /// The dialog is gone and the agent waits at its prompt.
    case atPrompt = "at_prompt"
}

/// One agent session on the board: the newest facts the event log holds about it.
package struct BoardEntry: Sendable, Equatable {
    /// `agent:session_id`, or `agent:pane:…` / `agent:cwd:…` when the agent gave no session id.
    package var key: String
    package var agent: String
    package var sessionID: String?
    package var state: AgentState
    /// When the session entered its current state (for `done`, `failed`, `needs_input`: the latest such event).
    package var since: Double
    /// The time of the newest event of this session, of any kind.
    package var updatedAt: Double
    package var firstSeen: Double
    package var lastSeq: Int
    package var kind: EventKind
    package var agentEvent: String
    package var title: String
    /// Single line, shortened to `BoardState.messageLimit` characters.
    package var message: String
    package var detail: String?
    package var tmux: TmuxLocation?
    package var cwd: String?
    package var host: String
    package var endReason: EndReason?
    /// The process tmux runs in the pane and its start time (from /proc), learned from a pane check:
    /// while it lives the pane exists, so `status` need not ask tmux again.
    package var panePID: Int32? = nil
    package var panePIDStart: UInt64? = nil
    /// What the agent asks while it is `needs_input`, when its hook said (nil otherwise).
    package var question: Question? = nil
    /// The agent's processes in its pane, as the newest hook from there recorded them (see `PaneProcesses`).
    package var processes: PaneProcesses? = nil
    /// The session's last event that pushed: its `PushPolicy.fingerprint` and time (for repeats).
    package var lastPush: String? = nil
    package var lastPushAt: Double? = nil
    /// Counts the times the session moved on (a prompt, a reply, a tool, any change of state): two
    /// events with the same count and no turn id of the agent's own belong to the same turn.
    package var episode: Int = 0
    /// The turn of the last push: the agent's turn id, else `#` and the episode it was pushed in.
    package var lastPushTurn: String? = nil
    /// Why the board moved the session without a hook (its pane showed it), nil otherwise.
    package var settled: SettleReason? = nil
    /// The project the agent works in (the git repository's name, else its directory's), and the branch:
    /// from the newest event that said (display only; older boards fall back to `cwd`'s last part).
    package var project: String? = nil
    package var branch: String? = nil
    /// The sequence number of the event that made the question the session shows now (nil with no
    /// question): the same text asked again after the session moved on is another number, so an answer
    /// a push offered for the earlier one is not taken for it (`AnswerRecords`).
    package var askedSeq: Int? = nil

    /// The project's name as the board shows it and targets match it: the recorded one, else `cwd`'s last part.
    package var projectName: String? {
        if let project, !project.isEmpty { return project }
        return cwd.map(FileSystem.fileName(of:)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What `PushPolicy` needs to know about this session.
    package var pushHistory: PushHistory {
        PushHistory(state: state, lastPush: lastPush, lastPushAt: lastPushAt, question: state == .needsInput ? question : nil,
                    episode: episode, lastPushTurn: lastPushTurn)
    }

    /// `working` with no event for longer than `staleAfter` seconds.
    package func isStale(now: Double, staleAfter: Double) -> Bool {
        state == .working && now - updatedAt > staleAfter
    }

    package init(
        key: String,
        agent: String,
        sessionID: String? = nil,
        state: AgentState,
        since: Double,
        updatedAt: Double,
        firstSeen: Double,
        lastSeq: Int,
        kind: EventKind,
        agentEvent: String,
        title: String,
        message: String,
        detail: String? = nil,
        tmux: TmuxLocation? = nil,
        cwd: String? = nil,
        host: String,
        endReason: EndReason? = nil,
        panePID: Int32? = nil,
        panePIDStart: UInt64? = nil,
        question: Question? = nil,
        processes: PaneProcesses? = nil,
        lastPush: String? = nil,
        lastPushAt: Double? = nil,
        episode: Int = 0,
        lastPushTurn: String? = nil,
        settled: SettleReason? = nil,
        project: String? = nil,
        branch: String? = nil,
        askedSeq: Int? = nil
    ) {
        self.key = key
        self.agent = agent
        self.sessionID = sessionID
        self.state = state
        self.since = since
        self.updatedAt = updatedAt
        self.firstSeen = firstSeen
        self.lastSeq = lastSeq
        self.kind = kind
        self.agentEvent = agentEvent
        self.title = title
        self.message = message
        self.detail = detail
        self.tmux = tmux
        self.cwd = cwd
        self.host = host
        self.endReason = endReason
        self.panePID = panePID
        self.panePIDStart = panePIDStart
        self.question = question
        self.processes = processes
        self.lastPush = lastPush
        self.lastPushAt = lastPushAt
        self.episode = episode
        self.lastPushTurn = lastPushTurn
        self.settled = settled
        self.project = project
        self.branch = branch
        self.askedSeq = askedSeq
    }
}

/// How much the board keeps: it is read on every hook call, so it stays small.
package struct BoardLimits: Sendable, Equatable {
    /// Ended sessions are forgotten after this many seconds.
    package var endedRetention: Double = 3 * 86400
    /// Any session silent for this long is forgotten.
    package var retention: Double = 14 * 86400
    /// At most this many sessions; the oldest (ended ones first) go.
    package var maxEntries: Int = 200

    /// Which sessions to forget: expired ones, then the oldest (ended ones first) beyond the cap.
    package func victims(_ sessions: [(ended: Bool, updatedAt: Double)], now: Double) -> Set<Int> {
        var drop = Set(sessions.indices.filter { index in
            let age = now - sessions[index].updatedAt
            return sessions[index].ended ? age > endedRetention : age > retention
        })
        let remaining = sessions.count - drop.count
        guard remaining > maxEntries else { return drop }
        let oldest = sessions.indices.filter { !drop.contains($0) }.sorted { a, b in
            if sessions[a].ended != sessions[b].ended { return sessions[a].ended }
            return sessions[a].updatedAt < sessions[b].updatedAt
        }
        drop.formUnion(oldest.prefix(remaining - maxEntries))
        return drop
    }
}

/// The board: every agent session seen on this host and its state, kept up to date on each append
/// so `status` never reads the whole log. Stored as `board.state` next to the log (see `BoardFile`).
package struct BoardState: Sendable, Equatable {
    package static let messageLimit = 200

    /// The newest sequence number given out; appends continue from here.
    package var lastSeq: Int = 0
    /// The log file (inode) and the byte offset up to which this board has applied it: when the
    /// file on disk differs, events were written past the board and are replayed.
    package var logInode: UInt64 = 0
    package var logOffset: Int = 0
    package var entries: [BoardEntry] = []

    package init() {}

    /// The agent event `reply` records: the user answered from hookctl.
    package static let replyEvent = "reply"
    /// The agent event of an answer pressed from a push's button (ntfy, Telegram).
    package static let pushReplyEvent = "push_reply"

    /// Whether the user answered from hookctl: `reply`, or a push's button.
    package static func isReply(_ agentEvent: String) -> Bool { agentEvent == replyEvent || agentEvent == pushReplyEvent }

    /// Which board entry an event belongs to.
    package static func key(for event: Event) -> String {
        if let session = event.sessionID, !session.isEmpty { return "\(event.agent):\(session)" }
        if let tmux = event.tmux { return "\(event.agent):pane:\(tmux.socket ?? "")\(tmux.pane)" }
        if let cwd = event.cwd, !cwd.isEmpty { return "\(event.agent):cwd:\(cwd)" }
        return "\(event.agent):host:\(event.host)"
    }

    /// Folds one recorded event into the board.
    package mutating func apply(_ event: Event) {
        if let seq = event.seq, seq > lastSeq { lastSeq = seq }
        // A refused answer from a push changes nothing: whoever can post to a reply topic cannot move the board.
        if event.kind == .test || event.agentEvent == Event.pushReplyRefused { return }
        let key = BoardState.key(for: event)
        let index = entries.firstIndex(where: { $0.key == key })
        // A late event older than its session's newest one is in the log, but the newer state stands.
        if event.late, let index, event.time < entries[index].updatedAt { return }
        // Nor one from a pane that a newer session has taken since: it does not end that one.
        if event.late, let pane = event.tmux, !pane.paneInherited, entries.contains(where: { $0.key != key && $0.updatedAt > event.time
            && $0.tmux?.pane == pane.pane && $0.tmux?.socket == pane.socket && $0.tmux?.paneInherited != true }) { return }
        // An idle reminder after a finished turn changes nothing: the session stays `done` (PushPolicy);
        // a notice the agent sends on its own changes no state either.
        // So does Codex's notify beside its trusted Stop hook: the turn's own is a second report, the
        // thread-title side request's names a thread of its own that must not take the pane (CodexNotify).
        let quietIdle = event.quietReason == .idleAfterDone || event.quietReason == .besideStopHook
        guard !quietIdle, let next = AgentState.next(from: index.map { entries[$0].state }, on: event.kind) else {
            // `info` keeps an existing session fresh (it is alive) but creates none and changes no state.
            if let index { touch(&entries[index], with: event, updateMessage: false) }
            return
        }
        if let pane = event.tmux, event.kind != .ended, !pane.paneInherited {
            // One pane runs one agent at a time: a new session there ends the one before it. Not a pane named
            // by an inherited environment (Codex's daemon runs every Codex's hooks with its starter's pane): two
            // sessions recorded there may both be live in panes of their own, and one must not end the other
            // (a question still waiting would leave the board). Such rows end with their processes instead.
            for other in entries.indices where entries[other].key != key && entries[other].state != .ended
                && entries[other].tmux?.pane == pane.pane && entries[other].tmux?.socket == pane.socket
                && entries[other].tmux?.paneInherited != true {
                entries[other].state = .ended
                entries[other].since = event.time
                entries[other].endReason = .replaced
            }
        }
        if let index {
            var entry = entries[index]
            let repeated = entry.state == next
            if !repeated || (next != .working && event.kind != .started) { entry.since = event.time }
            let wasWaiting = entry.state == .needsInput
            // A prompt, a reply, a tool, any change of state: the session moved on, a new turn for repeats.
            if !repeated || next == .working || BoardState.isReply(event.agentEvent) { entry.episode += 1 }
            entry.state = next
            entry.settled = nil
            entry.endReason = next == .ended ? .sessionEnd : nil
            touch(&entry, with: event, updateMessage: true)
            BoardState.follow(question: event.question, seq: event.seq, into: &entry, wasWaiting: wasWaiting)
            entries[index] = entry
        } else {
            var entry = BoardEntry(key: key, agent: event.agent, sessionID: event.sessionID, state: next, since: event.time,
                                   updatedAt: event.time, firstSeen: event.time, lastSeq: event.seq ?? lastSeq,
                                   kind: event.kind, agentEvent: event.agentEvent, title: "", message: "",
                                   detail: nil, tmux: nil, cwd: nil, host: event.host,
                                   endReason: next == .ended ? .sessionEnd : nil)
            touch(&entry, with: event, updateMessage: true)
            BoardState.follow(question: event.question, seq: event.seq, into: &entry, wasWaiting: false)
            entries.append(entry)
        }
    }

    private func touch(_ entry: inout BoardEntry, with event: Event, updateMessage: Bool) {
        entry.updatedAt = max(entry.updatedAt, event.time)
        if let seq = event.seq { entry.lastSeq = seq }
        if let tmux = event.tmux {
            if tmux.pane != entry.tmux?.pane || tmux.socket != entry.tmux?.socket {
                entry.panePID = nil
                entry.panePIDStart = nil
                entry.processes = nil
            }
            entry.tmux = tmux
        }
        if let processes = event.process, event.tmux != nil {
            entry.processes = processes
            entry.panePID = processes.pane
            entry.panePIDStart = processes.paneStart
        }
        if let cwd = event.cwd, !cwd.isEmpty { entry.cwd = cwd }
        if let project = event.project, !project.name.isEmpty {
            entry.project = project.name
            entry.branch = project.branch
        }
        if !event.host.isEmpty { entry.host = event.host }
        if PushPolicy.pushed(event) {
            entry.lastPush = PushPolicy.fingerprint(event)
            entry.lastPushAt = event.time
            entry.lastPushTurn = PushPolicy.turnMarker(event, episode: entry.episode)
        }
        guard updateMessage else { return }
        entry.kind = event.kind
        entry.agentEvent = event.agentEvent
        entry.detail = event.detail
        if !event.title.isEmpty { entry.title = Text.truncate(Text.singleLine(event.title), characters: 120) }
        let message = Text.singleLine(event.message)
        if !message.isEmpty || event.kind != .started {
            entry.message = Text.truncate(message, characters: BoardState.messageLimit)
        }
    }

    /// The question a session shows: set by a `needs_input` event that carries one, kept through
    /// further waits that say less (Claude's `Notification` after its `PermissionRequest`: no options), gone once
    /// the session does anything else. While it stands, the board's message is its short form.
    package static func follow(question: Question?, seq: Int?, into entry: inout BoardEntry, wasWaiting: Bool) {
        guard entry.state == .needsInput else {
            entry.question = nil
            entry.askedSeq = nil
            return
        }
        if let question {
            if wasWaiting, let standing = entry.question, PushPolicy.sameDialog(question, standing) {
                // The same dialog again: a bare notice keeps the full question; the pane's own rows
                // replace options the payload could not number, under the question's text.
                if question.fromScreen, !question.options.isEmpty {
                    var merged = question
                    merged.text = standing.text
                    merged.header = standing.header
                    entry.question = merged
                }
            } else {
                entry.question = question
                entry.askedSeq = seq
            }
        } else if !wasWaiting {
            entry.question = nil
            entry.askedSeq = nil
        }
        if let question = entry.question {
            entry.message = Text.truncate(Text.singleLine(question.short), characters: BoardState.messageLimit)
        }
    }

    /// Marks a session ended without an event (its pane is gone). Returns false when it is unknown or already ended.
    @discardableResult
    package mutating func end(key: String, reason: EndReason, at time: Double, ifLastSeq seq: Int? = nil) -> Bool {
        guard let index = entries.firstIndex(where: { $0.key == key }), entries[index].state != .ended else { return false }
        if let seq, entries[index].lastSeq != seq { return false }
        entries[index].state = .ended
        entries[index].since = time
        entries[index].endReason = reason
        return true
    }

    /// Moves a waiting or working session to `done` because its pane shows it is back at its prompt,
    /// unless a newer event arrived since (`ifLastSeq`). Returns whether it changed.
    @discardableResult
    package mutating func settle(key: String, reason: SettleReason, at time: Double, ifLastSeq seq: Int) -> Bool {
        guard let index = entries.firstIndex(where: { $0.key == key }), entries[index].lastSeq == seq,
              entries[index].state == .needsInput || entries[index].state == .working else { return false }
        entries[index].state = .done
        entries[index].since = time
        entries[index].settled = reason
        entries[index].question = nil
        entries[index].askedSeq = nil
        entries[index].episode += 1
        entries[index].message = reason == .interrupted ? "Interrupted: waiting for what to do instead" : "Waiting at its prompt"
        return true
    }

    /// Forgets old sessions so the board stays small.
    package mutating func prune(now: Double, limits: BoardLimits) {
        let drop = limits.victims(entries.map { ($0.state == .ended, $0.updatedAt) }, now: now)
        guard !drop.isEmpty else { return }
        entries = entries.indices.filter { !drop.contains($0) }.map { entries[$0] }
    }

    /// Entries in board order: needs input, working, failed, done, ended; newest first within a state.
    package var ordered: [BoardEntry] {
        // Positions are sorted, not entries: moving a session (thirty fields) at every step of the sort
        // cost more than reading it.
        entries.withUnsafeBufferPointer { entries in
            stableOrder(count: entries.count) { a, b in
                if entries[a].state.rank != entries[b].state.rank { return entries[a].state.rank < entries[b].state.rank }
                if entries[a].since != entries[b].since { return entries[a].since > entries[b].since }
                return entries[a].key < entries[b].key
            }.map { entries[$0] }
        }
    }

    // MARK: - One session as stored in board.state

    package static func storedJSON(_ entry: BoardEntry) -> JSONValue {
        var object = JSONObject()
        object["key"] = .string(entry.key)
        object["agent"] = .string(entry.agent)
        if let sessionID = entry.sessionID { object["session_id"] = .string(sessionID) }
        object["state"] = .string(entry.state.rawValue)
        object["since"] = .double(entry.since)
        object["updated_at"] = .double(entry.updatedAt)
        object["first_seen"] = .double(entry.firstSeen)
        object["last_seq"] = .int(entry.lastSeq)
        object["kind"] = .string(entry.kind.rawValue)
        object["agent_event"] = .string(entry.agentEvent)
        object["title"] = .string(entry.title)
        object["message"] = .string(entry.message)
        if let detail = entry.detail { object["detail"] = .string(detail) }
        if let tmux = entry.tmux { object["tmux"] = tmuxJSON(tmux) }
        if let cwd = entry.cwd { object["cwd"] = .string(cwd) }
        object["host"] = .string(entry.host)
        if let reason = entry.endReason { object["end_reason"] = .string(reason.rawValue) }
        if let pid = entry.panePID, let start = entry.panePIDStart {
            object["pane_pid"] = .int(Int(pid))
            object["pane_pid_start"] = .string(String(start))
        }
        if let question = entry.question { object["question"] = question.json }
        if let processes = entry.processes { object["processes"] = processes.json }
        if let lastPush = entry.lastPush, let lastPushAt = entry.lastPushAt {
            object["last_push"] = .string(lastPush)
            object["last_push_at"] = .double(lastPushAt)
        }
        if entry.episode != 0 { object["episode"] = .int(entry.episode) }
        if let turn = entry.lastPushTurn { object["last_push_turn"] = .string(turn) }
        if let settled = entry.settled { object["settled"] = .string(settled.rawValue) }
        if let project = entry.project { object["project"] = .string(project) }
        if let branch = entry.branch { object["branch"] = .string(branch) }
        if let asked = entry.askedSeq { object["asked_seq"] = .int(asked) }
        return .object(object)
    }

    /// A stored session (the JSON of `storedJSON`) as written; the one reader of that form.
    package static func storedEntry(_ json: JSONValue) throws -> BoardEntry {
        try storedEntry(Array(JSON.serialize(json).utf8)[...])
    }

    /// Reads a stored session from its JSON bytes key by key, with no JSON tree built: `status` reads
    /// every session of the board, and building each one's tree and looking its keys up cost more
    /// than all the rest of the command. A value of another type than the key's is as if absent.
    package static func storedEntry(_ bytes: ArraySlice<UInt8>) throws -> BoardEntry {
        try JSON.read(bytes) { parser in
            var key: String?, agent: String?, sessionID: String?, state: AgentState?, since: Double?
            var updatedAt: Double?, firstSeen: Double?, lastSeq: Int?, kind: EventKind?, agentEvent: String?
            var title: String?, message: String?, detail: String?, tmux: TmuxLocation?, cwd: String?, host: String?
            var endReason: EndReason?, panePID: Int32?, panePIDStart: UInt64?, question: Question?
            var processes: PaneProcesses?, lastPush: String?, lastPushAt: Double?, episode: Int?, lastPushTurn: String?
            var settled: SettleReason?, project: String?, branch: String?, askedSeq: Int?
            try parser.readObject { name, parser in
                // Each assignment replaces the one before: a key that repeats takes its last value.
                if name.spells("key") { key = try parser.readString() }
                else if name.spells("agent") { agent = try parser.readString() }
                else if name.spells("session_id") { sessionID = try parser.readString() }
                else if name.spells("state") { state = try parser.readString().flatMap(AgentState.init(rawValue:)) }
                else if name.spells("since") { since = try parser.readDouble() }
                else if name.spells("updated_at") { updatedAt = try parser.readDouble() }
                else if name.spells("first_seen") { firstSeen = try parser.readDouble() }
                else if name.spells("last_seq") { lastSeq = try parser.readInt() }
                else if name.spells("kind") { kind = try parser.readString().flatMap(EventKind.init(rawValue:)) }
                else if name.spells("agent_event") { agentEvent = try parser.readString() }
                else if name.spells("title") { title = try parser.readString() }
                else if name.spells("message") { message = try parser.readString() }
                else if name.spells("detail") { detail = try parser.readString() }
                else if name.spells("tmux") { tmux = tmuxLocation(try parser.parseValue()) }
                else if name.spells("cwd") { cwd = try parser.readString() }
                else if name.spells("host") { host = try parser.readString() }
                else if name.spells("end_reason") { endReason = try parser.readString().flatMap(EndReason.init(rawValue:)) }
                else if name.spells("pane_pid") { panePID = try parser.readInt().map { Int32(truncatingIfNeeded: $0) } }
                else if name.spells("pane_pid_start") { panePIDStart = try parser.readString().flatMap { UInt64($0) } }
                else if name.spells("question") { question = Question(json: try parser.parseValue()) }
                else if name.spells("processes") { processes = PaneProcesses(json: try parser.parseValue()) }
                else if name.spells("last_push") { lastPush = try parser.readString() }
                else if name.spells("last_push_at") { lastPushAt = try parser.readDouble() }
                else if name.spells("episode") { episode = try parser.readInt() }
                else if name.spells("last_push_turn") { lastPushTurn = try parser.readString() }
                else if name.spells("settled") { settled = try parser.readString().flatMap(SettleReason.init(rawValue:)) }
                else if name.spells("project") { project = try parser.readString() }
                else if name.spells("branch") { branch = try parser.readString() }
                else if name.spells("asked_seq") { askedSeq = try parser.readInt() }
                else { try parser.skipValue() }
            }
            guard let key, let agent, let state, let since else {
                throw EventError.malformedRecord("board session without key, agent, state and since")
            }
            var entry = BoardEntry(key: key, agent: agent, sessionID: sessionID, state: state, since: since,
                                   updatedAt: updatedAt ?? since, firstSeen: firstSeen ?? since, lastSeq: lastSeq ?? 0,
                                   kind: kind ?? .info, agentEvent: agentEvent ?? "", title: title ?? "", message: message ?? "",
                                   detail: detail, tmux: tmux, cwd: cwd, host: host ?? "", endReason: endReason)
            entry.panePID = panePID
            entry.panePIDStart = panePIDStart
            entry.question = question
            entry.processes = processes
            entry.lastPush = lastPush
            entry.lastPushAt = lastPushAt
            entry.episode = episode ?? 0
            entry.lastPushTurn = lastPushTurn
            entry.settled = settled
            entry.project = project
            entry.branch = branch
            entry.askedSeq = askedSeq
            return entry
        }
    }

    package static func tmuxJSON(_ tmux: TmuxLocation) -> JSONValue { tmux.json }

    package static func tmuxLocation(_ json: JSONValue) -> TmuxLocation? { TmuxLocation(json: json) }
}
