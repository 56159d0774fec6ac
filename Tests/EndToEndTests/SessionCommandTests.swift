import Testing
@testable import HookSupport
import TestSupport

/// `hookctl session …` run as the built binary, against a private tmux server in a temporary HOME.
@Suite(.onTestThreads) struct SessionCommandTests {
    static let uuid = "9b95bd2a-0c4e-4f6b-8e0a-2d1c3b4a5f60"

    /// A temporary HOME with a tmux socket in it; the server is killed at deinit.
    final class Server: @unchecked Sendable {
        let home: TemporaryHome
        var socket: String { home.tmuxSocket }

        init() throws { home = try TemporaryHome() }

        deinit { _ = try? home.tmuxResult(["kill-server"]) }

        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            home.environment(["TMUX_TMPDIR": home.path].merging(extra) { $1 })
        }

        func run(_ arguments: [String], extra: [String: String] = [:], input: String? = nil) throws -> Subprocess.Result {
            try hookctl(["session"] + arguments + ["-S", socket], environment: environment(extra), input: input)
        }

        func json(_ arguments: [String], extra: [String: String] = [:], input: String? = nil) throws -> JSONValue {
            let result = try run(arguments + ["--json"], extra: extra, input: input)
            #expect(result.status == 0, "\(result.stderr)")
            return try JSON.parse(result.stdout)
        }

        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            let result = try home.tmuxResult(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }

        func killServer() throws {
            try tmux(["kill-server"])
            let deadline = monotonicSeconds() + 10
            while monotonicSeconds() < deadline, !(try home.tmuxResult(["ls"]).stderr.contains("no server running")) { sleepSeconds(0.01) }
            #expect(try home.tmuxResult(["ls"]).stderr.contains("no server running"), "the tmux server was still running 10 s after kill-server")
        }

