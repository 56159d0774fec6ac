import Testing
@testable import HookSupport
@testable import HookDelivery
@testable import HookAgents
import TestSupport

/// What a new user meets in the first hour (issue 25), run as the built binary with a private HOME:
/// the test command, the secret prompt, config help and errors, the gate, and honest short output.
@Suite(.onTestThreads) struct FirstHourTests {
    static let url = "https://push.example.com/n/0123456789abcdef0123456789abcdef"

    // MARK: ./test.sh

    /// As a user who is not root on a machine that lacks packages, `./test.sh` names exactly what to
    /// install (one apt-get line) and exits 69 before building anything. `id` and `dpkg-query` are
    /// stand-ins on PATH: this one says uid 1000, that one knows only `tmux` and `zsh`.
    @Test func testScriptNamesWhatToInstallWhenNotRoot() throws {
        let home = try TemporaryHome()
        try home.write("bin/id", "#!/bin/sh\n[ \"$1\" = -u ] && echo 1000 && exit 0\nexec /usr/bin/id \"$@\"\n", mode: 0o755)
        try home.write("bin/dpkg-query", """
            #!/bin/sh
            for p; do :; done
            case "$p" in tmux|zsh) printf 'install ok installed' ;; *) exit 1 ;; esac

            """, mode: 0o755)
        try home.write("bin/swift", "#!/bin/sh\necho 'swift must not run when packages are missing' >&2; exit 99\n", mode: 0o755)
        let environment = home.environment(["PATH": home.file("bin") + ":/usr/bin:/bin"])
        let result = try Subprocess(executable: "/bin/bash", arguments: [Harness.packageRoot + "/test.sh"],
                                    environment: environment, timeout: 30).run()
        #expect(result.status == .exited(69), "\(result.stderr)")
        let install = try #require(result.stderr.split(separator: "\n").first { $0.contains("apt-get install") })
        for package in ["libcurl4-openssl-dev", "faketime", "fish", "python3-jsonschema", "nodejs"] {
            #expect(install.contains(package), "\(package) missing from: \(install)")
        }
        #expect(!install.contains(" tmux") && !install.contains(" zsh"), "installed packages are not named again: \(install)")
        // The package-test packages are root's business (those tests need root).
        #expect(!install.contains("debootstrap"))
        #expect(!result.stderr.contains("must not run"))
        // Everything present: --check says so and exits 0 without building.
        try home.write("bin/dpkg-query", "#!/bin/sh\nprintf 'install ok installed'\n", mode: 0o755)
        let check = try Subprocess(executable: "/bin/bash", arguments: [Harness.packageRoot + "/test.sh", "--check"],
                                   environment: environment, timeout: 30).run()
        #expect(check.status == .exited(0), "\(check.stderr)")
        #expect(check.stderr.contains("everything the tests need is installed"))
    }

    /// CI runs exactly the README's test command.
    @Test func ciRunsTheTestScript() throws {
        let ci = try #require(try FileSystem.readString(Harness.packageRoot + "/.ci/run"))
        let commands = ci.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(commands.contains("exec ./test.sh </dev/null"), "\(commands)")
        #expect(!ci.contains("apt-get"), "the package list lives in test.sh only")
        let readme = try #require(try FileSystem.readString(Harness.packageRoot + "/README.md"))
        #expect(readme.contains("./test.sh") && readme.contains("./install.sh"))
    }

    // MARK: the secret prompt

