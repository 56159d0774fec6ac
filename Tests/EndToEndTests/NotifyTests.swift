import Testing
@testable import HookSupport
import TestSupport

/// A fresh HOME whose config relays to a fresh receiver answering `responses` (`writeConfig`'s
/// `defaults` and `extra` as given).
private func relayedHome(responses: [String] = ["204"], defaults: String = "", extra: String = "") throws -> (TemporaryHome, Receiver) {
    let home = try TemporaryHome()
    let receiver = try Receiver(directory: home.path, responses: responses)
    try home.writeConfig(relay: receiver, defaults: defaults, extra: extra)
    return (home, receiver)
}

/// `notify --agent claude --strict` as the agent's hook runs it in `home`, with `input` on stdin.
private func strictNotify(_ home: TemporaryHome, input: String = NotifyTests.stopPayload) throws -> Subprocess.Result {
    try hookctl(["notify", "--agent", "claude", "--strict"], environment: home.hookEnvironment(), input: input)
}

/// `hookctl notify` end to end: the built binary, a private HOME, a real HTTP server on loopback.
@Suite(.onTestThreads) struct NotifyTests {
    static let stopPayload = #"{"session_id":"s-1","transcript_path":"/tmp/t.jsonl","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All **tests** pass."}"#
    /// The same from another agent session: not a repeat of the first (which would be recorded, not pushed).
    static let otherStopPayload = stopPayload.replacing(#""s-1""#, with: #""s-2""#)

    func pendingCount(_ home: TemporaryHome) -> Int {
        ((try? FileSystem.list(home.file(".local/state/hookctl/outbox"))) ?? []).filter { $0.hasSuffix(".json") }.count
    }

    @Test func relayReceivesTheDocumentedRequest() throws {
        let (home, receiver) = try relayedHome(responses: ["204"])
        let result = try strictNotify(home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let requests = receiver.waitForRequests(1)
        try #require(requests.count == 1)
        let request = requests[0]
        expectJSONPost(request, to: "/n/0123456789abcdef0123456789abcdef")
        let body = try JSON.parse(request["body"]!.stringValue!)
        #expect(body.objectValue?.keys == ["title", "body", "priority", "sessionRef", "hostRef"])
        #expect(body["title"]?.stringValue == "Claude Code finished · proj")
        #expect(body["body"]?.stringValue == "All tests pass.")
        #expect(body["priority"]?.stringValue == "normal")
        #expect(body["hostRef"]?.stringValue == shortHostName())
        let logged = home.loggedEvents()
        #expect(logged.count == 1)
        #expect(request["headers"]?["idempotency-key"]?.stringValue == logged.first?["id"]?.stringValue)
        #expect(pendingCount(home) == 0)
    }

    @Test func needsInputAndFailuresArePushedWithHighPriority() throws {
        let (home, receiver) = try relayedHome(responses: ["204"])
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input:
            #"{"session_id":"s","cwd":"/p","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}"#)
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input:
            #"{"session_id":"s","cwd":"/p","hook_event_name":"StopFailure","error":"rate_limit","error_details":"429 from the API"}"#)
        let bodies = try receiver.waitForBodies(2)
        try #require(bodies.count == 2)
        #expect(bodies[0]["priority"]?.stringValue == "high")
        #expect(bodies[0]["body"]?.stringValue == "Claude needs your permission to use Bash")
        #expect(bodies[1]["priority"]?.stringValue == "high")
        #expect(bodies[1]["title"]?.stringValue == "Claude Code failed (rate_limit) · p")
    }

    @Test func codexNotifyPayloadAsLastArgument() throws {
        let (home, receiver) = try relayedHome()
        let payload = #"{"type":"agent-turn-complete","thread-id":"th-1","turn-id":"12","cwd":"/w/api","input-messages":["x"],"last-assistant-message":"Rename complete."}"#
        let result = try hookctl(["notify", "--agent", "codex", "--strict", payload],
                                 environment: home.hookEnvironment())
        #expect(result.status == 0, "\(result.stderr)")
        let body = try JSON.parse(try #require(receiver.waitForRequests(1).first?["body"]?.stringValue))
        #expect(body["title"]?.stringValue == "Codex finished · api")
        #expect(body["body"]?.stringValue == "Rename complete.")
        #expect(home.loggedEvents().first?["session_id"]?.stringValue == "th-1")
    }

    @Test func gateUnsetSendsNothingAndRecordsNothing() throws {
        let (home, receiver) = try relayedHome()
        for environment in [home.environment(), home.environment(["SSHIDO_SESSION": ""])] {
            let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: Self.stopPayload)
            #expect(result.status == 0)
            #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        }
        home.waitUntilQuiet()
        #expect(receiver.requests().isEmpty)
        #expect(home.loggedEvents().isEmpty)
    }

    /// The hook only commits; the sender retries (issue 22: one sender owns every retry).
    @Test func serverErrorsAreRetriedAndDeliveredExactlyOnce() throws {
        let (home, receiver) = try relayedHome(responses: ["500", "500", "204"])
        let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: home.environment(["SSHIDO_SESSION": "1"]),
                                 input: NotifyTests.stopPayload)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(eventually(timeout: 20) { receiver.requests().count == 3 && pendingCount(home) == 0 })
        home.waitUntilQuiet()
        let requests = receiver.requests()
        #expect(requests.map { $0["answer"]?.stringValue } == ["500", "500", "204"])
        #expect(Set(requests.compactMap { $0["headers"]?["idempotency-key"]?.stringValue }).count == 1)
        #expect(pendingCount(home) == 0)
    }

    @Test func notFoundIsNotRetried() throws {
        let (home, receiver) = try relayedHome(responses: ["404"])
        let environment = home.hookEnvironment()
        let strict = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: Self.stopPayload)
        #expect(strict.status == 69)
        #expect(strict.stderr.contains("does not know this subscriber"))
        #expect(!strict.stderr.contains("0123456789abcdef0123456789abcdef"), "the notify URL's token must never be printed")
        let lenient = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.otherStopPayload)
        #expect(lenient.status == 0)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 2)
        #expect(pendingCount(home) == 0)
        let list = try hookctl(["outbox", "list", "--json"], environment: environment)
        let dead = try JSON.parse(list.stdout)["dead"]?.arrayValue ?? []
        #expect(dead.count == 2)
        #expect(dead.first?["dead_reason"]?.stringValue?.contains("404") == true)
    }

