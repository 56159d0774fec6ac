import Testing
@testable import HookKit
import TestSupport

/// notify under faults, end to end: killed at each step and at random, a log lock held by another
/// process, big backlogs, clock jumps, unwritable and symlinked state, torn writes, inherited pipes.
/// Every test ends by flushing against a healthy loopback receiver and checking that nothing was lost.
@Suite(.onTestThreads) struct DeliveryFaultTests {
    func stateFile(_ home: TemporaryHome, _ name: String) -> String { home.file(".local/state/hookctl/" + name) }

    func loggedIDs(_ home: TemporaryHome) -> [String] {
        home.loggedEvents().compactMap { $0["id"]?.stringValue }
    }

    /// The logged ids after SIGKILLs at random moments: a writer killed inside its write(2) may leave
    /// the start of its line, which the next writer ends with a newline and readers skip. Only such a
    /// torn start of an event line is let through; any other line that is not an event fails the test.
    func loggedIDsAfterRandomKills(_ home: TemporaryHome) -> [String] {
        (home.read(".local/state/hookctl/events.jsonl") ?? "").split(separator: "\n").compactMap { line in
            guard let event = try? JSON.parse(String(line)) else {
                #expect(line.hasPrefix("{\"id\":") || "{\"id\":".hasPrefix(line), "not a torn event line: \(line)")
                return nil
            }
            return event["id"]?.stringValue
        }
    }

    func deliveredKeys(_ receiver: Receiver) -> [String] {
        receiver.requests().filter { $0["answer"]?.stringValue?.hasPrefix("2") == true }
            .compactMap { $0["headers"]?["idempotency-key"]?.stringValue }
    }

    func outboxNames(_ home: TemporaryHome) -> [String] {
        ((try? FileSystem.list(stateFile(home, "outbox"))) ?? []).filter { $0.hasSuffix(".json") || $0.hasSuffix(".tmp") }
    }

    static func payload(_ turn: Int) -> String {
        #"{"session_id":"s-\#(turn)","cwd":"/w/api","hook_event_name":"Stop","last_assistant_message":"turn \#(turn)"}"#
    }

    // MARK: Killed at each step

