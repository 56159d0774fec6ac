import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookAgents

/// What a push says and when: which agent (titles), once (PushPolicy), words intact and clean (OutgoingText).
@Suite struct PushPolicyTests {
    static let idle = [IdleReminder(event: "Notification", detail: "idle_prompt")]

    func event(_ kind: EventKind, _ agentEvent: String = "Stop", detail: String? = nil, message: String = "All tests pass.",
               time: Double = 1000) -> Event {
        Event(time: time, agent: "claude", kind: kind, agentEvent: agentEvent, title: "t", message: message, host: "h",
              sessionID: "s-1", detail: detail)
    }

    @Test func idleReminderAfterDoneIsRecordedOnly() {
        let reminder = event(.needsInput, "Notification", detail: "idle_prompt", message: "Claude is waiting for your input")
        #expect(PushPolicy.decide(reminder, history: PushHistory(state: .done), rules: PushRules(), idleReminders: Self.idle)
            == .recordOnly(.idleAfterDone))
        // While working (or new, or after a question) the same reminder is news: it pushes.
        for state in [AgentState.working, .needsInput, .failed, nil] as [AgentState?] {
            #expect(PushPolicy.decide(reminder, history: PushHistory(state: state), rules: PushRules(), idleReminders: Self.idle) == .push)
        }
        // A permission prompt after done is never an idle reminder.
        let permission = event(.needsInput, "Notification", detail: "permission_prompt", message: "Allow Bash?")
        #expect(PushPolicy.decide(permission, history: PushHistory(state: .done), rules: PushRules(), idleReminders: Self.idle) == .push)
        // Switched off in the config, or no manifest data: it pushes.
        #expect(PushPolicy.decide(reminder, history: PushHistory(state: .done), rules: PushRules(quietIdleAfterDone: false),
                                  idleReminders: Self.idle) == .push)
        #expect(PushPolicy.decide(reminder, history: PushHistory(state: .done), rules: PushRules(), idleReminders: []) == .push)
    }

    @Test func identicalRepeatsWithinTheWindowAreRecordedOnly() {
        let first = event(.done, time: 1000)
        let history = PushHistory(state: .done, lastPush: PushPolicy.fingerprint(first), lastPushAt: 1000,
                                  lastPushTurn: PushPolicy.turnMarker(first, episode: 0))
        #expect(PushPolicy.decide(event(.done, time: 1030), history: history, rules: PushRules(), idleReminders: []) == .recordOnly(.repeatPush))
        // Another message, another kind, past the window, window off, clock jumped back: pushes.
        #expect(PushPolicy.decide(event(.done, message: "Other.", time: 1030), history: history, rules: PushRules(), idleReminders: []) == .push)
        #expect(PushPolicy.decide(event(.failed, time: 1030), history: history, rules: PushRules(), idleReminders: []) == .push)
        #expect(PushPolicy.decide(event(.done, time: 1700), history: history, rules: PushRules(), idleReminders: []) == .push)
        #expect(PushPolicy.decide(event(.done, time: 1030), history: history, rules: PushRules(repeatWindow: 0), idleReminders: []) == .push)
        #expect(PushPolicy.decide(event(.done, time: 900), history: history, rules: PushRules(), idleReminders: []) == .push)
        // Kinds that never push are never "quiet".
        #expect(PushPolicy.decide(event(.working, "UserPromptSubmit"), history: history, rules: PushRules(), idleReminders: []) == .push)
    }

    /// A repeat is the same hook firing twice for one turn: a new prompt, a reply, another turn id of the
    /// agent's own, or an agent whose every call is a new wait (aider) always pushes again.
    @Test func aNewTurnIsNeverARepeat() {
        func board(_ events: [Event]) -> BoardState {
            var board = BoardState()
            for (index, event) in events.enumerated() {
                var event = event
                event.seq = index + 1
                let decision = PushPolicy.decide(event, history: board.entries.first?.pushHistory ?? PushHistory(),
                                                 rules: PushRules(), idleReminders: [])
                if case .recordOnly(let reason) = decision { event.quietReason = reason }
                board.apply(event)
            }
            return board
        }
        func decide(_ event: Event, after events: [Event], caller: PushCaller = PushCaller()) -> PushDecision {
            PushPolicy.decide(event, history: board(events).entries[0].pushHistory, rules: PushRules(), idleReminders: [], caller: caller)
        }
        let prompt = event(.working, "UserPromptSubmit", message: "again", time: 1010)
        // Two turns that end with the same text: the second Stop pushes, a duplicate Stop does not.
        #expect(decide(event(.done, time: 1020), after: [event(.done), prompt]) == .push)
        #expect(decide(event(.done, time: 1001), after: [event(.done)]) == .recordOnly(.repeatPush))
        // The same turn id twice is a repeat; another turn id is a new turn even with no event between.
        var first = event(.done)
        first.turn = "p1"
        var again = event(.done, time: 1005)
        again.turn = "p1"
        var next = again
        next.turn = "p2"
        #expect(decide(again, after: [first]) == .recordOnly(.repeatPush))
        #expect(decide(next, after: [first]) == .push)
        // A reply from hookctl moves the session on: the same question after it pushes.
        var reply = event(.working, BoardState.replyEvent, message: "Answered", time: 1003)
        reply.kind = .working
        let ask = event(.needsInput, "PermissionRequest", message: "Allow Bash: ls?", time: 1000)
        #expect(decide(event(.needsInput, "PermissionRequest", message: "Allow Bash: ls?", time: 1004), after: [ask]) == .recordOnly(.repeatPush))
        #expect(decide(event(.needsInput, "PermissionRequest", message: "Allow Bash: ls?", time: 1004), after: [ask, reply]) == .push)
        // aider: every call is a new wait.
        let aider = event(.done, "notifications-command", message: "aider is waiting for your input")
        #expect(decide(aider, after: [aider], caller: PushCaller(callIsNewTurn: true)) == .push)
        // A re-entered Stop (stop_hook_active) closes the turn its first Stop pushed.
        var reentered = event(.done, detail: PushPolicy.reenteredStop, message: "Done for real.", time: 1030)
        reentered.turn = "p1"
        #expect(decide(reentered, after: [first, event(.working, "PreToolUse", time: 1010)]) == .recordOnly(.repeatPush))
        // claude -p: a question nobody can answer is recorded, not pushed.
        #expect(decide(ask, after: [event(.done)], caller: PushCaller(nonInteractive: true)) == .recordOnly(.nonInteractive))
    }

    /// Idle reminders: never a second push for a wait already pushed (a finished turn, a dialog).
    @Test func anIdleReminderDuringADialogIsTheSameWait() {
        let reminder = event(.needsInput, "Notification", detail: "idle_prompt", message: "Claude is waiting for your input")
        let waiting = PushHistory(state: .needsInput, lastPush: "x", lastPushAt: 1000, lastPushTurn: "#1")
        #expect(PushPolicy.decide(reminder, history: waiting, rules: PushRules(), idleReminders: Self.idle) == .recordOnly(.sameQuestion))
        #expect(PushPolicy.decide(reminder, history: PushHistory(state: .idle), rules: PushRules(), idleReminders: Self.idle)
            == .recordOnly(.idleAfterDone))
    }

    @Test func theBoardKeepsDoneThroughAQuietIdleReminder() {
        var board = BoardState()
        var stop = event(.done, time: 1000)
        stop.seq = 1
        board.apply(stop)
        var reminder = event(.needsInput, "Notification", detail: "idle_prompt", message: "waiting", time: 1060)
        reminder.seq = 2
        reminder.quietReason = .idleAfterDone
        board.apply(reminder)
        #expect(board.entries.count == 1)
        #expect(board.entries[0].state == .done)
        #expect(board.entries[0].message == "All tests pass.")
        #expect(board.entries[0].since == 1000)
        #expect(board.entries[0].lastPush == PushPolicy.fingerprint(stop))
        #expect(board.entries[0].lastPushAt == 1000)
        // The history survives the board's own file format.
        let stored = try? BoardState.storedEntry(BoardState.storedJSON(board.entries[0]))
        #expect(stored?.pushHistory == board.entries[0].pushHistory)
        // The event's JSON says why it was not pushed, and reads back.
        #expect(reminder.json["quiet"]?.stringValue == "idle_after_done")
        #expect((try? Event(json: reminder.json))?.quietReason == .idleAfterDone)
    }

    @Test func rulesComeFromTheConfigInEitherStyle() throws {
        let block = try Config.parse("defaults:\n  quiet:\n    idle_after_done: false\n    repeats: 2m\n", path: "c", environment: [:])
        let flow = try Config.parse("defaults: {quiet: {idle_after_done: no, repeats: 120s}}\n", path: "c", environment: [:])
        #expect(block.defaults.pushRules == PushRules(quietIdleAfterDone: false, repeatWindow: 120))
        #expect(flow.defaults.pushRules == block.defaults.pushRules)
        #expect(try Config.parse("defaults: {quiet: {repeats: off}}\n", path: "c", environment: [:]).defaults.pushRules.repeatWindow == 0)
        #expect(try Config.parse("version: 1\n", path: "c", environment: [:]).defaults.pushRules == PushRules())
        #expect(throws: ConfigError.self) { try Config.parse("defaults: {quiet: {repeat: 1m}}\n", path: "c", environment: [:]) }
        #expect(throws: ConfigError.self) { try Config.parse("defaults: {quiet: {idle_after_done: maybe}}\n", path: "c", environment: [:]) }
    }

    @Test func theClaudeManifestNamesItsIdleReminder() throws {
        let claude = try #require(BuiltinResources.manifests["claude.json"])
        let manifest = try AgentManifest(json: JSON.parse(claude), source: "built-in")
        #expect(manifest.idleReminders == [IdleReminder(event: "Notification", detail: "idle_prompt")])
    }
}