        func script(_ body: String) throws -> String {
            let path = home.file("fake-tmux")
            try home.write("fake-tmux", "#!/bin/sh\n" + body + "\n", mode: 0o755)
            return path
        }
    }

    @Test func ensurePrintsTheContractAndReuses() throws {
        let server = try Server()
        let first = try server.json(["ensure", "--id", Self.uuid])
        let object = try #require(first.objectValue)
        #expect(object.keys == ["target", "name", "session_id", "created", "token", "socket", "tmux", "tmux_version", "created_now", "matched_by"])
        #expect(first["name"]?.stringValue == "sshido-9B95BD2A")
        #expect(first["created_now"]?.boolValue == true)
        #expect(first["target"] == first["session_id"])
        #expect(first["socket"]?.stringValue == server.socket)
        #expect(first["tmux"]?.stringValue?.hasSuffix("/tmux") == true)
        #expect(first["tmux_version"]?.stringValue?.isEmpty == false)
        let id = try #require(first["session_id"]?.stringValue)
        let created = try #require(first["created"]?.intValue)
        let token = try #require(first["token"]?.stringValue)

        let second = try server.json(["ensure", "--id", Self.uuid])
        #expect(second["created_now"]?.boolValue == false)
        #expect(second["session_id"]?.stringValue == id)
        #expect(second["token"]?.stringValue == token)

        let stored = try server.json(["ensure", "--id", Self.uuid, "--session-id", id, "--created", String(created), "--token", token])
        #expect(stored["created_now"]?.boolValue == false)
        #expect(stored["matched_by"]?.stringValue == "session_id")

        // Without --json: one stable line of key=value pairs.
        let line = try server.run(["ensure", "--id", Self.uuid])
        #expect(line.status == 0)
        #expect(line.stdout == "target='\(id)' name=sshido-9B95BD2A session_id='\(id)' created=\(created) token=\(token) socket=\(server.socket) tmux=\(first["tmux"]!.stringValue!) tmux_version=\(first["tmux_version"]!.stringValue!) created_now=false matched_by=name\n")
        #expect(try server.tmux(["list-sessions", "-F", "#{session_name}"]) == "sshido-9B95BD2A\n")
        #expect(try server.tmux(["show-environment", "-t", id, "SSHIDO_SESSION"]) == "SSHIDO_SESSION=1\n")
        #expect(try server.home.tmuxResult(["show-environment", "-g", "SSHIDO_SESSION"]).status != 0)
    }

    /// The phone's whole story: rename followed; after a server restart the recycled $0 is refused.
    @Test func renameFollowedThenRecycledIDRefused() throws {
        let server = try Server()
        let first = try server.json(["ensure", "--id", Self.uuid])
        let id = first["session_id"]!.stringValue!, created = String(first["created"]!.intValue!), token = first["token"]!.stringValue!
        try server.tmux(["rename-session", "-t", id, "renamed"])
        let followed = try server.json(["ensure", "--id", Self.uuid, "--session-id", id, "--created", created, "--token", token])
        #expect(followed["session_id"]?.stringValue == id)
        #expect(followed["name"]?.stringValue == "renamed")
        #expect(followed["created_now"]?.boolValue == false)

        try server.killServer()
        try server.tmux(["new-session", "-d", "-s", "stranger"])
        #expect(try server.tmux(["display-message", "-p", "-t", "$0", "#{session_name}"]) == "stranger\n")
        let fresh = try server.json(["ensure", "--id", Self.uuid, "--session-id", id, "--created", created, "--token", token])
        #expect(fresh["created_now"]?.boolValue == true)
        #expect(fresh["name"]?.stringValue == "sshido-9B95BD2A")
        #expect(fresh["session_id"]?.stringValue != "$0")
        #expect(try server.tmux(["list-sessions", "-F", "#{session_name}"]) == "sshido-9B95BD2A\nstranger\n")
    }

    /// `-L NAME` under TMUX_TMPDIR, exactly where tmux puts it; the caller's TMUX (another server) is ignored.
    @Test func socketNameUnderTmuxTmpdirAndCallersTMUXIgnored() throws {
        let server = try Server()
        let environment = server.environment(["TMUX": server.socket + ",1,0", "TMUX_PANE": "%0"])
        defer { _ = try? Subprocess(executable: "/usr/bin/env", arguments: ["tmux", "-L", "work", "kill-server"], environment: environment).run() }
        let result = try hookctl(["session", "ensure", "--name", "by-label", "-L", "work", "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let real = try #require(realpath(server.home.path, nil))
        defer { free(real) }
        #expect(try JSON.parse(result.stdout)["socket"]?.stringValue == String(cString: real) + "/tmux-\(getuid())/work")
        // Nothing was created on the server TMUX points at.
        #expect(try server.home.tmuxResult(["ls"]).status != 0)
        let listed = try hookctl(["session", "list", "-L", "work", "--json"], environment: environment)
        #expect(try JSON.parse(listed.stdout)["sessions"]?.arrayValue?.first?["name"]?.stringValue == "by-label")
    }

    @Test func concurrentEnsuresEndWithOneSession() throws {
        let server = try Server()
        let processes = try (0..<4).map { _ in
            try BackgroundProcess(executable: Harness.binary,
                                  arguments: ["session", "ensure", "--id", Self.uuid, "-S", server.socket, "--json"],
                                  environment: server.environment())
        }
        let outputs = processes.map { $0.readLine(timeout: 20) }
        processes.forEach { $0.stop() }
        let results = try outputs.map { try JSON.parse(try #require($0)) }
        #expect(Set(results.map { $0["session_id"]?.stringValue ?? "" }).count == 1)
        #expect(Set(results.map { $0["token"]?.stringValue ?? "" }).count == 1)
        #expect(results.filter { $0["created_now"]?.boolValue == true }.count == 1)
        #expect(try server.tmux(["list-sessions", "-F", "#{session_name}"]) == "sshido-9B95BD2A\n")
    }

    @Test func tmuxMissingIsUnavailable() throws {
        let server = try Server()
        let plain = try server.run(["ensure", "--id", Self.uuid], extra: ["HOOKCTL_TMUX": "/nonexistent/tmux"])
        #expect(plain.status == 69)
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr.hasPrefix("hookctl: error: HOOKCTL_TMUX is '/nonexistent/tmux'"))
        let json = try server.run(["ensure", "--id", Self.uuid, "--json"], extra: ["HOOKCTL_TMUX": "/nonexistent/tmux"])
        #expect(json.status == 69)
        let error = try JSON.parse(json.stdout)["error"]
        #expect(error?["code"]?.stringValue == "tmux_not_found")
        #expect(error?["exit_code"]?.intValue == 69)
        #expect(json.stderr.hasPrefix("hookctl: error: "))
        #expect(try server.run(["list"], extra: ["HOOKCTL_TMUX": "/nonexistent/tmux"]).status == 69)
    }

    @Test func hangingTmuxTimesOut() throws {
        let server = try Server()
        let fake = try server.script("sleep 30")
        let started = monotonicSeconds()
        let result = try server.run(["ensure", "--id", Self.uuid, "--timeout", "0.5", "--json"], extra: ["HOOKCTL_TMUX": fake])
        #expect(monotonicSeconds() - started < 5)
        #expect(result.status == 75)
        #expect(try JSON.parse(result.stdout)["error"]?["code"]?.stringValue == "tmux_timeout")
        #expect(result.stderr.contains("did not answer"))
        #expect(result.stderr.contains("--timeout"))
        let list = try server.run(["list", "--timeout", "500ms"], extra: ["HOOKCTL_TMUX": fake])
        #expect(list.status == 75)
    }

    @Test func attachExecsTmuxOnTheExactTargetWithoutTMUX() throws {
        let server = try Server()
        let log = server.home.file("attach.log")
        // Passes every call to the real tmux, except attach-session, which it records.
        let fake = try server.script("""
        for a in "$@"; do [ "$a" = attach-session ] && { printf '%s\\n' "$@" > '\(log)'; echo "TMUX=${TMUX-unset} PANE=${TMUX_PANE-unset}" >> '\(log)'; exit 0; }; done
        exec /usr/bin/tmux "$@"
        """)
        // --attach needs a terminal: run it on a pseudo-terminal with script(1), as a user's ssh -t would.
        func attach(_ extra: [String]) throws -> Subprocess.Result {
            let command = ([Harness.binary, "session", "ensure", "--id", Self.uuid, "--attach", "-S", server.socket] + extra)
                .map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
            return try Subprocess(executable: "/usr/bin/script", arguments: ["-qec", command, "/dev/null"],
                                  environment: server.environment(["HOOKCTL_TMUX": fake, "TMUX": "/tmp/elsewhere,1,0", "TMUX_PANE": "%9"]),
                                  timeout: 30).run()
        }
        // Inside another server's pane: nesting a client is refused before anything is created...
        let refused = try attach([])
        #expect(refused.status == 64 && refused.outputText.contains("--nested"), "\(refused.outputText)")
        #expect(try server.home.tmuxResult(["list-sessions"]).stdout.isEmpty)
        // ...unless asked for.
        let result = try attach(["--nested"])
        #expect(result.status == 0, "\(result.outputText)")
        let id = try #require(try server.tmux(["list-sessions", "-F", "#{session_id}"]).split(separator: "\n").first.map(String.init))
        #expect(server.home.read("attach.log") == "-S\n\(server.socket)\nattach-session\n-t\n\(id)\nTMUX=unset PANE=unset\n")
    }

    @Test func attachWithoutATerminalIsRefusedBeforeAnythingIsCreated() throws {
        let server = try Server()
        let result = try server.run(["ensure", "--id", Self.uuid, "--attach"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--attach needs a terminal"))
        // No server was even started: nothing was created.
        #expect(try server.home.tmuxResult(["list-sessions"]).status != 0)
    }

    @Test func listShowsEveryNameIntact() throws {
        let server = try Server()
        _ = try server.json(["ensure", "--name", "managed"])
        let names = ["with space", "quo\"te 'single'", "ünïcødé 🚀", "tab\there", "#(not run)"]
        for name in names { try server.tmux(["new-session", "-d", "-s", name.replacing("#", with: "##")]) }
        let stored = try server.tmux(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").map(String.init)
        let listing = try server.json(["list"])
        #expect(listing["socket"]?.stringValue == server.socket)
        let sessions = try #require(listing["sessions"]?.arrayValue)
        #expect(sessions.compactMap { $0["name"]?.stringValue } == stored)
        #expect(Set(stored) == Set(["managed", "with space", "quo\"te 'single'", "ünïcødé 🚀", "tab\\there", "#(not run)"]))
        for session in sessions {
            #expect(session["managed"]?.boolValue == (session["name"]?.stringValue == "managed"))
            #expect(session["windows"]?.intValue == 1)
            #expect(session["attached"]?.intValue == 0)
        }
        let table = try server.run(["list"])
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID  ") == true)
        #expect(lines.count == stored.count + 1)
        for name in stored { #expect(table.stdout.contains(name)) }
        // No server at all: an empty list, not an error.
        try server.killServer()
        #expect(try server.json(["list"])["sessions"]?.arrayValue?.isEmpty == true)
    }

    @Test func reconcileReadsRecordsFromStandardInput() throws {
        let server = try Server()
        let mine = try server.json(["ensure", "--id", Self.uuid])
        try server.tmux(["rename-session", "-t", mine["session_id"]!.stringValue!, "renamed"])
        try server.tmux(["new-session", "-d", "-s", "untracked"])
        let records = """
        [{"local_id": "A", "name": "sshido-9B95BD2A", "session_id": "\(mine["session_id"]!.stringValue!)",
          "created": \(mine["created"]!.intValue!), "token": "\(mine["token"]!.stringValue!)"},
         {"local_id": "B", "name": "killed-long-ago", "session_id": "$7", "created": 1}]
        """
        let result = try server.json(["reconcile"], input: records)
        let bindings = try #require(result["bindings"]?.arrayValue)
        #expect(bindings.count == 1)
        #expect(bindings.first?["local_id"]?.stringValue == "A")
        #expect(bindings.first?["matched_by"]?.stringValue == "session_id")
        #expect(bindings.first?["name"]?.stringValue == "renamed")
        #expect(bindings.first?["target"] == mine["session_id"])
        #expect(result["unmatched_locals"] == .array([.string("B")]))
        #expect(result["unmatched_remotes"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["untracked"])

        let human = try server.run(["reconcile"], input: records)
        #expect(human.status == 0)
        #expect(human.stdout.contains("bound      A -> "))
        #expect(human.stdout.contains("gone       B"))

        let bad = try server.run(["reconcile", "--json"], input: "{not json")
        #expect(bad.status == 65)
        #expect(try JSON.parse(bad.stdout)["error"]?["code"]?.stringValue == "invalid_records")
        #expect(bad.stderr.hasPrefix("hookctl: error: the session records on standard input are invalid"))
    }

    @Test(arguments: [
        (["ensure"], "give --id UUID"),
        (["ensure", "--id", "nope"], "--id expects a UUID"),
        (["ensure", "--id", uuid, "--name", "x"], "either --id or --name"),
        (["ensure", "--name", "x", "--session-id", "$1"], "--session-id and --created go together"),
        (["ensure", "--name", "x", "--session-id", "1", "--created", "5"], "--session-id expects a tmux session id"),
        (["ensure", "--name", "x", "--created", "soon", "--session-id", "$1"], "--created expects a whole number"),
        (["ensure", "--name", "x", "--timeout", "0"], "--timeout expects a duration"),
        (["ensure", "--name", ""], "--name must not be empty"),
        (["ensure", "--name", "x", "--prefix", "p"], "--prefix only applies"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let server = try Server()
        let result = try server.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: hookctl session ensure"))
        // Nothing was started.
        #expect(try server.home.tmuxResult(["ls"]).status != 0)
    }
}
