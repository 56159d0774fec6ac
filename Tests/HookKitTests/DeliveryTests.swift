import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
import Synchronization

/// A sink whose outcomes are scripted, for testing the engine without a network.
final class ScriptedSink: Sink, Sendable {
    let name: String
    let settings: SinkSettings
    private let state: Mutex<(script: [DeliveryOutcome], calls: [Int])>
    var calls: [Int] { state.withLock { $0.calls } }

    init(name: String, outcomes: [DeliveryOutcome], kinds: Set<EventKind> = [.done]) {
        self.name = name
        var settings = SinkSettings()
        settings.kinds = kinds
        self.settings = settings
        state = Mutex((script: outcomes, calls: []))
    }

    var type: String { "scripted" }
    var secrets: [String] { [] }

    func delivery(for event: Event, attempt: Int) throws -> Delivery {
        .local { _ in
            self.state.withLock { state in
                state.calls.append(attempt)
                return state.script.count > 1 ? state.script.removeFirst() : state.script[0]
            }
        }
    }
}

/// A local sink paced like a network endpoint (the shared pacer's tokens and backoff apply to it),
/// whose outcome a closure gives per (event, attempt): a test can empty the endpoint's bucket from
/// inside an attempt, as concurrent hooks sending their fresh events on credit would.
final class PacedSink: Sink, Sendable {
    let name: String
    let settings: SinkSettings
    private let script: @Sendable (Event, Int) -> DeliveryOutcome
    private let log = Mutex<[(String, Int)]>([])
    var calls: [(event: String, attempt: Int)] { log.withLock { $0.map { (event: $0.0, attempt: $0.1) } } }

    init(name: String, script: @escaping @Sendable (Event, Int) -> DeliveryOutcome) {
        self.name = name
        var settings = SinkSettings()
        settings.kinds = [.done]
        self.settings = settings
        self.script = script
    }

    var type: String { "scripted" }
    var secrets: [String] { [] }
    var endpoint: String? { "https://paced.invalid/" + name }

    func delivery(for event: Event, attempt: Int) throws -> Delivery {
        .local { _ in
            self.log.withLock { $0.append((event.id, attempt)) }
            return self.script(event, attempt)
        }
    }
}

/// Pages of a file not yet on disk (cachestat(2), Linux 6.5+): nil when the kernel cannot tell.
func dirtyPages(_ fd: Int32) -> (dirty: UInt64, writeback: UInt64)? {
    typealias Call = @convention(c) (Int, Int32, UnsafeRawPointer, UnsafeMutableRawPointer, UInt32) -> Int
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syscall") else { return nil }
    let call = unsafeBitCast(symbol, to: Call.self)
    var range: (UInt64, UInt64) = (0, 0)
    var stat: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    let result = withUnsafePointer(to: &range) { range in
        withUnsafeMutablePointer(to: &stat) { stat in call(451, fd, range, stat, 0) }
    }
    return result == 0 ? (stat.1, stat.2) : nil
}

@Suite(.onTestThreads) struct DeliveryTests {
    final class Workspace: @unchecked Sendable {
        private let scratch: TemporaryDirectory
        var directory: String { scratch.path }
        let paths: Paths

        init() throws {
            scratch = try TemporaryDirectory("delivery")
            paths = Paths(environment: ["HOME": scratch.path])
        }
    }

    /// A forced flush, again while an entry was busy: a child process that a parallel test spawns holds
    /// copies of this process's descriptors, and so an entry's lock, until it execs (microseconds, more
    /// under load). Busy entries are left for the next run, as the product does; the test runs it.
    /// Expands the entries kept for any sink until none is left. An entry's lock may be held for a
    /// moment by a child another test spawns (as `flushAll` says), and the expansion leaves a busy
    /// entry for the next run, as the flusher does; the test runs it again.
    static func expandAll(_ engine: DeliveryEngine, problems: inout [String]) {
        let kept = OutboxNames.safeSink(OutboxEntry.anySink)
        let expanded = eventually {
            engine.expandWaitingEntries(problems: &problems)
            return !((try? FileSystem.list(engine.outbox.directory)) ?? []).contains { OutboxNames.sinkToken(of: $0) == kept }
        }
        #expect(expanded, "an entry kept for any sink was still busy after 10 s")
    }

    static func flushAll(_ engine: DeliveryEngine, problems: inout [String]) -> [DeliveryReport] {
        var reports: [DeliveryReport] = []
        // Until nothing was busy, for 10 s at most (a loaded machine is slow to exec those children).
        let deadline = monotonicSeconds() + 10
        repeat {
            var busy = 0
            reports += engine.flush(deadline: .after(seconds: 1), force: true, busy: &busy, problems: &problems)
            if busy == 0 { break }
            sleepSeconds(0.02)
        } while monotonicSeconds() < deadline
        return reports
    }

    func event(_ kind: EventKind = .done) -> Event {
        Event(agent: "claude", kind: kind, agentEvent: "Stop", title: "t", message: "m", host: "h")
    }

