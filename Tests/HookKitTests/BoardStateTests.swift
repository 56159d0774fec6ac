import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents

@Suite struct BoardStateTests {
    /// A late event (caught up after newer ones) of a session a newer one replaced in its tmux pane
    /// neither brings the old session back nor ends the newer one.
    @Test func aLateEventOfAReplacedSessionChangesNothing() {
        func event(_ session: String, _ kind: EventKind, at time: Double, late: Bool = false) -> Event {
            var event = Event(time: time, agent: "claude", kind: kind, agentEvent: "x", title: "", message: "", host: "h",
                              tmux: TmuxLocation(pane: "%1", socket: "/tmp/s"), sessionID: session)
            event.late = late
            return event
        }
        var board = BoardState()
        board.apply(event("A", .working, at: 100))
        board.apply(event("B", .started, at: 200))
        board.apply(event("A", .needsInput, at: 150, late: true))
        let states = board.entries.map { "\($0.sessionID ?? ""):\($0.state.rawValue)" }
        #expect(board.entries.first { $0.sessionID == "A" }?.state == .ended, "\(states)")
        #expect(board.entries.first { $0.sessionID == "B" }?.state != .ended, "\(states)")
    }

    /// Codex's daemon names one pane for every Codex's hooks (`paneInherited`): a session recorded there
    /// does not end another recorded there (both may be live, in panes of their own, one of them waiting on
    /// a question), nor does an agent's own session in that pane end them, nor they it; late events of
    /// either are applied. Sessions of a pane of their own still replace each other.
    @Test func sessionsInAPaneTheDaemonNamedDoNotReplaceEachOther() {
        func event(_ session: String, _ kind: EventKind, at time: Double, inherited: Bool, agent: String = "codex",
                   late: Bool = false) -> Event {
            var event = Event(time: time, agent: agent, kind: kind, agentEvent: "x", title: "", message: "", host: "h",
                              tmux: TmuxLocation(pane: "%0", socket: "/tmp/s", paneInherited: inherited), sessionID: session)
            event.late = late
            return event
        }
        var board = BoardState()
        board.apply(event("first", .needsInput, at: 100, inherited: true))
        board.apply(event("second", .needsInput, at: 110, inherited: true))
        board.apply(event("second", .done, at: 120, inherited: true))
        board.apply(event("first", .working, at: 115, inherited: true, late: true))
        func state(_ session: String) -> AgentState? { board.entries.first { $0.sessionID == session }?.state }
        let states = board.entries.map { "\($0.sessionID ?? ""):\($0.state.rawValue)" }
        #expect(state("first") == .working && state("second") == .done, "\(states)")
        // Another agent started in that pane (its own environment) ends none of them, and they do not end it.
        board.apply(event("claude-1", .started, at: 130, inherited: false, agent: "claude"))
        board.apply(event("first", .needsInput, at: 140, inherited: true))
        #expect(state("first") == .needsInput && state("second") == .done && state("claude-1") != .ended && state("claude-1") != nil,
                "\(board.entries.map { "\($0.sessionID ?? ""):\($0.state.rawValue)" })")
        // Sessions in a pane of their own still replace each other.
        board.apply(event("claude-2", .started, at: 150, inherited: false, agent: "claude"))
        #expect(state("claude-1") == .ended && board.entries.first { $0.sessionID == "claude-1" }?.endReason == .replaced)
    }

    static func board(_ kinds: [EventKind], start: Double = 1_000_000) -> BoardState {
        var board = BoardState()
        for (offset, kind) in kinds.enumerated() {
            var event = hookEvent(kind, message: "m\(offset)", time: start + Double(offset) * 10)
            event.seq = offset + 1
            board.apply(event)
        }
        return board
    }

    @Test(arguments: [
        ([EventKind.started], AgentState.idle),
        ([.started, .working], .working),
        ([.started, .working, .needsInput], .needsInput),
        ([.started, .working, .needsInput, .working, .done], .done),
        ([.working, .failed], .failed),
        ([.working, .ended], .ended),
        ([.working, .started], .working),          // SessionStart after compaction keeps a busy agent busy
        ([.needsInput, .started], .needsInput),
        ([.done, .started], .done),
        ([.working, .ended, .started], .idle),     // a resumed session comes back idle
        ([.working, .info], .working),
        ([.done, .test], .done),
        ([.failed, .working], .working),
    ])
    func hookSequencesGiveTheExpectedState(kinds: [EventKind], expected: AgentState) throws {
        let board = Self.board(kinds)
        #expect(board.entries.count == 1)
        #expect(board.entries.first?.state == expected)
        #expect(board.lastSeq == kinds.count)
    }

    @Test func infoAndTestCreateNoSession() {
        let board = Self.board([.info, .test])
        #expect(board.entries.isEmpty)
        #expect(board.lastSeq == 2)
    }

    @Test func sinceIsWhenTheStateBeganForWorkAndTheLatestForOutcomes() throws {
        let working = Self.board([.working, .working, .working], start: 100)
        #expect(working.entries[0].since == 100)
        #expect(working.entries[0].updatedAt == 120)
        let done = Self.board([.working, .done, .done], start: 100)
        #expect(done.entries[0].since == 120)
        let info = Self.board([.working, .info], start: 100)
        #expect(info.entries[0].since == 100)
        #expect(info.entries[0].updatedAt == 110)
        #expect(info.entries[0].message == "m0")  // info changes neither state nor message
    }

    @Test func sessionsAreKeyedByAgentAndSessionIdWithFallbacks() {
        #expect(BoardState.key(for: hookEvent(.done, session: "abc")) == "claude:abc")
        #expect(BoardState.key(for: hookEvent(.done, agent: "codex", session: nil, pane: "%3", socket: "/s")) == "codex:pane:/s%3")
        #expect(BoardState.key(for: hookEvent(.done, session: nil, cwd: "/w")) == "claude:cwd:/w")
        #expect(BoardState.key(for: hookEvent(.done, session: "", cwd: nil)) == "claude:host:testhost")
    }

    @Test func aNewSessionInTheSamePaneEndsTheOldOne() throws {
        var board = BoardState()
        board.apply(hookEvent(.working, session: "old", pane: "%1", socket: "/sock"))
        board.apply(hookEvent(.working, session: "other", pane: "%2", socket: "/sock"))
        board.apply(hookEvent(.started, session: "new", pane: "%1", socket: "/sock"))
        let states = Dictionary(uniqueKeysWithValues: board.entries.map { ($0.key, $0.state) })
        #expect(states["claude:old"] == .ended)
        #expect(board.entries.first { $0.key == "claude:old" }?.endReason == .replaced)
        #expect(states["claude:other"] == .working)
        #expect(states["claude:new"] == .idle)
    }

    @Test func messagesAreShortenedToOneLine() throws {
        var board = BoardState()
        board.apply(hookEvent(.done, message: "line one\n\nline two " + String(repeating: "é", count: 500)))
        let message = try #require(board.entries.first?.message)
        #expect(message.count == BoardState.messageLimit)
        #expect(message.hasPrefix("line one line two é"))
        #expect(message.hasSuffix("…"))
    }

    @Test func orderIsNeedsInputWorkingFailedDoneEnded() {
        var board = BoardState()
        let kinds: [(String, EventKind)] = [("a", .ended), ("b", .done), ("c", .failed), ("d", .working), ("e", .needsInput), ("f", .needsInput)]
        for (index, (session, kind)) in kinds.enumerated() { board.apply(hookEvent(kind, session: session, time: Double(index))) }
        #expect(board.ordered.map(\.sessionID) == ["f", "e", "d", "c", "b", "a"])
    }

    @Test func staleIsWorkingSilentForLongerThanTheLimit() throws {
        let board = Self.board([.working], start: 1000)
        let entry = board.entries[0]
        #expect(!entry.isStale(now: 1000 + 1799, staleAfter: 1800))
        #expect(entry.isStale(now: 1000 + 1801, staleAfter: 1800))
        let done = Self.board([.done], start: 1000).entries[0]
        #expect(!done.isStale(now: 1_000_000, staleAfter: 1800))
    }

    @Test func pruningKeepsTheBoardSmall() {
        var board = BoardState()
        for index in 0..<30 { board.apply(hookEvent(index % 2 == 0 ? .ended : .working, session: "s\(index)", time: Double(index))) }
        board.apply(hookEvent(.ended, session: "old-ended", time: -10 * 86400))
        board.prune(now: 40, limits: BoardLimits(endedRetention: 3 * 86400, retention: 14 * 86400, maxEntries: 20))
        #expect(board.entries.count == 20)
        #expect(!board.entries.contains { $0.sessionID == "old-ended" })
        // Ended sessions go before live ones, oldest first.
        #expect(board.entries.filter { $0.state == .working }.count == 15)
        var expired = BoardState()
        expired.apply(hookEvent(.ended, session: "e", time: 0))
        expired.apply(hookEvent(.working, session: "w", time: 0))
        expired.prune(now: 4 * 86400, limits: BoardLimits())
        #expect(expired.entries.map(\.sessionID) == ["w"])
    }

    @Test func boardFileRoundTrips() throws {
        var board = BoardState()
        board.apply(hookEvent(.needsInput, pane: "%7", socket: "/tmp/s", tmuxSession: "sshido-1", message: "Allow Bash?"))
        board.apply(hookEvent(.ended, agent: "codex", session: "c1", cwd: nil))
        board.logInode = 42
        board.logOffset = 1234
        let bytes = BoardFile(board).bytes
        let decoded = try #require(BoardFile(bytes: bytes)).board()
        #expect(decoded == board)
        #expect(BoardFile(bytes: Array(bytes.dropLast())) == nil)  // a cut-off file is not a board
        #expect(BoardFile(bytes: Array("{\"version\":1}\n".utf8)) == nil)
    }

    /// The append path decodes only the sessions an event concerns; it must agree with the full board.
    @Test func partialApplyAgreesWithTheFullBoard() throws {
        var full = BoardState()
        var file = BoardFile(BoardState())
        var time = 1000.0
        let sessions = ["a", "b", "c", "d"]
        let kinds: [EventKind] = [.started, .working, .needsInput, .info, .done, .failed, .test, .ended, .working]
        for index in 0..<200 {
            time += 1
            let session = sessions[(index * 7) % sessions.count]
            var event = hookEvent(kinds[(index * 5) % kinds.count], session: index % 13 == 0 ? nil : session,
                                  pane: index % 3 == 0 ? nil : "%\((index * 11) % 3)", socket: "/sock", message: "m\(index)", time: time)
            event.seq = index + 1
            full.apply(event)
            try file.apply(event, limits: BoardLimits())
        }
        let partial = try file.board()
        #expect(partial.lastSeq == full.lastSeq)
        #expect(partial.entries.sorted { $0.key < $1.key } == full.entries.sorted { $0.key < $1.key })
    }

    @Test func aPaneProcessIsKnownByPidAndStartTime() throws {
        #expect(PaneCheck.processStart(getpid()) != nil)
        #expect(PaneCheck.processStart(getpid()) == PaneCheck.processStart(getpid()))
        #expect(PaneCheck.processStart(0) == nil)
        #expect(PaneCheck.processStart(Int32.max) == nil)
        // An event from another pane forgets the learned process.
        var board = BoardState()
        board.apply(hookEvent(.working, pane: "%1", socket: "/s"))
        board.entries[0].panePID = 42
        board.entries[0].panePIDStart = 7
        board.apply(hookEvent(.working, pane: "%1", socket: "/s"))
        #expect(board.entries[0].panePID == 42)
        let stored = try BoardState.storedEntry(BoardState.storedJSON(board.entries[0]))
        #expect(stored.panePID == 42 && stored.panePIDStart == 7)
        board.apply(hookEvent(.done, pane: "%2", socket: "/s"))
        #expect(board.entries[0].panePID == nil)
    }

    @Test func endingByPaneCheckRespectsNewerEvents() {
        var board = Self.board([.working])
        let newer = board.end(key: "claude:s1", reason: .paneGone, at: 5, ifLastSeq: 99)
        #expect(!newer)
        let ended = board.end(key: "claude:s1", reason: .paneGone, at: 5, ifLastSeq: 1)
        #expect(ended)
        #expect(board.entries[0].state == .ended)
        #expect(board.entries[0].endReason == .paneGone)
        let again = board.end(key: "claude:s1", reason: .paneGone, at: 6)
        #expect(!again)
    }
}