    @Test func oversizedMessageArrivesTruncatedWithin4KiB() throws {
        let (home, receiver) = try relayedHome()
        let long = String(repeating: "Résumé 🚀 done. ", count: 600)
        let payload = JSON.serialize(.object(JSONObject([("session_id", .string("s")), ("cwd", .string("/p")),
            ("hook_event_name", .string("Stop")), ("last_assistant_message", .string(long))])))
        let result = try strictNotify(home, input: payload)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try #require(receiver.waitForRequests(1).first?["body"]?.stringValue)
        #expect(text.utf8.count <= 4096)
        let body = try JSON.parse(text)
        let message = try #require(body["body"]?.stringValue)
        #expect(message.hasSuffix("…"))
        #expect(message.count > 500)
        #expect(!message.unicodeScalars.contains("\u{FFFD}"))
    }

    @Test func hangingSinkReturnsWithinBudgetAndIsDeliveredByALaterFlush() throws {
        let (home, receiver) = try relayedHome(responses: ["hang"], defaults: "  budget: 500ms\n")
        let environment = home.hookEnvironment()
        let start = monotonicSeconds()
        let result = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.stopPayload)
        let elapsed = monotonicSeconds() - start
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(elapsed < 1.0, "notify took \(elapsed) s with a hanging sink")
        #expect(pendingCount(home) == 1)
        // The hook's one request, cut off by its budget, is in the receiver's log before the switch to 204:
        // read after it (a receiver slow to get to it), it would be answered 204 and counted as delivered.
        _ = receiver.waitForRequests(1)
        try receiver.setResponses(["204"])
        let flush = try hookctl(["outbox", "flush"], environment: environment)
        #expect(flush.status == 0, "\(flush.stdout) \(flush.stderr)")
        #expect(pendingCount(home) == 0)
        #expect(receiver.requests().filter { $0["answer"]?.stringValue == "204" }.count == 1)
    }

    @Test func backgroundFlusherDeliversWithoutAnotherHook() throws {
        let (home, receiver) = try relayedHome(responses: ["503"], defaults: "  budget: 300ms\n  retry: {base: 200ms, max: 400ms, expire: 1h}\n")
        let environment = home.environment(["SSHIDO_SESSION": "1"])
        // A budget the hook's tries are all answered within: a request the budget cut off could reach
        // the receiver after the switch to 204 and count as a second delivery.
        let result = try hookctl(["notify", "--agent", "claude", "--budget", "5s"], environment: environment, input: Self.stopPayload)
        #expect(result.status == 0)
        #expect(pendingCount(home) == 1)
        try receiver.setResponses(["204"])
        let deadline = monotonicSeconds() + 15
        while pendingCount(home) > 0, monotonicSeconds() < deadline { sleepSeconds(0.1) }
        #expect(pendingCount(home) == 0)
        #expect(receiver.requests().filter { $0["answer"]?.stringValue == "204" }.count == 1)
    }

    @Test func fiftyConcurrentNotifiesGiveFiftyDeliveriesWithoutDuplicates() throws {
        let (home, receiver) = try relayedHome(extra: "  - name: log\n    type: file\n    path: ~/all.jsonl\n")
        let script = """
        for i in $(seq 1 50); do
          printf '{"session_id":"s-%s","cwd":"/p","hook_event_name":"Stop","last_assistant_message":"turn %s"}' $i $i | \(Harness.binary) notify --agent claude &
        done
        wait
        """
        let run = try Subprocess(executable: "/bin/sh", arguments: ["-c", script],
                                 environment: home.environment(["SSHIDO_SESSION": "1"]), timeout: 120).run()
        #expect(run.status == 0)
        // Every event arrives; a request cut off by a hook's budget on a loaded machine may arrive twice,
        // always with the same idempotency key.
        var keys: [String] = []
        let deadline = monotonicSeconds() + 60
        repeat {
            keys = receiver.requests().compactMap { $0["headers"]?["idempotency-key"]?.stringValue }
            if Set(keys).count >= 50 { break }
            sleepSeconds(0.1)
        } while monotonicSeconds() < deadline
        #expect(Set(keys).count == 50)
        // (58 seen once with four other builds on the two cores.)
        #expect(keys.count <= 65, "extra deliveries are few: \(keys.count - 50)")
        let lines = (home.read("all.jsonl") ?? "").split(separator: "\n")
        #expect(lines.count == 50)
        #expect(lines.allSatisfy { (try? JSON.parse(String($0))) != nil }, "file sink lines must never interleave")
        let sequence = home.loggedEvents().compactMap { $0["seq"]?.intValue }
        #expect(Set(sequence) == Set(1...50))
    }

    @Test func fileAndExecSinksGetTheEventJSON() throws {
        let home = try TemporaryHome()
        try home.write("bin/record.sh", "#!/bin/sh\ncat > \"$HOME/exec-$HOOKCTL_EVENT_KIND.json\"\necho \"$1 $HOOKCTL_SINK\" > \"$HOME/exec-args\"\n", mode: 0o755)
        try home.writeConfig(relay: nil, extra: """
          - name: log
            type: file
            path: ~/out/events.jsonl
          - name: program
            type: exec
            command: [~/bin/record.sh, "first arg; $(not a shell)"]
            kinds: [done]

        """)
        let result = try strictNotify(home)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try JSON.parse(try #require(home.read("out/events.jsonl")))
        #expect(line["kind"]?.stringValue == "done")
        #expect(line["agent"]?.stringValue == "claude")
        #expect(line["message"]?.stringValue == "All tests pass.")
        let stdin = try JSON.parse(try #require(home.read("exec-done.json")))
        #expect(stdin["id"] == line["id"])
        #expect(home.read("exec-args") == "first arg; $(not a shell) program\n")
    }

    @Test func execSinkExitCodesDecideRetry() throws {
        let home = try TemporaryHome()
        try home.write("bin/tempfail.sh", "#!/bin/sh\ncat >/dev/null\nexit 75\n", mode: 0o755)
        try home.write("bin/fail.sh", "#!/bin/sh\ncat >/dev/null\necho broken >&2\nexit 3\n", mode: 0o755)
        try home.writeConfig(relay: nil, defaults: "  budget: 300ms\n", extra: """
          - name: later
            type: exec
            command: [~/bin/tempfail.sh]
          - name: never
            type: exec
            command: [~/bin/fail.sh]

        """)
        let environment = home.hookEnvironment()
        let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: Self.stopPayload)
        #expect(result.status == 69)
        #expect(result.stderr.contains("sink 'never': failed: the program exited with status 3: broken"))
        let list = try JSON.parse(try hookctl(["outbox", "list", "--json"], environment: environment).stdout)
        #expect(list["pending"]?.arrayValue?.compactMap { $0["sink"]?.stringValue } == ["later"])
        #expect(list["dead"]?.arrayValue?.compactMap { $0["sink"]?.stringValue } == ["never"])
    }

    // MARK: bad input: a clear message, an exit code, and no event lost

    @Test(arguments: [
        ("empty", ""),
        ("invalid JSON", "{not json"),
        ("binary", "\u{00}\u{01}\u{FF}\u{FE}garbage"),
    ])
    func badPayloadStillMakesAnEvent(name: String, input: String) throws {
        let (home, receiver) = try relayedHome()
        let result = try hookctl(["notify", "--agent", "claude", "--event", "Stop", "--strict"],
                                 environment: home.hookEnvironment(), input: input)
        if input.isEmpty {
            #expect(result.status == 0, "\(result.stderr)")
        } else {
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("not valid JSON"))
        }
        #expect(result.stdout.isEmpty)
        #expect(receiver.waitForRequests(1).count == 1, "\(name): the event must still be delivered")
        #expect(home.loggedEvents().count == 1)
    }

    @Test func tenMegabytesOfInputIsCutAndStillDelivered() throws {
        let (home, receiver) = try relayedHome()
        let big = "{\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"" + String(repeating: "x", count: 10 << 20) + "\"}"
        let start = monotonicSeconds()
        let result = try strictNotify(home, input: big)
        #expect(monotonicSeconds() - start < 10)
        #expect(result.status == 65)
        #expect(result.stderr.contains("larger than 1024 KiB"))
        let body = try JSON.parse(try #require(receiver.waitForRequests(1).first?["body"]?.stringValue))
        #expect(body["title"]?.stringValue?.hasPrefix("Claude Code finished") == true)
        #expect(home.loggedEvents().count == 1)
    }

    @Test func stdinThatNeverClosesDoesNotHang() throws {
        let (home, receiver) = try relayedHome()
        let environment = home.hookEnvironment()
        // The payload is written, then a background writer keeps the pipe open for a minute.
        let open = "{ printf '%s' '\(Self.stopPayload)'; sleep 60 2>/dev/null & } | \(Harness.binary) notify --agent claude --strict"
        var start = monotonicSeconds()
        let complete = try Subprocess(executable: "/bin/sh", arguments: ["-c", open], environment: environment, timeout: 30).run()
        #expect(complete.status == 0, "\(complete.errorText)")
        #expect(monotonicSeconds() - start < 1.5, "a complete payload must be taken without waiting for EOF")
        #expect(receiver.waitForRequests(1).count == 1)
        // Nothing at all on a stdin that stays open: bounded by the read time limit.
        let silent = "{ sleep 60 2>/dev/null & } | \(Harness.binary) notify --agent claude --event Stop"
        start = monotonicSeconds()
        // With the sender (as agents' hooks run): the push does not depend on what the stdin wait left of the budget.
        let waited = try Subprocess(executable: "/bin/sh", arguments: ["-c", silent], environment: home.environment(["SSHIDO_SESSION": "1"]),
                                    timeout: 30).run()
        #expect(waited.status == 0)
        #expect(monotonicSeconds() - start < 5)
        #expect(home.loggedEvents().count == 2)
        // The read took the budget but its reserve (the commit comes first): the sender the hook started
        // delivers it (an `outbox flush` now may find the entry in the sender's hands and say so, exit 75).
        #expect(receiver.waitForRequests(2).count == 2)
        home.waitUntilQuiet()
        #expect(receiver.requests().count == 2)
    }

    @Test func malformedConfigKeepsTheEventUntilItIsFixed() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path)
        try home.write(".config/hookctl/config.yaml", "version: 1\nsinks:\n  - name: relay\n    typo: relay\n    url: \(receiver.baseURL)/n/x\n")
        let environment = home.hookEnvironment()
        let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: Self.stopPayload)
        #expect(result.status == 78)
        #expect(result.stderr.contains("config.yaml:3:"))
        #expect(result.stderr.contains("needs a 'type'"))
        #expect(home.loggedEvents().count == 1)
        #expect(pendingCount(home) == 1)
        try home.writeConfig(relay: receiver)
        // The next hook starts the sender, which queues the kept event for the sink and sends it beside the new one.
        let next = try hookctl(["notify", "--agent", "claude", "--strict"], environment: home.environment(["SSHIDO_SESSION": "1"]),
                               input: Self.otherStopPayload)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(receiver.waitForRequests(2).count == 2)
        #expect(eventually { pendingCount(home) == 0 })
        #expect(Set(receiver.requests().compactMap { $0["headers"]?["idempotency-key"]?.stringValue }).count == 2)
    }

    @Test func badOptionsNeverCostTheEvent() throws {
        let (home, receiver) = try relayedHome()
        let environment = home.hookEnvironment()
        let lenient = try hookctl(["notify", "--agent", "claude", "--newflag", "--priority", "urgent", "--budget", "2x"],
                                  environment: environment, input: Self.stopPayload)
        #expect(lenient.status == 0)
        #expect(lenient.stderr.contains("ignored '--newflag'"))
        let strict = try hookctl(["notify", "--agent", "claude", "--strict", "--newflag"], environment: environment, input: Self.otherStopPayload)
        #expect(strict.status == 64)
        #expect(receiver.waitForRequests(2).count == 2)
        #expect(home.loggedEvents().count == 2)
    }

    @Test func unreadableOutboxDirectoryStillDelivers() throws {
        guard getuid() != 0 else {
            // root ignores directory permissions; make the outbox path a file instead.
            let (home, receiver) = try relayedHome()
            try home.write(".local/state/hookctl/outbox", "not a directory", mode: 0o400)
            let result = try strictNotify(home)
            #expect(result.stderr.contains("not queued: "))
            #expect(receiver.waitForRequests(1).count == 1)
            #expect(home.loggedEvents().count == 1)
            return
        }
        let (home, receiver) = try relayedHome()
        try FileSystem.makeDirectories(home.file(".local/state/hookctl/outbox"))
        chmod(home.file(".local/state/hookctl/outbox"), 0o500)
        defer { chmod(home.file(".local/state/hookctl/outbox"), 0o700) }
        let result = try strictNotify(home)
        #expect(result.stderr.contains("not queued: "))
        #expect(receiver.waitForRequests(1).count == 1)
    }

    @Test func noConfigRecordsTheEventAndSendsNothing() throws {
        let home = try TemporaryHome()
        let result = try hookctl(["notify", "--agent", "claude", "--strict"],
                                 environment: home.environment(["SSHIDO_SESSION": "1"]), input: Self.stopPayload)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        #expect(home.loggedEvents().count == 1)
        #expect(pendingCount(home) == 0)
    }
}

