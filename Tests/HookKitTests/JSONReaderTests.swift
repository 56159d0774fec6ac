import Testing
@testable import HookSupport
@testable import HookCore
@testable import HookAgents

/// The JSON reader's on-demand side (`readObject`, `readString`, `skipValue`…), the stored board
/// session decoded with it, and the byte scans and number conversions under both, against their
/// plain definitions on hostile and seeded random input.
@Suite struct JSONReaderTests {
    /// A deterministic generator (SplitMix64): the same cases on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let hostile = ["", "plain", "quote \" and \\ backslash", "tab\there\nnewline\r", "\u{1B}[31mred\u{07}", "\u{9B}csi",
                          "\u{202E}bidi\u{2066}", "line\u{2028}sep", "é 中文 🚀 \u{FE0F}", "\u{0}nul", String(repeating: "x", count: 1 << 20)]

    static func entry(_ random: inout Seeded, text: String) -> BoardEntry {
        var entry = BoardEntry(key: "claude:" + text, agent: "claude", sessionID: random.next() % 2 == 0 ? nil : text,
                               state: AgentState.allCases[Int(random.next() % 6)], since: Double(random.next() % 2_000_000_000) / 100,
                               updatedAt: 1_796_142_903.97, firstSeen: 1_795_970_319.5, lastSeq: Int(random.next() % 1_000_000),
                               kind: EventKind.allCases[Int(random.next() % UInt64(EventKind.allCases.count))], agentEvent: "Stop",
                               title: text, message: text, detail: random.next() % 2 == 0 ? nil : text,
                               tmux: random.next() % 2 == 0 ? nil : TmuxLocation(session: text, sessionID: "$1", window: "0", pane: "%3",
                                                                                  socket: "/tmp/s", windowName: text, windowNameIsAutomatic: true),
                               cwd: "/srv/" + text, host: text, endReason: random.next() % 2 == 0 ? nil : .paneGone)
        entry.panePID = Int32(random.next() % 100_000)
        entry.panePIDStart = random.next() % 1_000_000_000
        entry.question = random.next() % 2 == 0 ? nil
            : Question(text: text, header: text, options: [.init(n: 1, label: text, description: text), .init(n: nil, label: "No")],
                       multiSelect: true, count: 2)
        entry.lastPush = text
        entry.lastPushAt = 1_796_142_000.25
        entry.episode = Int(random.next() % 50)
        entry.lastPushTurn = "#3"
        entry.settled = random.next() % 2 == 0 ? nil : .interrupted
        entry.project = text
        entry.branch = random.next() % 2 == 0 ? nil : "main"
        return entry
    }

    @Test func storedSessionsRoundTripWithHostileText() throws {
        var random = Seeded(state: 24)
        for text in Self.hostile {
            let entry = Self.entry(&random, text: text)
            let bytes = Array(JSON.serialize(BoardState.storedJSON(entry)).utf8)
            #expect(try BoardState.storedEntry(bytes[...]) == entry)
            // The same session inside a larger buffer (a line of board.state): only its slice is read.
            let line = Array("xx\t".utf8) + bytes + Array("\tyy".utf8)
            #expect(try BoardState.storedEntry(line[3..<(3 + bytes.count)]) == entry)
        }
    }

    @Test func storedSessionKeysRepeatMistypeEscapeAndUnknownOnes() throws {
        let text = #"""
        {"key":"a","agent":"claude","state":"working","since":5,"state":"done","\u006bind":"failed","title":7,
         "unknown":{"deep":[1,2,{"x":null,"y":[true,false,-1.5e3,"\ud83d\ude80"]}]},"message":null,"last_seq":"9",
         "episode":3.0,"pane_pid":12,"updated_at":"x","question":[1],"tmux":{"pane":"%1","session":"s"}}
        """#
        let entry = try BoardState.storedEntry(Array(text.utf8)[...])
        #expect(entry.state == .done)              // the last value of a repeated key
        #expect(entry.kind == .failed)             // a key written with an escape is the same key
        #expect(entry.title == "" && entry.message == "")  // another type than the key's: as if absent
        #expect(entry.lastSeq == 0 && entry.updatedAt == 5)
        #expect(entry.episode == 3 && entry.panePID == 12)
        #expect(entry.question == nil && entry.tmux?.pane == "%1" && entry.tmux?.session == "s")
        #expect(throws: (any Error).self) { try BoardState.storedEntry(Array(#"{"key":"a","agent":"b","state":"done"}"#.utf8)[...]) }
        #expect(throws: (any Error).self) { try BoardState.storedEntry(Array(#"[{"key":"a"}]"#.utf8)[...]) }
    }

    @Test func everyCutOfAStoredSessionIsAnErrorNotACrash() throws {
        var random = Seeded(state: 7)
        let entry = Self.entry(&random, text: "ask \"me\" \u{1B} é 🚀")
        let bytes = Array(JSON.serialize(BoardState.storedJSON(entry)).utf8)
        for end in 0..<bytes.count {
            #expect(throws: (any Error).self) { try BoardState.storedEntry(bytes[..<end]) }
            #expect(throws: (any Error).self) { try JSON.parse(bytes[..<end]) }
        }
        #expect(throws: (any Error).self) { try BoardState.storedEntry((bytes + Array(" x".utf8))[...]) }
    }

    @Test func deepNestingIsRefusedWithoutExhaustingTheStack() throws {
        for depth in [513, 100_000] {
            let nested = Array(#"{"key":"a","agent":"b","state":"done","since":1,"x":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: depth)
                + [UInt8](repeating: UInt8(ascii: "]"), count: depth) + [UInt8(ascii: "}")]
            do {
                _ = try BoardState.storedEntry(nested[...])
                Issue.record("nesting \(depth) deep was accepted")
            } catch let error as JSONParseError {
                #expect(error.message == "nesting too deep")
            }
            #expect(throws: JSONParseError.self) { try JSON.parse(nested) }
        }
        let fine = Array(#"{"key":"a","agent":"b","state":"done","since":1,"x":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 500)
            + [UInt8](repeating: UInt8(ascii: "]"), count: 500) + [UInt8(ascii: "}")]
        #expect(try BoardState.storedEntry(fine[...]).key == "a")
    }

    @Test func invalidUTF8AndEscapesDecodeAsTheTreeDoes() throws {
        let cases: [[UInt8]] = [
            [0xFF, 0xFE, 0x41], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF],
            Array(#"\ud83d\ude80 \u00e9 \/ \" \\ \b\f\n\r\t"#.utf8), Array(#"\ud800"#.utf8), Array(#"\udc00x"#.utf8),
            Array(#"\ud800\u0041"#.utf8), Array(#"\ud800\ud800\udc00"#.utf8), [0x61, 0x5C, 0x75, 0x30, 0x30, 0x30, 0x30, 0xFF],
        ]
        for raw in cases {
            let message = [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
            let document = Array(#"{"key":"k","agent":"a","state":"idle","since":1,"message":"#.utf8) + message + [UInt8(ascii: "}")]
            let tree = try JSON.parse(message)
            #expect(try BoardState.storedEntry(document[...]).message == tree.stringValue)
            #expect(tree.stringValue?.unicodeScalars.allSatisfy { !(0xD800...0xDFFF).contains($0.value) } == true)
        }
        for bad in [#""\x""#, #""\u12""#, #""\u12G4""#, "\"a\u{1}b\"", #""abc"#, #""\"#] {
            #expect(throws: JSONParseError.self) { try JSON.parse(bad) }
            #expect(throws: JSONParseError.self) { try JSON.read(Array(bad.utf8)[...]) { try $0.skipValue() } }
        }
    }

    @Test func numbersConvertAsTheStandardLibraryDoes() throws {
        var random = Seeded(state: 99)
        var texts = ["0", "-0", "-0.0", "1", "007", "1.5", "1e3", "1E-3", "-2.5e+2", "9007199254740993", "123456789012345",
                     "1234567890123456", "0.1", "0.30000000000000004", "1796142903.97", "9e15", "8999999999999999",
                     "99999999999999999999", "1e400", "-1e400", "4.9e-324", "2.2250738585072014e-308", "3.0", "12.000"]
        for _ in 0..<3000 {
            let digits = String(random.next() % 10_000_000_000_000_000)
            let cut = Int(random.next() % UInt64(digits.count + 1))
            var text = String(digits.prefix(cut)) + (cut < digits.count ? "." + digits.dropFirst(cut) : "")
            if text.hasPrefix(".") { text = "0" + text }
            if random.next() % 4 == 0 { text = "-" + text }
            if random.next() % 8 == 0 { text += "e\(Int(random.next() % 40) - 20)" }
            texts.append(text)
        }
        for text in texts {
            var copy = text
            let double = copy.withUTF8(JSON.double)
            #expect(double?.bitPattern == Double(text)?.bitPattern, "\(text)")
            let int = copy.withUTF8(JSON.int)
            #expect(int == (Int(text) ?? Double(text).flatMap { $0.isFinite && abs($0) < 9e15 ? Int($0) : nil }), "\(text)")
            #expect(try JSON.parse(text).doubleValue?.bitPattern == Double(text)?.bitPattern)
        }
    }

    @Test func byteScansAgreeWithTheirByteByByteDefinitions() {
        var random = Seeded(state: 5)
        let alphabet: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x22, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xC2, 0xE2, 0xFF]
        for _ in 0..<4000 {
            let count = Int(random.next() % 40)
            // Mostly plain text with a rare odd byte, so whole plain words and late hits both occur.
            let bytes = (0..<count).map { _ in
                random.next() % 12 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(0x20 + random.next() % 95)
            }
            let start = count == 0 ? 0 : Int(random.next() % UInt64(count))
            bytes.withUnsafeBufferPointer { buffer in
                let printable = ByteWords.skipPrintableASCII(buffer, from: start)
                #expect(printable >= start && printable <= count && (printable - start) % 8 == 0)
                #expect(buffer[start..<printable].allSatisfy { $0 >= 0x20 && $0 < 0x7F })
                if printable + 8 <= count { #expect(!buffer[printable..<(printable + 8)].allSatisfy { $0 >= 0x20 && $0 < 0x7F }) }
                let run = ByteWords.skipJSONStringRun(buffer, from: start)
                let plain: (UInt8) -> Bool = { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
                #expect(run >= start && run <= count && (run - start) % 8 == 0)
                #expect(buffer[start..<run].allSatisfy(plain))
                if run + 8 <= count { #expect(!buffer[run..<(run + 8)].allSatisfy(plain)) }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(Terminal.isPrintableASCII(text) == text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
            if !TerminalText.mayNeedEscaping(text) { #expect(TerminalText.visible(text) == text) }
            #expect(TerminalText.mayNeedEscaping(text) == text.utf8.contains { $0 < 0x20 || $0 == 0x7F } || text.unicodeScalars.contains {
                TerminalText.isInvisibleControl($0.value)
            })
        }
    }

    // singleLine collapses by hand exactly as split on whitespace and joined with spaces would.
    @Test func singleLineCollapsesAsSplitAndJoinWould() {
        let texts = ["a\nb", "  lead and trail \t\n", "Which database?\n1. Postgres - a server\n2. SQLite\r\n(several)",
                     "nbsp\u{00A0}and\u{2028}line sep\u{2029}para", "tab\tx\u{000B}\u{000C}y", "é \u{301}combining\n", "\n\n\n",
                     "emoji 👩‍👩‍👧\n next", "\u{1B}[31mred\u{1B}[0m\nplain", ""]
        for text in texts {
            #expect(Text.singleLine(text) == text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " "), "\(text.debugDescription)")
        }
    }

    @Test func singleLineTextIsFoundEightBytesAtATime() {
        for (text, single) in [("a  b", false), (" a", false), ("a ", false), ("aaaaaaa  bbbbbbbb", false), ("aaaaaaa bbbbbbbb", true),
                               ("aaaaaaaa bbbbbbb", true), ("aaaaaaaa  bbbbbb", false), ("aaaaaaa\u{1}bbbbbbbb", false), ("aaaaaaa\tb", false),
                               ("aaaaaaaabbbbbbb\u{A0}", false), ("aaaaaaaabbbbbbb·", true), ("", true)] {
            #expect(Text.isSingleLine(text) == single, "\(text)")
        }
        var random = Seeded(state: 11)
        for _ in 0..<5000 {
            let text = String((0..<Int(random.next() % 40)).map { _ in random.next() % 3 == 0 ? " " : Character("a") })
            let expected = !text.hasPrefix(" ") && !text.hasSuffix(" ") && !text.contains("  ")
            #expect(Text.isSingleLine(text) == expected, "'\(text)'")
            if Text.isSingleLine(text) { #expect(Text.singleLine(text) == text) }
        }
    }

    /// Columns and cuts by characters (grapheme clusters), as `Terminal` measures text it has no shortcut for.
    static func referenceFit(_ text: String, _ width: Int) -> String {
        guard text.reduce(0, { $0 + Terminal.columns($1) }) > width else { return text }
        var output = "", used = 0
        for character in text {
            if used + Terminal.columns(character) > width - 1 { break }
            output.append(character)
            used += Terminal.columns(character)
        }
        return output + "…"
    }

    @Test func simpleNonASCIITextIsMeasuredAndCutByScalars() {
        var random = Seeded(state: 17)
        let pieces = ["a", " ", "é", "…", "·", "•", "ß", "ʼ", "\u{301}", "\u{200D}", "\u{FE0F}", "\u{AD}", "\u{A0}", "‼", "中", "🚀",
                      "\r\n", "\r", "\u{1B}", "\u{7F}", "e\u{301}", "👍🏽", "\u{1F1EB}\u{1F1F7}", "ꙮ", "\u{2028}"]
        for round in 0..<4000 {
            // Mostly the simple kind, so both the shortcut and the way around it are taken.
            let palette = round % 2 == 0 ? Array(pieces.prefix(8)) : pieces
            let text = (0..<Int(random.next() % 30)).map { _ in palette[Int(random.next() % UInt64(palette.count))] }.joined()
            #expect(Terminal.columns(text) == text.reduce(0, { $0 + Terminal.columns($1) }), "\(text.unicodeScalars.map(\.value))")
            for width in [1, 2, 5, 12, 40] {
                #expect(Terminal.fit(text, width) == Self.referenceFit(text, width), "\(text.unicodeScalars.map(\.value)) \(width)")
            }
        }
    }

    @Test func stableOrderMatchesTheStandardSort() {
        var random = Seeded(state: 3)
        for count in [0, 1, 2, 3, 7, 8, 9, 31, 200, 513] {
            let keys = (0..<count).map { _ in Int(random.next() % 10) }
            let expected = Array(keys.indices).sorted { keys[$0] < keys[$1] }  // stable, as ours
            #expect(stableOrder(count: count) { keys[$0] < keys[$1] } == expected)
        }
    }

    @Test func sharedProjectsMarkOnlyRepeatedOnes() {
        #expect(BoardView.sharedProjects(["api", "web", nil, "api", nil], askedFor: [true, true, true, false, true])
                == [true, false, false, true, false])
        #expect(BoardView.sharedProjects(["api", "api"], askedFor: [false, false]) == [false, false])
    }
}
