import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore
@testable import HookDelivery

@Suite struct SinkFormattingTests {
    /// Parses on many threads at once keep every extension: cmark-gfm shares its table of special
    /// characters between parsers, so parses beside each other once lost `~~` now and then.
    @Test func parsesOnManyThreadsAtOnceAgree() throws {
        let results = try ThreadGroup(8) { _ in
            (0..<40).map { _ in SinkMarkdown.convert("**bold** and ~~gone~~ | `x`", to: .telegramHTML) }
        }.join().flatMap { $0 }
        #expect(Set(results) == ["<b>bold</b> and <s>gone</s> | <code>x</code>"])
    }

    @Test(arguments: [
        ("**bold** and *it* and ~~gone~~", "*bold* and _it_ and ~gone~"),
        ("see [the docs](https://x.dev/a?b=1&c=2)", "see <https://x.dev/a?b=1&amp;c=2|the docs>"),
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
        ("`Vec<T>` in my_file_name.py", "`Vec&lt;T&gt;` in my_file_name.py"),
        ("# Done\n- [x] tests\n- [ ] docs\n  - nested", "*Done*\n☑ tests\n☐ docs\n  • nested"),
        ("```swift\nlet a = b < c\n```", "```\nlet a = b &lt; c\n```"),
        ("<https://example.com>", "<https://example.com>"),
        ("Vec<String> stays", "Vec&lt;String&gt; stays"),
        ("line<br>next", "line\nnext"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "a | b\n1 | 2"),
        ("> quoted **x**", "quoted *x*"),
        ("\\*not italic\\*", "*not italic*"),
        ("2 * 3 * 4", "2 * 3 * 4"),
    ])
    func slackMrkdwn(markdown: String, expected: String) {
        #expect(SinkMarkdown.convert(markdown, to: .slack) == expected)
    }

    @Test(arguments: [
        ("**bold** and _it_ and ~~gone~~", "<b>bold</b> and <i>it</i> and <s>gone</s>"),
        ("`x<y && z`", "<code>x&lt;y &amp;&amp; z</code>"),
        ("```swift\nif a < b {}\n```", "<pre><code class=\"language-swift\">if a &lt; b {}</code></pre>"),
        ("```\nplain\n```", "<pre>plain</pre>"),
        ("[site](https://a.dev/?q=\"x\"&y)", "<a href=\"https://a.dev/?q=&quot;x&quot;&amp;y\">site</a>"),
        ("[host](ssh://me@box)", "host (ssh://me@box)"),
        ("## Title ##", "<b>Title</b>"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("snake_case_name and __init__", "snake_case_name and <b>init</b>"),
        ("***both***", "<i><b>both</b></i>"),
    ])
    func telegramHTML(markdown: String, expected: String) {
        #expect(SinkMarkdown.convert(markdown, to: .telegramHTML) == expected)
    }

    @Test(arguments: [
        ("**bold** and *it* and ~~gone~~", "**bold** and *it* and ~~gone~~"),
        ("Use Vec<String> and a<b && c>d", "Use Vec\\<String\\> and a\\<b && c\\>d"),
        ("see [the docs](<https://x.dev/a b>) and <https://y.dev>", "see [the docs](<https://x.dev/a%20b>) and <https://y.dev>"),
        ("``a`b`` and ```x```", "`` a`b `` and `x`"),
        ("```swift\nlet a = \"```\"\n```", "```swift\nlet a = \"`\u{200B}``\"\n```"),
        ("# Done\n- [x] tests\n  - nested_name", "**Done**\n☑ tests\n  • nested\\_name"),
        ("<b>bold</b> <script>x</script>", "bold \\<script\\>x\\</script\\>"),
    ])
    func discordMarkdownIsWrittenBackFromTheTree(markdown: String, expected: String) {
        #expect(SinkMarkdown.convert(markdown, to: .discord) == expected)
    }

    @Test func plainTextFollowsTheStripperRules() {
        let markdown = "# Heading\n\n\n\n**Bold** [link](https://x.y) ![img](a.png)\n1. one\n---\n[ref]: https://r"
        #expect(SinkMarkdown.convert(markdown, to: .plain) == "Heading\n\nBold link (https://x.y) img\n1. one\n—")
    }

    @Test func telegramCutKeepsTagsBalancedAndCharactersWhole() {
        let unit = "**bold 👩‍👩‍👧 text** with `code` and [a link](https://example.com/x) ✅ "
        let markdown = String(repeating: unit, count: 200)
        for limit in [1, 2, 7, 50, 333, 4095] {
            let blocks = SinkMarkdown.fit(SinkMarkdown.parse(markdown), dialect: .telegramHTML, limit: limit, measure: .utf16)
            let visible = SinkMarkdown.visibleText(blocks, dialect: .telegramHTML)
            #expect(visible.utf16.count <= limit)
            #expect(visible.hasSuffix("…"))
            let html = SinkMarkdown.render(blocks, as: .telegramHTML)
            for tag in ["b", "code", "a"] {
                let opens = html.ranges(of: "<\(tag)>").count + html.ranges(of: "<\(tag) ").count
                #expect(opens == html.ranges(of: "</\(tag)>").count, "unbalanced <\(tag)> at limit \(limit)")
            }
            // Every family emoji is either whole or absent.
            let women = html.unicodeScalars.filter { $0 == "\u{1F469}" }.count
            #expect(women == html.ranges(of: "👩‍👩‍👧").count * 2)
        }
    }

    @Test func slackCutNeverSplitsAnEscape() {
        let markdown = String(repeating: "a<b>&c ", count: 100)
        for limit in 1...40 {
            let text = SinkMarkdown.convert(markdown, to: .slack, limit: limit, measure: .characters)
            #expect(!text.contains(where: { $0 == "<" || $0 == ">" }))
            // Each `&` starts a whole entity.
            let ampersands = text.ranges(of: "&").count
            #expect(ampersands == text.ranges(of: "&lt;").count + text.ranges(of: "&gt;").count + text.ranges(of: "&amp;").count)
        }
    }

    @Test func rawCutClosesAnOpenCodeFence() {
        let markdown = "Result:\n```\n" + String(repeating: "line of code\n", count: 300) + "```\nafter"
        let cut = SinkMarkdown.cutRaw(markdown, limit: 200, measure: .utf16)
        #expect(cut.utf16.count <= 200)
        #expect(cut.hasSuffix("…\n```"))
        let inline = SinkMarkdown.cutRaw("run `" + String(repeating: "x", count: 300) + "`", limit: 50, measure: .utf16)
        #expect(inline.hasSuffix("…`"))
        #expect(inline.utf16.count <= 50)
        #expect(SinkMarkdown.cutRaw("short", limit: 50, measure: .utf16) == "short")
    }

    @Test func measuresCutOnWholeCharacters() {
        let text = String(repeating: "é🇩🇪", count: 50)
        #expect(TextMeasure.utf8.truncate(text, to: 20).utf8.count <= 20)
        #expect(TextMeasure.utf16.truncate(text, to: 21).utf16.count <= 21)
        #expect(TextMeasure.utf16.truncate(text, to: 21).hasSuffix("🇩🇪…") || TextMeasure.utf16.truncate(text, to: 21).hasSuffix("é…"))
        #expect(TextMeasure.characters.truncate(text, to: 5) == "é🇩🇪é🇩🇪…")
    }

    @Test func identifiersFollowNtfysSequenceRule() {
        #expect(SinkText.identifier("claude-1f3e:ab/c d") == "claude-1f3e_ab_c_d")
        let long = SinkText.identifier(String(repeating: "x", count: 100))
        #expect(long.count == 64)
        #expect(long != SinkText.identifier(String(repeating: "x", count: 101)))
        #expect(long.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
    }

    @Test func urlTemplatesEncodeOnlyUnsafeCharacters() {
        let event = Event(agent: "claude", kind: .needsInput, agentEvent: "Notification", title: "t", message: "m",
                          host: "box", tmux: TmuxLocation(session: "my session", pane: "%3"), cwd: "/home/me/app")
        #expect(SinkText.renderURLTemplate("sshido://open?host={host}&session={session}&cwd={cwd}", event: event)
            == "sshido://open?host=box&session=my%20session&cwd=/home/me/app")
    }

