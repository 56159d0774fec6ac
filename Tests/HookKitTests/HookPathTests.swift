import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery
@testable import HookCLI
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The hook path's shortcuts (issue 22: a hook's CPU against `--version`) give exactly what the general
/// code gives.
@Suite struct HookPathTests {
    /// Texts with no Markdown syntax: blank runs, blank lines first and last, trailing spaces and CRs,
    /// CRLF (one character in Swift), controls, bidi, emoji, and seeded random mixes of those.
    static var literalTexts: [String] {
        var texts = ["", "turn 1", "All tests pass", "\n", "\n\n\n", "  \n   \n", "one\n\n\n\ntwo", "\n\nlead\n", "trail  \n\n",
                     "cr\r\nlf\rx\r", "a\r\n\r\n\r\nb", "zero\u{0}nul \u{7} bell", "bidi \u{202E}txet\u{202C} ok", "emoji 😀👍🏽\n\n",
                     String(repeating: "word ", count: 3000), String(repeating: "line\n", count: 500)]
        var generator = SeededRandom(seed: 22)
        let pieces = ["a", "é", " ", "\n", "\r", "\r\n", "😀", "\u{301}", "\u{202E}", "xyz"]
        for _ in 0..<300 {
            let length = Int.random(in: 0...24, using: &generator)
            texts.append((0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined())
        }
        // Four spaces in a row could start indented code: such a text is parsed, not taken literally.
        return texts.filter { !Text.containsBytes($0, "    ") }
    }

    @Test func literalTextsTakeTheShortcut() {
        for text in Self.literalTexts { #expect(!SinkMarkdown.mayHoldMarkdown(text), "\(text.debugDescription)") }
    }

    @Test(arguments: literalTexts)
    func plainTextOfLiteralTextIsTheBlockTreesPlainRendering(text: String) {
        let viaTree = SinkMarkdown.render(SinkMarkdown.parse(text), as: .plain)
        #expect(SinkMarkdown.literalPlainText(text) == viaTree)
        #expect(Markdown.plainText(text) == viaTree)
    }

    @Test func renderJoinsBlocksWithOneNewline() {
        let blocks: [MarkdownBlock] = [.line(prefix: "• ", content: [.text("a")]), .blank, .rule, .heading([.strong([.text("h")])])]
        #expect(SinkMarkdown.render(blocks, as: .plain) == "• a\n\n—\nh")
        #expect(SinkMarkdown.render(blocks, as: .slack) == "• a\n\n—\n**h**")
        #expect(SinkMarkdown.visibleText(blocks, dialect: .plain) == "• a\n\n—\nh")
        #expect(SinkMarkdown.render([MarkdownBlock](), as: .plain) == "")
    }

    @Test(arguments: [
        ("/a/./b/../c/", "/a/c"), ("/", "/"), ("", ""), ("a/b/../c", "a/c"), ("//x//y//", "/x/y"), ("/..", "/"),
        ("../..", ""), ("/home/u/proj", "/home/u/proj"), ("rel", "rel"),
    ])
    func normalizedPaths(path: String, expected: String) {
        #expect(ProjectIdentity.normalized(path) == expected)
    }

    @Test func pollOfOneDescriptorSaysWhatCame() throws {
        let pipe = try FileDescriptor.pipe()
        defer { pipe.readEnd.close() }
        #expect(try pipe.readEnd.poll(Int16(POLLIN), timeout: 0) == 0)
        #expect(!pipe.readEnd.hasInput)
        try pipe.writeEnd.writeAll(Array("x".utf8))
        #expect(try pipe.readEnd.poll(Int16(POLLIN), timeout: nil) & Int16(POLLIN) != 0)
        #expect(try FileDescriptor.poll([(pipe.readEnd, Int16(POLLIN))], timeout: 0) == [Int16(POLLIN)])
        #expect(pipe.readEnd.hasInput)
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try pipe.readEnd.read(into: &buffer) == 1)
        pipe.writeEnd.close()
        #expect(try pipe.readEnd.poll(Int16(POLLIN), timeout: 0) & Int16(POLLHUP) != 0)
    }

    /// A payload written in two parts, the writer keeping stdin open: read whole once it is complete JSON,
    /// and parsed once (the reader's document is the pipeline's).
    @Test func payloadReaderStopsAtACompleteDocument() throws {
        let pipe = try FileDescriptor.pipe()
        defer { pipe.readEnd.close(); pipe.writeEnd.close() }
        try pipe.writeEnd.writeAll(Array(#"{"hook_event_name": "St"#.utf8))
        let writer = pipe.writeEnd
        // The rest comes from another thread once the reader has had the first part.
        let late = ThreadGroup(1) { _ in
            usleep(20_000)
            try writer.writeAll(Array(#"op", "message": "\u00e9 done"}"#.utf8))
        }
        let input = PayloadReader(timeLimit: .seconds(10)).read(fd: pipe.readEnd.rawValue)
        _ = try late.join()
        #expect(!input.truncated && !input.timedOut)
        #expect(String(decoding: input.bytes, as: UTF8.self) == #"{"hook_event_name": "Stop", "message": "\u00e9 done"}"#)
        #expect(input.document?["message"]?.stringValue == "é done")
    }

    @Test func payloadReaderCapsAndTimesOut() throws {
        _ = Subprocess.ignoreBrokenPipes
        let pipe = try FileDescriptor.pipe()
        defer { pipe.writeEnd.close() }
        let writer = pipe.writeEnd
        // More than the pipe holds: written while the reader reads, which stops at the cap (the writer then
        // fails on the closed pipe, or finishes).
        let big = ThreadGroup(1) { _ in try? writer.writeAll([UInt8](repeating: UInt8(ascii: "a"), count: 200_000)) }
        let capped = PayloadReader(limit: 100_000, timeLimit: .seconds(10)).read(fd: pipe.readEnd.rawValue)
        pipe.readEnd.close()
        _ = try big.join()
        #expect(capped.truncated && capped.bytes.count == 100_000 && capped.document == nil)
        let other = try FileDescriptor.pipe()
        defer { other.readEnd.close(); other.writeEnd.close() }
        try other.writeEnd.writeAll(Array(#"{"a": 1"#.utf8))
        let waited = PayloadReader(timeLimit: .milliseconds(30)).read(fd: other.readEnd.rawValue)
        #expect(waited.timedOut && waited.bytes.count == 7 && waited.document == nil)
    }

    @Test(arguments: ["box.local", "box", ".lead.x", "...", "", "a..b", "host.", "é.x", "x.\u{301}y", "ünï.code.org", "-._-"])
    func shortHostNameIsTheFirstLabel(name: String) {
        let expected = name.split(separator: ".").first.map(String.init) ?? name
        #expect(Array(name.utf8).withUnsafeBytes { shortHostName($0) } == expected)
    }

    @Test func argumentValuesKeepTheirOrderAndRepeatRules() throws {
        var spec = CommandSpec(path: ["t"], summary: "test", options: [Option<String>("one", "V", help: "h"),
                                                      Option<String>("many", "V", repeatable: true, help: "h"),
                                                      Flag("flag", help: "h")], maximumPositionals: 1)
        let parsed = try ArgumentParser.parse(["--many", "a", "--one=x", "--many", "b", "--one", "x", "p", "--flag"], spec: spec)
        #expect(try parsed.value(Option<String>("one", "V", help: "h")) == "x")
        #expect(try parsed.all(Option<String>("many", "V", repeatable: true, help: "h")) == ["a", "b"])
        #expect(parsed.list(Option<String>("many", "V", help: "h")) == ["a", "b"])
        #expect(parsed.list(Option<String>("absent", "V", help: "h")) == nil)
        #expect(parsed.flag(Flag("flag", help: "h")) && parsed.positionals == ["p"])
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["--one", "x", "--one", "y"], spec: spec) }
        spec.lenient = true
        #expect(try ArgumentParser.parse(["--one"], spec: spec).ignored == ["--one"])
    }
}
