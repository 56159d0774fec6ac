import Synchronization
import Testing
@testable import HookSupport
import TestSupport

/// `HTTPClient.stream`: a GET read line by line through libcurl as its bytes come, against the loopback
/// ntfy server (Tests/Fixtures/ntfy_server.py); over TLS it is driven by the listener's own tests
/// (`PushAnswerEndToEndTests`).
@Suite(.onTestThreads) struct HTTPStreamTests {
    /// What a followed stream gave: its lines with the time each came, and how it ended.
    final class Seen: Sendable {
        let lines = Mutex<[(text: String, at: Double)]>([])
        let stop = Atomic<Bool>(false)
        let end = Mutex<(HTTPClient.StreamEnd, Double)?>(nil)
    }

    /// Follows `url` on a thread of its own until `stop` is set.
    final class Follower: @unchecked Sendable {
        let seen = Seen()
        let thread: ThreadGroup<Void>

        init(_ url: String, silence: Double = 100) {
            let seen = self.seen
            thread = ThreadGroup(1) { _ in
                let result = HTTPClient.stream(url: url, headers: [("User-Agent", "hookctl-test")], connectTimeout: 5, silence: silence,
                                               lineLimit: HTTPClient.lineLimit, stop: { seen.stop.load(ordering: .relaxed) }) { line in
                    seen.lines.withLock { $0.append((String(decoding: line, as: UTF8.self), monotonicSeconds())) }
                }
                seen.end.withLock { $0 = (result, monotonicSeconds()) }
            }
        }

        var lines: [(text: String, at: Double)] { seen.lines.withLock { $0 } }
        var texts: [String] { lines.map(\.text) }
        var ended: (HTTPClient.StreamEnd, Double)? { seen.end.withLock { $0 } }
        func stop() { seen.stop.store(true, ordering: .relaxed) }

        func messages() -> [JSONValue] {
            texts.compactMap { try? JSON.parse($0) }.filter { $0["event"]?.stringValue == "message" }
        }
    }

    @Test func linesArriveAsTheyComeAndAnOverlongOneIsSkippedWhole() throws {
        let scratch = try TemporaryDirectory("stream")
        let ntfy = try NtfyStandIn(directory: scratch.path, extraArguments: ["--keepalive", "1"])
        let follower = Follower("http://localhost:\(ntfy.port)/t0pic/json")
        defer { follower.stop(); _ = try? follower.thread.join() }
        #expect(eventually(timeout: 10) { follower.texts.contains { $0.contains("\"open\"") } }, "\(follower.texts)")
        // Keepalives every second come one by one, not at the end.
        #expect(eventually(timeout: 10) { follower.texts.filter { $0.contains("keepalive") }.count >= 2 })
        let posted = monotonicSeconds()
        #expect(ntfy.post(ntfy.baseURL + "/t0pic", body: "first") == 200)
        #expect(eventually(timeout: 10) { follower.messages().count == 1 })
        let came = follower.lines.last { $0.text.contains("first") }?.at ?? .infinity
        #expect(came - posted < 0.5, "the line came \(came - posted) s after it was posted")
        // A 40 000-byte message is a line past 16 KiB: skipped whole, and the next one reads as it should.
        #expect(ntfy.post(ntfy.baseURL + "/t0pic", body: String(repeating: "x", count: 40_000)) == 200)
        #expect(ntfy.post(ntfy.baseURL + "/t0pic", body: "second") == 200)
        #expect(eventually(timeout: 10) { follower.messages().count == 2 })
        #expect(follower.messages().compactMap { $0["message"]?.stringValue } == ["first", "second"])
        #expect(follower.texts.allSatisfy { $0.utf8.count <= HTTPClient.lineLimit })
    }

    @Test func aSilentStreamEndsAfterItsSilenceAndStopEndsOneFromAnotherThread() throws {
        let scratch = try TemporaryDirectory("stream")
        // No keepalive: after its `open` line the server says nothing, as a dead connection would.
        let ntfy = try NtfyStandIn(directory: scratch.path, extraArguments: ["--keepalive", "1000"])
        let started = monotonicSeconds()
        let silent = Follower("http://localhost:\(ntfy.port)/quiet/json", silence: 2)
        _ = try? silent.thread.join()
        let (end, at) = try #require(silent.ended)
        #expect(end.answered && end.why == "nothing came for 2 s", "\(end)")
        // libcurl averages the speed over its last ~5 s: silence is noticed within `silence` + 6 s of the last byte.
        #expect(at - started >= 2 && at - started < 12, "ended after \(at - started) s")
        #expect(silent.texts.count == 1)

        let stopped = Follower("http://localhost:\(ntfy.port)/quiet/json")
        #expect(eventually(timeout: 10) { stopped.texts.count == 1 })
        let asked = monotonicSeconds()
        stopped.stop()
        _ = try? stopped.thread.join()
        let (stopEnd, stopAt) = try #require(stopped.ended)
        #expect(stopEnd == HTTPClient.StreamEnd(status: 200, why: nil))
        #expect(stopAt - asked < 2.5, "stopped \(stopAt - asked) s after it was asked to")
    }

    @Test func aStatusOtherThan200OrAClosedStreamSaysWhy() throws {
        let scratch = try TemporaryDirectory("stream")
        let ntfy = try NtfyStandIn(directory: scratch.path)
        let missing = Follower("http://localhost:\(ntfy.port)/a/b/c")
        _ = try? missing.thread.join()
        #expect(missing.ended?.0 == HTTPClient.StreamEnd(status: 404, why: "HTTP 404"))
        #expect(missing.texts.isEmpty, "an error's body is not the stream: \(missing.texts)")
        try FileSystem.writeAtomically(ntfy.logFile + ".close", text: "", sync: false)
        let closed = Follower("http://localhost:\(ntfy.port)/t0pic/json")
        _ = try? closed.thread.join()
        #expect(closed.ended?.0 == HTTPClient.StreamEnd(status: 200, why: "the server ended the stream"))
        // Nothing listens here any more: a transport error, in curl's words.
        ntfy.process.stop()
        let down = Follower("http://localhost:\(ntfy.port)/t0pic/json")
        _ = try? down.thread.join()
        #expect(down.ended.map { $0.0.status == 0 && !($0.0.why ?? "").isEmpty } == true, "\(String(describing: down.ended))")
    }
}
