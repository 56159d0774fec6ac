import Testing
@testable import HookSupport
@testable import HookDelivery
import TestSupport

/// Issue 35: a person's `outbox flush` beside the running sender. One owner per entry: the flush hands the
/// work to the sender and waits for its answer (or, with no sender, holds the sender's lock while it
/// flushes), so nothing the sender holds or has sent goes out twice; and an entry is never under two names.
@Suite(.onTestThreads) struct FlushHandOverTests {
    func deliveredKeys(_ receiver: Receiver) -> [String] {
        receiver.requests().filter { $0["answer"]?.stringValue?.hasPrefix("2") == true }
            .compactMap { $0["headers"]?["idempotency-key"]?.stringValue }
    }

    func outboxNames(_ home: TemporaryHome) -> [String] {
        ((try? FileSystem.list(home.file(".local/state/hookctl/outbox"))) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }

    static func payload(_ turn: Int) -> String {
        #"{"session_id":"s-\#(turn)","cwd":"/w/api","hook_event_name":"Stop","last_assistant_message":"turn \#(turn)"}"#
    }

    /// A home whose hooks start the sender, relaying to `responses`.
    func senderHome(_ responses: [String]) throws -> (TemporaryHome, Receiver, [String: String]) {
        let home = try TemporaryHome()
        let receiver = try Receiver(directory: home.path, responses: responses)
        try home.writeConfig(relay: receiver)
        return (home, receiver, home.environment(["SSHIDO_SESSION": "1"]))
    }

    /// `outbox flush` started in the background: its pid, stdout pipe and stderr file.
    func startFlush(_ home: TemporaryHome, _ environment: [String: String], _ extra: [String] = []) throws -> (pid_t, Int32, String) {
        let errors = home.file("flush-\(UInt32.random(in: 0...UInt32.max)).err")
        let (pid, output) = try spawnWithOutputPipe(executable: Harness.binary, arguments: ["outbox", "flush", "--json"] + extra,
                                                    environment: environment, errorFile: errors)
        return (pid, output, errors)
    }

    /// Waits (up to `timeout`) for the flush to end: its exit status (nil while it runs) and stdout.
    func finish(_ pid: pid_t, _ output: Int32, timeout: Double = 60) -> (Int32?, String) {
        var status: Int32 = 0
        let ended = eventually(timeout: timeout) { waitpid(pid, &status, WNOHANG) == pid }
        if !ended { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(output, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        close(output)
        return (ended && status & 0x7f == 0 ? (status >> 8) & 0xff : nil, String(decoding: bytes, as: UTF8.self))
    }

    /// The issue's case: a flush started while the sender waits for a slow relay's answer neither sends the
    /// entry again nor gives up on it as busy: it waits for the sender, which answers once it has delivered.
    @Test func aFlushWhileTheSenderIsMidSendDeliversOnceAndWaitsForIt() throws {
        let (home, receiver, environment) = try senderHome(["204:gate"])
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        #expect(receiver.waitForRequests(1).count == 1, "the sender is sending")
        let (pid, output, errors) = try startFlush(home, environment)
        // The flush asked the sender (its request file in the outbox) and waits: it has not given up.
        #expect(eventually { ((try? FileSystem.list(home.file(".local/state/hookctl/outbox"))) ?? []).contains(where: FlushHandOver.isRequest) })
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == 0, "the flush waits for the sender")
        try FileSystem.writeAtomically(receiver.logFile + ".gate", text: "", sync: false)
        let (exit, stdout) = finish(pid, output)
        #expect(exit == 0, "\(String(describing: exit)) \(stdout) \((try? FileSystem.readString(errors)) ?? nil ?? "")")
        #expect((try? JSON.parse(stdout))?["busy"]?.intValue == 0, "\(stdout)")
        #expect(outboxNames(home).isEmpty, "left \(outboxNames(home))")
        #expect(receiver.requests().count == 1, "\(receiver.requests().count) requests for one event")
        #expect(!((try? FileSystem.list(home.file(".local/state/hookctl/outbox"))) ?? []).contains { $0.hasPrefix(FlushHandOver.prefix) },
                "the request and the answer are removed")
    }

    /// Entries the sender has not taken yet are tried by the sender for the flush, each once, and the flush
    /// reports them: three events, two flushes in a row, a slow relay, three deliveries.
    @Test func twoFlushesBesideTheSenderSendEachEventOnce() throws {
        let (home, receiver, environment) = try senderHome(["204:0.4"])
        for turn in 1...3 {
            _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(turn))
        }
        let first = try hookctl(["outbox", "flush", "--json"], environment: environment, timeout: 60)
        let second = try hookctl(["outbox", "flush", "--json"], environment: environment, timeout: 60)
        #expect(first.status == 0 && second.status == 0, "\(first.stdout) \(first.stderr) \(second.stdout) \(second.stderr)")
        #expect(eventually(timeout: 20) { outboxNames(home).isEmpty }, "left \(outboxNames(home))")
        let delivered = deliveredKeys(receiver)
        #expect(delivered.count == 3 && Set(delivered).count == 3, "delivered \(delivered)")
    }

