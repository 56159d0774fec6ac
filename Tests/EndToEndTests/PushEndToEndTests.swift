import Testing
@testable import HookSupport
@testable import HookDelivery
@testable import HookCLI
import TestSupport

/// Pushes end to end: pushes a phone user can act on (which agent, why, once, words intact, no
/// controls), and doctor/status telling the truth about a failing relay. The built binary, a real tmux
/// server on a private socket, loopback receivers.
@Suite(.onTestThreads) struct PushEndToEndTests {
    static let token = TemporaryHome.relayToken

    static func payload(_ fields: [(String, JSONValue)]) -> String { JSON.serialize(.object(JSONObject(fields))) }

    // MARK: which agent

    @Test func twoAgentsInTwoWindowsGiveTwoPushesNamingTheirProjects() throws {
        let home = try TemporaryHome()
        // `api` is a git repository (read from .git, no git process); `web` a plain directory.
        try home.write("src/api/.git/HEAD", "ref: refs/heads/main\n")
        try home.write("src/web/index.html", "")
        let socket = home.tmuxSocket
        try home.tmux(["new-session", "-d", "-s", "sshido-9B95BD2A", "-x", "80", "-y", "24"])
        defer { _ = try? home.tmux(["kill-server"]) }
        try home.tmux(["new-window", "-d", "-t", "=sshido-9B95BD2A:", "-n", "frontend"])
        let first = try home.tmux(["display-message", "-p", "-t", "=sshido-9B95BD2A:0", "#{pane_id}"])
        let second = try home.tmux(["display-message", "-p", "-t", "=sshido-9B95BD2A:1", "#{pane_id}"])
        let receiver = try Receiver(directory: home.path)
        try home.writeConfig(relay: receiver)
        for (pane, project, session) in [(first, "src/api/pkg", "a-1"), (second, "src/web", "b-2")] {
            let result = try hookctl(["notify", "--agent", "claude", "--strict"],
                                     environment: home.hookEnvironment(["TMUX": "\(socket),1,0", "TMUX_PANE": pane]),
                                     input: Self.payload([("session_id", .string(session)), ("cwd", .string(home.file(project))),
                                                          ("hook_event_name", .string("Notification")),
                                                          ("notification_type", .string("permission_prompt")),
                                                          ("message", .string("Claude needs your permission to use Bash"))]))
            #expect(result.status == 0, "\(result.stderr)")
        }
        let bodies = try receiver.waitForBodies(2)
        try #require(bodies.count == 2)
        let titles = bodies.compactMap { $0["title"]?.stringValue }
        #expect(titles == ["Claude Code needs your input · api · window 0", "Claude Code needs your input · web · 1:frontend"])
        #expect(titles.allSatisfy { $0.count <= 60 })
        // The relay's session reference stays the exact tmux session name.
        #expect(bodies.map { $0["sessionRef"]?.stringValue } == ["sshido-9B95BD2A", "sshido-9B95BD2A"])
        let logged = home.loggedEvents()
        #expect(logged.map { $0["tmux"]?["window"]?.stringValue } == ["0", "1"])
        #expect(logged[1]["tmux"]?["window_name"]?.stringValue == "frontend")
        #expect(logged[0]["repo"]?.stringValue == "api")
        #expect(logged[0]["branch"]?.stringValue == "main")
        #expect(logged[1]["repo"] == nil)
        #expect(logged[1]["project"]?.stringValue == "web")
    }

    // MARK: once

    @Test func stopThenIdlePromptGivesOnePushAndTheBoardKeepsDone() throws {
        let (home, receiver) = try TemporaryHome.withRelay()
        let environment = home.hookEnvironment()
        let stop = Self.payload([("session_id", .string("s-1")), ("cwd", .string("/home/u/api")), ("hook_event_name", .string("Stop")),
                                 ("last_assistant_message", .string("All tests pass."))])
        let idle = Self.payload([("session_id", .string("s-1")), ("cwd", .string("/home/u/api")), ("hook_event_name", .string("Notification")),
                                 ("notification_type", .string("idle_prompt")), ("message", .string("Claude is waiting for your input"))])
        #expect(try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: stop).status == 0)
        #expect(try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: idle).status == 0)
        // The same Stop again (a hook registered twice, an agent retrying) is recorded, not pushed.
        #expect(try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: stop).status == 0)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 1)
        let logged = home.loggedEvents()
        #expect(logged.map { $0["quiet"]?.stringValue } == [nil, "idle_after_done", "repeat"])
        let status = try JSON.parse(try hookctl(["status", "--json"], environment: environment).stdout)
        #expect(status["agents"]?.arrayValue?.first?["state"]?.stringValue == "done")

        // Both rules can be switched off: then every one pushes.
        let other = try TemporaryHome()
        let receiver2 = try Receiver(directory: other.path)
        try other.writeConfig(relay: receiver2, defaults: "  quiet: {idle_after_done: false, repeats: off}\n")
        let environment2 = other.hookEnvironment()
        for input in [stop, idle, stop] {
            #expect(try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment2, input: input).status == 0)
        }
        #expect(receiver2.waitForRequests(3).count == 3)
    }

