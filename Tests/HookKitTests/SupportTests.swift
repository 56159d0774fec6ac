import Testing
import TestSupport
@testable import HookSupport
@testable import HookDelivery
@testable import HookAgents

/// Whether `needle`'s bytes occur in `text`'s, by the plain definition (every window compared).
private func plainContains(_ text: String, _ needle: String) -> Bool {
    let bytes = Array(text.utf8), wanted = Array(needle.utf8)
    if wanted.isEmpty { return true }
    guard bytes.count >= wanted.count else { return false }
    return (0...(bytes.count - wanted.count)).contains { Array(bytes[$0..<($0 + wanted.count)]) == wanted }
}

@Suite struct SupportTests {
    /// The ASCII name rule and the whitespace test agree with the Unicode properties they replace on the
    /// hook path: every scalar up to U+FFFF (and a sample above), every ASCII character and `\r\n`.
    @Test func asciiNameRuleAndWhitespaceMatchUnicodeProperties() {
        let scalars = (0...0xFFFF).compactMap(Unicode.Scalar.init) + [0x1F600, 0x10FFFF, 0xE0041].compactMap(Unicode.Scalar.init)
        for scalar in scalars {
            #expect(scalar.isASCIILetter == (scalar.isASCII && scalar.properties.isAlphabetic), "U+\(String(scalar.value, radix: 16))")
            #expect(scalar.isASCIILetterOrDigit == (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))))
            let character = Character(scalar)
            #expect(Text.isWhitespace(character) == character.isWhitespace, "U+\(String(scalar.value, radix: 16))")
        }
        #expect(Text.isWhitespace("\r\n"))
        #expect(Text.trimmed(" \t\r\n\u{A0}x y\u{3000}\n") == "x y")
        #expect(Text.singleLine(" a\u{2028}\t b\r\nc\u{85}") == "a b c")
        // Names: ASCII letters, digits, '-' and '_' (dots only for event names), at most 64 bytes.
        #expect(AgentManifest.isValidName("claude-code_2"))
        #expect(!AgentManifest.isValidName("é") && !AgentManifest.isValidName("ｃｌａｕｄｅ") && !AgentManifest.isValidName(""))
        #expect(!AgentManifest.isValidName("session.idle") && AgentManifest.isValidName("session.idle", allowingDots: true))
        #expect(AgentManifest.isValidName(String(repeating: "a", count: 64)) && !AgentManifest.isValidName(String(repeating: "a", count: 65)))
        #expect(Shell.isVariableName("SSHIDO_SESSION") && Shell.isVariableName("_x1") && !Shell.isVariableName("1x") && !Shell.isVariableName("Ä"))
    }

    /// A thread that signs and seals keeps its OpenSSL contexts only while it runs: 40 threads that each
    /// made two (HMAC and AES) leave none behind once they end (they were never freed before, two per
    /// thread for the life of a long-running sender).
    @Test func cryptoContextsEndWithTheirThreads() throws {
        guard !HMAC.sha256(key: [1], message: [2]).isEmpty else { return }  // no libcrypto: nothing to count
        let before = HMAC.contextsAlive
        let results = Parallel.map(40, jobs: 40) { index -> Bool in
            let mac = HMAC.sha256(key: Array("key \(index)".utf8), message: Array("message".utf8))
            let sealed = try? PushoverE2EE.seal("text \(index)", key: [UInt8](repeating: UInt8(index), count: 32))
            return mac.count == 32 && sealed != nil
        }
        #expect(results.allSatisfy { $0 })
        // Other suites may sign on their own threads meanwhile: a margin far below the 80 a leak leaves.
        #expect(HMAC.contextsAlive - before < 20, "\(HMAC.contextsAlive - before) contexts left behind")
    }