@Suite(.onTestThreads) struct NotifyManifestTests {
    @Test func aUserManifestSaysWhatAnUnknownAgentsEventsMean() throws {
        let (home, receiver) = try relayedHome()
        try home.write(".config/hookctl/agents/aider.json", """
        {"agent": "aider", "display_name": "Aider", "detect": ["aider"],
         "settings": {"path": "~/.aider-hooks.json", "format": "claude-json"}, "timeout_unit": "seconds",
         "events": [{"name": "Waiting", "kind": "needs_input"}]}
        """)
        let result = try hookctl(["notify", "--agent", "aider", "--strict"],
                                 environment: home.hookEnvironment(),
                                 input: #"{"hook_event_name":"Waiting","cwd":"/w/site","message":"Aider is waiting"}"#)
        #expect(result.status == 0, "\(result.stderr)")
        let body = try JSON.parse(try #require(receiver.waitForRequests(1).first?["body"]?.stringValue))
        #expect(body["priority"]?.stringValue == "high")
        #expect(body["title"]?.stringValue == "Aider needs your input · site")
    }
}

@Suite(.onTestThreads) struct NotifyTmuxTests {
    /// The event names the exact pane it came from (TMUX_PANE), not the active one, and the relay gets its session.
    @Test func theCallingPanesSessionIsReported() throws {
        let home = try TemporaryHome()
        let socket = home.tmuxSocket
        try home.tmux(["new-session", "-d", "-s", "calling session", "-x", "80", "-y", "24"])
        defer { _ = try? home.tmux(["kill-server"]) }
        let pane = try home.tmux(["display-message", "-p", "-t", "=calling session:", "#{pane_id}"])
        // Another session becomes the most recent one: a hook must not report it.
        try home.tmux(["new-session", "-d", "-s", "other"])
        let receiver = try Receiver(directory: home.path)
        try home.writeConfig(relay: receiver)
        let result = try hookctl(["notify", "--agent", "claude", "--strict"],
                                 environment: home.hookEnvironment(["TMUX": "\(socket),1,0", "TMUX_PANE": pane]),
                                 input: NotifyTests.stopPayload)
        #expect(result.status == 0, "\(result.stderr)")
        let body = try JSON.parse(try #require(receiver.waitForRequests(1).first?["body"]?.stringValue))
        #expect(body["sessionRef"]?.stringValue == "calling session")
        #expect(body["title"]?.stringValue == "Claude Code finished · proj · window 0")
        let logged = try JSON.parse(try #require(home.read(".local/state/hookctl/events.jsonl")).split(separator: "\n")[0].description)
        #expect(logged["tmux"]?["pane"]?.stringValue == pane)
        #expect(logged["tmux"]?["socket"]?.stringValue == socket)
    }
}

@Suite(.onTestThreads) struct ReviewFollowUpTests {
    @Test func setupRefusesAConfigNotifyCannotReadAndKeepsSecretsPrivate() throws {
        let home = try TemporaryHome()
        let bad = "version: 1\nsinks:\n  - name: relay\n    type: relay\n    urll: https://push.example.com/n/0123456789abcdef\n"
        try home.write(".config/hookctl/config.yaml", bad, mode: 0o644)
        let refused = try hookctl(["setup", "--notify-url", "https://push.example.com/n/fedcba9876543210fedcba9876543210"],
                                  environment: home.environment())
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("unknown key 'urll'"))
        #expect(home.read(".config/hookctl/config.yaml") == bad)
        // A readable config that setup rewrites becomes private.
        try home.write(".config/hookctl/config.yaml", "version: 1\nsinks: []\n", mode: 0o644)
        let fixed = try hookctl(["setup", "--notify-url", "https://push.example.com/n/fedcba9876543210fedcba9876543210"],
                                environment: home.environment())
        #expect(fixed.status == 0, "\(fixed.stderr)")
        var info = stat()
        stat(home.file(".config/hookctl/config.yaml"), &info)
        #expect(info.st_mode & 0o777 == 0o600)
        stat(home.file(".config/hookctl/config.yaml.hookctl-backup"), &info)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func outboxCommandsSayWhatTheyDid() throws {
        let (home, receiver) = try relayedHome(responses: ["404"])
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: NotifyTests.stopPayload)
        #expect(receiver.requests().count == 1, "the relay answered 404: the event is a dead letter")
        let unknown = try hookctl(["outbox", "drop", "--dead", "00000000-0000-0000-0000-000000000000"], environment: environment)
        #expect(unknown.status == 65)
        let dropped = try hookctl(["outbox", "drop", "--dead"], environment: environment)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(dropped.stdout.contains("dropped 1 dead letter"))
        let asJSON = try hookctl(["outbox", "drop", "--dead", "--json", "nope"], environment: environment)
        #expect(asJSON.status == 65)
        let error = try JSON.parse(asJSON.stdout)["error"]
        #expect(error?["exit_code"]?.intValue == 65)
        #expect(error?["message"]?.stringValue?.contains("no dead letter for event nope") == true)
        let help = try hookctl(["outbox", "--help"], environment: environment)
        #expect(help.status == 0)
        #expect(help.stdout.contains("SUBCOMMANDS"))
    }

    @Test func aFlushTriesEachEntryOnceAndReturns() throws {
        // A budget a loaded machine can start the hook within (with 300 ms, CI once saw the budget end
        // before the first request went out); the hook makes its few inline tries and queues the event.
        let (home, receiver) = try TemporaryHome.withRelay(["503"], defaults: "  budget: 2s\n")
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: NotifyTests.stopPayload)
        let afterHook = receiver.requests().count
        #expect(afterHook >= 1 && afterHook <= 3)
        let start = monotonicSeconds()
        let flush = try hookctl(["outbox", "flush"], environment: environment)
        #expect(flush.status == 75)
        #expect(monotonicSeconds() - start < 5)
        #expect(receiver.requests().count == afterHook + 1)
    }
}

@Suite(.onTestThreads) struct UninstallLeavesNoTraceTests {
    @Test func foldersSetupCreatedGoAwayWithUninstall() throws {
        let home = try TemporaryHome()
        let environment = home.environment()
        let setup = try hookctl(["setup", "--agents", "claude,gemini"], environment: environment)
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(FileSystem.exists(home.file(".claude/settings.json")))
        let uninstall = try hookctl(["uninstall"], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(!FileSystem.exists(home.file(".claude")))
        #expect(!FileSystem.exists(home.file(".gemini")))
        // A folder the user had stays, even empty.
        try FileSystem.makeDirectories(home.file(".claude"))
        _ = try hookctl(["setup", "--agents", "claude"], environment: environment)
        _ = try hookctl(["uninstall"], environment: environment)
        #expect(FileSystem.isDirectory(home.file(".claude")))
        #expect(!FileSystem.exists(home.file(".claude/settings.json")))
    }
}
