import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookAgents
@testable import HookCLI

/// Strings an agent, a relay or a tmux session name may carry to steer a terminal.
let hostileStrings: [String] = [
    "copy \u{1B}]52;c;cm0gLXJmIH4=\u{07} done",             // OSC 52: write the clipboard
    "wipe \u{1B}[2J\u{1B}[H now",                            // CSI: clear the screen
    "bell \u{07}\u{07} and \u{1B}]0;evil title\u{1B}\\",    // BEL, OSC title with ST
    "nul \u{00} byte",
    "bidi \u{202E}txt.exe\u{202C} \u{2066}x\u{2069}",        // right-to-left override, isolates
    "c1 \u{9B}31m eight-bit CSI \u{9D}8;;http://x\u{9C}",
    "cr\rover written\u{7F}",
    "multi\nline\tmessage\u{2028}sep",
    String(repeating: "unbroken", count: 40),
    "日本語のメッセージ 👩‍👩‍👧‍👦 " + String(repeating: "👍🏽", count: 30),
]

/// True when `text` holds nothing a terminal would act on (line breaks and tabs allowed when `lines`).
func isInert(_ text: String, lines: Bool = true) -> Bool {
    for scalar in text.unicodeScalars {
        let value = scalar.value
        if lines, value == 0x0A || value == 0x09 { continue }
        if value < 0x20 || value == 0x7F || TerminalText.isInvisibleControl(value) { return false }
    }
    return true
}

@Suite struct TerminalTextTests {
    @Test(arguments: hostileStrings)
    func hostileTextIsShownNotObeyed(text: String) {
        let shown = TerminalText.visible(text)
        #expect(isInert(shown), "\(shown.debugDescription)")
        #expect(isInert(TerminalText.visible(text, keepLineBreaks: false), lines: false))
        // Nothing is silently dropped: every control is still there to read.
        #expect(shown.count >= text.count)
    }

    @Test func controlsAreShownInCaretAndCodePointForm() {
        #expect(TerminalText.visible("a\u{1B}[2Jb\u{07}\u{00}\u{7F}") == "a^[[2Jb^G^@^?")
        #expect(TerminalText.visible("x\u{202E}y\u{9B}") == "x<U+202E>y<U+009B>")
        #expect(TerminalText.visible("keep\nlines\tand tabs") == "keep\nlines\tand tabs")
        #expect(TerminalText.visible("one\nline", keepLineBreaks: false) == "one^Jline")
        #expect(TerminalText.visible("plain ünïcödé 日本") == "plain ünïcödé 日本")
    }

    @Test func colourIsAddedOnlyAroundStyledPiecesAfterThemAreMadeInert() {
        let text = TerminalText("FAIL", style: .boldRed) + " \u{1B}]52;c;x\u{07}"
        #expect(text.rendered(color: false) == "FAIL ^[]52;c;x^G")
        #expect(text.rendered(color: true) == "\u{1B}[1;31mFAIL\u{1B}[0m ^[]52;c;x^G")
    }

    @Test(arguments: [
        (ColorChoice.auto, [String: String](), true, true),
        (.auto, [:], false, false),
        (.auto, ["NO_COLOR": "1"], true, false),
        (.auto, ["NO_COLOR": ""], true, true),
        (.auto, ["TERM": "dumb"], true, false),
        (.always, ["NO_COLOR": "1"], false, true),
        (.never, [:], true, false),
    ])
    func colourFollowsTheConventions(choice: ColorChoice, environment: [String: String], terminal: Bool, expected: Bool) {
        #expect(choice.enabled(environment: environment, isTerminal: terminal) == expected)
    }

    @Test func wrappingBreaksLongWordsOnlyOnATerminal() {
        let word = String(repeating: "x", count: 100)
        #expect(Terminal.wrap("a " + word, columns: 40).map(Terminal.columns).max() == 40)
        #expect(Terminal.wrap("a " + word, columns: 40, breakWords: false) == ["a", word])
        #expect(Terminal.wrap("日本語 日本語日本語", columns: 7) == ["日本語", "日本語", "日本語"])
    }