    @Test func hmacMatchesTheStandardWebhooksExample() {
        // The example in the Standard Webhooks reference libraries' tests.
        let key = Base64.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!
        let signature = WebhookSink.standardSignature(key: key, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330",
                                                      body: Array("{\"test\": 2432232314}".utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        // RFC 4231 test case 2.
        #expect(Base64.hex(HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

@Suite struct SinkFormattingFuzzTests {
    /// Random Markdown-heavy text from a fixed seed: the parser never traps, and every cut stays within its
    /// limit, ends with `…`, keeps HTML tags balanced and never splits an entity.
    @Test func randomMarkdownAlwaysFitsAndStaysWellFormed() {
        let alphabet: [String] = ["*", "**", "_", "__", "~~", "`", "```", "\n", "\n```\n", "[", "]", "(", ")", "<", ">", "&",
                                  "&amp;", "\\", "#", "- ", "> ", "|", "a", "b c", "snake_case", "é", "🙂", "👨‍👩‍👧", "🇩🇪",
                                  "https://x.y/z", "<br>", "1. ", "<b>", " ", "  ", "\t", "!["]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<300 {
            let text = (0..<(next() % 200)).map { _ in alphabet[next() % alphabet.count] }.joined()
            let limit = 1 + next() % 120
            for (dialect, measure) in [(MarkdownDialect.telegramHTML, TextMeasure.utf16), (.slack, .characters), (.plain, .utf8)] {
                let blocks = SinkMarkdown.fit(SinkMarkdown.parse(text), dialect: dialect, limit: limit, measure: measure)
                let visible = SinkMarkdown.visibleText(blocks, dialect: dialect)
                #expect(measure.count(visible) <= limit, "\(text.debugDescription) at \(limit)")
                let rendered = SinkMarkdown.render(blocks, as: dialect)
                if dialect == .telegramHTML {
                    for tag in ["b", "i", "s", "code", "pre", "a"] {
                        let opens = rendered.ranges(of: "<\(tag)>").count + rendered.ranges(of: "<\(tag) ").count
                        #expect(opens == rendered.ranges(of: "</\(tag)>").count, "\(text.debugDescription)")
                    }
                }
                if dialect != .plain {
                    let stripped = rendered.replacing("&amp;", with: "").replacing("&lt;", with: "").replacing("&gt;", with: "")
                        .replacing("&quot;", with: "")
                    #expect(!stripped.contains("&"), "a bare & in \(rendered.debugDescription)")
                }
            }
            let raw = SinkMarkdown.cutRaw(text, limit: limit + 5, measure: .utf16)
            #expect(raw.utf16.count <= limit + 5)
        }
    }
}
