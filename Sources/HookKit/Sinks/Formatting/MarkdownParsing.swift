/// The small part of Markdown that agent output uses, parsed line by line (sinks.md §7), so each sink
/// can render it in its own dialect: plain text, Slack mrkdwn or Telegram's HTML subset. Not CommonMark:
/// blocks are single lines, and anything unclear stays literal text.
indirect enum MarkdownInline: Equatable, Sendable {
    case text(String)
    case code(String)
    case strong([MarkdownInline])
    case emphasis([MarkdownInline])
    case strike([MarkdownInline])
    case link(label: [MarkdownInline], url: String)
}

enum MarkdownBlock: Equatable, Sendable {
    /// One line of text; `prefix` is the rewritten list marker with its indentation (`• `, `  1. `, `☐ `).
    case line(prefix: String, content: [MarkdownInline])
    case heading([MarkdownInline])
    case code(language: String, text: String)
    case rule
    case blank
}

enum SinkMarkdown {
    /// Parses `text` into blocks: fenced code verbatim, headings, lists, quotes, tables and rules rewritten.
    static func parse(_ text: String) -> [MarkdownBlock] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            line.last == "\r" ? line.dropLast() : line
        }
        var blocks: [MarkdownBlock] = []
        var listIndents: [Int] = []
        var index = 0
        func appendBlank() {
            if let last = blocks.last, last != .blank { blocks.append(.blank) }
        }
        while index < lines.count {
            let raw = lines[index]
            index += 1
            let indent = leadingSpaces(raw)
            let line = raw.drop(while: { $0 == " " || $0 == "\t" })
            if indent < 4, let fence = fenceOpening(line) {
                var content: [Substring] = []
                while index < lines.count {
                    let candidate = lines[index].drop(while: { $0 == " " || $0 == "\t" })
                    index += 1
                    if isFenceClosing(candidate, fence: fence) { break }
                    content.append(lines[index - 1])
                }
                blocks.append(.code(language: fence.language, text: content.joined(separator: "\n")))
                listIndents.removeAll()
                continue
            }
            let trimmedLine = trimTrailing(line)
            if trimmedLine.isEmpty {
                appendBlank()
                continue
            }
            // A setext underline turns the line above into a heading.
            if isSetextUnderline(trimmedLine), case .line(let prefix, let content)? = blocks.last, prefix.isEmpty {
                blocks[blocks.count - 1] = .heading(content)
                continue
            }
            if isRule(trimmedLine) {
                blocks.append(.rule)
                listIndents.removeAll()
                continue
            }
            if let heading = atxHeading(trimmedLine) {
                blocks.append(.heading(parseInline(heading)))
                listIndents.removeAll()
                continue
            }
            if isReferenceDefinition(trimmedLine) || isTableSeparator(trimmedLine) { continue }
            var body = stripQuotes(trimmedLine)
            if let cells = tableCells(body) { body = Substring(cells) }
            if let (marker, rest) = listMarker(body) {
                while let last = listIndents.last, last >= indent { listIndents.removeLast() }
                let prefix = String(repeating: "  ", count: listIndents.count) + marker
                listIndents.append(indent)
                blocks.append(.line(prefix: prefix, content: parseInline(rest)))
                continue
            }
            if indent == 0 { listIndents.removeAll() }
            blocks.append(.line(prefix: "", content: parseInline(body)))
        }
        while blocks.last == .blank { blocks.removeLast() }
        while blocks.first == .blank { blocks.removeFirst() }
        return blocks
    }

    // MARK: Blocks

    struct Fence {
        var character: Character
        var count: Int
        var language: String
    }

    static func leadingSpaces(_ line: Substring) -> Int {
        var count = 0
        for character in line {
            if character == " " { count += 1 } else if character == "\t" { count += 4 } else { break }
        }
        return count
    }

    static func trimTrailing(_ line: Substring) -> Substring {
        var slice = line
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        // A trailing backslash is a hard break: the line break is kept anyway.
        if slice.last == "\\", !slice.hasSuffix("\\\\") { slice.removeLast() }
        return slice
    }

    static func fenceOpening(_ line: Substring) -> Fence? {
        guard let first = line.first, first == "`" || first == "~" else { return nil }
        let run = line.prefix(while: { $0 == first }).count
        guard run >= 3 else { return nil }
        let info = Text.trimmed(String(line.dropFirst(run)))
        if first == "`", info.contains("`") { return nil }
        let language = info.split(separator: " ").first.map(String.init) ?? ""
        return Fence(character: first, count: run, language: language)
    }

    static func isFenceClosing(_ line: Substring, fence: Fence) -> Bool {
        let run = line.prefix(while: { $0 == fence.character }).count
        return run >= fence.count && line.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" })
    }

    static func isSetextUnderline(_ line: Substring) -> Bool {
        guard let first = line.first, first == "=" || first == "-" else { return false }
        return line.count >= 2 && line.allSatisfy({ $0 == first })
    }

    static func isRule(_ line: Substring) -> Bool {
        guard let first = line.first, first == "-" || first == "*" || first == "_" else { return false }
        let marks = line.filter { $0 != " " }
        return marks.count >= 3 && marks.allSatisfy({ $0 == first })
    }

    static func atxHeading(_ line: Substring) -> Substring? {
        let hashes = line.prefix(while: { $0 == "#" }).count
        guard (1...6).contains(hashes) else { return nil }
        let rest = line.dropFirst(hashes)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.drop(while: { $0 == " " || $0 == "\t" })
        // A closing run of #s preceded by a space is not part of the heading.
        let closing = text.reversed().prefix(while: { $0 == "#" }).count
        if closing > 0 {
            let before = text.dropLast(closing)
            if before.isEmpty || before.last == " " { text = before }
        }
        return trimTrailing(text)
    }

    static func isReferenceDefinition(_ line: Substring) -> Bool {
        guard line.first == "[", let close = line.firstIndex(of: "]") else { return false }
        let after = line[line.index(after: close)...]
        guard after.first == ":", close > line.index(after: line.startIndex) else { return false }
        let target = after.dropFirst().drop(while: { $0 == " " })
        return !target.isEmpty && !target.hasPrefix("^") && !line.hasPrefix("[^")
    }

    static func isTableSeparator(_ line: Substring) -> Bool {
        guard line.contains("|"), line.contains("-") else { return false }
        return line.allSatisfy({ $0 == "|" || $0 == "-" || $0 == ":" || $0 == " " })
    }

    /// `| a | b |` → `a | b`; nil when the line is not a table row.
    static func tableCells(_ line: Substring) -> String? {
        guard line.first == "|", line.count > 1, line.last == "|" else { return nil }
        let inner = line.dropFirst().dropLast()
        return inner.split(separator: "|", omittingEmptySubsequences: false)
            .map { Text.trimmed(String($0)) }
            .joined(separator: " | ")
    }

    static func stripQuotes(_ line: Substring) -> Substring {
        var slice = line
        while slice.first == ">" {
            slice = slice.dropFirst()
            if slice.first == " " { slice = slice.dropFirst() }
        }
        return slice
    }

    /// `- x` → (`• `, `x`), `- [ ] x` → (`☐ `, `x`), `3. x` → (`3. `, `x`).
    static func listMarker(_ line: Substring) -> (String, Substring)? {
        guard let first = line.first else { return nil }
        if first == "-" || first == "*" || first == "+" {
            let rest = line.dropFirst()
            guard rest.first == " " || rest.first == "\t" else { return nil }
            let item = rest.drop(while: { $0 == " " || $0 == "\t" })
            if item.hasPrefix("[ ] ") || item == "[ ]" { return ("☐ ", item.dropFirst(3).drop(while: { $0 == " " })) }
            if item.hasPrefix("[x] ") || item.hasPrefix("[X] ") || item == "[x]" || item == "[X]" {
                return ("☑ ", item.dropFirst(3).drop(while: { $0 == " " }))
            }
            return ("• ", item)
        }
        let digits = line.prefix(while: { $0.isASCII && $0.isNumber })
        guard (1...9).contains(digits.count) else { return nil }
        let rest = line.dropFirst(digits.count)
        guard let delimiter = rest.first, delimiter == "." || delimiter == ")" else { return nil }
        let after = rest.dropFirst()
        guard after.first == " " || after.first == "\t" else { return nil }
        return ("\(digits)\(delimiter) ", after.drop(while: { $0 == " " || $0 == "\t" }))
    }

    // MARK: Inline

    static func parseInline(_ text: Substring) -> [MarkdownInline] {
        var parser = InlineParser(characters: Array(text))
        return parser.parse(0, parser.characters.count)
    }
}

