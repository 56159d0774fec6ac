import Synchronization
import Testing
import TestSupport
@testable import HookSupport

@Suite struct FileDescriptorTests {
    /// The inode of a pipe end, as /proc shows it (`pipe:[12345]`).
    static func inode(_ fd: FileDescriptor) throws -> UInt64 { UInt64(try fd.status().st_ino) }

    /// A child spawned while another thread keeps making pipes inherits none of them, nor the other ends
    /// of its own standard streams: every pipe end is close-on-exec from its creation (pipe2), with no
    /// lock around spawning.
    @Test func childrenInheritNoPipeEnds() throws {
        final class Stop: Sendable {
            let requested = Atomic<Bool>(false)
            let made = Atomic<Int>(0)
        }
        let stop = Stop()
        let maker = ThreadGroup<Set<UInt64>>(1) { _ in
            var inodes: Set<UInt64> = []
            while !stop.requested.load(ordering: .relaxed) {
                guard let ends = try? FileDescriptor.pipe() else { continue }
                if let inode = try? Self.inode(ends.readEnd) { inodes.insert(inode) }
                stop.made.add(1, ordering: .relaxed)
                // Held open a moment, so a spawn in between would catch it.
                sched_yield()
                ends.readEnd.close()
                ends.writeEnd.close()
            }
            return inodes
        }
        var listings: [(own: Set<String>, others: [Int: String])] = []
        // At least 60 children, and on until the other thread has made 100 pipes meanwhile (a loaded
        // machine schedules it less often), within 60 s.
        let deadline = ContinuousClock.Instant.after(seconds: 60)
        var spawned = 0
        while spawned < 60 || (stop.made.load(ordering: .relaxed) <= 100 && !deadline.hasPassed) {
            spawned += 1
            let result = try Subprocess(executable: "/bin/ls", arguments: ["-l", "/proc/self/fd/"], timeout: 10).run()
            #expect(result.status == .exited(0), "\(result.errorText)")
            var targets: [Int: String] = [:]
            for line in result.outputText.split(separator: "\n") {
                guard let arrow = line.firstRange(of: " -> ") else { continue }
                if let number = line[..<arrow.lowerBound].split(separator: " ").last.flatMap({ Int($0) }) {
                    targets[number] = String(line[arrow.upperBound...])
                }
            }
            #expect(targets[1]?.hasPrefix("pipe:") == true, "stdout is a pipe: \(result.outputText)")
            listings.append((Set([targets[1], targets[2]].compactMap { $0 }), targets.filter { $0.key > 2 }))
        }
        stop.requested.store(true, ordering: .relaxed)
        let made = try maker.join()[0]
        #expect(stop.made.load(ordering: .relaxed) > 100, "the other thread made pipes while the children started")
        var leaks: [String] = []
        for (own, others) in listings {
            for (number, target) in others.sorted(by: { $0.key < $1.key }) {
                if own.contains(target) { leaks.append("fd \(number): the other end of its own stream (\(target))") }
                if target.hasPrefix("pipe:["), let inode = UInt64(target.dropFirst(6).dropLast()), made.contains(inode) {
                    leaks.append("fd \(number): a pipe the other thread made (\(target))")
                }
            }
        }
        #expect(leaks.isEmpty, "children inherited: \(leaks.prefix(5))")
    }

    @Test func terminationSaysHowTheChildEnded() throws {
        let exited = try Subprocess(executable: "/bin/sh", arguments: ["-c", "exit 3"]).run()
        #expect(exited.status == .exited(3))
        #expect(exited.status == 3)
        #expect(!exited.status.succeeded)
        #expect("\(exited.status)" == "exited with status 3")
        let killed = try Subprocess(executable: "/bin/sh", arguments: ["-c", "kill -KILL $$"]).run()
        #expect(killed.status == .signalled(SIGKILL))
        #expect("\(killed.status)" == "was killed by signal 9")
        #expect(try Subprocess(executable: "/bin/true", arguments: []).run().status.succeeded)
    }

