import Testing
@testable import HookKit

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
        ]
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