    /// Kill: the sender dies while a flush waits for it. The flush takes over (the sender's lock is free)
    /// and sends what is left; the entry in flight when the sender died goes out at most once more.
    @Test func aSenderKilledWhileAFlushWaitsIsTakenOverByTheFlush() throws {
        let (home, receiver, environment) = try senderHome(["204:gate", "204"])
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        #expect(receiver.waitForRequests(1).count == 1)
        let (pid, output, errors) = try startFlush(home, environment)
        #expect(eventually { ((try? FileSystem.list(home.file(".local/state/hookctl/outbox"))) ?? []).contains(where: FlushHandOver.isRequest) })
        let senders = home.runningHookctls().filter(\.isSender)
        #expect(senders.count == 1, "\(senders)")
        for sender in senders { kill(pid_t(sender.pid) ?? 0, SIGKILL) }
        let (exit, stdout) = finish(pid, output)
        #expect(exit == 0, "\(String(describing: exit)) \(stdout) \((try? FileSystem.readString(errors)) ?? nil ?? "")")
        #expect(outboxNames(home).isEmpty, "left \(outboxNames(home))")
        let delivered = deliveredKeys(receiver)
        #expect(Set(delivered).count == 1 && delivered.count <= 2, "delivered \(delivered): the killed sender's request (no answer came) and at most one more")
        try FileSystem.writeAtomically(receiver.logFile + ".gate", text: "", sync: false)
    }

    /// Kill: a flush killed while it waits for the sender leaves nothing the sender or a later flush trips
    /// on; the sender still delivers once, and the next flush ends at once.
    @Test func aFlushKilledWhileItWaitsLeavesTheSenderToIt() throws {
        let (home, receiver, environment) = try senderHome(["204:gate"])
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        #expect(receiver.waitForRequests(1).count == 1)
        let (pid, output, _) = try startFlush(home, environment)
        #expect(eventually { ((try? FileSystem.list(home.file(".local/state/hookctl/outbox"))) ?? []).contains(where: FlushHandOver.isRequest) })
        kill(pid, SIGKILL)
        _ = finish(pid, output)
        try FileSystem.writeAtomically(receiver.logFile + ".gate", text: "", sync: false)
        #expect(eventually(timeout: 20) { outboxNames(home).isEmpty }, "left \(outboxNames(home))")
        let next = try hookctl(["outbox", "flush", "--json"], environment: environment, timeout: 60)
        #expect(next.status == 0, "\(next.stdout) \(next.stderr)")
        #expect(deliveredKeys(receiver).count == 1, "\(deliveredKeys(receiver))")
    }

    /// With no sender running, the flush holds the sender's lock while it sends: a hook meanwhile starts no
    /// sender beside it (its entry waits for the sender the flush starts when it is done).
    @Test func aFlushWithNoSenderHoldsTheSendersLock() throws {
        let (home, receiver, environment) = try senderHome(["503", "204:1.5", "204"])
        let quiet = environment.merging(["HOOKCTL_NO_BACKGROUND": "1"]) { $1 }
        _ = try hookctl(["notify", "--agent", "claude"], environment: quiet, input: Self.payload(1))
        #expect(outboxNames(home).count == 1, "the 503 left the entry")
        let (pid, output, errors) = try startFlush(home, environment)
        #expect(receiver.waitForRequests(2).count == 2, "the flush is sending")
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(2))
        #expect(home.runningHookctls().filter(\.isSender).isEmpty, "no sender beside the flush: \(home.runningHookctls())")
        let (exit, stdout) = finish(pid, output)
        #expect(exit == 0, "\(String(describing: exit)) \(stdout) \((try? FileSystem.readString(errors)) ?? nil ?? "")")
        #expect(eventually(timeout: 20) { outboxNames(home).isEmpty }, "the sender the flush started sends the rest: \(outboxNames(home))")
        let delivered = deliveredKeys(receiver)
        #expect(delivered.count == 2 && Set(delivered).count == 2, "delivered \(delivered)")
    }

    /// The entry "left under two names": a rewrite (here the flush recording its attempt) killed between
    /// moving the entry to its new due time and writing its new state leaves it under one name, and the
    /// next flush sends it once. (Before, the new file was named first and the old one removed after.)
    @Test(arguments: ["outbox-written", "outbox-moved"])
    func aRewriteKilledMidwayLeavesTheEntryUnderOneName(step: String) throws {
        let (home, receiver) = try TemporaryHome.withRelay(["503", "204"])
        let environment = home.hookEnvironment()
        _ = try hookctl(["notify", "--agent", "claude"], environment: environment, input: Self.payload(1))
        #expect(outboxNames(home).count == 1)
        let killed = try hookctl(["outbox", "flush"], environment: environment.merging(["HOOKCTL_FAULT": step]) { $1 })
        #expect(killed.status == .signalled(SIGKILL), "\(step): \(killed.status) \(killed.stderr)")
        #expect(outboxNames(home).count == 1, "\(step): \(outboxNames(home))")
        let flush = try hookctl(["outbox", "flush"], environment: environment)
        #expect(flush.status == 0, "\(step): \(flush.stdout) \(flush.stderr)")
        #expect(outboxNames(home).isEmpty)
        #expect(deliveredKeys(receiver).count == 1, "\(step): \(deliveredKeys(receiver))")
    }
}