    /// A program still open for writing in another process for a moment (a child forked between this
    /// process's open and close of it, before its exec closed the copy) is run once that ends: the spawn
    /// tries again on ETXTBSY instead of failing with "Text file busy".
    @Test func aProgramBusyForAMomentStillRuns() throws {
        let scratch = try BoardScratch()
        let program = scratch.path + "/program"
        try FileSystem.writeAtomically(program, text: "#!/bin/sh\necho ran\n", mode: 0o755, sync: false)
        // A background child keeps the program open for writing 20 ms after the shell has returned.
        let holder = try Subprocess(executable: "/bin/sh",
                                    arguments: ["-c", "sleep 0.02 3>>\"$1\" >/dev/null 2>&1 </dev/null &", "sh", program]).run()
        #expect(holder.status == .exited(0))
        let result = try Subprocess(executable: program, arguments: [], timeout: 10).run()
        #expect(result.outputText == "ran\n")
    }

    @Test func errorsNameTheOperationAndPickTheExitCode() throws {
        let scratch = try BoardScratch()
        let file = scratch.path + "/big"
        try FileSystem.writeAtomically(file, text: "0123456789")
        #expect(try FileSystem.read(file, limit: 64) == Array("0123456789".utf8))
        let tooLarge = #expect(throws: SystemError.self) { try FileSystem.read(file, limit: 4) }
        #expect(tooLarge.map { "\($0)" } == "\(SystemError.io(path: file, operation: .readTooLarge, errno: EFBIG))")
        #expect("\(SystemError.io(path: file, operation: .readTooLarge, errno: EFBIG))".hasPrefix("cannot read (file too large) \(file): "))
        #expect(SystemError.io(path: file, operation: .write, errno: EACCES).exitCode == .cannotCreate)
        #expect(SystemError.io(path: file, operation: .create, errno: EACCES).exitCode == .cannotCreate)
        #expect(SystemError.io(path: file, operation: .read, errno: EACCES).exitCode == .ioError)
        #expect(SystemError.io(path: file, operation: .lock, errno: EACCES).exitCode == .ioError)
        // A directory opens but cannot be read: the error says which and where.
        let directory = #expect(throws: SystemError.self) { try FileSystem.read(scratch.path) }
        #expect(directory.map { "\($0)" } == "\(SystemError.io(path: scratch.path, operation: .read, errno: EISDIR))")
        #expect(try FileSystem.read(scratch.path + "/missing") == nil)
    }

    @Test func stateFilesRefuseLinksAndLocksWaitUntilTheirDeadline() throws {
        let scratch = try BoardScratch()
        let target = scratch.path + "/target", link = scratch.path + "/link"
        try FileSystem.writeAtomically(target, text: "x")
        #expect(symlink(target, link) == 0)
        let refusal = "\(SystemError.symlink(path: link))"
        #expect((#expect(throws: SystemError.self) { try FileSystem.openStateFile(link, O_RDONLY) }).map { "\($0)" } == refusal)
        #expect((#expect(throws: SystemError.self) { try FileSystem.read(link, followSymlinks: false) }).map { "\($0)" } == refusal)
        #expect(try FileSystem.read(link) == Array("x".utf8))

        let lockFile = scratch.path + "/lock"
        let held = try #require(try FileLock(path: lockFile))
        #expect(try FileLock(path: lockFile, wait: false) == nil)
        let timedOut = #expect(throws: SystemError.self) { try FileLock(path: lockFile, deadline: .after(seconds: 0.05)) }
        #expect(timedOut.map { "\($0)" }?.hasPrefix("the lock on \(lockFile) did not finish within") == true)
        held.unlock()
        #expect(try FileLock(path: lockFile, wait: false) != nil)
    }

    @Test func readsWithADeadlineStopAtItOrAtTheEnd() throws {
        let pipe = try FileDescriptor.pipe()
        defer { pipe.readEnd.close() }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try pipe.readEnd.read(into: &buffer, until: .after(seconds: 0.02)) == nil)
        try pipe.writeEnd.writeAll(Array("abc".utf8))
        #expect(pipe.readEnd.hasInput)
        #expect(try pipe.readEnd.read(into: &buffer, until: .after(seconds: 5)) == 3)
        pipe.writeEnd.close()
        #expect(try pipe.readEnd.read(into: &buffer, until: nil) == 0)
    }
}
