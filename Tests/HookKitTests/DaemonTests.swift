import Testing
@testable import HookSupport
@testable import HookDelivery
@testable import HookAgents
import TestSupport

/// `Daemon`: the one skeleton of hookctl's background processes (lock folder, detached start, start/stop log).
@Suite struct DaemonTests {
    @Test func everyDaemonsLockIsInOneFolder() throws {
        let scratch = try TemporaryDirectory("daemon")
        let paths = Paths(environment: ["HOME": scratch.path])
        let daemons = [BackgroundFlusher.daemon(paths), AnswerListener.daemon(paths), PresenceHold.daemon(paths), HostLink.daemon(paths)]
        #expect(Set(daemons.map { FileSystem.parentDirectory(of: $0.lockFile) }) == [Daemon.folder(paths)])
        #expect(Set(daemons.map(\.lockFile)).count == 4)
    }

    @Test func oneInstanceRunsAndItsLogKeepsItsLines() throws {
        let scratch = try TemporaryDirectory("daemon")
        let daemon = Daemon("test", paths: Paths(environment: ["HOME": scratch.path]))
        let held = try #require(daemon.lock())
        #expect(daemon.lock() == nil, "a second instance does not get the lock")
        held.unlock()
        #expect(daemon.lock() != nil, "free again once released")
        daemon.log("started: asked")
        daemon.log("stopped: done")
        let lines = try #require(try FileSystem.readString(daemon.logFile)).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasSuffix("started: asked") && lines[1].hasSuffix("stopped: done"))
    }

    /// After an upgrade, an older release's daemon still running holds its own lock (`flusher.lock`,
    /// `listener.lock`, `present-watch.lock` in the state folder): none starts beside it; once it has
    /// gone, its lock file is removed and the daemon runs.
    @Test func anOlderReleasesDaemonStillRunningKeepsANewOneFromStarting() throws {
        let scratch = try TemporaryDirectory("daemon")
        let paths = Paths(environment: ["HOME": scratch.path])
        for daemon in [BackgroundFlusher.daemon(paths), AnswerListener.daemon(paths), PresenceHold.daemon(paths)] {
            let older = try #require(daemon.olderLockFile)
            try FileSystem.makeDirectories(paths.stateDirectory)
            let held = try #require(try FileLock(path: older, wait: false))
            #expect(daemon.lock() == nil, "\(daemon.name) started beside the older one holding \(older)")
            held.unlock()
            let lock = try #require(daemon.lock(), "\(daemon.name) once the older one has gone")
            lock.unlock()
            #expect(!FileSystem.exists(older), "the older lock file goes")
        }
    }

    /// The switches every daemon honours; and a test runner calling in never starts one (it is not hookctl).
    @Test(arguments: [["HOOKCTL_NO_BACKGROUND": "1"], ["HOOKCTL_NO_LINK": "1"], [:]])
    func noDaemonStartsWhenSwitchedOffOrFromATestRunner(extra: [String: String]) throws {
        let scratch = try TemporaryDirectory("daemon")
        let environment = ["HOME": scratch.path].merging(extra) { $1 }
        let daemon = Daemon("test", paths: Paths(environment: environment))
        #expect(!daemon.start(arguments: ["--version"], environment: environment, offSwitches: ["HOOKCTL_NO_LINK"]))
    }
}