    /// A follow-up's id is UUID-shaped (8-4-4-4-12 lowercase hex), the same for the same push, another for
    /// another push: what the outbox's file names and the answered claims key on.
    @Test func followUpIDsAreStableUUIDShapedHashes() {
        let id = AnsweredPushes.followUpID(replaceID: "r1", pushedAt: 1_700_000_000.25)
        #expect(id == AnsweredPushes.followUpID(replaceID: "r1", pushedAt: 1_700_000_000.25))
        // The value the previous release computed (claims recorded before an upgrade still match).
        #expect(id == "fee06c50-bb46-b870-dd41-e9bf95b0de51")
        #expect(id != AnsweredPushes.followUpID(replaceID: "r1", pushedAt: 1_700_000_001))
        #expect(id != AnsweredPushes.followUpID(replaceID: "r2", pushedAt: 1_700_000_000.25))
        #expect(id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12], "\(id)")
        #expect(id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || $0 == "-" }, "\(id)")
    }

    /// JSON strings escape the scalars that drive a terminal or reorder text (C1, bidi controls) and
    /// leave ordinary text raw; the byte check agrees with the writer.
    @Test(arguments: [("é", false), ("中文", false), ("…", false), ("\u{A0}", false), ("€", false), ("\u{2060}", false),
                      ("\u{9B}", true), ("\u{85}", true), ("\u{202E}", true), ("\u{2066}", true), ("\u{61C}", true), ("\u{200F}", true)])
    func jsonEscapesTerminalControlsOnly(text: String, escaped: Bool) throws {
        var out = ""
        JSON.writeString(text, into: &out)
        #expect(out.contains("\\u") == escaped, "\(text.unicodeScalars.map(\.value)) -> \(out)")
        #expect(JSON.holdsRawUnicodeEscapes(Array(text.utf8)) == escaped)
        #expect(try JSON.parse(out).stringValue == text)
    }