@Suite struct BoardViewTests {
    static func entries() -> [BoardEntry] {
        var board = BoardState()
        board.apply(hookEvent(.needsInput, session: "a", pane: "%12", tmuxSession: "sshido-9B95BD2A",
                              message: "Claude needs your permission to use Bash: rm -rf build && swift build -c release", time: 0))
        board.apply(hookEvent(.working, agent: "codex", session: "b", cwd: "/home/me/some-rather-long-project-name", time: 100))
        board.apply(hookEvent(.done, agent: "gemini", session: "c", pane: "%3", tmuxSession: "日本語のセッション名前",
                              message: "完了しました 👩‍👩‍👧‍👦 " + String(repeating: "👍🏽", count: 60), time: 200))
        board.apply(hookEvent(.ended, session: "d", time: 300))
        return board.ordered
    }

    @Test(arguments: [20, 32, 40, 59, 60, 72, 80, 132])
    func tableFitsTheWidth(width: Int) {
        let table = BoardView.statusLines(Self.entries(), now: 4000, staleAfter: 1800, layout: TerminalLayout(width: width, cuts: true))
            .map { $0.rendered(color: false) + "\n" }.joined()
        let lines = table.split(separator: "\n")
        #expect(lines.count >= 4)
        for line in lines { #expect(BoardView.columns(String(line)) <= width, "\(line)") }
        if width >= BoardView.narrowWidth {
            #expect(lines.first?.hasPrefix("STATE") == true)
            #expect(lines[1].hasPrefix("needs_input"))
        } else {
            #expect(lines.first?.hasPrefix("INPUT") == true)
        }
        #expect(table.contains("stale"))  // codex has been working silently for over 30 minutes
    }

    @Test func terminalColumnsCountWideCharactersTwice() {
        #expect(BoardView.columns("abc") == 3)
        #expect(BoardView.columns("日本語") == 6)
        #expect(BoardView.columns("👍🏽 ok") == 5)
        #expect(BoardView.columns("é…") == 2)
        #expect(BoardView.fit("日本語のメッセージ", 7) == "日本語…")
        #expect(BoardView.fit("short", 10) == "short")
        #expect(BoardView.columns(BoardView.fit("👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦", 5)) <= 5)
    }

    @Test func relativeTimes() {
        #expect(BoardView.relative(-3) == "0s")
        #expect(BoardView.relative(59) == "59s")
        #expect(BoardView.relative(61) == "1m")
        #expect(BoardView.relative(7200) == "2h")
        #expect(BoardView.relative(3 * 86400 + 5) == "3d")
    }

    @Test func statusJSONHasStableKeys() throws {
        let entries = Self.entries()
        let json = BoardView.statusJSON(entries, board: BoardState(), now: 4000, staleAfter: 1800, host: "h")
        #expect(json.objectValue?.keys == ["generated_at", "host", "last_seq", "counts", "agents"])
        let agents = try #require(json["agents"]?.arrayValue)
        #expect(agents.count == 4)
        let keys = ["key", "agent", "state", "stale", "since", "updated_at", "session_id", "tmux", "cwd", "project", "branch", "title",
                    "message", "kind", "agent_event", "detail", "end_reason", "last_seq", "host", "question"]
        for agent in agents { #expect(agent.objectValue?.keys == keys) }
        #expect(agents[0]["tmux"]?["pane"]?.stringValue == "%12")
        #expect(agents[1]["stale"]?.boolValue == true)
        #expect(agents[1]["tmux"] == .null)
        #expect(json["counts"]?["needs_input"]?.intValue == 1)
    }

    @Test func widthComesFromTheOptionThenColumns() {
        #expect(BoardView.width(option: 50, environment: ["COLUMNS": "100"], terminal: nil) == 50)
        #expect(BoardView.width(option: nil, environment: ["COLUMNS": "100"], terminal: nil) == 100)
        #expect(BoardView.width(option: nil, environment: [:], terminal: nil) == 80)
    }
}

/// The board and the log lean on JSON's fast paths for strings with nothing to escape; they must
/// write and read exactly what the escaping path does.
@Suite struct BoardJSONStringTests {
    @Test(arguments: ["plain words", "quote \" inside", "back\\slash", "tab\tand\nnewline", "sep\u{2028}ara\u{2029}tors",
                      "del\u{7f}", "ellipsis… and — dashes", "emoji 👩‍👩‍👧‍👦 ok", "\u{1}\u{1f}", "", "日本語", "\u{e2}\u{80}"])
    func stringsRoundTrip(text: String) throws {
        let written = JSON.serialize(.object(JSONObject([("m", .string(text))])))
        #expect(try JSON.parse(written)["m"]?.stringValue == text)
        #expect(!written.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f || $0 == "\u{2028}" || $0 == "\u{2029}" })
    }
}
