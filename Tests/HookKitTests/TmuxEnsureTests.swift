import Testing
@testable import HookSupport
import TestSupport

/// `SessionEnsurer` against a real tmux server on a private socket.
@Suite(.onTestThreads) struct TmuxEnsureTests {
    static let uuid = "9b95bd2a-0c4e-4f6b-8e0a-2d1c3b4a5f60"

    @Test func createThenReuse() throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        let name = try #require(SessionIdentity.derivedName(uuid: Self.uuid))
        #expect(name == "sshido-9B95BD2A")
        let first = try ensurer.ensure(EnsureRequest(name: name))
        #expect(first.createdNow)
        #expect(first.matchedBy == nil)
        #expect(first.session.name == name)
        #expect(first.target == first.session.id)
        #expect(SessionIdentity.isSessionID(first.session.id))
        #expect(first.session.token?.count == 32)
        #expect(first.socketPath == server.socketPath)
        #expect(first.tmuxVersion.isEmpty == false)

        let byName = try ensurer.ensure(EnsureRequest(name: name))
        #expect(!byName.createdNow)
        #expect(byName.matchedBy == .name)
        #expect(byName.session == first.session)

        let byID = try ensurer.ensure(EnsureRequest(name: name, sessionID: first.session.id,
                                                    created: first.session.created, token: first.session.token))
        #expect(!byID.createdNow)
        #expect(byID.matchedBy == .sessionID)
        #expect(byID.session == first.session)
        #expect(try server.sessionNames() == [name])
        // The token is on the server, where a later call can check it.
        #expect(try server.tmux(["show-options", "-v", "-t", first.session.id, SessionRow.tokenOption]) == first.session.token! + "\n")
        #expect(try server.tmux(["show-options", "-v", "-t", first.session.id, "mouse"]) == "on\n")
    }

    @Test func renameOnTheServerIsFollowed() throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        let first = try ensurer.ensure(EnsureRequest(name: "sshido-11112222"))
        try server.tmux(["rename-session", "-t", "=sshido-11112222", "work on the parser"])
        let again = try ensurer.ensure(EnsureRequest(name: "sshido-11112222", sessionID: first.session.id,
                                                     created: first.session.created, token: first.session.token))
        #expect(!again.createdNow)
        #expect(again.matchedBy == .sessionID)
        #expect(again.session.id == first.session.id)
        #expect(again.session.name == "work on the parser")
        #expect(again.target == first.session.id)
        #expect(try server.sessionNames() == ["work on the parser"])
    }

    @Test func recycledIDAfterServerRestartIsRefused() throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        let first = try ensurer.ensure(EnsureRequest(name: "sshido-AAAA0000"))
        #expect(first.session.id == "$0")
        try server.killServer()
        // A new server: its $0 is another session, possibly created in the same second.
        try server.newSession("someone-else")
        #expect(try server.tmux(["display-message", "-p", "-t", "$0", "#{session_name}"]) == "someone-else\n")

        let again = try ensurer.ensure(EnsureRequest(name: "sshido-AAAA0000", sessionID: "$0",
                                                     created: first.session.created, token: first.session.token))
        #expect(again.createdNow)
        #expect(again.session.id != "$0")
        #expect(again.session.name == "sshido-AAAA0000")
        #expect(again.session.token != first.session.token)
        #expect(try server.sessionNames() == ["someone-else", "sshido-AAAA0000"])
        // Without a recorded token, a different creation time alone also refuses the id.
        let stale = try ensurer.ensure(EnsureRequest(name: "sshido-BBBB0000", sessionID: "$0", created: first.session.created - 1))
        #expect(stale.createdNow)
        #expect(stale.session.id != "$0")
    }

    @Test func aNameNeverMatchesALongerName() throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        try server.newSession("sshido-ABC")
        let short = try ensurer.ensure(EnsureRequest(name: "sshido-AB"))
        #expect(short.createdNow)
        #expect(short.session.name == "sshido-AB")
        try server.tmux(["kill-session", "-t", "=sshido-AB"])
        // With the exact session gone, tmux's own prefix match would pick sshido-ABC: we must not.
        #expect(try server.tmuxResult(["has-session", "-t", "sshido-AB"]).status == 0)
        let again = try ensurer.ensure(EnsureRequest(name: "sshido-AB"))
        #expect(again.createdNow)
        #expect(again.session.name == "sshido-AB")
        #expect(try server.sessionNames() == ["sshido-AB", "sshido-ABC"])
        // And the longer name is not satisfied by the shorter one.
        let long = try ensurer.ensure(EnsureRequest(name: "sshido-ABCD"))
        #expect(long.createdNow)
        #expect(long.session.name == "sshido-ABCD")
    }

    @Test func aKilledSessionIsNotReboundToAStranger() throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        let mine = try ensurer.ensure(EnsureRequest(name: "sshido-CAFE0001"))
        try server.newSession("sshido-CAFE00010")
        try server.tmux(["kill-session", "-t", mine.session.id])
        let again = try ensurer.ensure(EnsureRequest(name: "sshido-CAFE0001", sessionID: mine.session.id,
                                                     created: mine.session.created, token: mine.session.token))
        #expect(again.createdNow)
        #expect(again.session.name == "sshido-CAFE0001")
        #expect(again.session.id != mine.session.id)
        #expect(try server.sessionNames() == ["sshido-CAFE0001", "sshido-CAFE00010"])
    }

    @Test func aSessionWithoutTokenIsReusedAndStamped() throws {
        let server = try TmuxTestServer()
        try server.newSession("sshido-0000FFFF")
        let ensurer = try server.ensurer()
        let result = try ensurer.ensure(EnsureRequest(name: "sshido-0000FFFF"))
        #expect(!result.createdNow)
        let token = try #require(result.session.token)
        #expect(try server.tmux(["show-options", "-v", "-t", result.session.id, SessionRow.tokenOption]) == token + "\n")
        #expect(try ensurer.ensure(EnsureRequest(name: "sshido-0000FFFF")).session.token == token)
    }

    /// The variable is in the new session's environment and its first pane, never in the global one,
    /// even when hookctl itself runs inside a phone session (SSHIDO_SESSION set) and starts the server.
    @Test(arguments: [false, true])
    func sshidoSessionIsScopedToTheSession(legacy: Bool) throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer(legacyEnvironment: legacy, environment: ["SSHIDO_SESSION": "1", "TMUX": "/tmp/elsewhere,1,0"])
        let result = try ensurer.ensure(EnsureRequest(name: "sshido-E0E0E0E0"))
        #expect(result.createdNow)
        #expect(try server.tmux(["show-environment", "-t", result.session.id, "SSHIDO_SESSION"]) == "SSHIDO_SESSION=1\n")
        let global = try server.tmuxResult(["show-environment", "-g", "SSHIDO_SESSION"])
        #expect(global.status != 0 || global.outputText.hasPrefix("-"))
        #expect(!(try server.tmux(["show-environment", "-g"])).contains("SSHIDO_SESSION=1"))
        // The first pane's process has it.
        let pid = Text.trimmed(try server.tmux(["display-message", "-p", "-t", result.session.id + ":", "#{pane_pid}"]))
        // Read once the pane's process has exec'd its shell: until then /proc shows the environment
        // it was forked with, tmux's own (the test failed on a loaded machine reading it too early).
        #expect(eventually { FileSystem.fileName(of: FileSystem.resolveSymlinks("/proc/\(pid)/exe")) != "tmux" })
        let environ = try #require(try FileSystem.read("/proc/\(pid)/environ"))
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(variables.contains("SSHIDO_SESSION=1"))
        #expect(variables.contains { $0.hasPrefix("TMUX=" + server.socketPath + ",") })
        // A session made by someone else on the same server does not get it.
        try server.newSession("plain")
        let other = try server.tmuxResult(["show-environment", "-t", "=plain", "SSHIDO_SESSION"])
        #expect(other.status != 0 || other.outputText.hasPrefix("-"))
        #expect(try server.tmux(["show-options", "-v", "-t", result.session.id, "mouse"]) == "on\n")
    }

    /// Names with spaces, quotes, shell and tmux syntax, and Unicode: created literally (no format or
    /// command expansion), reported as tmux stores them, and found again by the next call.
    @Test(arguments: [
        ("with space", "with space"),
        ("quo\"te and it's", "quo\"te and it's"),
        ("semi;", "semi;"),
        ("#(touch pwned)", "#(touch pwned)"),
        ("x#{session_id}", "x#{session_id}"),
        ("$0", "$0"),
        ("-dash", "-dash"),
        ("=eq", "=eq"),
        ("ünïcødé 🚀", "ünïcødé 🚀"),
        ("tab\there", "tab\\there"),
        ("dot.colon:", "dot_colon_"),
    ])
    func hostileNames(requested: String, stored: String) throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        let first = try ensurer.ensure(EnsureRequest(name: requested))
        #expect(first.createdNow)
        #expect(first.session.name == stored)
        let again = try ensurer.ensure(EnsureRequest(name: requested))
        #expect(!again.createdNow)
        #expect(again.session.id == first.session.id)
        let byStoredName = try ensurer.ensure(EnsureRequest(name: stored))
        #expect(byStoredName.session.id == first.session.id)
        #expect(try server.sessionNames() == [stored])
        #expect(!FileSystem.exists(server.directory + "/pwned"))
    }

    @Test func listingOnNoServerIsEmpty() throws {
        let server = try TmuxTestServer()
        let client = try server.client()
        #expect(try client.listSessions().sessions.isEmpty)
        // A socket file left behind by a dead server reads the same.
        try server.newSession("a")
        try server.killServer()
        #expect(FileSystem.exists(server.socketPath))
        #expect(try client.listSessions().sessions.isEmpty)
    }

    @Test func listingReadsEveryField() throws {
        let server = try TmuxTestServer()
        let made = try server.ensurer().ensure(EnsureRequest(name: "managed one"))
        try server.newSession("plain \"two\"")
        try server.tmux(["new-window", "-t", "=plain \"two\""])
        let listing = try server.client().listSessions()
        #expect(listing.socketPath == server.socketPath)
        #expect(listing.serverVersion != nil)
        let managed = try #require(listing.session(named: "managed one"))
        #expect(managed == made.session)
        let plain = try #require(listing.session(named: "plain \"two\""))
        #expect(plain.windows == 2)
        #expect(plain.attachedClients == 0)
        #expect(plain.token == nil)
        #expect(!plain.isManaged)
    }

    @Test func aHangingTmuxIsATimeoutNotAHang() throws {
        let server = try TmuxTestServer()
        let fake = try server.fakeTmux("sleep 30")
        let environment = server.environment(["HOOKCTL_TMUX": fake])
        let client = TmuxClient(executable: try TmuxClient.locate(environment: environment),
                                socket: TmuxSocket(socketPath: server.socketPath, socketName: nil, environment: environment),
                                environment: environment, timeout: 0.5)
        let started = monotonicSeconds()
        #expect(throws: TmuxError.timedOut(command: "display-message", seconds: 0.5, socket: server.socketPath)) {
            try SessionEnsurer(client: client, lockDirectory: nil).ensure(EnsureRequest(name: "x"))
        }
        #expect(monotonicSeconds() - started < 5)
    }

    /// A real server that stops answering (SIGSTOP): every call gives up at the time limit.
    @Test func aStoppedServerIsATimeoutNotAHang() throws {
        let server = try TmuxTestServer()
        let made = try server.ensurer().ensure(EnsureRequest(name: "sshido-57075707"))
        let pid = try #require(pid_t(Text.trimmed(try server.tmux(["display-message", "-p", "-t", made.session.id, "#{pid}"]))))
        #expect(kill(pid, SIGSTOP) == 0)
        defer { kill(pid, SIGCONT) }
        let client = try server.client(timeout: 0.5)
        let started = monotonicSeconds()
        #expect(throws: TmuxError.timedOut(command: "display-message", seconds: 0.5, socket: server.socketPath)) {
            try SessionEnsurer(client: client, lockDirectory: nil).ensure(EnsureRequest(name: "sshido-57075707"))
        }
        #expect(throws: TmuxError.timedOut(command: "list-sessions", seconds: 0.5, socket: server.socketPath)) {
            try client.listSessions()
        }
        #expect(monotonicSeconds() - started < 5)
        kill(pid, SIGCONT)
        #expect(try server.ensurer().ensure(EnsureRequest(name: "sshido-57075707")).session.id == made.session.id)
    }

    @Test func concurrentEnsuresInProcessEndWithOneSession() async throws {
        let server = try TmuxTestServer()
        let ensurer = try server.ensurer()
        let results = try await withThrowingTaskGroup(of: EnsureResult.self) { group in
            for _ in 0..<4 { group.addTask { try ensurer.ensure(EnsureRequest(name: "sshido-C0C0C0C0")) } }
            return try await group.reduce(into: [EnsureResult]()) { $0.append($1) }
        }
        #expect(Set(results.map(\.session.id)).count == 1)
        #expect(Set(results.map(\.session.token)).count == 1)
        #expect(results.filter(\.createdNow).count == 1)
        #expect(try server.sessionNames() == ["sshido-C0C0C0C0"])
    }
}
