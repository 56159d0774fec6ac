import Testing
@testable import HookKit

@Suite struct HarnessTests {
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
