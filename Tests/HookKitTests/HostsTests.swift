import Synchronization
import Testing
@testable import HookSupport
@testable import HookDelivery
@testable import HookAgents
@testable import HookCLI
import TestSupport

/// The board across hosts at the unit level: the ssh argv, the remote command's quoting, the config's
/// hosts, and hostile answers. ssh is stood in for by a script on PATH that runs the remote command
/// with /bin/sh in a per-host HOME (as a login shell would); Tests/package/hosts.sh runs the same
/// against real sshd servers.
@Suite(.onTestThreads) struct HostsTests {
    let scratch: BoardScratch

    init() throws {
        scratch = try BoardScratch()
        try FileSystem.makeDirectories(scratch.path + "/bin")
        try FileSystem.writeAtomically(scratch.path + "/bin/ssh", text: """
        #!/bin/sh
        fake=$FAKE_HOSTS
        for a in "$@"; do printf '%s\\n' "$a"; done >"$fake/last.argv"
        while [ $# -gt 0 ]; do case $1 in -o) shift 2 ;; -T|-t) shift ;; --) shift; break ;; *) break ;; esac; done
        host=$1; shift
        case $host in
          down) echo "ssh: connect to host down port 22: Connection refused" >&2; exit 255 ;;
          rekeyed) # As ssh writes it: CR LF line ends.
                   printf '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n' >&2
                   printf '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n' >&2
                   printf 'Offending ED25519 key in /home/u/.ssh/known_hosts:3\r\n  remove with:\r\n' >&2
                   printf 'Host key verification failed.\r\n' >&2; exit 255 ;;
        esac
        mkdir -p "$fake/$host"
        echo "$host" >>"$fake/calls"
        # The link's remote end reads its standard input as it comes (requests, one a line).
        case "$*" in *"'hosts' 'serve'") exec env -i HOME="$fake/$host" PATH=/nonexistent /bin/sh -c "$*" ;; esac
        cat >"$fake/$host.stdin"
        exec env -i HOME="$fake/$host" PATH=/nonexistent /bin/sh -c "$*" <"$fake/$host.stdin"

        """, mode: 0o755)
    }

    var hostsDirectory: String { scratch.path + "/hosts" }

    var environment: [String: String] {
        ["FAKE_HOSTS": hostsDirectory, "PATH": scratch.path + "/bin:/usr/bin:/bin", "XDG_RUNTIME_DIR": scratch.path + "/run"]
    }

    /// A host whose `~/.local/bin/hookctl` is `script` (nil: no hookctl there).
    func host(_ name: String, hookctl script: String?) throws {
        try FileSystem.makeDirectories(hostsDirectory + "/\(name)/.local/bin")
        if let script {
            try FileSystem.writeAtomically(hostsDirectory + "/\(name)/.local/bin/hookctl", text: "#!/bin/sh\n" + script + "\n", mode: 0o755)
        }
    }

