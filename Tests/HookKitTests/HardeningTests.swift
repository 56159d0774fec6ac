import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookCLI

/// Regression tests for hostile or absurd input found in review: none may crash, hang, leak a secret
/// or park an event forever.
@Suite(.onTestThreads) struct HardeningTests {
    @Test(arguments: [
        ("Sun, 06 Nov -2147483648 08:49:37 GMT", nil as Double?),
        ("inf", RetryHint.maximum), ("nan", nil), ("-5", 0), ("1e20", RetryHint.maximum), ("7", 7),
    ])
    func retryAfterHintsAreFiniteAndClamped(header: String, expected: Double?) {
        #expect(HTTPResponse(status: 503, headers: [("retry-after", header)]).retryAfter == expected)
    }

    @Test func absurdTimesFormatWithoutTrapping() {
        #expect(WallClock.iso8601(.infinity) == "1970-01-01T00:00:00.000Z")
        #expect(WallClock.iso8601(1e20).hasPrefix("9999-12-31"))
        #expect(DurationText.format(.infinity) == "forever")
        #expect(JSONValue.double(.infinity) == .null)
        #expect(JSONValue.number("1e300").intValue == nil)
    }

    @Test func aSecretNearTheCutIsScrubbedBeforeCutting() {
        let secret = "SECRETTOKEN1234567890"
        let body = String(repeating: "x", count: 125) + " unknown subscriber " + secret
        let outcome = HTTPClassifier.classify(HTTPResponse(status: 500, body: Array(body.utf8)), secrets: [secret])
        guard case .retry(let problem) = outcome else { Issue.record("expected a retry"); return }
        #expect(!problem.text.contains("SECRETTOKEN12"))
    }

    @Test func aChildThatLeavesABackgroundProcessIsNotWaitedFor() throws {
        let start = monotonicSeconds()
        let result = try Subprocess(executable: "/bin/sh", arguments: ["-c", "echo hi; (sleep 30) & exit 0"], timeout: 10).run()
        #expect(result.status == 0)
        #expect(result.outputText == "hi\n")
        #expect(monotonicSeconds() - start < 2)
    }

    @Test(arguments: [
        "defaults:\n  log: {max_size: 99999999999999999G}\n",
        "defaults:\n  timeout: inf\n",
        "defaults:\n  retry: {max: 1e400s}\n",
        "defaults:\n  budget: 99999999999d\n",
    ])
    func absurdConfigValuesAreErrorsNotCrashes(text: String) {
        #expect(throws: ConfigError.self) { try Config.parse(text, path: "c.yaml", environment: [:]) }
    }

    @Test func manyKeysParseInLinearTime() throws {
        let text = "{" + (0..<40_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let start = monotonicSeconds()
        let value = try JSON.parse(text)
        #expect(monotonicSeconds() - start < 3)
        #expect(value["k39999"]?.intValue == 39_999)
        #expect(value.objectValue?.count == 40_000)
    }

    @Test func longMarkdownLinesConvertQuickly() {
        let line = String(repeating: "*a ", count: 11_000)
        let start = monotonicSeconds()
        _ = Markdown.plainText(line)
        _ = Markdown.plainText(String(repeating: "see *.swift and *.py ", count: 1400))
        #expect(monotonicSeconds() - start < 2)
    }

    @Test func aZeroRetryAfterDoesNotFloodTheServer() throws {
        let scratch = try TemporaryDirectory("hardening")
        let directory = scratch.path
        let sink = ScriptedSink(name: "limited", outcomes: [.retry(after: 0, reason: "429")])
        let engine = DeliveryEngine(sinks: [sink], outbox: Outbox(paths: Paths(environment: ["HOME": directory])), defaults: Defaults())
        var problems: [String] = []
        _ = engine.deliver(Event(agent: "claude", kind: .done, agentEvent: "Stop", title: "t", message: "m", host: "h"),
                           deadline: .after(seconds: 3), problems: &problems)
        #expect(sink.calls == [1], "one try in the foreground")
        _ = DeliveryTests.flushAll(engine, problems: &problems)
        #expect(sink.calls.count == 2, "a flush makes one try per entry: the schedule spaces the rest")
    }

    @Test func aFileSinkGivesUpOnALockHeldPastItsDeadline() throws {
        let scratch = try TemporaryDirectory("lock")
        let path = scratch.path + "/sink.jsonl"
        let holder = try #require(try FileLock(path: path))
        defer { holder.unlock() }
        let start = monotonicSeconds()
        #expect(throws: SystemError.self) {
            try FileSystem.appendLocked(path, bytes: Array("x\n".utf8), deadline: .after(seconds: 0.2))
        }
        #expect(monotonicSeconds() - start < 1)
    }

    @Test func lenientParsingSetsUnknownOptionsAside() throws {
        let parsed = try ArgumentParser.parse(["--newflag", "--agent", "codex", "{}", "--title"], spec: NotifyCommand.spec)
        #expect(parsed.ignored == ["--newflag", "--title"])
        #expect(try parsed.value(NotifyCommand.Options.agent) == "codex")
        #expect(parsed.positionals == ["{}"])
    }
}
