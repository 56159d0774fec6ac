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

    @Test func oneInstanceRunsAndItsStartAndStopAreLogged() throws {
        let scratch = try TemporaryDirectory("daemon")
        let daemon = Daemon("test", paths: Paths(environment: ["HOME": scratch.path]))
        let held = try #require(daemon.lock())
        #expect(daemon.lock() == nil, "a second instance does not get the lock")
        #expect(daemon.run(started: "asked") { (1, "done") } == nil)
        held.unlock()
        #expect(daemon.run(started: "asked") { (2, "done") } == 2)
        let lines = try #require(try FileSystem.readString(daemon.logFile)).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasSuffix("not started: another test holds \(daemon.lockFile)"))
        #expect(lines[1].hasSuffix("started: asked") && lines[2].hasSuffix("stopped: done"))
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