    @Test(arguments: ["built", "outbox-written", "committed", "log-locked", "log-appended", "logged", "sending", "sent", "delivered"])
    func killedAtEachStepLosesNothingThatWasCommitted(step: String) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver)
        let environment = home.hookEnvironment()
        let killed = try hookctl(["notify", "--agent", "claude"], environment: environment.merging(["HOOKCTL_FAULT": step]) { $1 },
                                 input: Self.payload(1))
        #expect(killed.status == .signalled(SIGKILL), "\(step): \(killed.status) \(killed.stderr)")
        let committed = !["built", "outbox-written"].contains(step)
        // The next flush adopts what the crash left: torn temporary files, an entry mid-send, an event not logged.
        let flush = try hookctl(["outbox", "flush"], environment: environment)
        #expect(flush.status == 0, "\(step): \(flush.stdout) \(flush.stderr)")
        let second = try hookctl(["outbox", "flush"], environment: environment)
        #expect(second.status == 0, "\(step): \(second.stdout) \(second.stderr)")
        #expect(outboxNames(home).isEmpty, "\(step): left behind \(outboxNames(home))")
        let logged = loggedIDs(home)
        let delivered = deliveredKeys(receiver)
        if committed {
            #expect(logged.count == 1, "\(step): the event must be in the log exactly once, got \(logged)")
            #expect(Set(delivered) == Set(logged), "\(step): delivered \(delivered), logged \(logged)")
            #expect(delivered.count <= 2, "\(step): at most one extra delivery, got \(delivered.count)")
        } else {
            #expect(logged.isEmpty && delivered.isEmpty, "\(step): nothing was committed, nothing may appear")
        }
    }

    /// The fresh outbox entry reaches the disk whenever it must outlive the first attempt: while a slow
    /// answer is awaited (killed right after the sync, before the answer came) and before a failed
    /// attempt lets the hook return. Killed there, the event is delivered by the next flush, once.
    @Test(arguments: [["204:0.6"], ["503", "204"]])
    func theCommitIsSyncedWhenItMustOutliveTheFirstAttempt(responses: [String]) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: responses)
        try home.writeConfig(relay: receiver)
        let environment = home.hookEnvironment()
        let killed = try hookctl(["notify", "--agent", "claude"], environment: environment.merging(["HOOKCTL_FAULT": "synced"]) { $1 },
                                 input: Self.payload(1))
        // A delivered entry is never synced, so with "204:0.6" the kill proves the sync came during the wait.
        #expect(killed.status == .signalled(SIGKILL), "\(responses): never synced: \(killed.status) \(killed.stderr)")
        #expect(outboxNames(home).count == 1, "\(outboxNames(home))")
        // The 503 put the endpoint in backoff: a flush within it leaves the entry waiting (75), a later one
        // sends it. Flushed until one succeeds, as the flusher would, not after a guessed pause.
        var flush = try hookctl(["outbox", "flush"], environment: environment)
        #expect(try eventually(timeout: 15) {
            if flush.status == 0 { return true }
            flush = try hookctl(["outbox", "flush"], environment: environment)
            return flush.status == 0
        }, "\(flush.stdout) \(flush.stderr)")
        #expect(outboxNames(home).isEmpty, "left behind \(outboxNames(home))")
        let delivered = deliveredKeys(receiver)
        #expect(Set(delivered) == Set(loggedIDs(home)) && loggedIDs(home).count == 1, "delivered \(delivered)")
    }

    @Test func randomKillsLoseNoAcceptedOrLoggedEvent() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver)
        let environment = home.hookEnvironment()
        var accepted = 0
        // Seeded: the same kill moments on every run, so a failure can be repeated.
        var random = SeededRandom(seed: 0x2025_1201)
        for turn in 1...40 {
            let (pid, output) = try spawnWithOutputPipe(executable: Harness.binary,
                                                        arguments: ["notify", "--agent", "claude", Self.payload(turn)], environment: environment)
            close(output)
            usleep(UInt32.random(in: 0...30_000, using: &random))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            if status & 0x7f == 0 && (status >> 8) & 0xff == 0 { accepted += 1 }
        }
        _ = try hookctl(["outbox", "flush"], environment: environment)
        _ = try hookctl(["outbox", "flush"], environment: environment)
        let logged = loggedIDsAfterRandomKills(home)
        let delivered = deliveredKeys(receiver)
        #expect(Set(logged).isSubset(of: Set(delivered)), "every logged event is delivered")
        #expect(Set(delivered).isSubset(of: Set(logged)), "every delivered event is in the log")
        #expect(Set(delivered).count >= accepted, "every event notify accepted (\(accepted)) is delivered")
        #expect(logged.count == Set(logged).count, "no event is logged twice")
        #expect(delivered.count - Set(delivered).count <= 8, "extra deliveries are few: \(delivered.count - Set(delivered).count)")
        #expect(outboxNames(home).isEmpty)
    }

    // MARK: Locks, backlogs, clocks

    /// Damaged state: a FIFO where one of the state files a hook reads or writes belongs. Opening a FIFO
    /// for reading blocks until a writer comes (for writing, until a reader), so the hook must not open
    /// any of them that way: it still returns within its budget and delivers its event.
    @Test(arguments: ["outbox.next-due", "board.state", "events.jsonl", "events.lock", "sinks/relay.json", "outbox/endpoints/relay"])
    func aFIFOInPlaceOfAStateFileCostsTheHookOnlyItsBudget(file: String) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 500ms\n")
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: stateFile(home, file)))
        try FileSystem.makeDirectories(stateFile(home, "outbox"))
        #expect(mkfifo(stateFile(home, file), 0o600) == 0)
        let start = monotonicSeconds()
        let result = try? hookctl(["notify", "--agent", "claude"], environment: home.hookEnvironment(), input: Self.payload(1), timeout: 6)
        let elapsed = monotonicSeconds() - start
        #expect(result?.status == 0 && elapsed < 5, "the hook was held \(elapsed) s (killed by the test's timeout: \(result == nil))")
        #expect(deliveredKeys(receiver).count == 1)
    }

    /// A FIFO at the previous log generation, which the catch-up's duplicate check reads under the log's
    /// lock: the hook that catches an event up still returns within its budget.
    @Test func aFIFOInPlaceOfARotatedLogCostsTheCatchUpOnlyItsBudget() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 500ms\n")
        try FileSystem.makeDirectories(stateFile(home, ""))
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(0))
        do {
            // An event kept for the log while its lock is held elsewhere.
            let holder = try BackgroundProcess(executable: "/usr/bin/flock", arguments: [stateFile(home, "events.lock"), "sh", "-c", "echo held; sleep 30"])
            defer { holder.stop() }
            #expect(holder.readLine() == "held")
            _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        }
        #expect(!((try? FileSystem.list(stateFile(home, "outbox/unlogged"))) ?? []).filter { $0.hasSuffix(".json") }.isEmpty)
        #expect(mkfifo(stateFile(home, "events.1.jsonl"), 0o600) == 0)
        let start = monotonicSeconds()
        let result = try? hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(2), timeout: 6)
        let elapsed = monotonicSeconds() - start
        #expect(result?.status == 0 && elapsed < 5, "the hook was held \(elapsed) s (killed by the test's timeout: \(result == nil))")
        #expect(loggedIDs(home).count == 3, "the kept event was caught up")
    }

    /// The same damage as a person meets it: `events` names what is wrong (not "Illegal seek"), and
    /// `doctor` reports the state as broken with the move that repairs it.
    @Test func aFIFOInPlaceOfTheEventLogIsNamedByEventsAndDoctor() throws {
        let home = try TemporaryHome()
        try home.writeConfig(relay: nil)
        try FileSystem.makeDirectories(stateFile(home, ""))
        #expect(mkfifo(stateFile(home, "events.jsonl"), 0o600) == 0)
        let events = try hookctl(["events"], environment: home.environment(), timeout: 10)
        #expect(events.status != 0)
        #expect(events.stderr.contains("events.jsonl") && events.stderr.contains("not a regular file"), "\(events.stderr)")
        let doctor = try hookctl(["doctor", "--json"], environment: home.environment(), timeout: 20)
        let checks = try JSON.parse(doctor.stdout)["checks"]?.arrayValue ?? []
        let state = try #require(checks.first { $0["name"]?.stringValue == "state" })
        #expect(state["status"]?.stringValue == "broken")
        #expect(state["message"]?.stringValue?.contains("events.jsonl is not a regular file") == true)
        #expect(state["fix"]?.stringValue?.hasPrefix("mv ") == true)
    }

    @Test func aLogLockHeldElsewhereCostsTheHookOnlyItsBudget() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 500ms\n")
        try FileSystem.makeDirectories(stateFile(home, ""))
        let holder = try BackgroundProcess(executable: "/usr/bin/flock", arguments: [stateFile(home, "events.lock"), "sh", "-c", "echo held; sleep 30"])
        defer { holder.stop() }
        #expect(holder.readLine() == "held")
        let environment = home.hookEnvironment()
        let start = monotonicSeconds()
        let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: Self.payload(1))
        let elapsed = monotonicSeconds() - start
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed < 5, "the hook waited \(elapsed) s on a held log lock")
        #expect(result.stderr.contains("catches up later"))
        #expect(deliveredKeys(receiver).count == 1, "delivered although the log was busy")
        #expect(loggedIDs(home).isEmpty)
        holder.stop()
        _ = try hookctl(["outbox", "flush"], environment: environment)
        #expect(loggedIDs(home) == deliveredKeys(receiver), "the log caught up with the event")
    }

    func makeBacklog(_ home: TemporaryHome, count: Int, dueIn: Double) throws {
        let outbox = Outbox(paths: Paths(environment: ["HOME": home.path]))
        let now = WallClock.nowEpoch()
        for index in 0..<count {
            var entry = OutboxEntry(event: Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "old \(index)",
                                                 message: "m", host: "h"),
                                    sink: "relay", now: now - 100)
            entry.attempts = 1
            entry.lastAttempt = now - 50
            entry.nextAttempt = now + dueIn
            try outbox.add(entry, sync: false).release()
        }
    }

    @Test(arguments: [false, true])
    func aBigBacklogCostsTheHookAFewRequestsAtMost(due: Bool) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 1s\n")
        try makeBacklog(home, count: 10_000, dueIn: due ? -10 : 3600)
        let environment = home.hookEnvironment()
        let result = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment, input: Self.payload(1), timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let requests = receiver.waitForRequests(1)
        home.waitUntilQuiet()
        let count = receiver.requests().count
        #expect(requests.count >= 1)
        if due {
            #expect(count >= 2 && count <= 1 + DeliveryEngine.olderEntriesPerHook, "fresh + a few older, got \(count)")
        } else {
            #expect(count == 1, "nothing old is due: only the fresh event, got \(count)")
        }
        #expect(outboxNames(home).count == 10_000 - (count - 1))
    }

    @Test func aBacklogDrainsAtTheEndpointsPaceWithoutA429() throws {
        let home = try TemporaryHome()
        // Each answer takes 0.1 s, so requests sent together overlap at the receiver and a hook
        // without the cap would show the whole burst in flight at once.
        let receiver = try Receiver(directory: home.path, responses: ["204:0.1"], extraArguments: ["--rate", "5", "--burst", "10"])
        try home.writeConfig(relay: receiver)
        // 20: twice the burst, so the second half must wait for the bucket (10 + 5/s).
        try makeBacklog(home, count: 20, dueIn: -1)
        let environment = home.hookEnvironment()
        let flush = try hookctl(["outbox", "flush"], environment: environment, timeout: 60)
        #expect(flush.status == 0, "\(flush.stdout) \(flush.stderr)")
        let requests = receiver.requests()
        #expect(requests.filter { $0["answer"]?.stringValue == "204:0.1" }.count == 20)
        #expect(requests.filter { $0["answer"]?.stringValue == "429" }.count <= 1, "paced below the relay's limit")
        let times = requests.compactMap { $0["time"]?.doubleValue }.sorted()
        // A token bucket of 5/s with a burst of 10 allows at most 10 + 5t requests in any t seconds.
        for (index, start) in times.enumerated() {
            let within = times[index...].prefix { $0 < start + 1 }.count
            #expect(within <= 16, "\(within) requests within one second")
        }
        // Requests received and not yet answered: the receiver's connection count would also hold the
        // connections this flush had closed and the server had not yet noticed (CI once saw 5).
        let peak = Int(Text.trimmed(((try? FileSystem.readString(receiver.logFile + ".outstanding")) ?? nil) ?? "0")) ?? 0
        #expect(peak >= 2, "the burst goes out in parallel")
        #expect(peak <= EndpointPacer.concurrency)
    }

    @Test func anEndpointThatRecoversGetsItsWaitingEventsAtOnce() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["503"])
        // Backoff long enough that without recovery the events would wait minutes.
        try home.writeConfig(relay: receiver, defaults: "  budget: 300ms\n  retry: {base: 60s, max: 5m, expire: 1h}\n")
        let environment = home.environment(["SSHIDO_SESSION": "1"])
        for turn in 1...4 {
            _ = try hookctl(["notify", "--agent", "claude"], environment: environment.merging(["HOOKCTL_NO_BACKGROUND": "1"]) { $1 },
                            input: Self.payload(turn))
        }
        #expect(outboxNames(home).count == 4)
        try receiver.setResponses(["204"])
        // One more event goes out and the endpoint counts as recovered: the four waiting ones follow.
        // Its hook gets a budget a loaded machine starts it within: with 300 ms its own event could miss
        // the budget too, and the flusher then leaves the endpoint alone for the 30-60 s backoff.
        _ = try hookctl(["notify", "--agent", "claude", "--budget", "5s"], environment: environment, input: Self.payload(5))
        let deadline = monotonicSeconds() + 20
        while !outboxNames(home).isEmpty, monotonicSeconds() < deadline { sleepSeconds(0.1) }
        #expect(outboxNames(home).isEmpty, "waiting: \(outboxNames(home))")
        #expect(Set(deliveredKeys(receiver)) == Set(loggedIDs(home)))
    }

    func faketime(_ offset: String, _ arguments: [String], environment: [String: String], input: String? = nil) throws -> Subprocess.Result {
        var environment = environment
        environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        return try Subprocess(executable: "/usr/bin/faketime", arguments: ["-f", offset, Harness.binary] + arguments,
                              environment: environment, input: input.map { Array($0.utf8) }, timeout: 60).run()
    }

    @Test func aClockSetBackDoesNotParkQueuedEvents() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["503"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 300ms\n")
        let environment = home.hookEnvironment()
        // Queued while the clock was a day ahead; then the clock is corrected. A budget the hook's tries
        // are all answered within: a request the budget cut off could reach the receiver after the
        // switch to 204 and be delivered twice.
        let queued = try faketime("+1d", ["notify", "--agent", "claude", "--budget", "5s"], environment: environment, input: Self.payload(1))
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(outboxNames(home).count == 1)
        try receiver.setResponses(["204"])
        // The flusher (no force: it follows the schedule) sends it now, not in a day.
        let flusher = try hookctl(["outbox", "flush", "--background"], environment: environment, timeout: 30)
        #expect(flusher.status == 0)
        #expect(outboxNames(home).isEmpty)
        #expect(deliveredKeys(receiver) == loggedIDs(home))
    }

    @Test func aClockSetForwardDoesNotExpireQueuedEvents() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["503"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 300ms\n")
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        #expect(outboxNames(home).count == 1)
        // Two days later by the wall clock (more than the one-day expiry), still failing: kept, not dead.
        let later = try faketime("+2d", ["outbox", "flush"], environment: environment)
        #expect(later.status == 75, "\(later.stdout) \(later.stderr)")
        let list = try JSON.parse(try faketime("+2d", ["outbox", "list", "--json"], environment: environment).stdout)
        #expect(list["pending"]?.arrayValue?.count == 1)
        #expect(list["dead"]?.arrayValue?.isEmpty == true)
        try receiver.setResponses(["204"])
        _ = try faketime("+2d", ["outbox", "flush"], environment: environment)
        #expect(deliveredKeys(receiver) == loggedIDs(home))
    }

    // MARK: Files

    @Test func anUnwritableOutboxIsSaidAndExits73() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["503"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 300ms\n")
        try home.write(".local/state/hookctl/outbox", "not a directory")
        let result = try hookctl(["notify", "--agent", "claude", "--strict"],
                                 environment: home.hookEnvironment(), input: Self.payload(1))
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("not queued: "))
        #expect(!result.stderr.contains("queued in the outbox"), "never claims it was queued")
        #expect(!result.stderr.contains("will retry"), "nothing will retry it: \(result.stderr)")
        #expect(result.stderr.contains("not delivered (temporary: a queued event would be retried): HTTP 503"), "\(result.stderr)")
        #expect(loggedIDs(home).count == 1, "kept where still possible: the event log")
    }

    @Test(arguments: ["events.jsonl", "board.state", "events.lock"])
    func symlinkedStateFilesAreRefusedNotFollowed(name: String) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver)
        try home.write("precious.txt", "keep me\n", mode: 0o644)
        try FileSystem.makeDirectories(stateFile(home, ""))
        symlink(home.file("precious.txt"), stateFile(home, name))
        let environment = home.hookEnvironment()
        let result = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        #expect(result.status == 0)
        #expect(home.read("precious.txt") == "keep me\n", "the link's target is untouched")
        var info = stat()
        stat(home.file("precious.txt"), &info)
        #expect(info.st_mode & 0o777 == 0o644)
        #expect(result.stderr.contains(stateFile(home, name)), "the message names the path: \(result.stderr)")
        #expect(deliveredKeys(receiver).count == 1, "the event is still delivered")
        // Once the link is gone, the log catches up.
        unlink(stateFile(home, name))
        _ = try hookctl(["outbox", "flush"], environment: environment)
        #expect(loggedIDs(home) == deliveredKeys(receiver))
    }

    @Test func aTornAppendIsCutBackAndTheEventKept() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: receiver)
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        let before = home.read(".local/state/hookctl/events.jsonl") ?? ""
        let torn = try hookctl(["notify", "--agent", "claude"], environment: environment.merging(["HOOKCTL_FAULT": "short-write"]) { $1 },
                               input: Self.payload(2))
        #expect(torn.status == 0)
        #expect(home.read(".local/state/hookctl/events.jsonl") == before, "the half-written line was cut back")
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(3))
        let lines = (home.read(".local/state/hookctl/events.jsonl") ?? "").split(separator: "\n")
        #expect(lines.count == 3, "all three events, the torn one caught up")
        let events = lines.compactMap { try? JSON.parse(String($0)) }
        #expect(events.count == 3, "every line is whole JSON")
        #expect(Set(events.compactMap { $0["seq"]?.intValue }).count == 3, "no sequence number reused")
        #expect(Set(deliveredKeys(receiver)) == Set(loggedIDs(home)))
    }

    @Test func theBackgroundFlusherDoesNotHoldTheCallersPipe() throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["503"])
        try home.writeConfig(relay: receiver, defaults: "  budget: 300ms\n  retry: {base: 1s, max: 2s, expire: 1h}\n")
        // The caller's pipe is also open as fd 3 in notify: the flusher must not keep it open.
        let script = "exec 3>&1; printf '%s' '\(Self.payload(1))' | \(Harness.binary) notify --agent claude >/dev/null 2>&1"
        let start = monotonicSeconds()
        let result = try Subprocess(executable: "/bin/sh", arguments: ["-c", script],
                                    environment: home.environment(["SSHIDO_SESSION": "1"]), timeout: 60).run()
        #expect(result.status == 0)
        #expect(monotonicSeconds() - start < 10, "reading the caller's pipe to its end waited for the flusher")
        #expect(outboxNames(home).count == 1, "the flusher keeps retrying in the background")
        try receiver.setResponses(["204"])
        let deadline = monotonicSeconds() + 20
        while !outboxNames(home).isEmpty, monotonicSeconds() < deadline { sleepSeconds(0.1) }
        #expect(outboxNames(home).isEmpty)
    }

    /// notify's `--config`, before the command or after it, is the config the background flusher it
    /// starts delivers with: the default place has no config, so a flusher without it would find no sink.
    @Test(arguments: [true, false])
    func theBackgroundFlusherGetsNotifysConfig(beforeTheCommand: Bool) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["503"])
        let config = home.file("elsewhere/hookctl.yaml")
        try home.write("elsewhere/hookctl.yaml", """
            version: 1
            defaults:
              budget: 300ms
              retry: {base: 1s, max: 2s, expire: 1h}
            sinks:
              - name: relay
                type: relay
                url: "\(receiver.baseURL)/n/\(TemporaryHome.relayToken)"

            """)
        // A budget the hook's tries are all answered within: a request the budget cut off could reach
        // the receiver after the switch to 204 and be delivered twice.
        let notify = ["notify", "--agent", "claude", "--budget", "5s"]
        let arguments = beforeTheCommand ? ["--config", config] + notify : notify + ["--config", config]
        let result = try hookctl(arguments, environment: home.environment(["SSHIDO_SESSION": "1"]), input: Self.payload(1))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(outboxNames(home).count == 1, "the first attempt was refused: the event waits")
        try receiver.setResponses(["204"])
        let deadline = monotonicSeconds() + 20
        while !outboxNames(home).isEmpty, monotonicSeconds() < deadline { sleepSeconds(0.1) }
        #expect(outboxNames(home).isEmpty, "the flusher did not deliver with \(config)")
        #expect(deliveredKeys(receiver) == loggedIDs(home))
    }

    // MARK: Server hints

    @Test(arguments: ["1e999", "1e7", "-3"])
    func absurdBodyHintsAreClampedLikeHeaders(hint: String) throws {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: ["429"], extraArguments: ["--error-body", #"{"message":"slow","retry_after":\#(hint),"global":false}"#])
        try home.write(".config/hookctl/config.yaml", """
        version: 1
        defaults:
          budget: 300ms
        sinks:
          - name: chat
            type: discord
            url: "\(receiver.baseURL)/api/webhooks/1/abc"

        """)
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        home.waitUntilQuiet()
        #expect(receiver.requests().count <= 3, "a hint never turns into a flood")
        let list = try JSON.parse(try hookctl(["outbox", "list", "--json"], environment: environment).stdout)
        let next = try #require(list["pending"]?.arrayValue?.first?["next_attempt"]?.stringValue)
        let seconds = try #require(WallClock.parseISO8601(next)) - WallClock.nowEpoch()
        #expect(seconds <= RetryHint.maximum + 1, "parked at most the documented maximum, got \(seconds) s")
        #expect(list["dead"]?.arrayValue?.isEmpty == true)
    }
}

