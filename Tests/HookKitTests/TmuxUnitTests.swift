import Testing
@testable import HookSupport

/// The small pure pieces: names, tokens, targets, socket choice, version parsing, row parsing, locating tmux.
@Suite struct TmuxUnitTests {
    @Test func derivedNames() {
        #expect(SessionIdentity.derivedName(uuid: "9b95bd2a-0c4e-4f6b-8e0a-2d1c3b4a5f60") == "sshido-9B95BD2A")
        #expect(SessionIdentity.derivedName(uuid: "9B95BD2A0C4E4F6B8E0A2D1C3B4A5F60", prefix: "phone") == "phone-9B95BD2A")
        #expect(SessionIdentity.derivedName(uuid: "9b95bd2a") == nil)
        #expect(SessionIdentity.derivedName(uuid: "zz95bd2a-0c4e-4f6b-8e0a-2d1c3b4a5f60") == nil)
    }

    @Test func tokensAreRandomHex() {
        let a = SessionIdentity.newToken(), b = SessionIdentity.newToken()
        #expect(a.count == 32 && a.allSatisfy(\.isHexDigit))
        #expect(a != b)
    }

    @Test func sessionIDs() {
        #expect(SessionIdentity.isSessionID("$0"))
        #expect(SessionIdentity.isSessionID("$123"))
        #expect(!SessionIdentity.isSessionID("$"))
        #expect(!SessionIdentity.isSessionID("3"))
        #expect(!SessionIdentity.isSessionID("$1a"))
        #expect(!SessionIdentity.isSessionID("=name"))
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("#(id)", "##(id)"),
        ("a#{b}", "a##{b}"),
        ("semi;", "semi\\;"),
        (";", "\\;"),
        ("#;", "##\\;"),
    ])
    func literalArguments(name: String, argument: String) {
        #expect(SessionIdentity.literalArgument(name) == argument)
    }

    @Test func emptyAndNULNamesAreRefused() {
        #expect(throws: TmuxError.self) { try SessionIdentity.validateName("") }
        #expect(throws: TmuxError.self) { try SessionIdentity.validateName("a\0b") }
        #expect(throws: Never.self) { try SessionIdentity.validateName("any thing: at.all") }
    }

    @Test func socketIsChosenAsTmuxChoosesIt() {
        let uid = getuid()
        let explicit = TmuxSocket(socketPath: "/run/x/sock", socketName: "ignored", environment: ["TMUX": "/tmp/other,1,0"])
        #expect(explicit.arguments == ["-S", "/run/x/sock"])
        #expect(explicit.path == "/run/x/sock")
        let named = TmuxSocket(socketPath: nil, socketName: "work", environment: ["TMUX_TMPDIR": "/nonexistent-dir"])
        #expect(named.arguments == ["-L", "work"])
        #expect(named.path == "/nonexistent-dir/tmux-\(uid)/work")
        // The caller's TMUX is never used: the default socket under TMUX_TMPDIR or /tmp.
        let fallback = TmuxSocket(socketPath: nil, socketName: nil, environment: ["TMUX": "/tmp/other,1,0", "TMUX_TMPDIR": ""])
        #expect(fallback.arguments == [])
        #expect(fallback.path.hasSuffix("/tmux-\(uid)/default"))
        #expect(fallback.path.hasPrefix("/tmp"))
    }

    @Test func childEnvironmentDropsTheCallersTmux() {
        let client = TmuxClient(executable: "/usr/bin/tmux", socket: TmuxSocket(socketPath: "/s", socketName: nil, environment: [:]),
                                environment: ["TMUX": "/tmp/x,1,0", "TMUX_PANE": "%1", "SSHIDO_SESSION": "1", "PATH": "/bin", "TMUX_TMPDIR": "/t"])
        #expect(client.environment == ["PATH": "/bin", "TMUX_TMPDIR": "/t"])
    }

    @Test(arguments: [
        ("3.3a", 3, 3), ("3.2-rc3", 3, 2), ("next-3.6", 3, 6), ("2.9", 2, 9), ("1.8", 1, 8), ("3.10b", 3, 10), ("4", 4, 0),
    ])
    func versions(text: String, major: Int, minor: Int) {
        #expect(TmuxVersion(text) == TmuxVersion(major: major, minor: minor))
    }

    @Test func sessionEnvironmentFlagNeeds32() {
        #expect(TmuxVersion.supportsSessionEnvironment("3.2"))
        #expect(TmuxVersion.supportsSessionEnvironment("3.3a"))
        #expect(TmuxVersion.supportsSessionEnvironment("master"))
        #expect(TmuxVersion.supportsSessionEnvironment("openbsd-7.5"))
        #expect(!TmuxVersion.supportsSessionEnvironment("3.1c"))
        #expect(!TmuxVersion.supportsSessionEnvironment("2.9a"))
    }

    @Test func rowsParse() throws {
        let us = "\u{1f}", rs = "\u{1e}"
        let output = ["$0", "100", "2", "1", "3.3a", "/tmp/s", "tok", "name with spaces"].joined(separator: us) + rs + "\n"
            + ["$1", "101", "1", "0", "3.3a", "/tmp/s", "", "old\(us)tmux\tname"].joined(separator: us) + rs + "\n"
            + ["", "", "", "", "3.3a", "/tmp/s", "", ""].joined(separator: us) + rs + "\n"
        let listing = try SessionRow.parse(output, command: "list-sessions")
        #expect(listing.sessions == [
            TmuxSession(id: "$0", name: "name with spaces", created: 100, windows: 2, attachedClients: 1, token: "tok"),
            TmuxSession(id: "$1", name: "old\(us)tmux\tname", created: 101, windows: 1, attachedClients: 0, token: nil),
        ])
        #expect(listing.serverVersion == "3.3a")
        #expect(listing.socketPath == "/tmp/s")
        #expect(try SessionRow.parse("", command: "x").sessions.isEmpty)
        #expect(throws: TmuxError.self) { try SessionRow.parse("garbage\n", command: "x") }
        #expect(throws: TmuxError.self) { try SessionRow.parse("a\(us)b\(rs)\n", command: "x") }
    }

    @Test func locatingTmux() throws {
        let server = try TmuxTestServer()
        #expect(throws: TmuxError.notFound(searched: [])) {
            try TmuxClient.locate(environment: ["PATH": server.directory], usualDirectories: [])
        }
        #expect(throws: TmuxError.notExecutable(path: "/nonexistent/tmux")) {
            try TmuxClient.locate(environment: ["HOOKCTL_TMUX": "/nonexistent/tmux"])
        }
        let fake = try server.fakeTmux("exit 0")
        try FileSystem.makeDirectories(server.directory + "/bin")
        #expect(rename(fake, server.directory + "/bin/tmux") == 0)
        #expect(try TmuxClient.locate(environment: ["PATH": "/nonexistent:" + server.directory + "/bin:/usr/bin"]) == server.directory + "/bin/tmux")
        // Not on PATH: the usual install locations.
        #expect(try TmuxClient.locate(environment: ["PATH": "/nonexistent"], usualDirectories: [server.directory + "/bin"]) == server.directory + "/bin/tmux")
        #expect(TmuxClient.usualDirectories(home: "/home/u").contains("/usr/local/bin"))
    }

    @Test func ensureOutputs() {
        let result = EnsureResult(session: TmuxSession(id: "$3", name: "it's mine", created: 1795955763, token: "abc"),
                                  createdNow: false, matchedBy: .sessionID, socketPath: "/tmp/tmux-1000/default",
                                  tmuxPath: "/usr/bin/tmux", tmuxVersion: "3.3a")
        #expect(JSON.serialize(result.json) == #"{"target":"$3","name":"it's mine","session_id":"$3","created":1795955763,"token":"abc","socket":"/tmp/tmux-1000/default","tmux":"/usr/bin/tmux","tmux_version":"3.3a","created_now":false,"matched_by":"session_id"}"#)
        #expect(result.line == #"target='$3' name='it'\''s mine' session_id='$3' created=1795955763 token=abc socket=/tmp/tmux-1000/default tmux=/usr/bin/tmux tmux_version=3.3a created_now=false matched_by=session_id"#)
    }

    @Test func lockKeysDifferBySocketAndName() {
        let a = SessionEnsurer.lockKey(socket: "/s1", name: "n")
        #expect(a.count == 16)
        #expect(a == SessionEnsurer.lockKey(socket: "/s1", name: "n"))
        #expect(a != SessionEnsurer.lockKey(socket: "/s2", name: "n"))
        #expect(a != SessionEnsurer.lockKey(socket: "/s1", name: "m"))
    }
}
