import Testing
import TestSupport
@testable import HookSupport
@testable import HookDelivery

@Suite struct SinkHealthTests {
    /// A store whose every directory is inside `directory` (removed with it).
    static func store(in directory: TemporaryDirectory) -> SinkHealthStore {
        let root = directory.path
        let paths = Paths(home: root, configDirectory: root + "/config", dataDirectory: root + "/data",
                          stateDirectory: root + "/state", configFile: root + "/config/config.yaml")
        return SinkHealthStore(paths: paths)
    }

    @Test func failuresCountUpAndASuccessResetsThem() throws {
        let directory = try TemporaryDirectory("sinkhealth")
        let store = Self.store(in: directory)
        #expect(store.load(sink: "relay") == nil)
        try store.record(sink: "relay", result: .retrying, httpStatus: 503, error: "HTTP 503", now: 100)
        try store.record(sink: "relay", result: .retrying, httpStatus: 503, error: "HTTP 503", now: 200)
        var health = try #require(store.load(sink: "relay"))
        #expect(health.consecutiveFailures == 2)
        #expect(health.httpStatus == 503)
        #expect(health.lastSuccess == nil)
        try store.record(sink: "relay", result: .delivered, httpStatus: 200, now: 300)
        health = try #require(store.load(sink: "relay"))
        #expect(health == SinkHealth(sink: "relay", lastAttempt: 300, result: .delivered, httpStatus: 200, lastSuccess: 300))
        try store.record(sink: "relay", result: .failed, error: "HTTP 400", now: 400)
        health = try #require(store.load(sink: "relay"))
        #expect(health.lastSuccess == 300 && health.consecutiveFailures == 1 && health.error == "HTTP 400")
    }

    @Test func hostileSinkNamesStayInTheDirectory() throws {
        let directory = try TemporaryDirectory("sinkhealth")
        let store = Self.store(in: directory)
        try store.record(sink: "../../evil", result: .delivered, now: 1)
        #expect(store.file(for: "../../evil").hasPrefix(store.directory + "/x"))
        #expect(store.load(sink: "../../evil")?.sink == "../../evil")
        #expect(try FileSystem.list(store.directory).count == 1)
    }
}