    static let goodStatus = #"""
    for a in "$@"; do printf '%s\n' "$a"; done >"$HOME/args"
    printf '%s\n' '{"generated_at":"2026-12-03T10:00:00.000Z","host":"box2","last_seq":7,"counts":{},"agents":[{"key":"claude:c2080807","agent":"claude","state":"needs_input","stale":false,"since":"2026-12-03T09:59:00.000Z","updated_at":"2026-12-03T09:59:00.000Z","session_id":"c2080807","tmux":{"session":"work","pane":"%7","window":"1"},"cwd":"/srv/api","project":"api","message":"Allow \u001b]52;c;ZWNobw==\u0007\u001b[2Jrm?","kind":"needs_input","last_seq":7,"host":"box2","question":null}]}'
    """#

    func runner() -> SSHRunner {
        SSHRunner(ssh: scratch.path + "/bin/ssh", environment: environment, connectTimeout: 5, controlDirectory: scratch.path + "/run/ssh")
    }

    /// An asker that connects and never reads (stopped, or hostile) does not hold the owner's answer: the
    /// write gives up after the send timeout instead of blocking its thread for good.
    @Test func aWriteToAnAskerThatNeverReadsGivesUp() throws {
        let directory = try TemporaryDirectory("link-socket")
        let path = directory.path + "/s"
        let listener = try UnixSocket.listen(path)
        defer { listener.close() }
        let asker = try UnixSocket.connect(path)
        defer { asker.close() }
        let connection = try #require(listener.accept(timeout: 2, sendTimeout: 0.2))
        defer { connection.close() }
        let started = ContinuousClock.now
        // 64 MiB: far past what the socket buffers hold, so the write must block once they are full.
        #expect(throws: Errno.self) { try connection.writeAll([UInt8](repeating: 0x61, count: 64 << 20)) }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func sshArgumentsPutTheUsersOptionsFirstThenBatchModeAndTheControlMaster() {
        let host = SSHRunner.Host(name: "box2", destination: "u@box2", options: ["Port=2222"])
        let arguments = SSHRunner(ssh: "/usr/bin/ssh", environment: [:], connectTimeout: 5, controlDirectory: "/run/user/1/hookctl/ssh")
            .arguments(host, command: "C")
        #expect(arguments == ["-T", "-o", "Port=2222", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "-o", "ControlMaster=auto",
                              "-o", "ControlPath=/run/user/1/hookctl/ssh/%C", "-o", "ControlPersist=600", "--", "u@box2", "C"])
        #expect(!arguments.contains { $0.lowercased().contains("stricthostkeychecking") })
    }

    @Test(arguments: ["%7", "claude:c2080807", "a'b", "$(touch pwned)", "`id`", "x; rm -rf ~", "a\"b\\c", "名前 with spaces", "*", "~root"])
    func remoteWordsArriveAsTheyWereWhateverTheyHold(target: String) throws {
        try host("box2", hookctl: #"for a in "$@"; do printf '%s\n' "$a"; done"#)
        let result = try runner().run(SSHRunner.Host(name: "box2", destination: "box2"), command: try RemoteHookctl.command(["peek", target, "--json"]),
                                      timeout: 20)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.outputText == "peek\n\(target)\n--json\n")
        #expect(!FileSystem.exists(hostsDirectory + "/box2/pwned"))
    }

    @Test(arguments: ["-x", "--lines=5", "a\nb", "bell\u{7}", "bang!", ""])
    func remoteWordsOffTheAllowlistAreRefused(word: String) {
        #expect(throws: UsageError.self) { try RemoteHookctl.command(["peek", word]) }
    }

    @Test func onlyAllowedCommandsAndOptionsGoToAHost() throws {
        #expect(throws: UsageError.self) { try RemoteHookctl.command(["setup", "--json"]) }
        #expect(throws: UsageError.self) { try RemoteHookctl.command(["reply", "%7", "--config"]) }
        #expect(throws: UsageError.self) { try RemoteHookctl.command([]) }
        let command = try RemoteHookctl.command(["reply", "%7", "-", "--choice", "Yes, and don't ask"])
        #expect(command.hasPrefix(RemoteHookctl.launcher + " "))
        #expect(command.hasSuffix(#"'reply' '%7' '-' '--choice' 'Yes, and don'\''t ask'"#))
    }

    @Test func eachHostsAnswerIsItsOwnRowAndAHostileOneChangesNothingElse() throws {
        try host("good", hookctl: Self.goodStatus)
        try host("huge", hookctl: "head -c 10485760 /dev/zero | tr '\\0' 'a'")
        try host("escapes", hookctl: #"printf '\033]52;c;ZWNobw==\007\033[2J{"agents":[],"last_seq":1}\n'"#)
        try host("garbage", hookctl: "echo '{\"agents\": [1, 2'")
        try host("old", hookctl: "echo \"hookctl: error: unknown option '--json'\" >&2; exit 64")
        try host("older", hookctl: "echo '{\"host\":\"x\"}'")
        try host("slow", hookctl: "exec sleep 30")
        try host("missing", hookctl: nil)
        let names = ["good", "huge", "escapes", "garbage", "old", "older", "slow", "missing", "down", "rekeyed"]
        let started = monotonicSeconds()
        let boards = HostsBoard.ask(names.map { SSHRunner.Host(name: $0, destination: $0) }, runner: runner(), timeout: 3)
        #expect(monotonicSeconds() - started < 20)
        let byName = Dictionary(uniqueKeysWithValues: boards.map { ($0.name, $0) })
        #expect(boards.map(\.name) == names)
        let good = try #require(byName["good"])
        #expect(good.state == .ok)
        #expect(good.lastSeq == 7)
        #expect(good.entries.map(\.key) == ["claude:c2080807"])
        #expect(good.entries.first?.tmux?.pane == "%7")
        #expect(try FileSystem.readString(hostsDirectory + "/good/args") == "status\n--json\n")
        #expect(byName["huge"]?.state == .badAnswer)
        #expect(byName["huge"]?.reason?.contains("larger than 4 MB") == true)
        #expect(byName["escapes"]?.state == .badAnswer)
        #expect(byName["escapes"]?.reason?.contains("control bytes") == true)
        #expect(byName["garbage"]?.state == .badAnswer)
        #expect(byName["garbage"]?.reason?.contains("not valid JSON") == true)
        #expect(byName["old"]?.state == .tooOld)
        #expect(byName["old"]?.fix == "hookctl deploy old")
        #expect(byName["older"]?.state == .tooOld)
        #expect(byName["slow"]?.state == .unreachable)
        #expect(byName["slow"]?.reason?.contains("no answer within") == true)
        #expect(byName["missing"]?.state == .noHookctl)
        #expect(byName["missing"]?.fix == "hookctl deploy missing")
        #expect(byName["down"]?.state == .unreachable)
        #expect(byName["down"]?.reason?.contains("Connection refused") == true)
        #expect(byName["rekeyed"]?.state == .unreachable)
        #expect(byName["rekeyed"]?.reason == "Host key verification failed.")
        #expect(byName["rekeyed"]?.fix?.contains("host key") == true)

        // Printed: the good host's rows with its agent's text inert, a line for each of the others.
        for width in [45, 80] {
            let layout = TerminalLayout(width: width, cuts: true)
            let lines = StatusCommand.hostsLines(boards, now: WallClock.nowEpoch(), staleAfter: 1800, layout: layout).map { $0.rendered(color: false) }
            let text = lines.joined(separator: "\n")
            #expect(!text.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 }, "\(text)")
            #expect(text.contains("good"))
            #expect(lines.contains { $0.hasPrefix("unreachable: down (ssh: connect to host") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("no hookctl: missing (hookctl is not") }, "\(lines)")
            #expect(lines.contains { $0.contains("fix: hookctl deploy missing") })
            #expect(lines.contains { $0.hasPrefix("bad answer: huge") })
            #expect(lines.allSatisfy { Terminal.columns($0) <= width }, "\(lines)")
            if width == 80 { #expect(lines.first?.hasPrefix("STATE        HOST") == true, "\(lines)") }
        }
        let json = StatusCommand.hostsJSON(boards, now: WallClock.nowEpoch(), staleAfter: 1800)
        #expect(json["hosts"]?.arrayValue?.map { $0["state"]?.stringValue ?? "" }
                == ["ok", "bad_answer", "bad_answer", "bad_answer", "too_old", "too_old", "unreachable", "no_hookctl", "unreachable", "unreachable"])
        #expect(json["hosts"]?.arrayValue?.first?["latency_ms"]?.intValue != nil)
        #expect(json["agents"]?.arrayValue?.map { $0["target"]?.stringValue ?? "" } == ["good:claude:c2080807"])
        #expect(json["agents"]?.arrayValue?.first?["host"]?.stringValue == "good")
    }

    @Test func replyTextTravelsOnStandardInputNeverOnTheCommandLine() throws {
        try host("box2", hookctl: #"for a in "$@"; do printf '%s\n' "$a"; done >"$HOME/args"; cat >"$HOME/text"; echo '{"ok":true}'"#)
        try writeHosts("box2")
        let secret = "the text $(touch pwned) 'quoted' \u{1b}[2J"
        let input = scratch.path + "/reply.txt"
        try FileSystem.writeAtomically(input, text: secret, mode: 0o600)
        let out = BufferStream(), err = BufferStream()
        let fd = open(input, O_RDONLY)
        defer { close(fd) }
        var context = CommandContext(environment: scratch.environment.merging(environment) { $1 }, standardOutput: out, standardError: err,
                                     standardInput: fd, workingDirectory: scratch.path)
        context.outputIsTerminalOverride = false
        let status = CommandLineTool.run(["reply", "box2:%7", "-", "--json"], context: context)
        #expect(status == 0, "\(err.text)")
        #expect(try FileSystem.readString(hostsDirectory + "/box2/text") == secret)
        #expect(try FileSystem.readString(hostsDirectory + "/box2/args") == "reply\n%7\n-\n--json\n")
        let argv = try #require(try FileSystem.readString(hostsDirectory + "/last.argv"))
        #expect(!argv.contains("touch pwned") && !argv.contains("quoted"))
        #expect(!FileSystem.exists(hostsDirectory + "/box2/pwned"))
        #expect(out.text == "{\"ok\":true}\n")
    }

    @Test func aLocalKeyStaysLocalAndAnUnknownHostIsNotGuessed() throws {
        try writeHosts("box2")
        let result = scratch.run(["peek", "claude:abcd"], environment: environment)
        #expect(result.status != 0 && result.stderr.contains("no agent"), "\(result.stderr)")
        #expect(!FileSystem.exists(hostsDirectory + "/last.argv"))
        let remote = scratch.run(["peek", "box2:%7\u{1b}[2J"], environment: environment)
        #expect(remote.status == 64)
        #expect(!FileSystem.exists(hostsDirectory + "/last.argv"))
    }

    @Test func jumpPrintsTheSSHLineForTheExactPane() throws {
        try host("box2", hookctl: #"echo '{"key":"claude:c1","switched":false,"command":["/usr/bin/tmux","-S","/tmp/tmux-1000/default","attach-session","-t","%7"]}'"#)
        try writeHosts("box2")
        let result = scratch.run(["jump", "box2:%7"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(" -t -o Port=2222 -o BatchMode=yes"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix(#" -- box2.example.com ''\''tmux'\'' '\''-S'\'' '\''/tmp/tmux-1000/default'\'' '\''attach-session'\'' '\''-t'\'' '\''%7'\'''"# + "\n"),
                "\(result.stdout)")
        // A pane a hostile host names with shell syntax is refused, not passed on.
        try host("box2", hookctl: #"echo '{"command":["/usr/bin/tmux","-S","/tmp/x!y","attach-session","-t","%7"]}'"#)
        #expect(scratch.run(["jump", "box2:%7"], environment: environment).status != 0)
    }

    func writeHosts(_ names: String...) throws {
        var text = "version: 1\nhosts:\n"
        for name in names { text += "  - name: \(name)\n    ssh: \(name).example.com\n    ssh_options: [Port=2222]\n" }
        try FileSystem.makeDirectories(scratch.path + "/.config/hookctl")
        try FileSystem.writeAtomically(scratch.path + "/.config/hookctl/config.yaml", text: text, mode: 0o600)
        // The fake ssh is asked for the destination: its HOME is the same folder.
        for name in names where !FileSystem.exists(hostsDirectory + "/\(name).example.com") {
            try FileSystem.makeDirectories(hostsDirectory)
            symlink(hostsDirectory + "/\(name)", hostsDirectory + "/\(name).example.com")
        }
    }

    @Test func statusHostsWritesTheCacheTheTmuxSegmentCounts() throws {
        try host("box2", hookctl: Self.goodStatus)
        try writeHosts("box2")
        let log = scratch.log()
        var event = hookEvent(.needsInput, session: "local1")
        try log.append(&event)
        let status = scratch.run(["status", "--hosts", "--width", "80"], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("STATE") == true && lines.first?.contains("HOST") == true)
        // The local host first.
        #expect(lines.firstIndex { $0.contains(" local ") } ?? 99 < lines.firstIndex { $0.contains(" box2 ") } ?? 0, "\(lines)")
        // Nothing is asked over the network for the segment: with ssh gone it still counts box2.
        try FileSystem.writeAtomically(scratch.path + "/bin/ssh", text: "#!/bin/sh\nsleep 30\n", mode: 0o755)
        let started = monotonicSeconds()
        let segment = scratch.run(["--color", "never", "status", "--format", "tmux", "--hosts"], environment: environment)
        #expect(monotonicSeconds() - started < 10)
        #expect(segment.stdout == "⚑2\n", "\(segment.stdout) \(segment.stderr)")
        #expect(scratch.run(["--color", "never", "status", "--format", "tmux"], environment: environment).stdout == "⚑1\n")
    }

    @Test func theWatchSeesARemoteChangeWithinASecondAndRetriesADroppedHost() throws {
        // The host's board is a file its "hookctl" prints: changing the file is a remote change.
        try host("box2", hookctl: #"cat "$HOME/board.json""#)
        let board = hostsDirectory + "/box2/board.json"
        func write(seq: Int, state: String) throws {
            try FileSystem.writeAtomically(board, text: #"{"last_seq":\#(seq),"agents":[{"key":"claude:a","agent":"claude","state":"\#(state)","since":"2026-12-03T09:59:00.000Z"}]}"#, mode: 0o644)
        }
        try write(seq: 1, state: "working")
        let boards = HostsWatch.Boards([HostBoard(name: "box2", state: .unreachable, reason: "connecting…")])
        defer { boards.state.withLock { $0.stop = true } }
        var options = try StatusCommand.Options(parsing: ParsedArguments())
        options.acrossHosts = true
        let context = CommandContext(environment: environment, standardOutput: BufferStream(), standardError: BufferStream(),
                                     standardInput: -1, workingDirectory: scratch.path)
        HostsWatch(context: context, options: options).follow(SSHRunner.Host(name: "box2", destination: "box2"), index: 0, runner: runner(), into: boards)
        func waitFor(_ what: (HostBoard) -> Bool) -> Double? {
            let start = monotonicSeconds()
            while monotonicSeconds() - start < 20 {
                if what(boards.state.withLock { $0.boards[0] }) { return monotonicSeconds() - start }
                sleepSeconds(0.01)
            }
            return nil
        }
        #expect(waitFor { $0.state == .ok && $0.lastSeq == 1 } != nil)
        try write(seq: 2, state: "needs_input")
        let seen = try #require(waitFor { $0.entries.first?.state == .needsInput })
        // Within one poll (0.4 s) and the remote run; the machine is shared, so only "well under 20 s" is asserted.
        #expect(seen < 20)
        // The host drops: shown, and asked again later.
        FileSystem.remove(hostsDirectory + "/box2/.local/bin/hookctl")
        #expect(waitFor { $0.state == .noHookctl && ($0.reason ?? "").contains("retrying in") } != nil)
        try host("box2", hookctl: #"cat "$HOME/board.json""#)
        #expect(waitFor { $0.state == .ok } != nil)
    }

    /// A host's `hookctl hosts serve` stood in for by a shell loop: one line of `$HOME/board.json` per request line.
    static let serveBoard = #"""
    if [ "$1 $2" = "hosts serve" ]; then
        while IFS= read -r line; do cat "$HOME/board.json"; printf '\n'; done
        exit 0
    fi
    cat "$HOME/board.json"
    """#

    func writeBoard(_ host: String, seq: Int, state: String = "needs_input", since: String = "2026-12-03T09:59:00.000Z") throws {
        try FileSystem.writeAtomically(hostsDirectory + "/\(host)/board.json",
                                       text: #"{"last_seq":\#(seq),"agents":[{"key":"claude:\#(host)","agent":"claude","state":"\#(state)","since":"\#(since)"}]}"#,
                                       mode: 0o644)
    }

    var sshCalls: Int { ((try? FileSystem.readString(hostsDirectory + "/calls")) ?? "").split(separator: "\n").count }

    /// The link's owner run in this process (a thread) on a private folder; stopped by removing its socket.
    func startOwner(_ runner: SSHRunner, idle: Double = 30) throws -> String {
        let directory = try SSHRunner.privateDirectory(scratch.path + "/run/link")
        let paths = Paths(environment: ["HOME": scratch.path])
        Parallel.detach { try? HostLink.own(runner: runner, directory: directory, paths: paths, idle: idle) }
        let start = monotonicSeconds()
        while !FileSystem.exists(HostLink.socketPath(directory)), monotonicSeconds() - start < 10 { sleepSeconds(0.01) }
        return directory
    }

    /// A runner that asks through a link owner started for it, and the link's folder (the caller removes its socket).
    func linkedRunner() throws -> (runner: SSHRunner, directory: String) {
        var runner = runner()
        let directory = try startOwner(runner)
        runner.linkDirectory = directory
        return (runner, directory)
    }

    @Test func aWarmAskGoesThroughTheLinkWithNoSSHStartAndAHostWithoutOneIsAskedOverSSH() throws {
        for name in ["box2", "box3"] {
            try host(name, hookctl: Self.serveBoard)
            try writeBoard(name, seq: 1)
        }
        // box4's hookctl knows no 'hosts serve' (an older one): its link never comes up; it is asked per call.
        try host("box4", hookctl: #"[ "$1" = hosts ] && { echo "hookctl: error: unknown command 'hosts serve'" >&2; exit 64; }; cat "$HOME/board.json""#)
        try writeBoard("box4", seq: 4)
        let (runner, directory) = try linkedRunner()
        defer { unlink(HostLink.socketPath(directory)) }
        let hosts = ["box2", "box3", "box4"].map { SSHRunner.Host(name: $0, destination: $0) }

        // The first ask finds no link: every host over ssh, and the owner starts the links meanwhile.
        let first = HostsBoard.ask(hosts, runner: runner, timeout: 10)
        #expect(first.map(\.state) == [.ok, .ok, .ok], "\(first.map(\.reason))")
        let start = monotonicSeconds()
        var answers: [HostLink.Answer] = []
        while monotonicSeconds() - start < 15 {
            answers = HostLink.ask(hosts, directory: directory, timeout: 5, limit: runner.answerLimit) ?? []
            if answers.prefix(2).allSatisfy({ if case .ok = $0 { true } else { false } }), answers.count == 3 { break }
            sleepSeconds(0.05)
        }
        #expect(answers.count == 3 && answers[2] == .down, "\(answers)")

        // Warm: box2 and box3 answer through their links (no new ssh for them); box4 still per call.
        let before = sshCalls
        try writeBoard("box2", seq: 2, state: "working")
        let warm = HostsBoard.ask(hosts, runner: runner, timeout: 10)
        #expect(warm.map(\.state) == [.ok, .ok, .ok])
        #expect(warm[0].lastSeq == 2 && warm[0].entries.first?.state == .working, "a change there is seen on the next ask")
        #expect(warm[2].lastSeq == 4)
        let calls = ((try? FileSystem.readString(hostsDirectory + "/calls")) ?? "").split(separator: "\n").dropFirst(before)
        #expect(calls == ["box4"], "only the host without a link was asked over ssh: \(calls)")

        // What comes through the link is as untrusted as an ssh answer: escape bytes, a huge line, garbage.
        try FileSystem.writeAtomically(hostsDirectory + "/box3/board.json", text: "\u{1b}]52;c;ZWNobw==\u{7}{\"last_seq\":1,\"agents\":[]}", mode: 0o644)
        let hostile = HostsBoard.ask(hosts, runner: runner, timeout: 10)
        #expect(hostile[1].state == .badAnswer && hostile[1].reason?.contains("control bytes") == true, "\(hostile[1])")
        #expect(hostile[0].state == .ok && hostile[2].state == .ok, "the other rows do not change")
        try FileSystem.writeAtomically(hostsDirectory + "/box3/board.json", text: String(repeating: "a", count: 5 << 20), mode: 0o644)
        let huge = HostsBoard.ask(hosts, runner: runner, timeout: 10)
        #expect(huge[1].state == .badAnswer && huge[1].reason?.contains("larger than 4 MB") == true, "\(huge[1])")
        #expect(huge[0].state == .ok)
        // That link was dropped (out of step); box3 is asked per call until a new one is up.
        try writeBoard("box3", seq: 9)
        let after = HostsBoard.ask(hosts, runner: runner, timeout: 10)
        #expect(after[1].state == .ok && after[1].lastSeq == 9, "\(after[1])")
        let log = (try? FileSystem.readString(scratch.path + "/.local/state/hookctl/link.log")) ?? ""
        #expect(log.contains("started") && log.contains("box2: link up") && log.contains("box3: link closed: an answer over the cap"), "\(log)")
        #expect(!log.contains("box4: link up"))
    }

    @Test func aLinkWhoseSSHEndsIsNoticedAndTheHostIsAskedOverSSHAgain() throws {
        try host("box2", hookctl: Self.serveBoard)
        try writeBoard("box2", seq: 1)
        let (runner, directory) = try linkedRunner()
        defer { unlink(HostLink.socketPath(directory)) }
        let hosts = [SSHRunner.Host(name: "box2", destination: "box2")]
        _ = HostLink.ask(hosts, directory: directory, timeout: 5, limit: runner.answerLimit)
        let start = monotonicSeconds()
        while monotonicSeconds() - start < 15, HostLink.ask(hosts, directory: directory, timeout: 5, limit: runner.answerLimit)?.first == .down {
            sleepSeconds(0.05)
        }
        // The master goes (as `ssh -O exit` ends its sessions): the remote loop's shell is killed.
        let pids = try FileSystem.list("/proc").compactMap(Int32.init).filter { pid in
            ((try? FileSystem.readString("/proc/\(pid)/cmdline")) ?? "").contains("'hosts' 'serve'")
                && ((try? FileSystem.readString("/proc/\(pid)/environ")) ?? "").contains("HOME=" + hostsDirectory + "/box2")
        }
        #expect(!pids.isEmpty)
        for pid in pids { kill(pid, SIGKILL) }
        try writeBoard("box2", seq: 5)
        let board = HostsBoard.ask(hosts, runner: runner, timeout: 10)[0]
        #expect(board.state == .ok && board.lastSeq == 5, "\(board)")
        let log = { (try? FileSystem.readString(scratch.path + "/.local/state/hookctl/link.log")) ?? "" }
        #expect(eventually(timeout: 10) { log().contains("box2: link closed") }, "\(log())")
    }

    @Test func hostsServeAnswersEachRequestLineWithTheStatusDocumentUntilTheEnd() throws {
        let log = scratch.log()
        var event = hookEvent(.needsInput, session: "s1")
        try log.append(&event)
        let input = try FileDescriptor.pipe(), output = try FileDescriptor.pipe()
        try input.writeEnd.writeAll(Array("status\nwhat\n\nstatus\n".utf8))
        input.writeEnd.close()
        let context = CommandContext(environment: scratch.environment, standardOutput: BufferStream(), standardError: BufferStream(),
                                     standardInput: -1, workingDirectory: scratch.path)
        HostLink.serve(input: input.readEnd, output: output.writeEnd) {
            (try? StatusCommand.jsonDocument(filter: .none, staleAfter: 1800, context: context)) ?? []
        }
        output.writeEnd.close()
        let lines = try output.readEnd.readAll(limit: 1 << 20).split(separator: 0x0a)
        #expect(lines.count == 3)
        let status = try JSON.parse(Array(lines[0]))
        #expect(status["agents"]?.arrayValue?.count == 1 && status["last_seq"]?.intValue != nil)
        #expect(try JSON.parse(Array(lines[1]))["error"]?.stringValue == "unknown request")
        #expect(try JSON.parse(Array(lines[2]))["last_seq"] == status["last_seq"])
    }

    @Test func nextPicksOnceEveryHostAnsweredAndDoesNotWaitTenSecondsForASilentOne() throws {
        for name in ["box2", "box3"] { try host(name, hookctl: Self.serveBoard) }
        try writeBoard("box2", seq: 1, since: "2026-12-03T09:59:00.000Z")
        try writeBoard("box3", seq: 1, since: "2026-12-03T09:00:00.000Z")
        try host("box5", hookctl: "exec sleep 30")
        try writeHosts("box2", "box3")
        let context = CommandContext(environment: scratch.environment.merging(environment) { $1 }.merging(["HOOKCTL_NO_LINK": "1"]) { $1 },
                                     standardOutput: BufferStream(), standardError: BufferStream(), standardInput: -1, workingDirectory: scratch.path)
        var started = monotonicSeconds()
        let pick = try #require(try RemoteTarget.next(context: context))
        #expect(pick.host.name == "box3" && pick.target == "claude:box3", "the longest waiting of all hosts")
        #expect(monotonicSeconds() - started < 10)
        // A host that never answers: the pick comes after the short --next deadline, named in a warning.
        try writeHosts("box2", "box3", "box5")
        let errors = BufferStream()
        let slow = CommandContext(environment: context.environment, standardOutput: BufferStream(), standardError: errors,
                                  standardInput: -1, workingDirectory: scratch.path)
        started = monotonicSeconds()
        let second = try #require(try RemoteTarget.next(context: slow))
        let took = monotonicSeconds() - started
        #expect(second.host.name == "box3")
        #expect(took >= RemoteTarget.nextTimeout - 0.5 && took < 9, "\(took)")
        #expect(errors.text.contains("--next did not look at box5"), "\(errors.text)")
    }

    /// The hookctl binary built beside the tests (run end to end: it starts the link's owner, a test runner does not).
    static let binary: String = {
        let beside = FileSystem.parentDirectory(of: currentExecutablePath()) + "/hookctl"
        if FileSystem.isExecutable(beside) { return beside }
        var root = #filePath
        for _ in 0..<3 { root = FileSystem.parentDirectory(of: root) }
        return root + "/.build/debug/hookctl"
    }()

    /// The `hookctl hosts link` processes of this test's HOME.
    var owners: [Int32] {
        ((try? FileSystem.list("/proc")) ?? []).compactMap(Int32.init).filter { pid in
            ((try? FileSystem.readString("/proc/\(pid)/cmdline")) ?? "").contains("hosts\u{0}link")
                && ((try? FileSystem.readString("/proc/\(pid)/environ")) ?? "").contains("HOME=" + scratch.path + "\u{0}")
        }
    }

    /// A stuck owner: something listening on the link's socket that takes each connection and then says
    /// nothing (`header`: one frame's header, then nothing), until the test ends.
    final class StuckOwner: Sendable {
        final class Flag: Sendable { let raised = Atomic<Bool>(false) }
        let listener: UnixSocket
        let stop = Flag()
        init(path: String, header: Bool) throws {
            listener = try UnixSocket.listen(path)
            let listener = listener, stop = stop
            Parallel.detach {
                var held: [UnixSocket] = []
                while !stop.raised.load(ordering: .relaxed) {
                    guard let connection = listener.accept(timeout: 0.1) else { continue }
                    if header { try? connection.writeAll(Array(#"{"state":"ok","latency":0.001,"bytes":4096}"#.utf8) + [0x0a, 0x7b]) }
                    held.append(connection)
                }
                for connection in held { connection.close() }
                listener.close()
            }
        }
        deinit { stop.raised.store(true, ordering: .relaxed) }
    }

    /// box2 serving its board (seq 3) and named in the hosts file; the environment the runs get, and the
    /// link's folder and socket that runs in it use.
    func box2WithItsLinkFolder() throws -> (environment: [String: String], directory: String, socket: String) {
        try host("box2", hookctl: Self.serveBoard)
        try writeBoard("box2", seq: 3)
        try writeHosts("box2")
        let environment = scratch.environment.merging(self.environment) { $1 }
        let directory = try SSHRunner.privateDirectory(HostLink.directory(controlDirectory: try SSHRunner.controlDirectory(paths: Paths(environment: environment))))
        return (environment, directory, HostLink.socketPath(directory))
    }

    @Test(arguments: [false, true])
    func aStuckOwnerCostsTwoSecondsOnceThenTheHostsAreAskedOverSSHAndANewOwnerTakesOver(header: Bool) throws {
        let (environment, directory, socket) = try box2WithItsLinkFolder()
        defer {
            // The owner this test's runs started stops within 1 s of its socket's removal.
            unlink(socket)
            let start = monotonicSeconds()
            while !owners.isEmpty, monotonicSeconds() - start < 5 { sleepSeconds(0.05) }
        }
        let stuck = try StuckOwner(path: socket, header: header)
        let stuckInode = FileSystem.status(socket, followSymlinks: false)?.st_ino
        func status() throws -> (took: Double, result: Subprocess.Result) {
            let started = monotonicSeconds()
            let result = try Subprocess(executable: Self.binary, arguments: ["status", "--hosts", "--json"], environment: environment, timeout: 30).run()
            return (monotonicSeconds() - started, result)
        }

        // The first run pays the link's short deadline (2 s of 10), not all of it, then asks box2 over ssh.
        let (took, first) = try status()
        #expect(HostLink.askTimeout(10) == 2 && HostLink.askTimeout(RemoteTarget.nextTimeout) == 1.5)
        #expect(took >= 1.9 && took < 5, "\(took) s (10 s or more before)")
        let document = try JSON.parse(first.standardOutput)
        let box2 = document["hosts"]?.arrayValue?.first { $0["name"]?.stringValue == "box2" }
        #expect(box2?["state"]?.stringValue == "ok" && box2?["last_seq"]?.intValue == 3, "\(first.outputText) \(first.errorText)")
        // Noted on stderr (stdout stays one JSON document) and in link.log.
        #expect(first.errorText.contains("hookctl: warning: the link's owner (pid \(getpid())) did not answer") != header, "\(first.errorText)")
        #expect(first.errorText.contains("stopped answering") == header, "\(first.errorText)")
        #expect(!first.outputText.contains("owner"))
        let log = (try? FileSystem.readString(scratch.path + "/.local/state/hookctl/link.log")) ?? ""
        #expect(log.contains("asker: the link's owner (pid \(getpid()))") && log.contains("its socket is removed"), "\(log)")
        // Its socket is gone (a real owner stops within 1 s then); a new owner took the path.
        #expect(FileSystem.status(socket, followSymlinks: false)?.st_ino != stuckInode)

        // The next runs do not pay for it again: over ssh or through the new owner, at once.
        for _ in 0..<2 {
            let (again, next) = try status()
            #expect(again < 1.5, "\(again) s: \(next.errorText)")
            #expect(!next.errorText.contains("warning"), "\(next.errorText)")
            #expect((try? JSON.parse(next.standardOutput))?["hosts"]?.arrayValue?.contains { $0["state"]?.stringValue == "ok" && $0["name"]?.stringValue == "box2" } == true)
        }
        var start = monotonicSeconds()
        while owners.isEmpty || !FileSystem.exists(socket), monotonicSeconds() - start < 10 { sleepSeconds(0.05) }
        #expect(owners.count == 1, "one new owner: \(owners)")
        // A second one is refused by the lock, and leaves the first one's socket alone.
        let inode = FileSystem.status(socket, followSymlinks: false)?.st_ino
        let second = try Subprocess(executable: Self.binary, arguments: ["hosts", "link", "box2"], environment: environment, timeout: 10).run()
        #expect(second.status == .exited(0), "\(second.errorText)")
        #expect(owners.count == 1 && FileSystem.status(socket, followSymlinks: false)?.st_ino == inode)
        // The new owner answers through its link: box2 without ssh.
        start = monotonicSeconds()
        var answers: [HostLink.Answer] = []
        while monotonicSeconds() - start < 10 {
            answers = HostLink.ask([SSHRunner.Host(name: "box2", destination: "box2.example.com", options: ["Port=2222"])],
                                   directory: directory, timeout: 2, limit: 4 << 20) ?? []
            if case .ok = answers.first { break }
            sleepSeconds(0.05)
        }
        #expect({ if case .ok = answers.first { true } else { false } }(), "\(answers)")
        _ = stuck
    }

    @Test func aStuckOwnerThatHoldsTheLockIsNotJoinedByASecondOneAndTheRunsAfterItUseSSH() throws {
        let (environment, _, socket) = try box2WithItsLinkFolder()
        // A wedged owner: it holds the lock, and its loop no longer looks at its socket.
        let lock = try #require(HostLink.daemon(Paths(environment: environment)).lock())
        defer { lock.unlock() }
        let stuck = try StuckOwner(path: socket, header: false)
        var started = monotonicSeconds()
        let first = try Subprocess(executable: Self.binary, arguments: ["status", "--hosts"], environment: environment, timeout: 30).run()
        let took = monotonicSeconds() - started
        #expect(took >= 1.9 && took < 5, "\(took)")
        #expect(first.outputText.contains("box2") && !first.outputText.contains("unreachable"), "\(first.outputText)")
        #expect(first.errorText.contains("did not answer within 2 s"), "\(first.errorText)")
        #expect(!FileSystem.exists(socket))
        started = monotonicSeconds()
        let next = try Subprocess(executable: Self.binary, arguments: ["status", "--hosts"], environment: environment, timeout: 30).run()
        #expect(monotonicSeconds() - started < 1.5 && next.outputText.contains("box2") && next.errorText.isEmpty, "\(next.errorText)")
        sleepSeconds(0.3)
        #expect(owners.isEmpty && !FileSystem.exists(socket), "no second owner while the lock is held: \(owners)")
        _ = stuck
    }

    @Test func anOwnerThatStoppedTakingConnectionsIsStuckTooAndCostsTheBoundOnce() throws {
        try host("box2", hookctl: Self.serveBoard)
        try writeBoard("box2", seq: 2)
        var runner = runner()
        let directory = try SSHRunner.privateDirectory(scratch.path + "/run/link")
        runner.linkDirectory = directory
        let path = HostLink.socketPath(directory)
        // A listener that never accepts, its queue filled: connect(2) would wait for ever without a bound.
        let listener = try UnixSocket.listen(path)
        defer { listener.close() }
        var queued: [Int32] = []
        defer { for fd in queued { Glibc.close(fd) } }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
        while queued.count < 500 {
            // Non-blocking: EAGAIN once the queue is full.
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let code = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if code != 0 { Glibc.close(fd); break }
            queued.append(fd)
        }
        #expect(queued.count < 500, "the queue filled")
        let warnings = Mutex<[String]>([])
        let started = monotonicSeconds()
        // Asked on a thread of its own, so a connect that waits for ever fails this test rather than hanging it.
        let result = Mutex<(board: HostBoard, took: Double)?>(nil)
        let asker = runner
        Parallel.detach {
            let board = HostsBoard.ask([SSHRunner.Host(name: "box2", destination: "box2")], runner: asker, timeout: 10,
                                       warn: { line in warnings.withLock { $0.append(line) } })[0]
            result.withLock { $0 = (board, monotonicSeconds() - started) }
        }
        while result.withLock({ $0 == nil }), monotonicSeconds() - started < 12 { sleepSeconds(0.02) }
        let (board, took) = try #require(result.withLock { $0 }, "no answer in 12 s: the connect has no bound")
        #expect(took >= 1.9 && took < 5, "\(took)")
        #expect(board.state == .ok && board.lastSeq == 2, "\(board)")
        #expect(warnings.withLock { $0 }.first?.contains("took no connection within 2 s") == true, "\(warnings.withLock { $0 })")
        #expect(!FileSystem.exists(path))
        let again = monotonicSeconds()
        #expect(HostsBoard.ask([SSHRunner.Host(name: "box2", destination: "box2")], runner: runner, timeout: 10)[0].state == .ok)
        #expect(monotonicSeconds() - again < 1.5)
    }

    @Test func theOwnerServesOthersWhileAClientThatSendsNothingIsConnected() throws {
        try host("box2", hookctl: Self.serveBoard)
        try writeBoard("box2", seq: 1)
        let (runner, directory) = try linkedRunner()
        defer { unlink(HostLink.socketPath(directory)) }
        // Clients that connect and say nothing, or half a line, and stay.
        let silent = try (0..<8).map { _ in try UnixSocket.connect(HostLink.socketPath(directory)) }
        try silent[0].writeAll(Array(#"{"hosts":["#.utf8))
        defer { for socket in silent { socket.close() } }
        let hosts = [SSHRunner.Host(name: "box2", destination: "box2")]
        let started = monotonicSeconds()
        let answers = HostLink.ask(hosts, directory: directory, timeout: 2, limit: runner.answerLimit, stuck: { Issue.record("\($0)") })
        #expect(answers == [.down], "answered (no link yet): \(String(describing: answers))")
        #expect(monotonicSeconds() - started < 0.5)
        let board = HostsBoard.ask(hosts, runner: runner, timeout: 10, warn: { Issue.record("\($0)") })[0]
        #expect(board.state == .ok && board.lastSeq == 1)
    }

    @Test func hostsInTheConfigAreCheckedWithTheirPlace() {
        let text = """
        version: 1
        hosts:
          - name: "box:2"
            ssh: h
          - name: ok
            ssh: "-oProxyCommand=x"
          - name: ok2
            ssh: h
            ssh_options: [StrictHostKeyChecking=no, ControlPath=/tmp/x]
          - name: ok3
            ssh: h
            port: 22
          - name: ok3
            ssh: h
        """
        do {
            _ = try Config.parse(text, path: "c.yaml", environment: [:])
            Issue.record("the config was accepted")
        } catch let error as ConfigError.All {
            let messages = error.errors.map(\.description)
            #expect(messages.contains { $0.hasPrefix("c.yaml:3:11: 'box:2' is not a host name") }, "\(messages)")
            #expect(messages.contains { $0.hasPrefix("c.yaml:6:10: '-oProxyCommand=x' is not an ssh destination") }, "\(messages)")
            #expect(messages.contains { $0.hasPrefix("c.yaml:9:19: StrictHostKeyChecking=no would accept any host key") }, "\(messages)")
            #expect(messages.contains { $0.hasPrefix("c.yaml:9:45: hookctl sets ControlPath itself") }, "\(messages)")
            #expect(messages.contains { $0.hasPrefix("c.yaml:12:5: unknown key 'hosts.port'") }, "\(messages)")
            #expect(messages.contains { $0.hasPrefix("c.yaml:13:11: two hosts are named 'ok3'") }, "\(messages)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func hostsAddAndRemoveEditTheConfigByLinesKeepingTheRest() throws {
        let original = """
        # my config
        version: 1
        sinks:
          - name: relay   # the phone
            type: relay
            url: https://push.example.com/n/0123456789abcdef
        hosts: []  # none yet
        defaults:
          budget: 2s