    /// The byte-level string writer agrees with the scalar-by-scalar definition (the named escapes,
    /// `\uXXXX` for C0, DEL, C1, bidi controls and U+2028/9, everything else raw) on seeded random
    /// hostile text, plain runs and escapes mixed; every result parses back to the text.
    @Test func jsonStringWriterMatchesScalarDefinition() throws {
        func reference(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if JSON.escapedAsUnicode(scalar.value) {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "~", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1B}",
                                      "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "\u{9F}", "\u{A0}", "é", "\u{61B}", "\u{61C}",
                                      "\u{200D}", "\u{200E}", "\u{200F}", "\u{2027}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}",
                                      "\u{202F}", "\u{2060}", "\u{2065}", "\u{2066}", "\u{2069}", "\u{206A}", "中", "\u{FFFD}", "👨", "\u{10FFFF}"]
        var random = SeededRandom(seed: 24)
        var texts = ["", "plain ascii only", String(repeating: "x", count: 70_000) + "\u{9B}", "\u{9B}" + String(repeating: "é", count: 1000)]
        for _ in 0..<400 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                // Runs of plain ASCII between the hostile scalars, as in real messages.
                if Bool.random(using: &random) { text.append(contentsOf: "run of text".unicodeScalars) }
                text.append(pool.randomElement(using: &random)!)
            }
            texts.append(String(text))
        }
        for text in texts {
            let quoted = JSON.quote(text)
            #expect(quoted == reference(text), "\(text.unicodeScalars.prefix(40).map(\.value))")
            #expect(try JSON.parse(quoted).stringValue == text)
            #expect(JSON.serialize(.object(JSONObject([(text, .string(text))]))) == "{\(quoted):\(quoted)}")
        }
    }

    /// Objects around the size where keys get an index: duplicate keys keep their first place and take the
    /// last value, lookups find every key, and objects built with `uniqueKeys` serialize in their order.
    @Test(arguments: [1, 16, 31, 32, 33, 34, 200])
    func jsonObjectsOfEverySizeKeepOrderAndFindKeys(count: Int) throws {
        let keys = (0..<count).map { "k\($0 % 7 == 0 ? "" : "-")\($0)" }
        let text = "{" + (keys.map { "\"\($0)\":1" } + ["\"\(keys[0])\":2"]).joined(separator: ",") + "}"
        let object = try #require(try JSON.parse(text).objectValue)
        #expect(object.keys == keys)
        #expect(object[keys[0]]?.intValue == 2)
        for key in keys.dropFirst() { #expect(object[key]?.intValue == 1) }
        #expect(object["absent"] == nil)
        let built = JSONObject(uniqueKeys: keys.map { ($0, .int(1)) })
        #expect(built.keys == keys)
        #expect(built[keys[count - 1]]?.intValue == 1)
        var grown = built
        grown["added"] = .bool(true)
        #expect(grown.keys == keys + ["added"])
        #expect(grown["added"]?.boolValue == true && grown[keys[0]]?.intValue == 1)
        #expect(JSON.serializePretty(.object(built)).hasPrefix("{\n  \"\(keys[0])\": 1"))
    }

    @Test(arguments: [
        #"{"b":1,"a":[true,false,null],"c":{"d":"é\n\"q\""},"n":-1.5e3}"#,
        #"[]"#, #"{}"#, #""\u0001""#,
    ])
    func jsonRoundTripKeepsOrderAndNumbers(text: String) throws {
        #expect(JSON.serialize(try JSON.parse(text)) == text)
    }

    /// The byte search agrees with the plain definition on ASCII, multi-byte text, edges and overlaps.
    @Test func byteSearchFindsWhatItShould() {
        let texts = ["", "a", "\"claude\"", "x\"claude\"", "\"claudex\"", "aaab", "Grüße 👨‍👩‍👧 \"gemini\"", String(repeating: "ab", count: 5000) + "abc"]
        let needles = ["", "a", "\"claude\"", "\"gemini\"", "aab", "abc", "ü", "👨‍👩‍👧", "zz"]
        for text in texts {
            for needle in needles {
                #expect(Text.containsBytes(text, needle) == plainContains(text, needle), "\(text.prefix(20)) / \(needle)")
            }
        }
    }

    /// Secrets are scrubbed by bytes the way String.replacing would: every occurrence, left to right.
    @Test func scrubReplacesEveryOccurrence() {
        let secrets = ["tok3n-abcdef", "aaaa", "Grüße-🔑-key"]
        for text in ["", "no secret here", "x tok3n-abcdef y tok3n-abcdef", "aaaaaaaaa", "Grüße-🔑-key at the end: Grüße-🔑-key",
                     "https://h/n/tok3n-abcdef?aaaa=1", "tok3n-abcde"] {
            var expected = text
            for secret in secrets { expected = expected.replacing(secret, with: Text.redactSecret(secret)) }
            #expect(Text.scrub(text, secrets: secrets) == expected, "\(text)")
        }
        #expect(!Text.scrub("https://h/n/tok3n-abcdef", secrets: ["tok3n-abcdef"]).contains("abcdef"))
    }

    @Test func jsonErrorsHaveLineAndColumn() {
        do {
            _ = try JSON.parse("{\n  \"a\": 1,\n  \"b\" 2\n}")
            Issue.record("should fail")
        } catch let error as JSONParseError {
            #expect(error.line == 3)
            #expect(error.column == 7)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func jsonDecodesEscapesAndSurrogates() throws {
        #expect(try JSON.parse(#""\ud83d\ude80 \u00e9 \/""#) == .string("🚀 é /"))
        #expect(try JSON.parse("\u{FEFF}{}".utf8.count > 0 ? [0xEF, 0xBB, 0xBF, 0x7B, 0x7D] : []) == .object(JSONObject()))
    }

    @Test func prettyJSONMatchesTwoSpaceStyle() throws {
        let value = try JSON.parse(#"{"hooks":{"Stop":[{"hooks":[]}]},"x":[1,2]}"#)
        #expect(JSON.serializePretty(value) == "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  },\n  \"x\": [\n    1,\n    2\n  ]\n}")
    }

    @Test(arguments: [
        ("héllo wörld", 8, "héllo w…"),
        ("🚀🚀🚀", 2, "🚀…"),
        ("short", 10, "short"),
        ("👩‍👩‍👧‍👦 family", 2, "👩‍👩‍👧‍👦…"),
    ])
    func truncationKeepsGraphemes(text: String, limit: Int, expected: String) {
        #expect(Text.truncate(text, characters: limit) == expected)
    }

    @Test func byteTruncationNeverSplitsACharacter() {
        let text = String(repeating: "é🚀", count: 100)
        for limit in 4..<60 {
            let cut = Text.truncate(text, utf8Bytes: limit)
            #expect(cut.utf8.count <= limit)
            #expect(cut.hasSuffix("…"))
            #expect(!cut.unicodeScalars.contains("\u{FFFD}"))
        }
    }

    @Test(arguments: [
        ("https://push.example.com/n/0123456789abcdef", "https://push.example.com/n/01…(redacted)"),
        ("https://hooks.slack.com/services/T000/B000/XXXX", "https://hooks.slack.com/services/T0…(redacted)"),
        ("http://user:pw@h:8080/x", "http://h:8080/…(redacted)"),
        ("https://h.example.com/", "https://h.example.com/"),
        ("https://api.telegram.org/bot123456:ABCdefGhIjklMNOpqrs/sendMessage", "https://api.telegram.org/bo…(redacted)"),
    ])
    func urlsAreRedacted(url: String, expected: String) {
        #expect(Text.redactURL(url) == expected)
    }

    @Test func durations() {
        #expect(DurationText.parse("500ms") == 0.5)
        #expect(DurationText.parse("10s") == 10)
        #expect(DurationText.parse("5m") == 300)
        #expect(DurationText.parse("24h") == 86400)
        #expect(DurationText.parse("3") == 3)
        #expect(DurationText.parse("-1s") == nil)
        #expect(DurationText.parse("soon") == nil)
        #expect(DurationText.format(0.25) == "250ms")
        #expect(DurationText.format(86400) == "24h")
    }

    @Test func iso8601RoundTrips() {
        let epoch = 1_767_225_600.123
        #expect(WallClock.iso8601(epoch) == "2026-01-01T00:00:00.123Z")
        #expect(abs(WallClock.parseISO8601("2026-01-01T00:00:00.123Z")! - epoch) < 0.001)
    }

    /// The date arithmetic that replaced gmtime_r/timegm (which read the time zone file) agrees with them:
    /// every fifth day from 1970 to 9999 at a changing time of day, the saturated ends, and out-of-range fields
    /// normalised as timegm does them.
    @Test func civilDatesAgreeWithGlibc() {
        var epoch = 0
        while epoch <= 253_402_300_799 {
            var seconds = time_t(epoch)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let year = "\(parts.tm_year + 1900)"
            let expected = String(repeating: "0", count: 4 - year.count) + year + "-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
                + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).000Z"
            if WallClock.iso8601(Double(epoch)) != expected || WallClock.parseISO8601(expected) != Double(epoch) {
                Issue.record("\(epoch): \(WallClock.iso8601(Double(epoch))) vs gmtime_r's \(expected)")
                break
            }
            epoch += 5 * 86_400 + 3_607
        }
        #expect(epoch > 253_402_300_799, "stopped at \(epoch)")
        #expect(WallClock.iso8601(-5) == "1970-01-01T00:00:00.000Z")
        #expect(WallClock.iso8601(.infinity) == "1970-01-01T00:00:00.000Z")
        #expect(WallClock.iso8601(1e30) == "9999-12-31T23:59:59.000Z")
        for (year, month, day, hour, minute, second) in [(2026, 13, 45, 25, 61, 61), (2026, 0, 0, 0, 0, 0), (2024, 2, 30, 99, 99, 99),
                                                         (1999, 12, 31, 23, 59, 60), (2000, 99, 99, 0, 0, 0), (1970, 1, 1, 0, 0, 0)] {
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(second)
            #expect(WallClock.epoch(year: year, month: month, day: day, hour: hour, minute: minute, second: second) == Int(timegm(&parts)),
                    "\(year)-\(month)-\(day) \(hour):\(minute):\(second)")
        }
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    @Test func subprocessTimesOutAndKillsTheGroup() {
        let start = monotonicSeconds()
        #expect(throws: SystemError.self) {
            try Subprocess(executable: "/bin/sh", arguments: ["-c", "sleep 30 & sleep 30"], timeout: 0.3).run()
        }
        #expect(monotonicSeconds() - start < 3)
    }

    @Test func subprocessPassesInputAndCollectsOutput() throws {
        let result = try Subprocess(executable: "/bin/sh", arguments: ["-c", "tr a-z A-Z; echo err >&2; exit 3"],
                                    input: Array("hello".utf8)).run()
        #expect(result.status == 3)
        #expect(result.outputText == "HELLO")
        #expect(result.errorText == "err\n")
    }

    @Test func atomicWriteFollowsSymlinksAndKeepsMode() throws {
        let scratch = try TemporaryDirectory("support")
        let directory = scratch.path
        try FileSystem.writeAtomically(directory + "/real.json", text: "old", mode: 0o640)
        symlink(directory + "/real.json", directory + "/link.json")
        try FileSystem.writeAtomically(directory + "/link.json", text: "new")
        var info = stat()
        lstat(directory + "/link.json", &info)
        #expect(info.st_mode & S_IFMT == S_IFLNK)
        #expect(try FileSystem.readString(directory + "/real.json") == "new")
        stat(directory + "/real.json", &info)
        #expect(info.st_mode & 0o777 == 0o640)
    }

    @Test func retryDelaysGrowAndHonourHints() {
        let policy = RetryPolicy(base: 1, max: 8, expire: 100)
        for attempt in 1...6 {
            let delay = policy.delay(afterAttempt: attempt)
            let step = min(8, pow(2, Double(attempt - 1)))
            #expect(delay >= step / 2 && delay <= step)
        }
        #expect(policy.delay(afterAttempt: 1, hint: 30) == 30)
    }

    @Test(arguments: [
        (HTTPResponse(status: 204), DeliveryOutcome.delivered),
        (HTTPResponse(status: 0, error: "Connection refused"), .retry(DeliveryProblem(.network, detail: "Connection refused"))),
        (HTTPResponse(status: 0, error: "no answer", cutOff: true), .retry(DeliveryProblem(.cutOff, detail: "no answer"))),
        (HTTPResponse(status: 429, headers: [("retry-after", "7")]), .retry(.http(429, retryAfter: 7))),
        (HTTPResponse(status: 503), .retry(.http(503))),
        (HTTPResponse(status: 408), .retry(.http(408))),
        (HTTPResponse(status: 410), .gone(.http(410))),
        (HTTPResponse(status: 400, body: Array("bad".utf8)), .failed(.http(400, "bad"))),
        (HTTPResponse(status: 301), .failed(.http(301, "(redirects are not followed: update the URL)"))),
    ])
    func responsesAreClassified(response: HTTPResponse, expected: DeliveryOutcome) {
        #expect(HTTPClassifier.classify(response, secrets: []) == expected)
    }

    @Test func relayBodyFitsIn4KiB() throws {
        let body = RelaySink.body(title: String(repeating: "t", count: 5000), message: String(repeating: "\"é\"\n", count: 3000),
                                  priority: "high", sessionRef: "s", hostRef: "h")
        #expect(body.utf8.count <= 4096)
        let parsed = try JSON.parse(body)
        #expect(parsed["priority"]?.stringValue == "high")
        #expect(parsed["body"]?.stringValue?.hasSuffix("…") == true)
    }
}