@Suite struct ProjectIdentityTests {
    @Test func repositoriesWorktreesAndPlainDirectories() throws {
        let home = try BoardScratch()
        func write(_ relative: String, _ text: String) throws {
            let file = home.path + "/" + relative
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: file))
            try FileSystem.writeAtomically(file, text: text, mode: 0o600, sync: false)
        }
        // A repository with a branch, a directory inside it, a linked worktree and a detached submodule.
        try write("src/api/.git/HEAD", "ref: refs/heads/feature/login\n")
        try write("src/api/pkg/deep/file", "")
        try write("src/api/.git/worktrees/hotfix/HEAD", "ref: refs/heads/hotfix\n")
        try write("wt/hotfix/.git", "gitdir: \(home.path)/src/api/.git/worktrees/hotfix\n")
        try write("src/api/.git/modules/lib/HEAD", "0123456789abcdef0123456789abcdef01234567\n")
        try write("src/api/lib/.git", "gitdir: ../.git/modules/lib\n")
        try write("plain/x", "")
        #expect(ProjectIdentity.of(directory: home.path + "/src/api") == ProjectIdentity(name: "api", branch: "feature/login", isRepository: true))
        #expect(ProjectIdentity.of(directory: home.path + "/src/api/pkg/deep") == ProjectIdentity(name: "api", branch: "feature/login", isRepository: true))
        #expect(ProjectIdentity.of(directory: home.path + "/wt/hotfix") == ProjectIdentity(name: "api", branch: "hotfix", isRepository: true))
        #expect(ProjectIdentity.of(directory: home.path + "/src/api/lib") == ProjectIdentity(name: "lib", branch: "0123456", isRepository: true))
        #expect(ProjectIdentity.of(directory: home.path + "/plain")?.name == "plain")
        #expect(ProjectIdentity.of(directory: home.path + "/plain")?.isRepository == false)
        #expect(ProjectIdentity.of(directory: home.path + "/does/not/exist")?.name == "exist")
        // A FIFO where `.git` would be is not opened (it would block the hook): the directory's name stands.
        try FileSystem.makeDirectories(home.path + "/fifo")
        #expect(mkfifo(home.path + "/fifo/.git", 0o600) == 0)
        #expect(ProjectIdentity.of(directory: home.path + "/fifo") == ProjectIdentity(name: "fifo"))
    }

    @Test func titlesNameAgentProjectAndWindowAndFitALockScreen() {
        func title(_ project: String?, _ tmux: TmuxLocation?, kind: EventKind = .needsInput) -> String {
            PayloadParser.defaultTitle(agent: "claude", kind: kind, detail: nil, project: project, tmux: tmux)
        }
        let automatic = TmuxLocation(session: "sshido-9B95BD2A", window: "1", pane: "%1", windowName: "node", windowNameIsAutomatic: true)
        let named = TmuxLocation(session: "sshido-9B95BD2A", window: "2", pane: "%2", windowName: "web")
        #expect(title("api", automatic) == "Claude Code needs your input · api · window 1")
        #expect(title("web", named, kind: .done) == "Claude Code finished · web · 2:web")
        #expect(title("api", nil) == "Claude Code needs your input · api")
        let long = title(String(repeating: "é", count: 80), named)
        #expect(long.count == PayloadParser.titleLimit)
        #expect(long.hasSuffix("…"))
        #expect(long.unicodeScalars.allSatisfy { $0.properties.generalCategory != .unassigned })
        // Templates gain window, window name, repo and branch; the relay's session stays exact.
        var event = Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "t", message: "m", host: "h", tmux: named, cwd: "/x/web")
        event.project = ProjectIdentity(name: "web", branch: "main", isRepository: true)
        #expect(renderTemplate("{repo}@{branch} {window}:{window_name} {session}", values: event.templateValues)
            == "web@main 2:web sshido-9B95BD2A")
        #expect(event.json["tmux"]?["window_name"]?.stringValue == "web")
        #expect(event.json["branch"]?.stringValue == "main")
        let back = try? Event(json: event.json)
        #expect(back?.tmux == named)
        #expect(back?.project == event.project)
    }
}

@Suite struct OutgoingTextTests {
    static let cases: [(String, String)] = [
        ("plain text stays", "plain text stays"),
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
        ("NUL\u{0}BEL\u{7}DEL\u{7F}", "NULBELDEL"),
        ("red \u{1B}[31;1mALERT\u{1B}[0m done", "red ALERT done"),
        ("title \u{1B}]0;pwned\u{7}set", "title set"),
        ("link \u{1B}]8;;https://evil\u{1B}\\click\u{1B}]8;;\u{1B}\\", "link click"),
        ("c1 \u{9B}2Jclear \u{9D}0;x\u{9C}osc", "c1 clear osc"),
        ("charset \u{1B}(Bok \u{1B}cfull reset", "charset ok full reset"),
        ("bidi \u{202E}evil\u{202C} \u{2066}iso\u{2069}", "bidi evil iso"),
        ("crlf\r\nline", "crlf\nline"),
        ("unterminated \u{1B}]0;title\nnext line", "unterminated \nnext line"),
        ("Vec<String> & a<b && c>d", "Vec<String> & a<b && c>d"),
    ]

    @Test(arguments: cases)
    func controlsAndEscapesAreDropped(input: String, expected: String) {
        #expect(OutgoingText.clean(input) == expected)
    }
}