    /// The name is read by bytes, in place (the sender reads every name each pass): the due time, whether it
    /// is fresh, the key and the sink token, for well-formed names, older versions' names and junk.
    @Test func outboxNamesAreReadByBytes() {
        let id = "c2080807-7e55-40ec-8134-9ec438bc5ec7"
        let fresh = "1796156026323622-1796156026323622-\(id)-relay.json"
        #expect(OutboxNames.due(of: fresh) == 1_796_156_026.323622)
        #expect(OutboxNames.isFresh(fresh))
        #expect(OutboxNames.key(of: fresh) == "1796156026323622-\(id)-relay")
        #expect(OutboxNames.sinkToken(of: fresh) == "relay")
        let retried = "1796156099000000-1796156026323622-\(id)-x72c3a9.json"
        #expect(!OutboxNames.isFresh(retried))
        #expect(OutboxNames.sinkToken(of: retried) == "x72c3a9")
        // An older version's name: no due time, due at once; its key is the whole stem.
        let legacy = "1796156026323622-\(id)-relay.json"
        #expect(OutboxNames.due(of: legacy) == nil && !OutboxNames.isFresh(legacy))
        #expect(OutboxNames.key(of: legacy) == "1796156026323622-\(id)-relay")
        #expect(OutboxNames.sinkToken(of: legacy) == "relay")
        // Junk: short, not digits, not ASCII, no dashes; never a crash, never a due time.
        for junk in ["", ".json", "x.json", "1796156026323622-179615602632362x-a.json", "17961560263236é2-1796156026323622-a.json",
                     "ünïcødé-名前-🙂.json", String(repeating: "-", count: 40), "1796156026323622-1796156026323622-"] {
            #expect(OutboxNames.due(of: junk) == nil || junk.hasPrefix("1796156026323622-1796156026323622-"), "\(junk)")
            _ = OutboxNames.isFresh(junk)
            _ = OutboxNames.sinkToken(of: junk)
        }
        #expect(OutboxNames.key(of: "ünïcødé-名前-🙂.json") == "ünïcødé-名前-🙂")
        #expect(OutboxNames.sinkToken(of: "a-b-c-d-e-f-sink.json") == "sink")
        #expect(OutboxNames.sinkToken(of: "a-b-c.json") == nil)
        #expect(OutboxNames.key(of: "1796156026323622-1796156026323622-") == "1796156026323622-")
        // A bridged or otherwise non-contiguous string reads the same.
        let copied = String(decoding: Array(fresh.utf8), as: UTF8.self)
        #expect(OutboxNames.due(of: copied) == OutboxNames.due(of: fresh))
    }