private struct InlineParser {
    let characters: [Character]
    private var output: [MarkdownInline] = []

    init(characters: [Character]) {
        self.characters = characters
    }

    static let punctuation = Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

    func isWordCharacter(_ position: Int) -> Bool {
        guard position >= 0, position < characters.count else { return false }
        return characters[position].isLetter || characters[position].isNumber
    }

    func isSpace(_ position: Int, end: Int) -> Bool {
        guard position >= 0, position < end else { return true }
        return characters[position].isWhitespace
    }

    func run(of character: Character, at position: Int, end: Int) -> Int {
        var count = 0
        while position + count < end, characters[position + count] == character { count += 1 }
        return count
    }

    /// How far a closing mark is looked for. Bounded so a long line full of unmatched marks stays linear.
    static let searchWindow = 2048

    /// The end of the code span opened by `count` backticks at `position`, if it closes before `end`.
    func codeSpanClose(from position: Int, count: Int, end fullEnd: Int) -> Int? {
        let end = min(fullEnd, position + InlineParser.searchWindow)
        var index = position + count
        while index < end {
            if characters[index] == "`" {
                let length = run(of: "`", at: index, end: end)
                if length == count { return index }
                index += length
            } else {
                index += 1
            }
        }
        return nil
    }

    /// Steps over a backslash escape or a whole code span at `index` (their contents are literal);
    /// false when neither starts there.
    func skipLiteral(at index: inout Int, end: Int) -> Bool {
        let character = characters[index]
        if character == "\\" { index += 2; return true }
        guard character == "`" else { return false }
        let length = run(of: "`", at: index, end: end)
        if let closeAt = codeSpanClose(from: index, count: length, end: end) { index = closeAt + length } else { index += length }
        return true
    }