    /// `setup --notify-url-file -` on a terminal: a prompt, no echo of the pasted URL, a redacted
    /// confirmation. Run under a real pseudo-terminal (Python's pty module).
    @Test func notifyURLPromptOnATerminalHidesTheSecret() throws {
        let home = try TemporaryHome()
        try FileSystem.makeDirectories(home.file(".claude"))
        let script = """
            import os, pty, select, sys
            binary, url = sys.argv[1], sys.argv[2]
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(binary, [binary, "setup", "--notify-url-file", "-", "--agents", "claude", "-q"])
            out = b""
            def more(wait):
                global out
                ready, _, _ = select.select([fd], [], [], wait)
                if not ready: return False
                try: chunk = os.read(fd, 4096)
                except OSError: return False
                out += chunk
                return bool(chunk)
            while b"Enter" not in out and more(20): pass
            os.write(fd, (url + "\\n").encode())
            while more(20): pass
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(out.decode("utf-8", "replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let result = try Subprocess(executable: "/usr/bin/env", arguments: ["python3", "-S", "-c", script, Harness.binary, Self.url],
                                    environment: home.environment(), timeout: 60).run()
        #expect(result.status == .exited(0), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("Paste the notify URL from the phone app"), "\(result.stdout)")
        #expect(result.stdout.contains("(it is not shown)"))
        #expect(result.stdout.contains("Read the notify URL: https://push.example.com/n/"))
        #expect(!result.stdout.contains("0123456789abcdef0123456789abcdef"), "the pasted URL was echoed: \(result.stdout)")
        #expect(home.read(".config/hookctl/config.yaml")?.contains(Self.url) == true)
    }

    /// No hint anywhere puts the secret on a command line: setup without a URL, doctor without a
    /// config, and test without sinks all point at `--notify-url-file -`.
    @Test func hintsNeverPutTheURLOnACommandLine() throws {
        let home = try TemporaryHome()
        let outputs = [try hookctl(["setup", "--agents", "claude"], environment: home.environment()),
                       try hookctl(["doctor"], environment: home.environment(["HOOKCTL_CONFIG": home.file("none.yaml")])),
                       try hookctl(["test"], environment: home.environment())]
        FileSystem.remove(home.file(".config/hookctl/config.yaml"))
        let doctor = try hookctl(["doctor"], environment: home.environment())
        for result in outputs + [doctor] {
            let text = result.stdout + result.stderr
            #expect(!text.contains("--notify-url URL"), "\(text)")
        }
        #expect(outputs[0].stdout.contains("--notify-url-file -"), "\(outputs[0].stdout)")
        #expect(doctor.stdout.contains("--notify-url-file -"), "\(doctor.stdout)")
        let readme = try #require(try FileSystem.readString(Harness.packageRoot + "/README.md"))
        #expect(!readme.contains("setup --notify-url URL") && !readme.contains("--notify-url http"),
                "the README shows the URL on a command line")
    }

    // MARK: config help and errors

    /// `help sinks` lists every key of every type, from the table the config is checked against, and
    /// each type's example is a config that builds.
    @Test func helpSinksNamesEveryKeyAndEachExampleBuilds() throws {
        let home = try TemporaryHome()
        let help = try hookctl(["help", "sinks"], environment: home.environment())
        #expect(help.status == 0)
        for type in SinkRegistry.types {
            #expect(help.stdout.contains("type: \(type.type)\n"), "\(type.type)")
            for key in type.keys { #expect(help.stdout.contains(key), "\(type.type): \(key)") }
        }
        for key in SinkSettings.commonKeys { #expect(help.stdout.contains("  " + key)) }
        let man = try hookctl(["help", "config", "--man"], environment: home.environment())
        #expect(man.stdout.contains(".SH SINKS") && man.stdout.contains("chat_id") && man.stdout.contains("github_signature"))
        #expect(man.stdout.contains("quiet"), "defaults.quiet is in the config man page")
        #expect(try hookctl(["help", "config"], environment: home.environment()).stdout.contains("idle_after_done"))
        let environment = ["NTFY_TOPIC_URL": "https://ntfy.sh/topic", "AGENT_WEBHOOK_SECRET": "s3cret", "SLACK_WEBHOOK_URL": "https://hooks.slack.com/x",
                           "TELEGRAM_BOT_TOKEN": "123:abc", "HOME": home.path]
        try home.write(".config/hookctl/ntfy-token", "tk_1\n")
        try home.write(".config/hookctl/discord-url", "https://discord.com/api/webhooks/1/x\n")
        try home.write(".config/hookctl/notify-url", Self.url + "\n")
        try home.write(".config/hookctl/pushover-token", "azGDORePK8gMaC0QOYAMyEEuzJnyUi\n")
        try home.write(".config/hookctl/pushover-user", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG\n")
        try home.write(".config/hookctl/pushover-e2ee-key", String(repeating: "0f", count: 32) + "\n")
        for entry in SinkKeys.types {
            var example = entry.example.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
            if entry.type == "exec" { example = example.replacing("/usr/local/bin/my-notifier", with: "/bin/true") }
            let config = try Config.parse("version: 1\nsinks:\n" + example + "\n", path: "example.yaml", environment: environment)
            let sinks = try SinkRegistry.makeSinks(config: config)
            #expect(sinks.map(\.type) == [entry.type])
        }
        // The README's table names every key of every type, and its first screen is for a phone user.
        let readme = try #require(try FileSystem.readString(Harness.packageRoot + "/README.md"))
        for entry in SinkKeys.types {
            for key in entry.keys { #expect(readme.contains("`\(key.name)`"), "README: \(entry.type) key \(key.name)") }
        }
        let firstScreen = readme.split(separator: "\n").prefix(24).joined(separator: "\n")
        #expect(firstScreen.contains("phone") && firstScreen.contains("push"))
        // Every registered type has its table entry, and only those.
        #expect(Set(SinkKeys.types.map(\.type)) == Set(SinkRegistry.typeNames))
    }

    /// Every problem in the config at once, each with its line and the key meant; a missing
    /// `--config` file is named as missing.
    @Test func configErrorsAllAtOnceWithDidYouMean() throws {
        let home = try TemporaryHome()
        try home.write("bad.yaml", """
            version: 1
            defaults:
              budjet: 2s
            sinks:
              - name: tg
                type: telegram
                bot_token: "123:abc"
                chat: "42"
              - name: n
                type: ntfy
                url: https://ntfy.sh/topic
                tag: [a]

            """)
        let result = try hookctl(["--config", home.file("bad.yaml"), "test"], environment: home.environment())
        #expect(result.status == .exited(78))
        #expect(result.stderr.contains("4 problems in the config"), "\(result.stderr)")
        #expect(result.stderr.contains("bad.yaml:3:3: unknown key 'defaults.budjet' (did you mean 'budget'?)"))
        #expect(result.stderr.contains("bad.yaml:7:5: sink 'tg': unknown key 'bot_token' for a telegram sink (did you mean 'token'?)"))
        #expect(result.stderr.contains("bad.yaml:8:5: sink 'tg': unknown key 'chat' for a telegram sink (did you mean 'chat_id'?)"))
        #expect(result.stderr.contains("bad.yaml:12:5: sink 'n': unknown key 'tag' for a ntfy sink (did you mean 'tags'?)"))
        let doctor = try hookctl(["--config", home.file("bad.yaml"), "doctor", "--json"], environment: home.environment())
        let broken = try JSON.parse(doctor.stdout)["checks"]?.arrayValue?.filter { $0["status"]?.stringValue == "broken" } ?? []
        #expect(broken.count == 4, "one doctor line per problem: \(doctor.stdout)")

        let missing = home.file("typo.yaml")
        for arguments in [["--config", missing, "test"], ["test", "--config", missing], ["outbox", "flush", "--config", missing]] {
            let run = try hookctl(arguments, environment: home.environment())
            #expect(run.status == .exited(78), "\(arguments)")
            #expect(run.stderr.contains("no such file: \(missing)"), "\(arguments): \(run.stderr)")
        }
        let doctorMissing = try hookctl(["doctor"], environment: home.environment(["HOOKCTL_CONFIG": missing]))
        #expect(doctorMissing.stdout.contains("no such file: \(missing)"), "\(doctorMissing.stdout)")
        // The default file missing is not an error: nothing is configured yet.
        #expect(try hookctl(["outbox", "list"], environment: home.environment()).status == .exited(0))
    }

    // MARK: the gate

    /// A custom gate is one setting: setup gates the hooks on it, `session ensure` sets it (not
    /// SSHIDO_SESSION) in the sessions it makes, and doctor flags a shell that carries the old one.
    @Test func customGateIsFollowedBySetupSessionEnsureAndDoctor() throws {
        let home = try TemporaryHome()
        defer { _ = try? home.tmuxResult(["kill-server"]) }
        try home.write(".config/hookctl/config.yaml", "version: 1\ndefaults:\n  gate: MYGATE\nsinks: []\n")
        try FileSystem.makeDirectories(home.file(".claude"))
        let environment = home.environment(["TMUX_TMPDIR": home.path])
        #expect(try hookctl(["setup", "--agents", "claude", "-q"], environment: environment).status == .exited(0))
        let command = try registeredCommand(home, ".claude/settings.json", "Stop")
        #expect(command.contains("MYGATE") && !command.contains("SSHIDO_SESSION"), "\(command)")

        let ensure = try hookctl(["session", "ensure", "--name", "phone", "-S", home.tmuxSocket, "--json"], environment: environment)
        #expect(ensure.status == .exited(0), "\(ensure.stderr)")
        let sessionEnvironment = try home.tmux(["show-environment", "-t", "phone"])
        #expect(sessionEnvironment.split(separator: "\n").contains("MYGATE=1"), "\(sessionEnvironment)")
        #expect(!sessionEnvironment.contains("SSHIDO_SESSION"), "\(sessionEnvironment)")

        let mismatch = try hookctl(["doctor", "--json"], environment: home.environment(["SSHIDO_SESSION": "1"]))
        let gate = try JSON.parse(mismatch.stdout)["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "gate" }
        #expect(gate?["status"]?.stringValue == "warning", "\(mismatch.stdout)")
        #expect(gate?["message"]?.stringValue?.contains("the hooks wait for MYGATE") == true)
        let matching = try hookctl(["doctor", "--json"], environment: home.environment(["MYGATE": "1"]))
        let fine = try JSON.parse(matching.stdout)["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "gate" }
        #expect(fine?["status"]?.stringValue == "ok")
    }

    // MARK: honest short output

    /// `notify "deploy finished"` outside a phone session says why nothing was sent; a hook's own
    /// call (with --agent, stderr not a terminal) stays silent.
    @Test func notifyWithoutTheGateTellsAPersonWhy() throws {
        let home = try TemporaryHome()
        let person = try hookctl(["notify", "deploy finished"], environment: home.environment())
        #expect(person.status == .exited(0))
        #expect(person.stderr.contains("nothing sent: SSHIDO_SESSION is not set"), "\(person.stderr)")
        #expect(person.stderr.contains("--force"))
        let hook = try hookctl(["notify", "--agent", "claude"], environment: home.environment(), input: "{}")
        #expect(hook.status == .exited(0) && hook.stderr.isEmpty && hook.stdout.isEmpty, "\(hook.stderr)")
    }

    @Test func colourIsColorAndMistypedGlobalOptionsAreOptions() throws {
        let home = try TemporaryHome()
        let british = try hookctl(["--colour", "never", "version"], environment: home.environment())
        #expect(british.status == .exited(0) && british.stdout.hasPrefix("hookctl "), "\(british.stderr)")
        #expect(try hookctl(["--colour=always", "version"], environment: home.environment()).status == .exited(0))
        let typo = try hookctl(["--colr", "never", "status"], environment: home.environment())
        #expect(typo.status == .exited(64))
        #expect(typo.stderr.contains("unknown option '--colr' (did you mean '--color'?)"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("unknown command"))
    }

    @Test func replyWithoutTargetSaysWhatToGive() throws {
        let home = try TemporaryHome()
        let result = try hookctl(["reply"], environment: home.environment())
        #expect(result.status == .exited(64))
        #expect(result.stderr.contains("name the agent: TARGET") && result.stderr.contains("--next"), "\(result.stderr)")
        #expect(!result.stderr.contains("nothing to send"))
    }

    /// Agents that are not installed are one line in setup and doctor, and setup's table into a pipe
    /// keeps every word.
    @Test func absentAgentsAreOneLineAndNothingIsCutInAPipe() throws {
        let home = try TemporaryHome()
        let setup = try hookctl(["setup"], environment: home.environment())
        #expect(setup.status == .exited(0), "\(setup.stderr)")
        let skipped = setup.stdout.split(separator: "\n").filter { $0.contains("skipped") }
        #expect(skipped.count == 1, "\(setup.stdout)")
        #expect(Text.singleLine(setup.stdout).contains("name one in --agents to set it up anyway"), "nothing cut in a pipe: \(setup.stdout)")
        for name in ["Claude Code", "Codex", "Gemini CLI", "Qwen Code"] { #expect(setup.stdout.contains(name)) }
        let doctor = try hookctl(["doctor"], environment: home.environment())
        let lines = doctor.stdout.split(separator: "\n").filter { $0.contains("not installed") }
        #expect(lines.count == 1, "\(doctor.stdout)")
        // --json keeps one check per agent.
        let json = try JSON.parse(try hookctl(["doctor", "--json"], environment: home.environment()).stdout)
        #expect((json["checks"]?.arrayValue?.filter { $0["message"]?.stringValue == Doctor.absentAgentMessage }.count ?? 0) > 3)
    }

    /// Help follows the terminal's width (COLUMNS here) by display width, never breaking a word, and
    /// is wrapped, not cut, into a pipe.
    @Test func helpWrapsAtTheTerminalWidth() throws {
        let home = try TemporaryHome()
        for width in [45, 60, 120] {
            for arguments in [["help", "setup"], ["help", "sinks"], ["help", "config"], ["help"], ["session"]] {
                let result = try hookctl(arguments, environment: home.environment(["COLUMNS": String(width)]))
                let limit = min(100, width)
                for line in result.stdout.split(separator: "\n") {
                    // A single word longer than the line (a path, a URL) may stand alone; nothing else.
                    if Terminal.columns(String(line)) > limit {
                        #expect(!Text.trimmed(String(line)).contains(" ") || line.hasPrefix("    "), "\(arguments) at \(width): \(line)")
                    }
                }
            }
        }
        let narrow = try hookctl(["help", "setup"], environment: home.environment(["COLUMNS": "45"])).stdout
        let wide = try hookctl(["help", "setup"], environment: home.environment(["COLUMNS": "100"])).stdout
        #expect(narrow.split(separator: "\n").count > wide.split(separator: "\n").count)
        // The words are the same, only the breaks move.
        #expect(narrow.split(whereSeparator: \.isWhitespace) == wide.split(whereSeparator: \.isWhitespace))
    }
}
