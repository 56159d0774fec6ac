import Testing
@testable import HookSupport
@testable import HookCore
import TestSupport

/// Human output of the built binary: hostile text never reaches the terminal raw, colour only where
/// wanted, the live board and the tmux attach in real tmux panes, completions in real shells.
@Suite(.onTestThreads) struct HumanEndToEndTests {
    /// What an agent, a relay's error body or a session name may carry (see HookKitTests' table too).
    static let hostile: [String] = [
        "osc52 \u{1B}]52;c;cm0gLXJmIH4=\u{07} end",
        "csi \u{1B}[2J\u{1B}[H end",
        "bel \u{07} nul-free",
        "bidi \u{202E}fdp.exe end",
        "c1 \u{9B}2J end",
        String(repeating: "unbroken", count: 30),
    ]

    static func hasTerminalControls(_ result: Subprocess.Result) -> Bool {
        (result.standardOutput + result.standardError).contains { $0 == 0x1B || $0 == 0x07 || $0 == 0x00 }
    }

    static func tmux(_ socket: String, _ arguments: [String], environment: [String: String]) throws -> Subprocess.Result {
        try Subprocess(executable: "/usr/bin/tmux", arguments: ["-f", "/dev/null", "-S", socket] + arguments,
                       environment: environment, timeout: 10).run()
    }