    /// The matching `close` bracket for the `open` at `position`, skipping code spans and escapes.
    func matching(_ open: Character, _ close: Character, from position: Int, end fullEnd: Int) -> Int? {
        let end = min(fullEnd, position + InlineParser.searchWindow)
        var depth = 0
        var index = position
        while index < end {
            if skipLiteral(at: &index, end: end) { continue }
            let character = characters[index]
            if character == open { depth += 1 } else if character == close {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return nil
    }

    /// A closing delimiter run of exactly `count` `marker`s for an opener ending before `start`.
    func closingDelimiter(_ marker: Character, count: Int, from start: Int, end fullEnd: Int) -> Int? {
        let end = min(fullEnd, start + InlineParser.searchWindow)
        var index = start
        while index < end {
            if skipLiteral(at: &index, end: end) { continue }
            let character = characters[index]
            if character == marker {
                let length = run(of: marker, at: index, end: end)
                let precededBySpace = isSpace(index - 1, end: end)
                let followedByWord = marker == "_" && isWordCharacter(index + length) && index + length < fullEnd
                if length == count, index > start, !precededBySpace, !followedByWord { return index }
                index += length
                continue
            }
            index += 1
        }
        return nil
    }

    mutating func parse(_ start: Int, _ end: Int) -> [MarkdownInline] {
        var result: [MarkdownInline] = []
        var text = ""
        func flush() {
            if !text.isEmpty { result.append(.text(text)); text = "" }
        }
        var index = start
        while index < end {
            let character = characters[index]
            switch character {
            case "\\" where index + 1 < end && InlineParser.punctuation.contains(characters[index + 1]):
                text.append(characters[index + 1])
                index += 2
                continue
            case "`":
                let length = run(of: "`", at: index, end: end)
                if let close = codeSpanClose(from: index, count: length, end: end) {
                    var content = String(characters[(index + length)..<close])
                    if content.count >= 2, content.first == " ", content.last == " ", content.contains(where: { $0 != " " }) {
                        content = String(content.dropFirst().dropLast())
                    }
                    flush()
                    result.append(.code(content))
                    index = close + length
                } else {
                    text += String(repeating: "`", count: length)
                    index += length
                }
                continue
            case "!" where index + 1 < end && characters[index + 1] == "[":
                if let (label, _, after) = linkParts(at: index + 1, end: end) {
                    text += String(characters[label])
                    index = after
                    continue
                }
            case "[":
                if let (label, url, after) = linkParts(at: index, end: end) {
                    flush()
                    var inner = InlineParser(characters: characters)
                    let content = inner.parse(label.lowerBound, label.upperBound)
                    if let url { result.append(.link(label: content, url: url)) } else { result.append(contentsOf: content) }
                    index = after
                    continue
                }
            case "<":
                if let close = characters[index..<min(end, index + 512)].firstIndex(of: ">") {
                    let inside = String(characters[(index + 1)..<close])
                    if let autolink = autolinkURL(inside) {
                        flush()
                        result.append(.link(label: [.text(autolink)], url: autolink))
                        index = close + 1
                        continue
                    }
                    if let replacement = htmlTagReplacement(inside) {
                        text += replacement
                        index = close + 1
                        continue
                    }
                }
            case "&":
                if let semicolon = characters[index..<min(end, index + 8)].firstIndex(of: ";"),
                   let decoded = entity(String(characters[index...semicolon])) {
                    text += decoded
                    index = semicolon + 1
                    continue
                }
            case "*", "_", "~":
                let length = run(of: character, at: index, end: end)
                let opensWord = !isSpace(index + length, end: end)
                let boundaryOK = character != "_" || !isWordCharacter(index - 1)
                let usable = character == "~" ? length == 2 : length <= 3
                if usable, opensWord, boundaryOK,
                   let close = closingDelimiter(character, count: length, from: index + length, end: end) {
                    flush()
                    var inner = InlineParser(characters: characters)
                    let content = inner.parse(index + length, close)
                    switch (character, length) {
                    case ("~", _): result.append(.strike(content))
                    case (_, 1): result.append(.emphasis(content))
                    case (_, 2): result.append(.strong(content))
                    default: result.append(.strong([.emphasis(content)]))
                    }
                    index = close + length
                    continue
                }
                text += String(repeating: character, count: length)
                index += length
                continue
            default:
                break
            }
            text.append(character)
            index += 1
        }
        flush()
        return result
    }

    /// `[label](url "title")` → (label range, url, index after); `[label][ref]` → url nil.
    func linkParts(at position: Int, end: Int) -> (Range<Int>, String?, Int)? {
        guard let close = matching("[", "]", from: position, end: end) else { return nil }
        let label = (position + 1)..<close
        let next = close + 1
        if next < end, characters[next] == "(", let paren = matching("(", ")", from: next, end: end) {
            var destination = Text.trimmed(String(characters[(next + 1)..<paren]))
            if let space = destination.firstIndex(where: { $0 == " " || $0 == "\t" }) {
                destination = String(destination[..<space])
            }
            if destination.hasPrefix("<"), destination.hasSuffix(">") { destination = String(destination.dropFirst().dropLast()) }
            return (label, destination, paren + 1)
        }
        if next < end, characters[next] == "[", let refClose = matching("[", "]", from: next, end: end) {
            return (label, nil, refClose + 1)
        }
        return nil
    }

    func autolinkURL(_ inside: String) -> String? {
        guard !inside.contains(where: { $0.isWhitespace || $0 == "<" }),
              let colon = inside.firstIndex(of: ":"), colon > inside.startIndex else { return nil }
        let scheme = inside[..<colon]
        guard scheme.count <= 32, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return inside
    }

    /// HTML tags agents write in SinkMarkdown. Anything else in angle brackets (`Vec<T>`, `<String>`) is text.
    static let htmlTags: Set<String> = [
        "a", "abbr", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
        "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "s", "small", "span", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "th", "thead", "tr", "u", "ul",
    ]

    /// `<br>` becomes a line break; another known tag is dropped; nil when `inside` is not an HTML tag.
    func htmlTagReplacement(_ inside: String) -> String? {
        var name = Substring(inside)
        if name.first == "/" { name = name.dropFirst() }
        let tagName = name.prefix(while: { $0.isASCII && ($0.isLetter || $0.isNumber) }).lowercased()
        guard InlineParser.htmlTags.contains(tagName) else { return nil }
        let rest = name.dropFirst(tagName.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "/" else { return nil }
        return tagName == "br" ? "\n" : ""
    }

    func entity(_ text: String) -> String? {
        switch text {
        case "&amp;": return "&"
        case "&lt;": return "<"
        case "&gt;": return ">"
        case "&quot;": return "\""
        case "&#39;", "&apos;": return "'"
        case "&nbsp;": return " "
        default: return nil
        }
    }
}