    // MARK: words intact, nothing that drives a terminal

    /// One receiver behind every sink type, each on its own path.
    func everySink(_ home: TemporaryHome, _ receiver: Receiver) throws {
        let base = receiver.baseURL
        try home.write(".config/hookctl/config.yaml", """
            version: 1
            defaults: {quiet: {repeats: off}}
            sinks:
              - {name: relay, type: relay, url: "\(base)/n/\(Self.token)"}
              - {name: ntfy, type: ntfy, url: "\(base)/ntfy-topic"}
              - {name: ntfymd, type: ntfy, url: "\(base)/ntfy-md", markdown: true}
              - {name: slack, type: slack, url: "\(base)/services/T1/B1/slacksecretslacksecret42"}
              - {name: discord, type: discord, url: "\(base)/api/webhooks/1/discordtokendiscordtoken"}
              - {name: telegram, type: telegram, token: "123:telegramtokentelegram", chat_id: 42, api_url: "\(base)"}
              - {name: hook, type: webhook, url: "\(base)/hook"}
              - {name: log, type: file, path: ~/events.jsonl}
            """)
    }

    /// The text each sink's reader sees: its body field with the dialect's escapes undone.
    static func readerText(_ request: JSONValue) throws -> [String] {
        let path = request["path"]?.stringValue ?? ""
        let body = try JSON.parse(try #require(request["body"]?.stringValue))
        func unescapeHTML(_ text: String) -> String {
            text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"").replacing("&amp;", with: "&")
        }
        func unescapeMarkdown(_ text: String) -> String {
            var output = "", escaped = false
            for character in text {
                if !escaped, character == "\\" { escaped = true; continue }
                escaped = false
                output.append(character)
            }
            return output
        }
        if path.hasPrefix("/n/") { return [body["title"]?.stringValue ?? "", body["body"]?.stringValue ?? ""] }
        if path.hasPrefix("/ntfy") { return [body["title"]?.stringValue ?? "", body["message"]?.stringValue ?? ""] }
        if path.hasPrefix("/services/") { return [unescapeHTML(body["text"]?.stringValue ?? "")] }
        if path.hasPrefix("/api/webhooks/") { return [unescapeMarkdown(body["content"]?.stringValue ?? "")] }
        if path.contains("/sendMessage") { return [unescapeHTML(body["text"]?.stringValue ?? "")] }
        return [body["title"]?.stringValue ?? "", body["message"]?.stringValue ?? "", body["message_plain"]?.stringValue ?? ""]
    }

    static let intactTexts = [
        "Use Vec<String> and Map<K, V>", "Result<T, E>", "a<b && c>d", "Option<Box<dyn Error>>", "x < 3 > y", "if (i<n) {}",
    ]