    static func quote(_ words: [String]) -> String {
        words.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Every human view at a phone's 45 columns and a desktop's 80, measured by display width, with long
    /// and hostile agent, project, tmux session and window names, a question with long options, a push
    /// that did not go out (the backlog line under the board), an empty outbox, and no sessions at all.
    @Test func everyViewFits45And80ColumnsWithHostileAndLongNames() throws {
        let home = try TemporaryHome()
        // A relay that refuses: the push waits in the outbox and status says so under the board.
        try home.writeConfig(relay: nil, extra: "  - {name: relay-with-a-long-name, type: webhook, url: \"http://127.0.0.1:1/hook\"}\n")
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1", "TMUX_TMPDIR": home.path])
        let empty = try hookctl(["outbox", "list", "--width", "45"], environment: environment)
        let socket = home.file("tmux.sock")
        let long = "sshido-" + String(repeating: "日本", count: 12) + "-" + String(repeating: "x", count: 40)
        _ = try Self.tmux(socket, ["new-session", "-d", "-s", long, "-n", "w\u{1B}]52;c;eA==\u{07}" + String(repeating: "n", count: 40)],
                          environment: environment)
        defer { _ = try? Self.tmux(socket, ["kill-server"], environment: environment) }
        let noSessions = try hookctl(["session", "list", "-S", home.file("none.sock"), "--width", "45"], environment: environment)
        let pane = Text.trimmed(try Self.tmux(socket, ["display-message", "-p", "-t", "=" + long + ":", "#{pane_id}"],
                                              environment: environment).stdout)
        let project = home.file("p\u{1B}[2J" + String(repeating: "project", count: 10))
        try FileSystem.makeDirectories(project)
        let pid = Text.trimmed(try Self.tmux(socket, ["display-message", "-p", "#{pid}"], environment: environment).stdout)
        let question = #"{"questions":[{"question":"Which \u001b[2J database should the new service use for its sessions?","#
            + #""options":[{"label":"Postgres (Recommended) with a label longer than any phone line is wide"},{"label":"SQLite"}]}]}"#
        let payload = #"{"session_id":"s1","cwd":\#(JSON.serialize(.string(project))),"hook_event_name":"PreToolUse","#
            + #""tool_name":"AskUserQuestion","tool_input":\#(question)}"#
        let notify = try hookctl(["notify", "--agent", "agent\u{1B}[31m-" + String(repeating: "z", count: 30), "--force"],
                                 environment: environment.merging(["TMUX": "\(socket),\(pid),0", "TMUX_PANE": pane]) { $1 }, input: payload)
        #expect(notify.status == 0, "\(notify.stderr)")
        let outcomes = [("outbox list (empty)", empty), ("session list (none)", noSessions)]
        var views: [(String, Subprocess.Result)] = []
        for width in ["45", "80"] {
            for command in [["status"], ["status", "--state", "needs_input"], ["events"], ["events", "--kind", "needs_input"],
                            ["outbox", "list"], ["session", "list", "-S", socket], ["doctor"]] {
                views.append(("\(command.joined(separator: " ")) at \(width)", try hookctl(command + ["--width", width], environment: environment)))
            }
        }
        let board = try hookctl(["status", "--width", "45"], environment: environment)
        #expect(board.stdout.contains("SQLite") && board.stdout.contains("not delivered yet"), "\(board.stdout)")
        #expect(!board.stdout.contains("…\n  2 SQLite"), "an option was cut: \(board.stdout)")
        for (name, result) in outcomes + views {
            let width = name.hasSuffix("80") ? 80 : 45
            #expect(!Self.hasTerminalControls(result), "\(name)")
            for line in result.stdout.split(separator: "\n") where !line.contains("fix: ") {
                #expect(Terminal.columns(String(line)) <= width, "\(name): \(line)")
            }
        }
    }

    @Test func hostileTextThroughEveryCommandNeverReachesTheTerminalRaw() throws {
        let home = try TemporaryHome()
        // The relay answers 503 with a hostile body: notify's warnings, outbox, flush, test and doctor show it.
        let receiver = try Receiver(directory: home.path, responses: ["503"],
                                    extraArguments: ["--error-body", "down \u{1B}]52;c;ZXZpbA==\u{07} \u{1B}[2J"])
        try home.writeConfig(relay: receiver)
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1", "TMUX_TMPDIR": home.path])
        let socket = home.file("tmux.sock")
        _ = try Self.tmux(socket, ["new-session", "-d", "-s", "evil\u{1B}]52;c;eA==\u{07}name"], environment: environment)
        defer { _ = try? Self.tmux(socket, ["kill-server"], environment: environment) }

        var results: [(String, Subprocess.Result)] = []
        for text in Self.hostile {
            let payload = "{\"session_id\":\"s-\(text.count)\",\"hook_event_name\":\"Notification\",\"message\":\(JSON.serialize(.string(text)))}"
            let notify = try hookctl(["notify", "--agent", "claude", "--force", "--message", text, "--title", text],
                                     environment: environment, input: payload)
            results.append(("notify", notify))
            #expect(notify.stderr.contains("^[]52"), "notify's warning shows the relay's body inert: \(notify.stderr)")
        }
        // notify cleans agent text before it is recorded (OutgoingText); a log written by an older hookctl or
        // by hand may still hold anything, so the hostile texts are also appended to the log raw.
        let logFile = home.file(".local/state/hookctl/events.jsonl")
        let logged = try #require(try FileSystem.readString(logFile)?.split(separator: "\n").last.map(String.init))
        guard case .object(var template) = try JSON.parse(logged) else { Issue.record("the log line is not an object"); return }
        var seq = template["seq"]?.intValue ?? 0
        var raw = ""
        for text in Self.hostile {
            seq += 1
            template["id"] = .string("0000000-raw-\(seq)")
            template["seq"] = .int(seq)
            template["message"] = .string(text)
            raw += JSON.serialize(.object(template)) + "\n"
        }
        try FileSystem.appendLocked(logFile, bytes: Array(raw.utf8))
        let commands: [[String]] = [
            ["status"], ["status", "--width", "45"], ["status", "--width", "80"], ["status", "--format", "tmux"],
            ["events"], ["events", "--width", "45"], ["events", "--width", "80"], ["events", "--limit", "3"],
            ["outbox", "list"], ["outbox", "list", "--width", "45"], ["outbox", "flush"], ["outbox", "flush", "--width", "45"],
            ["doctor"], ["doctor", "--width", "45"], ["test"], ["test", "--width", "45"],
            ["session", "list", "-S", socket], ["session", "list", "-S", socket, "--width", "45"],
            ["setup", "--dry-run"], ["setup", "--dry-run", "--width", "45"], ["uninstall", "--dry-run"],
            ["help"], ["session", "ensure", "--name", "x\u{1B}[2J", "-S", home.file("no/such/dir/sock")],
            ["status", "--session", "\u{1B}]52;c;x\u{07}"], ["events", "--since", "\u{1B}[2Jnope"],
            ["outbox", "drop", "\u{1B}]52;c;x\u{07}"], ["\u{1B}[2Jbogus"], ["status", "--\u{1B}[2J"],
        ]
        for command in commands {
            results.append((command.joined(separator: " "), try hookctl(command, environment: environment)))
        }
        let records = #"[{"id":"\u001b]52;c;eA==\u0007","name":"evil\u001b[2Jname","session_id":"$9","created":1}]"#
        results.append(("session reconcile", try hookctl(["session", "reconcile", "-S", socket], environment: environment, input: records)))
        results.append(("status --color", try hookctl(["status", "--color", "always"], environment: environment)))
        for (name, result) in results {
            #expect(!Self.hasTerminalControls(result), "\(name) wrote a terminal control: \(result.stdout.debugDescription) \(result.stderr.debugDescription)")
        }
        // The hostile texts are there to read, and nothing is cut into a pipe.
        let events = try hookctl(["events"], environment: environment)
        #expect(events.stdout.contains("osc52 ^[]52;c;cm0gLXJmIH4=^G end"))
        #expect(events.stdout.contains("<U+202E>fdp.exe"))
        #expect(events.stdout.contains(String(repeating: "unbroken", count: 30)))
        #expect(!events.stdout.contains("…"))
        let narrow = try hookctl(["events", "--width", "45"], environment: environment)
        for line in narrow.stdout.split(separator: "\n") { #expect(Terminal.columns(String(line)) <= 45, "\(line)") }
        // JSON stays exact JSON: the original text comes back unchanged.
        let json = try hookctl(["events", "--json"], environment: environment)
        let messages = try json.stdout.split(separator: "\n").map { try JSON.parse(String($0))["message"]?.stringValue ?? "" }
        #expect(Array(messages.prefix(Self.hostile.count)) == Self.hostile.map(OutgoingText.clean))
        #expect(Array(messages.suffix(Self.hostile.count)) == Self.hostile)
        let sessions = try JSON.parse(try hookctl(["session", "list", "-S", socket, "--json"], environment: environment).stdout)
        #expect(sessions["sessions"]?.arrayValue?.first?["name"]?.stringValue?.hasPrefix("evil") == true)
    }

    /// JSON output is read on the same phone terminal (`status --json`, `events --json`, `events --follow
    /// --json`). JSON.writeString escapes C1 controls (U+009B is CSI in xterm, VTE and xterm.js) and the
    /// bidi controls as `\uXXXX` (before 6b36ce1 it wrote them raw), and `events --json` re-serializes a
    /// log line an older hookctl wrote raw.
    /// notify cleans the message, not the other agent-given fields it records: the working directory
    /// (a folder a prompt-injected agent made, or one in a cloned repository) and the project and title
    /// made from it, the session id, `detail` (notification_type, StopFailure's error, tool_name,
    /// SessionEnd's reason) and question.text (tool_name). Escaped as \u009b / \u202e the JSON parses to
    /// the same text.
    @Test func jsonOutputNeverCarriesRawC1ControlsOrBidiOverrides() throws {
        let home = try TemporaryHome()
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        let hostile = "x\u{9B}2J\u{9D}0;title\u{9C}\u{202E}fdp.exe\u{2066}y"
        let payloads: [[(String, JSONValue)]] = [
            [("session_id", .string("s1" + hostile)), ("cwd", .string("/tmp/repo" + hostile)), ("hook_event_name", .string("Notification")),
             ("message", .string("m")), ("notification_type", .string("permission_prompt" + hostile))],
            [("session_id", .string("s2")), ("cwd", .string("/tmp")), ("hook_event_name", .string("StopFailure")),
             ("error", .string("rate_limit" + hostile))],
            [("session_id", .string("s3")), ("cwd", .string("/tmp")), ("hook_event_name", .string("PermissionRequest")),
             ("tool_name", .string("mcp__evil" + hostile)), ("tool_input", .object(JSONObject([("command", .string("ls"))])))],
        ]
        for payload in payloads {
            let result = try hookctl(["notify", "--agent", "claude", "--force"], environment: environment,
                                     input: JSON.serialize(.object(JSONObject(payload))))
            #expect(result.status == 0, "\(result.stderr)")
        }
        func rawControls(_ bytes: [UInt8]) -> Int {
            var count = 0
            for index in bytes.indices.dropLast() {
                if bytes[index] == 0xC2, (0x80...0x9F).contains(bytes[index + 1]) { count += 1 }
                if index + 2 < bytes.count, bytes[index] == 0xE2, bytes[index + 1] == 0x80, (0xAA...0xAE).contains(bytes[index + 2]) { count += 1 }
                if index + 2 < bytes.count, bytes[index] == 0xE2, bytes[index + 1] == 0x81, (0xA6...0xA9).contains(bytes[index + 2]) { count += 1 }
            }
            return count
        }
        for command in [["status", "--json"], ["events", "--json"], ["events", "--json", "--limit", "3"], ["outbox", "list", "--json"]] {
            let result = try hookctl(command, environment: environment)
            #expect(result.status == 0)
            #expect(rawControls(result.standardOutput) == 0,
                    "\(command.joined(separator: " ")) wrote raw C1 or bidi controls: \(result.stdout.debugDescription.prefix(600))")
        }
    }

    @Test func colourOnAPseudoTerminalOffWithNoColorAndInPipes() throws {
        let home = try TemporaryHome()
        _ = try BoardEndToEndTests.record(home, [boardEvent(.needsInput, message: "waiting"), boardEvent(.failed, session: "s2", message: "broke")])
        func onTerminal(_ arguments: [String], _ extra: [String: String] = [:]) throws -> String {
            let result = try Subprocess(executable: "/usr/bin/script", arguments: ["-qec", Self.quote([Harness.binary] + arguments), "/dev/null"],
                                        environment: home.environment(["TERM": "xterm-256color"].merging(extra) { $1 }), timeout: 30).run()
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let coloured = try onTerminal(["status"])
        #expect(coloured.contains("\u{1B}[1;33m") && coloured.contains("\u{1B}[1;31m"), "\(coloured.debugDescription)")
        #expect(try onTerminal(["events"]).contains("\u{1B}[1;33mneeds_input\u{1B}[0m"))
        #expect(!(try onTerminal(["status"], ["NO_COLOR": "1"])).contains("\u{1B}["))
        #expect(!(try onTerminal(["status"], ["TERM": "dumb"])).contains("\u{1B}["))
        #expect(!(try onTerminal(["--color", "never", "status"])).contains("\u{1B}["))
        let error = try Subprocess(executable: "/usr/bin/script", arguments: ["-qec", Self.quote([Harness.binary, "bogus"]), "/dev/null"],
                                   environment: home.environment(["TERM": "xterm"]), timeout: 30).run()
        #expect(error.stdout.contains("hookctl: \u{1B}[1;31merror:\u{1B}[0m unknown command"), "\(error.stdout.debugDescription)")
        #expect(try hookctl(["bogus"], environment: home.environment()).stderr.hasPrefix("hookctl: error: unknown command"))
        let piped = try hookctl(["status"], environment: home.environment())
        #expect(!piped.stdout.contains("\u{1B}") && piped.stdout.contains("needs_input"))
        #expect(try hookctl(["--color", "always", "status"], environment: home.environment(["NO_COLOR": "1"])).stdout.contains("\u{1B}[1;33m"))
    }

    @Test func tmuxSegmentCountsWhatNeedsTheUser() throws {
        let home = try TemporaryHome()
        #expect(try hookctl(["status", "--format", "tmux"], environment: home.environment()).stdout == "")
        _ = try BoardEndToEndTests.record(home, [
            boardEvent(.needsInput, session: "a"), boardEvent(.needsInput, session: "b"),
            boardEvent(.failed, session: "c", message: "#[fg=red]#(rm -rf ~)"), boardEvent(.done, session: "d"),
        ])
        let segment = try hookctl(["status", "--format", "tmux"], environment: home.environment())
        #expect(segment.stdout == "#[fg=yellow,bold]⚑2#[default] #[fg=red,bold]✗1#[default]\n")
        #expect(try hookctl(["--color", "never", "status", "--format", "tmux"], environment: home.environment()).stdout == "⚑2 ✗1\n")
    }

    @Test func followShowsTheLastTenFirst() throws {
        let home = try TemporaryHome()
        _ = try BoardEndToEndTests.record(home, (1...15).map { boardEvent(.working, message: "old \($0)") })
        let follower = try StreamingHookctl(["events", "--follow", "--width", "80"], home: home)
        defer { follower.stop() }
        let first = try #require(follower.readLine(timeout: 10))
        #expect(first.hasPrefix("#6 "), "\(first)")
        for _ in 7...15 { _ = follower.readLine(timeout: 10) }
        _ = try BoardEndToEndTests.record(home, [boardEvent(.needsInput, message: "new one")])
        #expect(follower.readLine(timeout: 10)?.hasPrefix("#16 ") == true)
    }

    @Test func statusWatchRedrawsInARealTmuxPaneAndRestoresTheScreen() throws {
        let home = try TemporaryHome()
        _ = try BoardEndToEndTests.record(home, [boardEvent(.working, session: "a", message: "compiling")])
        let socket = home.file("watch.sock")
        let environment = home.environment(["TMUX_TMPDIR": home.path, "TERM": "xterm-256color"])
        let start = try Self.tmux(socket, ["new-session", "-d", "-x", "45", "-y", "20", "-s", "watch",
                                           Self.quote([Harness.binary, "status", "--watch"])], environment: environment)
        try #require(start.status == 0, "\(start.stderr)")
        defer { _ = try? Self.tmux(socket, ["kill-server"], environment: environment) }
        _ = try Self.tmux(socket, ["set-option", "-t", "watch", "remain-on-exit", "on"], environment: environment)
        func screen() throws -> String { try Self.tmux(socket, ["capture-pane", "-p", "-t", "watch"], environment: environment).stdout }
        #expect(try eventually { try screen().contains("compiling") }, "\((try? screen()) ?? "")")
        #expect(try screen().contains("hookctl status"))
        _ = try BoardEndToEndTests.record(home, [boardEvent(.needsInput, session: "b", message: "may I run rm")])
        #expect(try eventually { try screen().contains("may I run rm") }, "\((try? screen()) ?? "")")
        for line in try screen().split(separator: "\n") { #expect(Terminal.columns(String(line)) <= 45) }
        _ = try Self.tmux(socket, ["send-keys", "-t", "watch", "q"], environment: environment)
        let dead = try eventually {
            try Self.tmux(socket, ["display-message", "-p", "-t", "watch", "#{pane_dead}:#{alternate_on}"], environment: environment).stdout == "1:0\n"
        }
        #expect(dead, "the board should exit on q and leave the alternate screen")
        #expect(!(try screen()).contains("may I run rm"), "the normal screen is back")
    }

    @Test func attachInsideTmuxSwitchesTheClientAndWidensOnlyThatSession() throws {
        let home = try TemporaryHome()
        let environment = home.environment(["TMUX_TMPDIR": home.path, "TERM": "xterm-256color"])
        let inner = home.file("inner.sock"), outer = home.file("outer.sock")
        try #require(try Self.tmux(inner, ["new-session", "-d", "-s", "first", "-x", "100", "-y", "20"], environment: environment).status == 0)
        defer {
            _ = try? Self.tmux(inner, ["kill-server"], environment: environment)
            _ = try? Self.tmux(outer, ["kill-server"], environment: environment)
        }
        // A real client of the inner server: it runs in a pane of an outer server (a terminal for it).
        let client = Self.quote(["/usr/bin/env", "-u", "TMUX", "/usr/bin/tmux", "-S", inner, "attach-session", "-t", "=first"])
        try #require(try Self.tmux(outer, ["new-session", "-d", "-x", "100", "-y", "20", client], environment: environment).status == 0)
        func clientSession() throws -> String {
            try Self.tmux(inner, ["list-clients", "-F", "#{client_session}"], environment: environment).stdout
        }
        try #require(try eventually { try clientSession() == "first\n" })
        // Typed in the inner session's pane (TMUX points at the inner server): switch, do not nest.
        let name = "sshido-9B95BD2A-phone"
        let command = Self.quote([Harness.binary, "session", "ensure", "--name", name, "-S", inner, "--attach"])
        _ = try Self.tmux(inner, ["send-keys", "-t", "=first:", command, "Enter"], environment: environment)
        #expect(try eventually { try clientSession() == "\(name)\n" }, "client is on \((try? clientSession()) ?? "")")
        let width = try Self.tmux(inner, ["show-options", "-v", "-t", "=" + name + ":", "status-left-length"], environment: environment).stdout
        #expect(Int(Text.trimmed(width)) ?? 0 >= name.count + 3)
        #expect(try Self.tmux(inner, ["show-options", "-gv", "status-left-length"], environment: environment).stdout == "10\n")
        // From the outer server's pane, the inner server is another server: refused without --nested.
        let nested = try hookctl(["session", "ensure", "--name", "other", "-S", inner, "--attach"],
                                 environment: environment.merging(["TMUX": outer + ",1,0"]) { $1 })
        #expect(nested.status == 64 && nested.stderr.contains("--nested"), "\(nested.stderr)")
    }

    @Test func completionScriptsCompleteInRealShells() throws {
        let home = try TemporaryHome()
        let path = FileSystem.parentDirectory(of: Harness.binary) + ":/usr/local/bin:/usr/bin:/bin"
        let environment = home.environment(["PATH": path])
        func run(_ shell: String, _ script: String) throws -> String {
            let result = try Subprocess(executable: shell, arguments: ["-c", script], environment: environment, timeout: 30).run()
            #expect(result.status == 0, "\(shell): \(result.stderr)")
            return result.stdout
        }
        let bash = try run("/bin/bash", """
            source <(hookctl completion bash)
            COMP_WORDS=(hookctl sta); COMP_CWORD=1; _hookctl; echo "${COMPREPLY[*]}"
            COMP_WORDS=(hookctl status --wa); COMP_CWORD=2; _hookctl; echo "${COMPREPLY[*]}"
            COMP_WORDS=(hookctl setup --agents ge); COMP_CWORD=3; _hookctl; echo "${COMPREPLY[*]}"
            """)
        #expect(bash == "status\n--watch\ngemini\n")
        if FileSystem.isExecutable("/usr/bin/zsh") {
            let zsh = try run("/usr/bin/zsh", """
                autoload -U compinit; compinit -u -d "$HOME/.zcompdump"
                source <(hookctl completion zsh)
                compadd() { print -l -- "${@[$@[(i)--]+1,-1]}" }
                words=(hookctl sta); CURRENT=2; _hookctl
                words=(hookctl status --wa); CURRENT=3; _hookctl
                """)
            #expect(zsh == "status\n--watch\n")
        } else {
            Issue.record("zsh is not installed (.ci/run installs it)")
        }
        if FileSystem.isExecutable("/usr/bin/fish") {
            let fish = try run("/usr/bin/fish", """
                hookctl completion fish | source
                complete -C 'hookctl sta'
                complete -C 'hookctl status --wa'
                """)
            #expect(fish == "status\n--watch\n")
        } else {
            Issue.record("fish is not installed (.ci/run installs it)")
        }
    }

    @Test func installExtrasWritesCompletionsManPagesAndReadme() throws {
        let home = try TemporaryHome()
        let share = home.file("share")
        let result = try Subprocess(executable: Harness.packageRoot + "/scripts/install-extras.sh", arguments: [Harness.binary, share],
                                    environment: home.environment(), timeout: 30).run()
        #expect(result.status == 0, "\(result.stderr)")
        for file in ["bash-completion/completions/hookctl", "zsh/site-functions/_hookctl", "fish/vendor_completions.d/hookctl.fish",
                     "man/man1/hookctl.1", "man/man5/hookctl-config.5", "doc/hookctl/README.md"] {
            #expect(FileSystem.exists(share + "/" + file), "\(file)")
        }
        if FileSystem.isExecutable("/usr/bin/man") {
            let page = try Subprocess(executable: "/usr/bin/man", arguments: ["-l", share + "/man/man1/hookctl.1"],
                                      environment: home.environment(["MANPAGER": "cat", "MANWIDTH": "80"]), timeout: 30).run()
            #expect(page.stdout.contains("status") && page.stderr.isEmpty, "\(page.stderr)")
        }
    }
}