/// A broken sink hurts only itself, and notify run by hand says what became of the event.
@Suite(.onTestThreads) struct NotifyPipelineBehaviourTests {
    @Test func aBrokenSinkIsSkippedAloneAndGetsItsEventsOnceFixed() throws {
        let home = try TemporaryHome()
        let relay = try Receiver(directory: home.path, responses: ["204"])
        let slack = try Receiver(directory: home.path, responses: ["200"], extraArguments: ["--body", "ok"])
        try home.write(".config/hookctl/config.yaml", """
        version: 1
        sinks:
          - name: relay
            type: relay
            url: "\(relay.baseURL)/n/0123456789abcdef"
          - name: team
            type: slack
            url_env: SLACK_WEBHOOK_URL

        """)
        let environment = home.hookEnvironment()
        let broken = try hookctl(["notify", "--agent", "claude", "--strict"], environment: environment,
                                 input: DeliveryFaultTests.payload(1))
        #expect(broken.status == 78, "\(broken.stderr)")
        #expect(broken.stderr.contains("sink 'team' skipped"))
        #expect(broken.stderr.contains("SLACK_WEBHOOK_URL"))
        #expect(broken.stderr.contains("agent's environment"))
        #expect(broken.stderr.contains("url_file"))
        #expect(relay.waitForRequests(1).count == 1, "the other sink delivers")
        let list = try JSON.parse(try hookctl(["outbox", "list", "--json"], environment: environment).stdout)
        #expect(list["pending"]?.arrayValue?.compactMap { $0["sink"]?.stringValue } == ["team"], "kept for the broken sink")
        #expect(list["dead"]?.arrayValue?.isEmpty == true)
        // Fixed: the kept event goes out with the next flush.
        let fixed = environment.merging(["SLACK_WEBHOOK_URL": "\(slack.baseURL)/services/T/B/x"]) { $1 }
        let flush = try hookctl(["outbox", "flush"], environment: fixed)
        #expect(flush.status == 0, "\(flush.stdout) \(flush.stderr)")
        #expect(slack.waitForRequests(1).count == 1)
        #expect(relay.requests().count == 1, "the relay got its event once")
    }

