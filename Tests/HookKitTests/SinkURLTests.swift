import Testing
@testable import HookDelivery

/// The one URL checker: what every sink's `url`, Telegram's `api_url` and `setup --notify-url` go through.
@Suite struct SinkURLTests {
    @Test(arguments: [
        ("", SinkURL.Problem.empty),
        ("ftp://x/y", .scheme),
        ("https://x/a b", .whitespace),
        ("https://x/a\u{00A0}b", .whitespace),
        ("https://x/\u{1b}[31m", .controlCharacter),
        ("https://x/a\nb", .controlCharacter),
        ("https://x/\u{85}", .controlCharacter),
        ("https://x/\"", .quote),
        ("https://x/a'b", .quote),
        ("https://x/a\\b", .quote),
        ("https://x/`id`", .quote),
        ("https:///path", .noHost),
        ("https://user@/p", .noHost),
        ("https://[::1/p", .unclosedIPv6),
        ("https://[::1]:0/p", .port),
        ("https://[::1]x/p", .port),
        ("https://h:65536/p", .port),
        ("https://h:/p", .port),
        ("https://h:12a/p", .port),
        ("https://h:\u{FF18}\u{FF10}/p", .port),
        ("http://", .noHost),
        ("https://h/a\u{2003}b", .whitespace),
        ("https://h/\u{E9}\u{1b}", .controlCharacter),
        ("htp://h/p", .scheme),
        ("https:/h/p", .scheme),
    ])
    func refused(text: String, problem: SinkURL.Problem) {
        #expect(throws: problem) { try SinkURL(text) }
    }

    @Test func partsAndSecrets() throws {
        let url = try SinkURL("HTTP://user:pw@[::1]:8080/n/abcdefgh12345678xyz?token=0123456789#frag")
        #expect(url.isPlainHTTP)
        #expect(url.host == "::1" && url.isLoopback)
        #expect(url.rest == "/n/abcdefgh12345678xyz?token=0123456789#frag")
        #expect(url.pathSegments == ["n", "abcdefgh12345678xyz"])
        #expect(url.secrets == [url.text, "token=0123456789", "abcdefgh12345678xyz"])
        #expect(!url.description.contains("abcdefgh12345678xyz"))
        #expect(url.port == 8080 && url.hasUserInfo)
        let upper = try SinkURL("HtTpS://Relay.example/é?q#f")
        #expect(!upper.isPlainHTTP && upper.host == "Relay.example" && upper.port == nil && !upper.hasUserInfo && upper.rest == "/é?q#f")
        let plain = try SinkURL("https://hooks.example.com:443")
        #expect(plain.host == "hooks.example.com" && plain.rest.isEmpty && plain.pathSegments.isEmpty && !plain.isPlainHTTP)
    }

    @Test func configErrorsNameTheKey() throws {
        let config = try Config.parse("sinks:\n  - name: a\n    type: slack\n    url: \"https://x/a b\"\n", path: "/c/config.yaml", environment: [:])
        #expect(throws: (any Error).self) { try SinkRegistry.makeSinks(config: config) }
        do { _ = try SinkRegistry.makeSinks(config: config) } catch {
            #expect("\(error)".contains("'url' must not contain spaces or other whitespace"))
        }
        let telegram = try Config.parse("sinks:\n  - name: t\n    type: telegram\n    token: \"1:a\"\n    chat_id: \"5\"\n    api_url: \"http://h:99999\"\n",
                                        path: "/c/config.yaml", environment: [:])
        do { _ = try SinkRegistry.makeSinks(config: telegram); Issue.record("a bad api_url was accepted") } catch {
            #expect("\(error)".contains("'api_url' has a port that is not a number between 1 and 65535"))
        }
    }
}
