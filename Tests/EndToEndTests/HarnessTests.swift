import Testing
@testable import HookSupport
import TestSupport

@Suite(.onTestThreads) struct HarnessTests {
    /// Stopping a background process twice (an explicit stop, then the `defer`) leaves a descriptor
    /// opened in between alone: the second stop once closed it, and another test's outbox write in the
    /// same process failed with EBADF.
    @Test func stoppingTwiceClosesNothingElse() throws {
        let home = try TemporaryHome()
        let process = try BackgroundProcess(executable: "/bin/sh", arguments: ["-c", "echo up; sleep 30"])
        #expect(process.readLine() == "up")
        process.stop()
        let opened = open(home.file("after-stop"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(opened >= 0)
        defer { close(opened) }
        process.stop()
        #expect(write(opened, "x", 1) == 1, "the second stop closed a descriptor it did not own")
    }

    @Test func binaryRunsAndReceiverRecords() throws {
        let home = try TemporaryHome()
        let result = try hookctl(["--version"], environment: home.environment())
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("hookctl "))
        let receiver = try Receiver(directory: home.path, responses: ["201"])
        let curl = try Subprocess(executable: "/usr/bin/curl", arguments: ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-d", "x=1", receiver.baseURL + "/p"]).run()
        #expect(curl.outputText == "201")
        let requests = receiver.waitForRequests(1)
        #expect(requests.first?["path"]?.stringValue == "/p")
        #expect(requests.first?["body"]?.stringValue == "x=1")
    }
}