    @Test func byHandAMessageReachesTheSinks() throws {
        let home = try TemporaryHome()
        let relay = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: relay)
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        let withMessage = try hookctl(["notify", "--force", "--strict", "--message", "deploy finished"], environment: environment)
        #expect(withMessage.status == 0, "\(withMessage.stderr)")
        #expect(withMessage.stderr.contains("sent to relay"))
        let words = try hookctl(["notify", "--force", "--strict", "build finished"], environment: environment)
        #expect(words.status == 0, "\(words.stderr)")
        let bodies = try relay.waitForBodies(2)
        #expect(bodies.compactMap { $0["body"]?.stringValue } == ["deploy finished", "build finished"])
        #expect(bodies.compactMap { $0["title"]?.stringValue } == ["deploy finished", "build finished"])
    }

    @Test func byHandNothingSaysSentWhenNoSinkTookIt() throws {
        let home = try TemporaryHome()
        let relay = try Receiver(directory: home.path, responses: ["204"])
        try home.write(".config/hookctl/config.yaml",
                       "version: 1\nsinks:\n  - name: relay\n    type: relay\n    kinds: [failed]\n    url: \"\(relay.baseURL)/n/0123456789abcdef\"\n")
        let environment = home.environment(["HOOKCTL_NO_BACKGROUND": "1"])
        let result = try hookctl(["notify", "--force", "--message", "deploy finished"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stderr.contains("recorded, not sent"))
        #expect(!result.stderr.contains("sent to"))
        let down = try Receiver(directory: home.path, responses: ["503"])
        try home.writeConfig(relay: down, defaults: "  budget: 300ms\n")
        let failing = try hookctl(["notify", "--force", "--message", "deploy finished"], environment: environment)
        #expect(failing.stderr.contains("not sent yet"))
        #expect(!failing.stderr.contains("sent to"))
    }

    @Test func anUnknownEventIsAUsageProblem() throws {
        let home = try TemporaryHome()
        let relay = try Receiver(directory: home.path, responses: ["204"])
        try home.writeConfig(relay: relay)
        let environment = home.hookEnvironment()
        let hook = try hookctl(["notify", "--agent", "claude", "--event", "bogus"], environment: environment, input: DeliveryFaultTests.payload(1))
        #expect(hook.status == 0)
        #expect(hook.stderr.contains("--event 'bogus' is not an event hookctl knows"))
        let strict = try hookctl(["notify", "--agent", "claude", "--event", "bogus", "--strict"], environment: environment,
                                 input: DeliveryFaultTests.payload(2))
        #expect(strict.status == 64)
        let known = try hookctl(["notify", "--agent", "claude", "--event", "needs_input", "--strict"], environment: environment,
                                input: DeliveryFaultTests.payload(3))
        #expect(known.status == 0, "\(known.stderr)")
        #expect(!known.stderr.contains("not an event"))
    }
}