    /// The fresh event first: of the due entries, those just committed (fresh, within 10 s) to the sinks
    /// asked for come before the backlog, oldest first among each; for other sinks, and an old fresh entry
    /// (never tried through an outage), creation order alone.
    @Test func aScanPutsJustCommittedEntriesFirstForTheSinksAskedFor() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let now = WallClock.nowEpoch()
        func add(_ title: String, sink: String, created: Double, due: Double) throws -> String {
            var entry = OutboxEntry(event: Event(agent: "claude", kind: .done, agentEvent: "Stop", title: title, message: "m", host: "h"),
                                    sink: sink, now: created)
            entry.nextAttempt = due
            try outbox.add(entry, sync: false).release()
            return entry.event.id
        }
        let retried = try add("retried", sink: "relay", created: now - 100, due: now - 5)
        let untried = try add("untried through an outage", sink: "relay", created: now - 60, due: now - 60)
        let fresh1 = try add("fresh 1", sink: "relay", created: now - 2, due: now - 2)
        let fresh2 = try add("fresh 2", sink: "relay", created: now - 1, due: now - 1)
        let other = try add("fresh, other sink", sink: "file", created: now - 1.5, due: now - 1.5)
        func order(_ scan: OutboxScan) -> [String] {
            scan.due.compactMap { name in [retried, untried, fresh1, fresh2, other].first { name.contains($0) } }
        }
        let asked = outbox.scan(firstFor: ["relay"])
        #expect(order(asked) == [fresh1, fresh2, retried, untried, other])
        #expect(asked.justCommitted == 2)
        let plain = outbox.scan()
        #expect(order(plain) == [retried, untried, fresh1, other, fresh2])
        #expect(plain.justCommitted == 0)
        #expect(outbox.scan(limit: 1, firstFor: ["relay", "file"]).due.count == 1)
        #expect(outbox.scan(limit: 1, firstFor: ["relay", "file"]).justCommitted == 1)
    }

    /// Newest news wins, but not while the newest entry's hook still holds it (committed, not yet logged):
    /// burying then (a synced write) would hold up that hook. Once it is let go, the older one goes.
    @Test func nothingIsSupersededWhileTheNewestEntrysHookHoldsIt() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        var older = event(.needsInput), newer = event(.done)
        older.sessionID = "s1"
        newer.sessionID = "s1"
        try outbox.add(OutboxEntry(event: older, sink: "relay", now: 1_000), sync: false).release()
        let held = try outbox.add(OutboxEntry(event: newer, sink: "relay", now: 2_000), sync: false)
        let news = NewestNews()
        var ignoredProblems: [String] = []
        #expect(news.supersede(outbox) == 0)
        #expect(try outbox.pending(problems: &ignoredProblems).count == 2)
        held.release()
        // A parallel test's child between fork and exec may still share the lock for a moment.
        #expect(eventually(timeout: 5) { news.supersede(outbox) == 1 })
        let left = try outbox.pending(problems: &ignoredProblems)
        #expect(left.map(\.event.id) == [newer.id])
        #expect(try outbox.superseded(problems: &ignoredProblems).map(\.event.id) == [older.id])
    }

    /// A delivered entry's file is kept as a spare (a few at most) and the next entry is written into it:
    /// no new inode on the hook's path, the new entry exactly its own bytes, and nothing hidden counted.
    @Test func theNextEntryIsWrittenIntoADeliveredOnesFile() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        var long = event()
        long.message = String(repeating: "x", count: 3000)
        let first = try outbox.add(OutboxEntry(event: long, sink: "relay", now: 1_000), sync: false)
        let inode = try #require(FileSystem.status(first.path, followSymlinks: false)).st_ino
        outbox.complete(first)
        let spare = outbox.directory + "/.spare.0"
        #expect(FileSystem.status(spare, followSymlinks: false)?.st_ino == inode)
        var problems: [String] = []
        #expect(try outbox.pending(problems: &problems).isEmpty && outbox.scan().pending == 0)

        let short = OutboxEntry(event: event(), sink: "relay", now: 2_000)
        let second = try outbox.add(short, sync: false)
        #expect(FileSystem.status(second.path, followSymlinks: false)?.st_ino == inode, "the spare's inode, not a new one")
        #expect(FileSystem.status(spare, followSymlinks: false) == nil)
        #expect(try FileDescriptor.open(second.path, O_RDONLY).closeAfter { try $0.readAll(limit: 1 << 20) } == short.bytes)
        second.release()
        #expect(try outbox.pending(problems: &problems).map(\.event.id) == [short.event.id])

        // A spare still locked by whoever retired it is not written into: a new file is made.
        for index in 0..<(Outbox.spareSlots + 2) {
            try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 3_000 + Double(index)), sync: false).release()
        }
        for entry in try outbox.pending(problems: &problems) { outbox.claim(entry).map { outbox.complete($0) } }
        let spares = try FileSystem.list(outbox.directory).filter { $0.hasPrefix(".spare.") }
        #expect(Set(spares) == Set((0..<Outbox.spareSlots).map { ".spare.\($0)" }), "at most \(Outbox.spareSlots) kept")
        let locked = try FileDescriptor.open(spare, O_RDONLY)
        defer { locked.close() }
        #expect(try locked.lock(wait: .never))
        let lockedInode = try locked.status().st_ino
        let third = try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 4_000), sync: false)
        #expect(FileSystem.status(third.path, followSymlinks: false)?.st_ino != lockedInode)
        third.release()
        #expect(try outbox.pending(problems: &problems).count == 1)
        #expect(outbox.removeAbandonedTemporaryFiles() == 0)
        let names = try FileSystem.list(outbox.directory)
        #expect(!names.contains { $0.hasSuffix(".tmp") })
    }

    /// A spare is written into only when it is this user's regular file with no other name: a file linked
    /// from elsewhere is never changed, a folder or a link in a slot never stops a commit, and every slot is used.
    @Test func onlyASpareOfItsOwnIsWrittenInto() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        try FileSystem.makeDirectories(outbox.directory)
        let elsewhere = workspace.directory + "/precious"
        try FileSystem.writeAtomically(elsewhere, text: "precious\n")
        #expect(link(elsewhere, outbox.directory + "/.spare.0") == 0)
        #expect(mkdir(outbox.directory + "/.spare.1", 0o700) == 0)
        #expect(symlink(elsewhere, outbox.directory + "/.spare.2") == 0)
        for index in 0..<3 {
            try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 1_000 + Double(index)), sync: false).release()
        }
        #expect(try FileSystem.read(elsewhere, limit: 100) == Array("precious\n".utf8))
        var problems: [String] = []
        #expect(try outbox.pending(problems: &problems).count == 3 && outbox.scan().pending == 3)
        #expect(!(try FileSystem.list(outbox.directory)).contains { $0.hasSuffix(".tmp") })
        // Every slot is filled and used again.
        for entry in try outbox.pending(problems: &problems) { outbox.claim(entry).map { outbox.complete($0) } }
        try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 2_000), sync: false).release()
        for index in 0..<4 {
            try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 3_000 + Double(index)), sync: false).release()
        }
        #expect(!(try FileSystem.list(outbox.directory)).contains { $0.hasPrefix(".spare.") })
    }

    /// A spare a live writer has just renamed to its temporary name keeps the spare's old mtime: the
    /// clean-up judges it by the rename (its ctime), not as abandoned.
    @Test func aSpareTakenByALiveWriterIsNotAbandoned() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        outbox.complete(try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 1_000), sync: false))
        let spare = outbox.directory + "/.spare.0"
        var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, spare, &times, AT_SYMLINK_NOFOLLOW) == 0)
        let temporary = outbox.directory + "/.x.json.\(getpid()).1.tmp"
        #expect(rename(spare, temporary) == 0)
        #expect(outbox.removeAbandonedTemporaryFiles() == 0)
        #expect(FileSystem.status(temporary, followSymlinks: false) != nil)
    }

    /// What the user drops is gone, bytes and all; an entry whose bytes are another entry's is set aside,
    /// never sent as that one.
    @Test func droppedEntriesLeaveNoSpareAndMismatchedBytesAreSetAside() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        var secret = event()
        secret.message = "marker-7f3a"
        try outbox.add(OutboxEntry(event: secret, sink: "relay", now: 1_000), sync: false).release()
        #expect(try outbox.drop(ids: nil, dead: false) == 1)
        for name in try FileSystem.list(outbox.directory) where !FileSystem.isDirectory(outbox.directory + "/" + name) {
            #expect(!String(decoding: try FileSystem.read(outbox.directory + "/" + name, limit: 1 << 20) ?? [], as: UTF8.self).contains("marker-7f3a"))
        }
        let first = OutboxEntry(event: event(), sink: "relay", now: 2_000)
        let second = OutboxEntry(event: event(), sink: "relay", now: 3_000)
        try FileSystem.writeAtomically(outbox.directory + "/" + second.fileName, bytes: first.bytes, mode: 0o600)
        #expect(outbox.claim(name: second.fileName) == nil)
        #expect(FileSystem.status(outbox.directory + "/" + second.fileName, followSymlinks: false) == nil)
        #expect(try FileSystem.list(outbox.deadDirectory).contains(second.fileName))
    }

    /// Setting an entry aside (superseded, or a dead letter) makes no new file either: the dead letter is
    /// written into a spare, and the entry's own file becomes one.
    @Test func aBuriedEntryTakesASpareAndLeavesOne() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let inode = { (path: String) in FileSystem.status(path, followSymlinks: false)?.st_ino }
        let first = try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 1_000), sync: false)
        let second = try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 2_000), sync: false)
        let third = try outbox.add(OutboxEntry(event: event(), sink: "relay", now: 3_000), sync: false)
        let (firstInode, secondInode) = (inode(first.path), inode(second.path))
        second.release()
        third.release()
        outbox.complete(first)
        let claimed = try #require(outbox.claim(name: second.entry.fileName))
        outbox.bury(claimed, entry: claimed.entry, reason: "superseded", supersededBy: "newer")
        var problems: [String] = []
        let buried = try #require(try outbox.superseded(problems: &problems).first)
        #expect(buried.event.id == second.entry.event.id)
        let deadLetter = try #require(try FileSystem.list(outbox.deadDirectory).first { $0.hasSuffix(".json") })
        #expect(inode(outbox.deadDirectory + "/" + deadLetter) == firstInode, "the dead letter went into the spare")
        #expect(inode(outbox.directory + "/.spare.0") == secondInode, "the buried entry's file is the spare now")
        #expect(try outbox.pending(problems: &problems).map(\.event.id) == [third.entry.event.id])
    }

    /// The sender is not woken by a fresh entry its hook still holds (that pass would only compete with
    /// the hook), nor by hidden files; the hook letting go wakes it.
    @Test func theSenderWaitsForAHookToLetGoOfItsEntry() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        try FileSystem.makeDirectories(outbox.directory)
        let wake = OutboxWake(directory: outbox.directory)
        let held = try outbox.add(OutboxEntry(event: event(), sink: "relay", now: WallClock.nowEpoch()), sync: false)
        let start = monotonicSeconds()
        wake.wait(seconds: 0.3)
        #expect(monotonicSeconds() - start >= 0.25, "woken by an entry its hook still held")
        let letGo = ThreadGroup(1) { _ in
            sleepSeconds(0.2)
            held.release()
        }
        let waiting = monotonicSeconds()
        wake.wait(seconds: 60)
        _ = try letGo.join()
        #expect(monotonicSeconds() - waiting < 30, "the hook letting go wakes the sender")
        // A rescheduled (not fresh) entry wakes it at once.
        let name = try #require(try FileSystem.list(outbox.directory).first { $0.hasSuffix(".json") })
        let claimed = try #require(outbox.claim(name: name))
        var later = claimed.entry
        later.nextAttempt = WallClock.nowEpoch() + 60
        wake.drain()
        #expect(outbox.reschedule(claimed, entry: later))
        let rescheduled = monotonicSeconds()
        wake.wait(seconds: 60)
        #expect(monotonicSeconds() - rescheduled < 30)
    }

    @Test func deliveredEntriesLeaveTheOutbox() throws {
        let workspace = try Workspace()
        let sink = ScriptedSink(name: "a", outcomes: [.delivered])
        let engine = DeliveryEngine(sinks: [sink], outbox: Outbox(paths: workspace.paths), defaults: Defaults())
        var problems: [String] = []
        let reports = engine.deliver(event(), deadline: .after(seconds: 2), problems: &problems)
        #expect(reports.map(\.outcome) == [.delivered])
        #expect(!Outbox(paths: workspace.paths).hasPending())
        #expect(problems.isEmpty)
    }

    /// What a hook asks before it wakes the sender (`NotifyPipeline.wake`), reading names up to the first
    /// entry only: spares and temporary files are no entries; one entry among them is.
    @Test func hasPendingSeesEntriesNotSparesOrTemporaryFiles() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        #expect(!outbox.hasPending(), "no outbox folder")
        try FileSystem.makeDirectories(outbox.directory)
        outbox.makeSpares()
        try FileSystem.writeAtomically(outbox.directory + "/.entry.json.1.2.tmp", text: "{}", sync: false)
        #expect(!outbox.hasPending())
        try outbox.add(OutboxEntry(event: event(), sink: "a"), sync: false).release()
        #expect(outbox.hasPending())
        #expect(!outbox.hasUnlogged())
        try outbox.keepUnlogged(event())
        #expect(outbox.hasUnlogged())
    }

    @Test func retriesInsideTheBudgetThenQueues() throws {
        let workspace = try Workspace()
        let flaky = ScriptedSink(name: "flaky", outcomes: [.retry(after: nil, reason: "503"), .retry(after: nil, reason: "503"), .delivered])
        let down = ScriptedSink(name: "down", outcomes: [.retry(after: nil, reason: "refused")])
        let outbox = Outbox(paths: workspace.paths)
        let engine = DeliveryEngine(sinks: [flaky, down], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        let reports = engine.deliver(event(), deadline: .after(seconds: 5), problems: &problems)
        #expect(flaky.calls == [1] && down.calls == [1], "one try in the foreground: retries are the sender's")
        #expect(reports.allSatisfy { $0.pending })
        var pending = try outbox.pending(problems: &problems)
        #expect(pending.map(\.sink).sorted() == ["down", "flaky"])
        #expect(pending.allSatisfy { $0.attempts == 1 && $0.nextAttempt > WallClock.nowEpoch() })
        #expect(pending.first { $0.sink == "down" }?.lastError == "refused")
        for _ in 0..<2 { _ = Self.flushAll(engine, problems: &problems) }
        pending = try outbox.pending(problems: &problems)
        #expect(flaky.calls == [1, 2, 3] && pending.map(\.sink) == ["down"])
    }

    @Test func aRetryAfterLongerThanTheBudgetIsQueuedWithThatWait() throws {
        let workspace = try Workspace()
        let limited = ScriptedSink(name: "limited", outcomes: [.retry(after: 120, reason: "429")])
        let outbox = Outbox(paths: workspace.paths)
        let engine = DeliveryEngine(sinks: [limited], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        _ = engine.deliver(event(), deadline: .after(seconds: 1), problems: &problems)
        #expect(limited.calls == [1])
        let entry = try #require(try outbox.pending(problems: &problems).first)
        #expect(entry.nextAttempt - WallClock.nowEpoch() > 100)
    }

    @Test func permanentFailuresBecomeDeadLettersAndExpiredOnesToo() throws {
        let workspace = try Workspace()
        let refused = ScriptedSink(name: "refused", outcomes: [.failed(reason: "HTTP 400")])
        var defaults = Defaults()
        defaults.retry.expire = 0
        let expiring = ScriptedSink(name: "expiring", outcomes: [.retry(after: nil, reason: "down")])
        let outbox = Outbox(paths: workspace.paths)
        let engine = DeliveryEngine(sinks: [refused, expiring], outbox: outbox, defaults: defaults)
        var problems: [String] = []
        _ = engine.deliver(event(), deadline: .after(seconds: 1), problems: &problems)
        #expect(refused.calls == [1])
        #expect(expiring.calls == [1])
        #expect(!outbox.hasPending())
        let dead = try outbox.dead(problems: &problems)
        #expect(Set(dead.map(\.sink)) == ["refused", "expiring"])
        #expect(dead.first(where: { $0.sink == "expiring" })?.deadReason?.hasPrefix("expired after") == true)
    }

    @Test func anEntryIsClaimedByOneProcessAtATime() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let entry = OutboxEntry(event: event(), sink: "a")
        try outbox.add(entry).release()
        // Another test's thread spawning a child at this moment gives the child a copy of the entry's
        // descriptor until its exec closes it (close-on-exec), and with it the flock: wait that out.
        var claimed: ClaimedEntry?
        #expect(eventually(timeout: 5) {
            claimed = outbox.claim(entry)
            return claimed != nil
        })
        let first = try #require(claimed)
        #expect(outbox.claim(entry) == nil, "a second claim while the first holds the lock must fail")
        outbox.complete(first)
        #expect(outbox.claim(entry) == nil, "a delivered entry cannot be claimed again")
    }

    /// A run that died mid-expansion left a sink's replacement beside the kept entry: the next run
    /// makes only the missing ones, so the event goes to that sink once.
    @Test func anExpansionCutShortIsNotMadeTwice() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let kept = OutboxEntry(event: event(.done), sink: OutboxEntry.anySink)
        try outbox.add(kept).release()
        var made = OutboxEntry(event: kept.event, sink: "takes", now: kept.created)
        made.nextAttempt = WallClock.nowEpoch() - 1
        try outbox.add(made).release()
        let takes = ScriptedSink(name: "takes", outcomes: [.delivered], kinds: [.done])
        let also = ScriptedSink(name: "also", outcomes: [.delivered], kinds: [.done])
        let engine = DeliveryEngine(sinks: [takes, also], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        Self.expandAll(engine, problems: &problems)
        #expect(try outbox.pending(problems: &problems).map(\.sink).sorted() == ["also", "takes"])
        _ = Self.flushAll(engine, problems: &problems)
        #expect(takes.calls.count == 1, "sent once, not once per expansion")
        #expect(also.calls.count == 1)
    }

    @Test func eventsKeptWithoutAConfigAreExpandedToTheSinksThatTakeThem() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        try outbox.add(OutboxEntry(event: event(.done), sink: OutboxEntry.anySink)).release()
        let takes = ScriptedSink(name: "takes", outcomes: [.delivered], kinds: [.done])
        let ignores = ScriptedSink(name: "ignores", outcomes: [.delivered], kinds: [.failed])
        let engine = DeliveryEngine(sinks: [takes, ignores], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        Self.expandAll(engine, problems: &problems)
        #expect(try outbox.pending(problems: &problems).map(\.sink) == ["takes"])
        let reports = Self.flushAll(engine, problems: &problems)
        #expect(reports.map(\.outcome) == [.delivered], "\(problems)")
        #expect(ignores.calls.isEmpty)
        #expect(!outbox.hasPending())
    }

    /// A foreground run commits its entry without a sync (owed, `OwedSync`) and reschedules it after a
    /// failed try: the entry it leaves in the outbox is on disk when it returns (before ca92482 a power
    /// cut in the next seconds lost the event).
    @Test func aFreshEntryLeftInTheOutboxIsOnDiskWhenTheRunReturns() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let sink = PacedSink(name: "s") { _, _ in .retry(after: nil, reason: "HTTP 503") }
        let engine = DeliveryEngine(sinks: [sink], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        let reports = engine.deliver(event(), deadline: .after(seconds: 1.5), problems: &problems)
        #expect(sink.calls.map(\.attempt) == [1], "one try, then left to the sender")
        #expect(reports.map(\.pending) == [true])
        let names = try FileSystem.list(outbox.directory).filter { $0.hasSuffix(".json") }
        try #require(names.count == 1, "\(names)")
        let fd = try FileDescriptor.open(outbox.directory + "/" + names[0], O_RDONLY)
        defer { fd.close() }
        let left = try #require(dirtyPages(fd.rawValue), "cachestat(2) is not available")
        #expect(left.dirty == 0 && left.writeback == 0, "the entry the hook left has \(left.dirty) page(s) not on disk")
        // The probe itself: once synced, nothing is dirty.
        fd.sync()
        #expect(dirtyPages(fd.rawValue)?.dirty == 0)
    }

    /// An older entry's attempt is recorded by rewriting its file (a new name, the synced file it
    /// replaces unlinked) without a sync. Once the attempt has waited `OwedSync.grace`, the rewrite is on
    /// disk: a power cut while the relay is slow finds the entry, not an empty file in its place.
    @Test func anEntryRewrittenForItsAttemptIsOnDiskWhileTheAttemptWaits() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        var old = OutboxEntry(event: event(), sink: "s")
        old.nextAttempt = WallClock.nowEpoch() - 10
        try outbox.add(old, sync: true).release()
        let seen = Mutex<(dirty: UInt64, writeback: UInt64)?>(nil)
        let sink = PacedSink(name: "s") { _, _ in
            // The answer is slow: while it waits, past its grace, the run pays what it owes. The answer
            // waits for that (up to 5 s), not for a fixed time; what it saw last is checked below.
            _ = eventually(timeout: 5) {
                let names = ((try? FileSystem.list(outbox.directory)) ?? []).filter { $0.hasSuffix(".json") }
                guard names.count == 1, let fd = try? FileDescriptor.open(outbox.directory + "/" + names[0], O_RDONLY) else { return false }
                defer { fd.close() }
                let pages = dirtyPages(fd.rawValue)
                seen.withLock { $0 = pages }
                return pages.map { $0.dirty == 0 && $0.writeback == 0 } ?? true
            }
            return .delivered
        }
        let engine = DeliveryEngine(sinks: [sink], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        var busy = 0
        // Again if the pass found the entry busy or ended before the attempt began (a loaded machine: a child
        // another test spawns holds the entry's lock until it execs, and the attempt runs on a worker thread).
        var reports: [DeliveryReport] = []
        _ = eventually(timeout: 30) {
            reports = engine.flush(deadline: .after(seconds: 10), force: false, busy: &busy, problems: &problems)
            return !reports.isEmpty || !outbox.hasPending()
        }
        #expect(reports.map(\.outcome) == [.delivered])
        #expect(sink.calls.map(\.attempt) == [1])
        let pages = try #require(seen.withLock { $0 }, "the sink saw the rewritten entry (cachestat(2) available)")
        #expect(pages.dirty == 0 && pages.writeback == 0, "the rewritten entry had \(pages.dirty) page(s) not on disk during its attempt")
    }

    @Test func entriesForARemovedSinkAreDeadNotLost() throws {
        let workspace = try Workspace()
        let outbox = Outbox(paths: workspace.paths)
        try outbox.add(OutboxEntry(event: event(), sink: "gone-from-config")).release()
        let engine = DeliveryEngine(sinks: [], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        // A busy entry for a removed sink is left for the next pass without counting as busy: the
        // test runs passes until it is buried (a child another test spawns may hold its lock a moment).
        #expect(eventually {
            _ = Self.flushAll(engine, problems: &problems)
            return !((try? outbox.dead(problems: &problems)) ?? []).isEmpty
        })
        #expect(try outbox.dead(problems: &problems).first?.deadReason == "the sink 'gone-from-config' is no longer in the config")
    }
}