        """
        let box2 = SSHRunner.Host(name: "box2", destination: "u@box2", options: ["Port=2222"])
        let box3 = SSHRunner.Host(name: "box3", destination: "box3")
        let one = try ConfigEditor.addHost(box2, to: original, path: "c.yaml")
        let two = try ConfigEditor.addHost(box3, to: one, path: "c.yaml")
        #expect(try Config.parse(two, path: "c.yaml", environment: [:]).hosts == [box2, box3])
        #expect(two.hasPrefix("# my config\nversion: 1\nsinks:\n  - name: relay   # the phone\n"))
        #expect(two.hasSuffix("defaults:\n  budget: 2s\n"))
        #expect(throws: ConfigError.self) { try ConfigEditor.addHost(box2, to: two, path: "c.yaml") }
        let removed = try ConfigEditor.removeHost(named: "box2", from: two, path: "c.yaml")
        #expect(try Config.parse(removed, path: "c.yaml", environment: [:]).hosts == [box3])
        let none = try ConfigEditor.removeHost(named: "box3", from: removed, path: "c.yaml")
        #expect(try Config.parse(none, path: "c.yaml", environment: [:]).hosts.isEmpty)
        #expect(none.contains("hosts: []") && none.contains("url: https://push.example.com/n/0123456789abcdef"))
        #expect(throws: RemoteError.self) { try ConfigEditor.removeHost(named: "nope", from: none, path: "c.yaml") }
        // A flow-style list is not guessed at.
        #expect(throws: SetupError.self) {
            try ConfigEditor.addHost(box3, to: "hosts: [{name: a, ssh: a}]\n", path: "c.yaml")
        }
    }

    @Test func theControlFolderIsPrivate() throws {
        let paths = Paths(environment: ["HOME": scratch.path, "XDG_RUNTIME_DIR": scratch.path + "/rt"])
        let directory = try SSHRunner.controlDirectory(paths: paths)
        #expect(directory == scratch.path + "/rt/hookctl/ssh")
        #expect((FileSystem.status(directory)?.st_mode ?? 0) & 0o777 == 0o700)
        chmod(directory, 0o777)
        _ = try SSHRunner.controlDirectory(paths: paths)
        #expect((FileSystem.status(directory)?.st_mode ?? 0) & 0o777 == 0o700)
        rmdir(directory)
        symlink("/tmp", directory)
        #expect(throws: RemoteError.self) { try SSHRunner.controlDirectory(paths: paths) }
    }
}