    @Test func aPipeGetsEveryCharacterAndAWidthOrTerminalCuts() {
        #expect(Terminal.layout(option: nil, environment: ["COLUMNS": "45"], terminal: nil) == TerminalLayout(width: 45, cuts: false))
        #expect(Terminal.layout(option: 45, environment: [:], terminal: nil) == TerminalLayout(width: 45, cuts: true))
    }
}

/// Golden outputs of every human view at a phone's 45 columns and a desktop's 80, from fixed inputs.
/// `HOOKCTL_UPDATE_GOLDEN=1 swift test --filter GoldenViewTests` rewrites them after a deliberate change.
@Suite struct GoldenViewTests {
    static let directory: String = FileSystem.parentDirectory(of: #filePath) + "/Golden"
    static let widths = [45, 80]

    static func check(_ name: String, width: Int, _ lines: [TerminalText]) throws {
        let text = lines.map { $0.rendered(color: false) + "\n" }.joined()
        for line in text.split(separator: "\n") {
            // A fix is a command to copy: never wrapped (the terminal folds it; copying gets it whole).
            let copyable = line.contains("fix: ")
            #expect(copyable || Terminal.columns(String(line)) <= width, "\(name) at \(width): \(line)")
            #expect(isInert(String(line)))
        }
        let path = "\(directory)/\(name)-\(width).txt"
        if ProcessInfo.processInfo.environment["HOOKCTL_UPDATE_GOLDEN"] == "1" {
            try FileSystem.makeDirectories(directory)
            try FileSystem.writeAtomically(path, text: text, sync: false)
            return
        }
        let expected = try #require(try FileSystem.readString(path), "missing golden file \(path)")
        #expect(text == expected, "\(name) at \(width) columns differs from \(path):\n\(text)")
    }

    static let layouts = widths.map { TerminalLayout(width: $0, cuts: true) }

    @Test(arguments: layouts)
    func status(layout: TerminalLayout) throws {
        var board = BoardState()
        board.apply(hookEvent(.needsInput, session: "a", pane: "%12", tmuxSession: "sshido-9B95BD2A",
                              message: "Claude needs your permission to use Bash: rm -rf build && swift build", time: 0))
        board.apply(hookEvent(.working, agent: "codex", session: "b", cwd: "/home/me/some-rather-long-project-name", time: 100))
        board.apply(hookEvent(.failed, agent: "gemini", session: "c", pane: "%3", tmuxSession: "日本語",
                              message: "copy \u{1B}]52;c;cm0=\u{07} \u{202E}evil", time: 200))
        board.apply(hookEvent(.done, session: "d", message: "All tests pass.", time: 300))
        // A waiting agent's question with its options, in a named window of a project on a branch.
        var asking = hookEvent(.needsInput, session: "e", pane: "%20", tmuxSession: "sshido-9B95BD2A", message: "", time: 50)
        asking.tmux?.window = "2"
        asking.tmux?.windowName = "api-work"
        asking.project = ProjectIdentity(name: "api", branch: "fix-login", isRepository: true)
        asking.question = Question(text: "Allow Bash: rm -rf node_modules && npm ci (Reinstall the dependencies from the lock file)?",
                                   options: [.init(n: 1, label: "Yes"), .init(n: 2, label: "Yes, and don't ask again for rm commands in this project"),
                                             .init(n: 3, label: "No")])
        board.apply(asking)
        // A hostile, long project and session name on a question whose one option is longer than a phone line.
        var hostile = hookEvent(.needsInput, agent: "evil\u{1B}[2J", session: "f", pane: "%21",
                                tmuxSession: "s\u{1B}]52;c;x\u{07}" + String(repeating: "n", count: 60), message: "", time: 60)
        hostile.project = ProjectIdentity(name: "p\u{202E}" + String(repeating: "日本", count: 20), branch: "main", isRepository: true)
        hostile.question = Question(text: "Pick \u{1B}[31mone\u{1B}[0m", options: [.init(n: 1, label: String(repeating: "unbroken", count: 12))],
                                    multiSelect: true)
        board.apply(hostile)
        try Self.check("status", width: layout.width,
                       BoardView.statusLines(board.ordered, now: 4000, staleAfter: 1800, layout: layout))
    }

    @Test(arguments: layouts)
    func events(layout: TerminalLayout) throws {
        let time = 1_764_421_349.0
        var events = [
            hookEvent(.needsInput, session: "a", pane: "%12", tmuxSession: "sshido-9B95BD2A",
                      message: "Claude needs your permission to use Bash", time: time),
            hookEvent(.done, agent: "codex", session: "b", message: "wipe \u{1B}[2J " + String(repeating: "long", count: 20), time: time),
            hookEvent(.working, agent: "gemini", session: "c", time: time),
            hookEvent(.needsInput, agent: "evil\u{1B}]52;c;x\u{07}" + String(repeating: "x", count: 30), session: "d",
                      message: "Allow Bash?", time: time),
        ]
        events[0].quietReason = .sameQuestion
        events[3].quietReason = .repeatPush
        for index in events.indices { events[index].seq = 100 + index }
        let local = BoardView.localTime(time)
        var lines = events.flatMap { BoardView.eventLines($0, layout: layout) }
        // The clock is the host's time zone: shown as a fixed time of the same width.
        lines = lines.map { TerminalText($0.plain.replacing(local, with: "11-29 13:02:29").replacing(String(local.suffix(8)), with: "13:02:29")) }
        try Self.check("events", width: layout.width, lines)
    }

    @Test(arguments: layouts)
    func outbox(layout: TerminalLayout) throws {
        var pending = OutboxEntry(event: hookEvent(.needsInput, message: "m", time: 0), sink: "relay", now: 0)
        pending.event.id = "0d4c2b8e-5a1f-4e2b-9a43-1b2c3d4e5f60"
        pending.attempts = 2
        pending.nextAttempt = 90
        pending.lastError = "HTTP 503: relay says \u{1B}[2J maintenance until tomorrow morning, please retry later"
        var dead = OutboxEntry(event: hookEvent(.failed, message: "m", time: 0), sink: "team-slack", now: 0)
        dead.event.id = "7f3e9a10-2b4c-4d5e-8f60-718293a4b5c6"
        dead.deadReason = "HTTP 404: no such webhook"
        try Self.check("outbox", width: layout.width, HumanViews.outbox(pending: [pending], dead: [dead], now: 30, layout: layout))
    }

    @Test(arguments: layouts)
    func sessionList(layout: TerminalLayout) throws {
        let sessions = [
            TmuxSession(id: "$0", name: "sshido-9B95BD2A", created: 1_764_421_349, windows: 2, attachedClients: 1, token: "t"),
            TmuxSession(id: "$3", name: "evil\u{1B}]52;c;x\u{07}", created: 1_764_421_400, windows: 1, attachedClients: 0),
            TmuxSession(id: "$4", name: "a-rather-long-session-name-" + String(repeating: "x", count: 50), created: 1_764_421_500,
                        windows: 3, attachedClients: 0),
        ]
        try Self.check("sessions", width: layout.width, HumanViews.sessions(sessions, layout: layout))
    }

    @Test(arguments: layouts)
    func doctor(layout: TerminalLayout) throws {
        let checks = [
            DoctorCheck(name: "binary", status: .warning, message: "hookctl is not on PATH (the hooks do not need it: they use an absolute path)",
                        fix: "add ~/.local/bin to PATH, e.g. echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> ~/.profile"),
            DoctorCheck(name: "config", status: .ok, message: "~/.config/hookctl/config.yaml: 1 sink (relay)", fix: nil),
            DoctorCheck(name: "sink relay", status: .broken, message: "HTTP 502 from push.example.com: \u{1B}[31mbad gateway\u{1B}[0m", fix: "check the network and the URL; 'hookctl test --sink relay' sends a test notification"),
            DoctorCheck(name: "Codex", status: .info, message: "not installed; skipped", fix: nil),
        ]
        try Self.check("doctor", width: layout.width, HumanViews.doctor(checks, layout: layout))
    }

    @Test(arguments: layouts)
    func test(layout: TerminalLayout) throws {
        let results = [
            HumanViews.TestResult(sink: "relay", type: "relay", milliseconds: 84, delivered: true, result: "delivered",
                                  preview: "POST https://push.example.com/n/ab…(redacted)\n{\"title\":\"hookctl test\",\"body\":\"Test notification from hookctl on box\"}"),
            HumanViews.TestResult(sink: "team", type: "slack", milliseconds: 1203, delivered: false,
                                  result: "not delivered: HTTP 403: invalid_token \u{07}\u{07}", preview: nil),
        ]
        try Self.check("test", width: layout.width, HumanViews.test(results, layout: layout))
    }

    @Test(arguments: layouts)
    func setup(layout: TerminalLayout) throws {
        let rows = [
            HumanViews.SetupRow(label: "config", status: "would create", detail: "~/.config/hookctl/config.yaml", style: .green),
            HumanViews.SetupRow(label: "hook script", status: "unchanged", detail: "~/.local/share/hookctl/bin/hookctl-hook"),
            HumanViews.SetupRow(label: "Claude Code", status: "would install", detail: "~/.claude/settings.json", style: .green),
            HumanViews.SetupRow(label: "Codex", status: "would install", detail: "~/.codex/config.toml, ~/.codex/hooks.json", style: .green),
            HumanViews.SetupRow(label: "Gemini CLI", status: "skipped", detail: "not installed (no gemini on PATH, no ~/.gemini); name it in --agents to install anyway", style: .dim),
        ]
        try Self.check("setup", width: layout.width, HumanViews.setup(rows, layout: layout))
    }
}

/// Help, topics, man pages, completions and the command-line conventions, in-process.
@Suite struct CommandLineConventionTests {
    static var helpTexts: [(String, String)] {
        CommandLineTool.commands.map { ($0.spec.fullName, HelpRenderer.help(for: $0.spec)) }
            + HelpTopic.allCases.map { ($0.rawValue, $0.help()) }
            + [("overview", HelpRenderer.overview()), ("session", HelpRenderer.group(["session"])), ("outbox", HelpRenderer.group(["outbox"]))]
    }