    @Test func genericsAndComparisonsArriveIntactAtEverySinkType() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["200"])
        try everySink(home, receiver)
        // Markdown around them, so the parser (not the plain-text shortcut) sees every one.
        let message = "**Done.** " + Self.intactTexts.joined(separator: "; ") + "\n\n- `code<T>` stays too"
        let result = try hookctl(["notify", "--agent", "claude", "--strict", "--budget", "6s"],
                                 environment: home.hookEnvironment(),
                                 input: Self.payload([("session_id", .string("s-1")), ("cwd", .string("/w/api")),
                                                      ("hook_event_name", .string("Stop")), ("last_assistant_message", .string(message))]))
        #expect(result.status == 0, "\(result.stderr)")
        let requests = receiver.waitForRequests(7)
        #expect(requests.count == 7)
        for request in requests {
            let seen = try Self.readerText(request).joined(separator: "\n")
            for text in Self.intactTexts + ["code<T>"] {
                #expect(seen.contains(text), "\(request["path"]?.stringValue ?? "") lost '\(text)': \(seen)")
            }
        }
        let line = try #require(home.read("events.jsonl"))
        let logged = try JSON.parse(String(line.split(separator: "\n")[0]))
        for text in Self.intactTexts { #expect(logged["message"]?.stringValue?.contains(text) == true) }
    }

    static func forbidden(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return [text]
        case .array(let items): return items.flatMap(strings)
        case .object(let object): return object.entries.flatMap { [$0.0] + strings(in: $0.1) }
        default: return []
        }
    }

    @Test func controlCharactersAndEscapeSequencesNeverReachASink() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["200"])
        try everySink(home, receiver)
        let hostile = "ok \u{1B}[31mred\u{1B}[0m \u{7}bell \u{0}nul \u{202E}evil\u{202C} \u{2066}iso\u{2069} \u{1B}]0;pwned\u{7}"
            + "\u{1B}]8;;https://evil\u{1B}\\link\u{1B}]8;;\u{1B}\\ \u{9B}2J c1 **bold**\r\nend"
        let result = try hookctl(["notify", "--agent", "claude", "--strict", "--budget", "6s"],
                                 environment: home.hookEnvironment(),
                                 input: Self.payload([("session_id", .string("s-\u{1B}[2J")), ("cwd", .string("/w/\u{1B}]0;x\u{7}api")),
                                                      ("hook_event_name", .string("Notification")),
                                                      ("notification_type", .string("permission_prompt")), ("message", .string(hostile))]))
        #expect(result.status == 0, "\(result.stderr)")
        let requests = receiver.waitForRequests(7)
        #expect(requests.count == 7)
        for request in requests {
            let body = try JSON.parse(try #require(request["body"]?.stringValue))
            for text in Self.strings(in: body) where text.unicodeScalars.contains(where: Self.forbidden) {
                Issue.record("\(request["path"]?.stringValue ?? ""): a control reached the sink: \(text.debugDescription)")
            }
            let seen = try Self.readerText(request).joined(separator: "\n")
            #expect(seen.contains("red bell nul evil iso"), "\(seen.debugDescription)")
            #expect(!seen.contains("pwned"))
        }
        let fileLine = try #require(home.read("events.jsonl"))
        let fileEvent = try JSON.parse(String(fileLine.split(separator: "\n")[0]))
        #expect(!Self.strings(in: fileEvent).contains(where: { $0.unicodeScalars.contains(where: Self.forbidden) }))
    }

    // MARK: doctor and status

    @Test(arguments: [("503", "HTTP 503", "failing on its side"), ("404", "HTTP 404", "setup --notify-url"),
                      ("refused", "", "nothing answers")])
    func doctorAndStatusTellTheTruthAboutAFailingRelay(answer: String, problem: String, advice: String) throws {
        let home = try TemporaryHome()
        var receiver: Receiver? = try Receiver(directory: home.path, responses: [answer == "refused" ? "204" : answer])
        let url = receiver!.baseURL
        if answer == "refused" { receiver = nil }  // stopped: its port now refuses connections
        try home.write(".config/hookctl/config.yaml", "version: 1\nsinks:\n  - name: relay\n    type: relay\n    url: \"\(url)/n/\(Self.token)\"\n")
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude", "--budget", "1s"], environment: environment,
                        input: #"{"session_id":"s-1","cwd":"/w/api","hook_event_name":"Stop","last_assistant_message":"done"}"#)
        let status = try hookctl(["status"], environment: environment)
        let statusJSON = try JSON.parse(try hookctl(["status", "--json"], environment: environment).stdout)
        let doctor = try hookctl(["doctor"], environment: environment)
        let doctorJSON = try JSON.parse(try hookctl(["doctor", "--json"], environment: environment).stdout)
        let relayCheck = doctorJSON["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "sink relay" }
        #expect(relayCheck?["status"]?.stringValue != "ok", "\(doctor.stdout)")
        #expect(relayCheck?["fix"]?.stringValue?.contains(advice) == true, "\(doctor.stdout)")
        #expect(!doctor.stdout.contains("No problems"))
        #expect(!(doctor.stdout + status.stdout).contains(Self.token), "the notify URL's token must never be printed")
        if answer == "404" {
            // Given up for good: status says so, doctor fails.
            #expect(status.stdout.contains("1 push was given up (relay: HTTP 404)"), "\(status.stdout)")
            #expect(statusJSON["pushes"]?["given_up"]?.intValue == 1)
            #expect(relayCheck?["status"]?.stringValue == "broken")
            #expect(doctor.status == 69)
        } else {
            #expect(status.stdout.contains("1 push not delivered yet (relay: \(problem)"), "\(status.stdout)")
            #expect(status.stdout.contains("retrying until "))
            #expect(statusJSON["pushes"]?["waiting"]?.intValue == 1)
            #expect(statusJSON["pushes"]?["sinks"]?.arrayValue?.first?["retry_until"]?.stringValue != nil)
            #expect(relayCheck?["status"]?.stringValue == "warning")
            #expect(relayCheck?["message"]?.stringValue?.contains("1 event waiting, retried until") == true)
        }
        // A fix is printed whole on one line, never wrapped.
        let fixLine = doctor.stdout.split(separator: "\n").first { $0.contains("fix: ") && $0.contains(advice) }
        #expect(fixLine != nil, "\(doctor.stdout)")
    }

    @Test func doctorReadsTheSinkHealthRecordsAndTheStateDirectory() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path)
        try home.writeConfig(relay: receiver)
        let paths = Paths(environment: home.environment())
        // What the delivery engine records after an attempt (written here with the same store).
        try SinkHealthStore(paths: paths).record(sink: "relay", result: .retrying, httpStatus: 503, error: "HTTP 503", now: WallClock.nowEpoch() - 120)
        try SinkHealthStore(paths: paths).record(sink: "relay", result: .retrying, httpStatus: 503, error: "HTTP 503")
        let doctor = try JSON.parse(try hookctl(["doctor", "--json"], environment: home.environment()).stdout)
        let relay = doctor["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "sink relay" }
        #expect(relay?["status"]?.stringValue == "warning")
        #expect(relay?["message"]?.stringValue?.contains("HTTP 503 (2 failures in a row)") == true, "\(String(describing: relay))")
        try SinkHealthStore(paths: paths).record(sink: "relay", result: .delivered, httpStatus: 204)
        let healthy = try JSON.parse(try hookctl(["doctor", "--json"], environment: home.environment()).stdout)
        let ok = healthy["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "sink relay" }
        #expect(ok?["status"]?.stringValue == "ok")
        #expect(ok?["message"]?.stringValue?.contains("last delivery") == true)

        // A state directory hookctl cannot create is a failure, not "ok".
        try home.write("state-is-a-file", "")
        let broken = try hookctl(["doctor", "--json"], environment: home.environment(["XDG_STATE_HOME": home.file("state-is-a-file")]))
        let state = try JSON.parse(broken.stdout)["checks"]?.arrayValue?.first { $0["name"]?.stringValue == "state" }
        #expect(state?["status"]?.stringValue == "broken")
        #expect(broken.status == 69)
    }

    @Test func doctorHonoursHookctlTmuxAndNamesTheRealBinaryDirectory() throws {
        let home = try TemporaryHome()
        let doctor = try JSON.parse(try hookctl(["doctor", "--json"],
                                                environment: home.environment(["HOOKCTL_TMUX": home.file("no-such-tmux")])).stdout)
        let checks = doctor["checks"]?.arrayValue ?? []
        let tmux = checks.first { $0["name"]?.stringValue == "tmux" }
        #expect(tmux?["status"]?.stringValue == "broken")
        #expect(tmux?["message"]?.stringValue?.contains("HOOKCTL_TMUX") == true)
        // The binary is not on this PATH: the advice names the directory it really runs from.
        let binary = checks.first { $0["name"]?.stringValue == "binary" }
        let directory = FileSystem.parentDirectory(of: FileSystem.resolveSymlinks(Harness.binary))
        #expect(binary?["fix"]?.stringValue?.contains(directory) == true, "\(String(describing: binary))")
        #expect(binary?["fix"]?.stringValue?.contains(".local/bin") == false)
    }

    // MARK: one config reader

    @Test func flowAndBlockStyleConfigGiveTheSameGate() throws {
        var commands: [String] = []
        for config in ["version: 1\ndefaults:\n  gate: MYGATE\nsinks: []\n", "{version: 1, defaults: {gate: MYGATE}, sinks: []}\n"] {
            let home = try TemporaryHome()
            try home.write(".config/hookctl/config.yaml", config)
            try home.write(".claude/settings.json", "{}\n")
            let setup = try hookctl(["setup", "--agents", "claude"], environment: home.environment())
            #expect(setup.status == 0, "\(setup.stderr)")
            let settings = try JSON.parse(try #require(home.read(".claude/settings.json")))
            let command = settings["hooks"]?["Stop"]?.arrayValue?.first?["hooks"]?.arrayValue?.first?["command"]?.stringValue ?? ""
            #expect(command.contains("MYGATE"), "\(command)")
            #expect(!command.contains("SSHIDO_SESSION"))
            commands.append(command.replacing(home.path, with: "~"))
        }
        #expect(commands[0] == commands[1])
    }
}