@Suite struct ScheduleTests {
    func entry(attempts: Int = 1, age: Double = 0, lastAttempt: Double) -> OutboxEntry {
        var entry = OutboxEntry(event: Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "t", message: "m", host: "h"),
                                sink: "relay", now: lastAttempt)
        entry.attempts = attempts
        entry.age = age
        entry.lastAttempt = lastAttempt
        return entry
    }

    @Test(arguments: [(Double.infinity, RetryHint.maximum), (1e7, RetryHint.maximum), (-3, 0), (12, 12)])
    func everyHintGoesThroughOneClamp(hint: Double, expected: Double) {
        #expect(RetryHint.clamp(hint) == expected)
        #expect(DeliveryOutcome.retry(after: hint, reason: "x").clamped == .retry(after: expected, reason: "x"))
        #expect(RetryHint.clamp(.nan) == nil)
    }

    @Test func aForwardJumpAddsAtMostOnePlausibleWaitToTheAge() {
        let schedule = EntrySchedule(policy: RetryPolicy())
        var jumped = entry(lastAttempt: 1_000_000)
        schedule.start(&jumped, now: 1_000_000 + 2 * 86_400)
        #expect(jumped.age <= schedule.longestPlausibleWait)
        #expect(!schedule.expired(jumped))
        var back = entry(lastAttempt: 1_000_000)
        schedule.start(&back, now: 1_000_000 - 86_400)
        #expect(back.age == 0)
        #expect(back.attempts == 2)
    }

    @Test func expiryIsCheckedWhenScheduling() {
        let schedule = EntrySchedule(policy: RetryPolicy(base: 1, max: 300, expire: 600))
        let old = entry(attempts: 10, age: 590, lastAttempt: 1_000_000)
        #expect(schedule.nextDelay(old, hint: RetryHint.maximum) <= 10, "never parked past its expiry")
    }

    @Test func theScanReadsDueTimesFromNamesOnly() throws {
        let workspace = try DeliveryTests.Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let now = WallClock.nowEpoch()
        for (index, due) in [now - 5, now + 60, now + 3 * 86_400].enumerated() {
            var item = entry(lastAttempt: now - Double(index))
            item.nextAttempt = due
            try outbox.add(item, sync: false).release()
        }
        // A damaged entry that is not due is never opened.
        try FileSystem.writeAtomically(workspace.paths.outboxDirectory + "/" + OutboxNames.fileName(due: now + 30, key: OutboxEntry.key(created: now, eventID: Event.newID(), sink: "relay")),
                                       text: "{not json", sync: false)
        let scan = outbox.scan(now: now)
        #expect(scan.pending == 4)
        #expect(scan.due.count == 2, "due now, and due implausibly far ahead (the clock went back)")
        #expect(scan.nextDue.map { abs($0 - (now + 30)) < 0.01 } == true)
    }

    /// The pacer lives in the sender's memory: a delivery another process records (`hookctl test`) reaches
    /// it through the sink's health record, and ends the backoff at once; the health record says until
    /// when the endpoint is left alone (`outbox list` shows it).
    /// While a backlog drains at the endpoint's pace, the run makes the spare files the next hooks write
    /// into in its waits for a token (a sender there is never idle for long: hooks come faster than it
    /// delivers, and each takes a spare).
    @Test func aRunWaitingForAPaceTokenMakesTheSpareFiles() throws {
        let workspace = try DeliveryTests.Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let sink = PacedSink(name: "s") { _, _ in .delivered }
        var engine = DeliveryEngine(sinks: [sink], outbox: outbox, defaults: Defaults())
        // A token every 0.5 s: the run waits for the two later tokens however slow a loaded machine makes a
        // delivery (at 20 a second, a delivery slower than 50 ms found its token waiting, no wait came, and
        // the test read the spares of a run that never idled).
        engine.pacer = EndpointPacer(rate: 2, burst: 1)
        let now = WallClock.nowEpoch()
        for index in 0..<3 {
            var entry = OutboxEntry(event: Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "t\(index)", message: "m", host: "h"),
                                    sink: "s", now: now - 100 + Double(index))
            entry.attempts = 1
            entry.nextAttempt = now - 10
            try outbox.add(entry, sync: false).release()
        }
        func spares() -> Int {
            (0..<Outbox.spareSlots).count { FileSystem.status(outbox.directory + "/.spare.\($0)", followSymlinks: false) != nil }
        }
        var problems: [String] = []
        var busy = 0
        _ = eventually(timeout: 30) {
            _ = engine.flush(deadline: .after(seconds: 10), force: false, busy: &busy, problems: &problems)
            return !outbox.hasPending()
        }
        #expect(sink.calls.count == 3)
        // Three deliveries free three files; the waits for the two later tokens filled every slot.
        #expect(spares() == Outbox.spareSlots)
    }

    @Test func aDeliveryRecordedElsewhereEndsTheSendersBackoff() throws {
        let workspace = try DeliveryTests.Workspace()
        let outbox = Outbox(paths: workspace.paths)
        let sink = PacedSink(name: "s") { _, attempt in attempt == 1 ? .retry(.http(503)) : .delivered }
        let engine = DeliveryEngine(sinks: [sink], outbox: outbox, defaults: Defaults())
        var problems: [String] = []
        _ = engine.deliver(Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "t", message: "m", host: "h"), deadline: .after(seconds: 1),
                           problems: &problems)
        let health = SinkHealthStore(paths: workspace.paths)
        #expect(health.load(sink: "s").flatMap(\.probeAt).map { $0 > WallClock.nowEpoch() } == true, "the backoff is recorded")
        var busy = 0
        _ = engine.flush(deadline: .after(seconds: 1), force: false, busy: &busy, problems: &problems)
        #expect(sink.calls.count == 1, "the endpoint is left alone")
        try health.record(sink: "s", result: .delivered)
        // Again while the entry was busy: a child another test spawns holds this process's descriptors, and so
        // the entry's lock, until it execs (see `flushAll`).
        #expect(eventually {
            busy = 0
            _ = engine.flush(deadline: .after(seconds: 1), force: false, busy: &busy, problems: &problems)
            return busy == 0
        })
        #expect(sink.calls.count == 2 && !outbox.hasPending())
    }

    @Test func thePacerKeepsABucketAndABackoffPerEndpoint() throws {
        let pacer = EndpointPacer(rate: 1, burst: 3)
        #expect((0..<3).map { _ in pacer.take("relay") } == [0, 0, 0])
        #expect(pacer.take("relay") > 0, "the burst is spent")
        #expect(pacer.take("other") == 0)
        #expect(pacer.take("relay", onCredit: true) == 0, "an event a person waits for never waits for the pace")
        #expect(pacer.take("relay") > 1, "the backlog waits longer instead")
        #expect(!pacer.isFailing("relay"))
        pacer.failed("relay", hint: 30, throttled: true)
        #expect(pacer.backoff("relay") > 25)
        #expect(pacer.isFailing("relay") && !pacer.isFailing("other"))
        #expect(pacer.delivered("relay"), "it had been failing")
        #expect(pacer.backoff("relay") == 0)
        #expect(!pacer.isFailing("relay"))
        #expect(!pacer.delivered("relay"))
    }

    /// Issue 22, point 2: an endpoint's backoff follows how long it has been failing, not how many tries
    /// failed: a hundred failures at once (one outage) leave it alone for about a second, and one failing
    /// for 40 s for about 10 s (a quarter), never past the longest probe interval.
    @Test func theEndpointBackoffGrowsWithTimeNotWithFailures() throws {
        let pacer = EndpointPacer()
        let start = EndpointPacer.clockSeconds()
        for _ in 0..<100 { pacer.failed("relay", hint: nil, throttled: false, now: start) }
        #expect(pacer.backoff("relay", now: start) <= 1.01, "a burst of failures counts as the time it took")
        pacer.failed("relay", hint: nil, throttled: false, now: start + 40)
        #expect((9.5...10.5).contains(pacer.backoff("relay", now: start + 40)), "\(pacer.backoff("relay", now: start + 40))")
        pacer.failed("relay", hint: nil, throttled: false, now: start + 86_400)
        #expect(pacer.backoff("relay", now: start + 86_400) <= EndpointPacer.longestProbeInterval + 0.01)
        #expect(pacer.delivered("relay"))
        #expect(pacer.backoff("relay") == 0)
    }
}