    @Test func allHelpFits80Columns() {
        for (name, text) in Self.helpTexts {
            for line in text.split(separator: "\n") {
                #expect(Terminal.columns(String(line)) <= 80, "\(name): \(line)")
            }
        }
    }

    @Test func usageLinesNameEveryOptionAndOnlyRealOnes() {
        for command in CommandLineTool.commands {
            let spec = command.spec
            let named = Set(spec.usage.matches(of: /--([a-z][a-z-]*)/).map { String($0.output.1) })
            let options = Set(spec.options.map(\.name))
            for option in spec.options where option.name != "complete" {
                let short = option.short.map { spec.usage.contains("-\($0)") } ?? false
                #expect(named.contains(option.name) || short || spec.usage.contains("-L NAME"), "\(spec.fullName): --\(option.name) missing from usage")
            }
            for name in named { #expect(options.contains(name) || name == "config", "\(spec.fullName): usage names --\(name)") }
        }
    }

    @Test func manPagesComeFromTheSameHelp() {
        let page = ManPage.hookctl()
        #expect(page.hasPrefix(".TH HOOKCTL 1 "))
        for command in CommandLineTool.commands {
            #expect(page.contains(".SS hookctl \(command.spec.fullName.replacing("-", with: "\\-"))"))
        }
        #expect(page.contains("NO_COLOR") && page.contains(".SH EXIT STATUS"))
        let config = ManPage.config()
        #expect(config.hasPrefix(".TH HOOKCTL-CONFIG 5 "))
        #expect(config.contains("sinks:"))
        // No text line may start with a roff control character.
        for line in (page + config).split(separator: "\n") where line.hasPrefix("'") { Issue.record("\(line)") }
    }

    @Test func completionsComeFromTheSpecs() throws {
        let scratch = try BoardScratch()
        let completer = Completer(context: CommandContext(environment: scratch.environment, standardOutput: BufferStream(),
                                                          standardError: BufferStream(), standardInput: -1, workingDirectory: scratch.path))
        #expect(completer.candidates(["se"]) == ["setup", "session"])
        #expect(completer.candidates(["status", "--wa"]) == ["--watch"])
        #expect(completer.candidates(["session", ""]).contains("ensure"))
        #expect(completer.candidates(["session", "ls", "--js"]) == ["--json"])
        #expect(completer.candidates(["--color", ""]) == ["auto", "always", "never"])
        #expect(completer.candidates(["--color", "never", "ev"]) == ["events"])
        #expect(completer.candidates(["setup", "--agents", "c"]) == ["claude", "codex", "copilot", "cursor"])
        #expect(completer.candidates(["help", "exit"]) == ["exit-codes"])
        #expect(completer.candidates(["completion", "z"]) == ["zsh"])
    }

    @Test func conventions() throws {
        let scratch = try BoardScratch()
        let bare = scratch.run([])
        #expect(bare.status == 0 && bare.stdout.contains("USAGE: hookctl"))
        #expect(scratch.run(["version", "--json"]).stdout == "{\"version\":\"\(Product.version)\"}\n")
        #expect(scratch.run(["outbox", "ls"]).status == 0)
        let config = scratch.path + "/elsewhere.yaml"
        try FileSystem.writeAtomically(config, text: "version: 1\nsinks:\n\t- name: x\n", sync: false)
        let tabbed = scratch.run(["--config", config, "test"])
        #expect(tabbed.status == 78)
        #expect(tabbed.stderr.contains("\(config):3:") && tabbed.stderr.contains("use spaces"), "\(tabbed.stderr)")
        let global = scratch.run(["--config=" + scratch.path + "/none.yaml", "--color", "never", "test"])
        #expect(global.status == 78 && global.stderr.contains("none.yaml"), "\(global.stderr)")
        #expect(scratch.run(["--color", "sometimes", "status"]).status == 64)
        for topic in HelpTopic.allCases {
            #expect(scratch.run(["help", topic.rawValue]).stdout.hasPrefix(topic.rawValue.uppercased()))
        }
        #expect(scratch.run(["help", "--man"]).stdout.hasPrefix(".TH HOOKCTL 1"))
        #expect(scratch.run(["help", "config", "--man"]).stdout.hasPrefix(".TH HOOKCTL-CONFIG 5"))
        #expect(HelpRenderer.help(for: NotifyCommand.spec).contains("--budget DURATION"))
    }

    @Test func dryRunsSayWouldAndUninstallSaysWhatItRemovedFromWhere() throws {
        let scratch = try BoardScratch()
        try FileSystem.makeDirectories(scratch.path + "/.claude")
        let dry = scratch.run(["setup", "--agents", "claude", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would create") && dry.stdout.contains("would install"), "\(dry.stdout)")
        #expect(!dry.stdout.contains(" created") && !dry.stdout.contains(" installed"))
        #expect(scratch.run(["setup", "--agents", "claude", "-q"]).stdout.isEmpty)
        let removed = scratch.run(["uninstall", "--width", "80"])
        #expect(removed.stdout.contains(/Claude Code +removed hooks from +~\/\.claude\/settings\.json/), "\(removed.stdout)")
        #expect(removed.stdout.contains("kept") && removed.stdout.contains("~/.config/hookctl/config.yaml"))
        let quiet = scratch.run(["doctor", "--quiet", "--width", "80"]).stdout
        #expect(!quiet.split(separator: "\n").contains { $0.hasPrefix("ok") } && quiet.contains("warn"), "\(quiet)")
    }
}

/// The pieces of the phone board that need no tmux: the presence rule, what happens to a held question,
/// keys split from one read, targets by project and window name, and a question never cut.
@Suite struct PhoneBoardTests {
    @Test func presenceNeedsAnAttachedClientAndRecentInput() {
        let recent = TmuxPresence(attachedClients: 1, lastInput: 1000)
        #expect(TmuxPresence.isPresent(recent, now: 1100, window: 120))
        #expect(!TmuxPresence.isPresent(recent, now: 1120, window: 120))          // typed 120 s ago: gone
        #expect(!TmuxPresence.isPresent(TmuxPresence(attachedClients: 0, lastInput: 1100), now: 1100, window: 120))
        #expect(!TmuxPresence.isPresent(recent, now: 1100, window: nil))          // quiet.present: off
        #expect(!TmuxPresence.isPresent(nil, now: 1100, window: 120))              // not in tmux
        #expect(TmuxPresence.isPresent(recent, now: 900, window: 120))            // the clock went back
        #expect(TmuxPresence(attached: "2", activity: "1796134270") == TmuxPresence(attachedClients: 2, lastInput: 1796134270))
        #expect(TmuxPresence(attached: "", activity: "") == nil)                  // a missing pane prints empty fields
    }

    @Test func quietPresentIsReadFromTheConfig() throws {
        #expect(try Config.parse("version: 1\n", path: "c", environment: [:]).defaults.presentWindow == 120)
        #expect(try Config.parse("defaults: {quiet: {present: 30s}}\n", path: "c", environment: [:]).defaults.presentWindow == 30)
        #expect(try Config.parse("defaults: {quiet: {present: off}}\n", path: "c", environment: [:]).defaults.presentWindow == nil)
        #expect(throws: (any Error).self) { try Config.parse("defaults: {quiet: {present: soon}}\n", path: "c", environment: [:]) }
        #expect(throws: (any Error).self) { try Config.parse("defaults: {quiet: {presence: 1m}}\n", path: "c", environment: [:]) }
    }

    @Test func aHeldQuestionIsPushedOnceTheUserLeavesAndDroppedOnceAnswered() {
        let held = hookEvent(.needsInput, session: "s", pane: "%1", socket: "/s", time: 1000)
        var board = BoardState()
        board.apply(held)
        let waiting = board.entries[0]
        let here = TmuxPresence(attachedClients: 1, lastInput: 1050)
        func verdict(_ entry: BoardEntry?, _ presence: TmuxPresence?, exists: Bool = true, now: Double = 1100) -> PresenceHold.Verdict {
            PresenceHold.verdict(held: held, entry: entry, presence: presence, paneExists: exists, now: now, window: 120, expire: 86_400)
        }
        #expect(verdict(waiting, here) == .wait)
        #expect(verdict(waiting, TmuxPresence(attachedClients: 0, lastInput: 1050)) == .push)   // detached
        #expect(verdict(waiting, here, now: 1200) == .push)                                     // stopped typing
        #expect(verdict(waiting, here, exists: false) == .drop)                                 // pane gone
        #expect(verdict(waiting, here, now: 1000 + 86_401) == .drop)                            // expired
        board.apply(hookEvent(.working, session: "s", pane: "%1", socket: "/s", time: 1060))
        #expect(verdict(board.entries[0], here) == .drop)                                       // answered
        board.apply(hookEvent(.needsInput, session: "s", pane: "%1", socket: "/s", time: 1070))
        #expect(verdict(board.entries[0], nil) == .drop)                                        // a newer question
        #expect(PresenceHold.fileName("../../etc/passwd") == "etcpasswd.json")
    }

    /// The byte prefilter of `TerminalText.visible` lets nothing through that the slow path would change,
    /// and lets `·` and `…` (on every board line) through.
    @Test func theEscapingPrefilterMissesNoCharacterThatIsShownDifferently() {
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "b"
            if TerminalText.visible(text, keepLineBreaks: false) != text {
                #expect(TerminalText.mayNeedEscaping(text), "U+\(String(value, radix: 16))")
            }
        }
        #expect(!TerminalText.mayNeedEscaping("claude · api … 日本語 👍🏽"))
    }

    /// `Text.singleLine`'s byte check passes nothing that the slow path would change.
    @Test func theSingleLineCheckMissesNoWhitespace() {
        for value in UInt32(0)..<0x3100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in ["a" + String(Character(scalar)) + "b", String(Character(scalar)), "a" + String(Character(scalar))] {
                let slow = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
                if slow != text { #expect(!Text.isSingleLine(text), "U+\(String(value, radix: 16))") }
            }
        }
        #expect(Text.isSingleLine("a · b … 日本"))
        #expect(!Text.isSingleLine("a  b") && !Text.isSingleLine(" a") && !Text.isSingleLine("a ") && Text.isSingleLine(""))
    }

    @Test func keysTypedTogetherAreSplit() {
        #expect(WatchControls.keys(Array("jp".utf8)) == [[0x6A], [0x70]])
        #expect(WatchControls.keys([0x1B, 0x5B, 0x42, 0x72]) == [[0x1B, 0x5B, 0x42], [0x72]])
        #expect(WatchControls.keys(Array("é2".utf8)) == [Array("é".utf8), [0x32]])
        #expect(WatchControls.keys([0x1B]) == [[0x1B]])
    }

    @Test func targetsByProjectAndWindowNameAreExact() throws {
        var board = BoardState()
        func agent(_ session: String, pane: String, tmuxSession: String, window: String, name: String, project: String) -> Event {
            var event = hookEvent(.needsInput, session: session, pane: pane, tmuxSession: tmuxSession)
            event.tmux?.window = window
            event.tmux?.windowName = name
            event.project = ProjectIdentity(name: project, branch: "main", isRepository: true)
            return event
        }
        board.apply(agent("a", pane: "%1", tmuxSession: "phone", window: "0", name: "agent", project: "api"))
        board.apply(agent("b", pane: "%2", tmuxSession: "phone", window: "1", name: "front", project: "web"))
        board.apply(agent("c", pane: "%3", tmuxSession: "phone-2", window: "0", name: "agent", project: "web"))
        #expect(try AgentTarget.resolve("api", next: false, board: board).sessionID == "a")
        #expect(try AgentTarget.resolve("phone:agent", next: false, board: board).sessionID == "a")
        #expect(try AgentTarget.resolve("phone:1", next: false, board: board).sessionID == "b")
        #expect(try AgentTarget.resolve("phone-2", next: false, board: board).sessionID == "c")
        #expect(throws: AnswerError.self) { try AgentTarget.resolve("web", next: false, board: board) }
        #expect(throws: AnswerError.self) { try AgentTarget.resolve("phone", next: false, board: board) }
        #expect(throws: AnswerError.self) { try AgentTarget.resolve("phone:agen", next: false, board: board) }
        #expect(throws: AnswerError.self) { try AgentTarget.resolve("ap", next: false, board: board) }
        let words = AgentTarget.completions(board)
        #expect(words.contains("api") && words.contains("phone:front") && !words.contains("web"), "\(words)")
    }

    @Test(arguments: [20, 33, 45, 80])
    func aQuestionIsWrappedNeverCut(width: Int) {
        let label = String(repeating: "word ", count: 30) + String(repeating: "x", count: 100)
        let question = Question(text: "Which " + String(repeating: "very ", count: 40) + "long question?",
                                options: [.init(n: 1, label: "Yes"), .init(n: 2, label: label), .init(n: 3, label: "日本語の選択肢")])
        let lines = BoardView.questionLines(question, width: width)
        for line in lines { #expect(Terminal.columns(line) <= width, "\(line)") }
        let joined = lines.joined(separator: " ").split(separator: " ").joined()
        #expect(!joined.contains("…"))
        #expect(joined.contains(String(repeating: "x", count: width - 4)))
        #expect(joined.contains("日本語の選択肢") && joined.contains("longquestion?"))
    }

    @Test func eventFiltersMatchAgentKindSessionAndProject() {
        var event = hookEvent(.needsInput, agent: "codex", session: "s9", pane: "%4", tmuxSession: "phone", cwd: "/w/api")
        event.tmux?.sessionID = "$3"
        #expect(EventsCommand.EventFilter(agents: ["codex"], kinds: ["needs_input"], sessions: ["$3"], projects: ["api"]).matches(event))
        #expect(EventsCommand.EventFilter(sessions: ["s9"]).matches(event))
        #expect(EventsCommand.EventFilter(sessions: ["phone"]).matches(event))
        #expect(!EventsCommand.EventFilter(sessions: ["phon"]).matches(event))
        #expect(!EventsCommand.EventFilter(agents: ["claude"]).matches(event))
        #expect(!EventsCommand.EventFilter(kinds: ["done"]).matches(event))
        #expect(!EventsCommand.EventFilter(projects: ["web"]).matches(event))
    }
}
