import Synchronization
import CCMark

/// Markdown as hookctl renders it: one syntax tree, from GitHub's cmark-gfm (CommonMark with tables,
/// strikethrough, autolinks and task lists), flattened to lines so each sink can render it in its own
/// dialect (plain text, Slack mrkdwn, Telegram HTML, Discord Markdown) and cut it without splitting markup.
package indirect enum MarkdownInline: Equatable, Sendable {
    case text(String)
    case code(String)
    case strong([MarkdownInline])
    case emphasis([MarkdownInline])
    case strike([MarkdownInline])
    case link(label: [MarkdownInline], url: String)
}

package enum MarkdownBlock: Equatable, Sendable {
    /// One line of text; `prefix` is the rewritten list marker with its indentation (`• `, `  1. `, `☐ `).
    case line(prefix: String, content: [MarkdownInline])
    case heading([MarkdownInline])
    case code(language: String, text: String)
    case rule
    case blank
}

package enum SinkMarkdown {
    /// Parses `text` into blocks with cmark-gfm. Text with no Markdown syntax (or, should cmark-gfm fail,
    /// any text) is taken as it is, line by line: words are never lost to the parser.
    package static func parse(_ text: String) -> [MarkdownBlock] {
        var blocks: [MarkdownBlock]
        if mayHoldMarkdown(text), let parsed = CommonMarkTree.blocks(text) {
            blocks = parsed
        } else {
            blocks = literalLines(text)
        }
        while blocks.last == .blank { blocks.removeLast() }
        while blocks.first == .blank { blocks.removeFirst() }
        return blocks
    }

    /// Whether `text` has a character Markdown gives a meaning to (else it is not even parsed).
    package static func mayHoldMarkdown(_ text: String) -> Bool {
        text.utf8.contains { byte in
            switch byte {
            case UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "#"), UInt8(ascii: ">"),
                 UInt8(ascii: "["), UInt8(ascii: "<"), UInt8(ascii: "|"), UInt8(ascii: "~"), UInt8(ascii: "\\"),
                 UInt8(ascii: "&"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "."),
                 UInt8(ascii: ")"), UInt8(ascii: "\t"):
                return true
            default:
                return false
            }
        } || Text.containsBytes(text, "    ")
    }

    /// Lines as they are; runs of blank lines become one.
    package static func literalLines(_ text: String) -> [MarkdownBlock] {
        var blocks: [MarkdownBlock] = []
        forEachLiteralLine(text) { line in
            blocks.append(line.isEmpty ? .blank : .line(prefix: "", content: [.text(String(line))]))
        }
        return blocks
    }

    /// `render(parse(text), as: .plain)` for text with no Markdown syntax (`mayHoldMarkdown` false), written
    /// straight from its lines: what a hook's plain message costs without the block tree.
    package static func literalPlainText(_ text: String) -> String {
        var output = ""
        var started = false
        var blankBefore = false
        forEachLiteralLine(text) { line in
            // Blank lines before the first and after the last line are dropped, like `parse` drops them.
            guard !line.isEmpty else {
                blankBefore = started
                return
            }
            if started { output += blankBefore ? "\n\n" : "\n" }
            output += String(line)
            started = true
            blankBefore = false
        }
        return output
    }

    /// The literal reading of `text`, line by line: trailing spaces, tabs and CRs removed, and a run of
    /// blank lines given once, as an empty line.
    private static func forEachLiteralLine(_ text: String, _ body: (Substring) -> Void) {
        var previousBlank = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = raw
            while let last = line.last, last == " " || last == "\t" || last == "\r" { line.removeLast() }
            if line.isEmpty, previousBlank { continue }
            previousBlank = line.isEmpty
            body(line)
        }
    }

    /// HTML tags agents write in Markdown: only these are removed as markup. Anything else that CommonMark
    /// calls raw HTML (`Vec<String>`, `<dyn Error>`) is text a coding agent meant literally.
    package static let htmlTags: Set<String> = [
        "a", "abbr", "b", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
        "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "s", "small", "span", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "th", "thead", "tr", "u", "ul",
    ]

    /// What a raw HTML tag (CommonMark's rule already matched it) becomes: `<br>` a line break, another
    /// known tag or a comment nothing; nil keeps it as text.
    package static func htmlReplacement(_ tag: String) -> String? {
        if tag.hasPrefix("<!--") { return "" }
        guard tag.hasPrefix("<") else { return nil }
        var name = tag.dropFirst()
        if name.first == "/" { name = name.dropFirst() }
        let tagName = name.prefix(while: { $0.isASCII && ($0.isLetter || $0.isNumber) })
        // Tag names are case-insensitive in HTML, but `<String>` is a type name: only lower case counts.
        guard htmlTags.contains(String(tagName)) else { return nil }
        let rest = name.dropFirst(tagName.count)
        guard rest.first.map({ $0 == ">" || $0 == "/" || $0.isWhitespace }) ?? false else { return nil }
        return tagName == "br" ? "\n" : ""
    }

    /// An HTML block's text with the known tags removed (CommonMark makes a line that starts with a tag
    /// an HTML block: `<details>`, but also `<String> is the type`).
    package static func stripKnownTags(_ html: String) -> String {
        var output = ""
        var index = html.startIndex
        while index < html.endIndex {
            if html[index] == "<", let close = html[index...].firstIndex(of: ">") {
                let tag = String(html[index...close])
                if !tag.dropFirst().contains("<"), let replacement = htmlReplacement(tag) {
                    output += replacement
                    index = html.index(after: close)
                    continue
                }
            }
            output.append(html[index])
            index = html.index(after: index)
        }
        return output
    }
}

/// Walks a cmark-gfm document into `MarkdownBlock`s. The only code that touches cmark's C nodes; the
/// document is freed before it returns.
package struct CommonMarkTree {
    package typealias Node = OpaquePointer

    /// One parse at a time: attaching a GFM extension to a parser adds its characters to a table
    /// cmark-gfm shares between all parsers, and freeing the parser takes them out again, so a parse
    /// beside another one can miss `~~` (seen in the tests, which parse on many threads); registering
    /// the extensions, on the first parse, is not thread-safe either.
    private static let parsing = Mutex(())

    /// Nil when cmark-gfm cannot make a parser (out of memory).
    package static func blocks(_ text: String) -> [MarkdownBlock]? {
        var source = text
        let parsed: OpaquePointer? = parsing.withLock { _ in
            source.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { hk_cmark_parse($0.baseAddress, $0.count) }
            }
        }
        guard let document = parsed else { return nil }
        defer { hk_cmark_free(document) }
        var walker = CommonMarkTree()
        walker.container(document, prefix: "", depth: 0)
        return walker.output
    }

    package var output: [MarkdownBlock] = []
    package var lastEndLine = 0

    /// A literal or URL of the tree, through `OutgoingText.clean`: CommonMark turns character references
    /// (`&#27;`, `&#x9b;`) into the characters they name, so text cleaned before parsing can hold controls again.
    package static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { OutgoingText.clean(String(cString: $0)) } ?? ""
    }

    package static func children(_ node: Node) -> [Node] {
        var result: [Node] = []
        var child = hk_cmark_first_child(node)
        while let current = child {
            result.append(current)
            child = hk_cmark_next(current)
        }
        return result
    }

    package static func typeName(_ node: Node) -> String { string(hk_cmark_type_string(node)) }

    /// A blank line where the source had one between two blocks.
    package mutating func separate(_ node: Node) {
        let start = Int(hk_cmark_start_line(node))
        if !output.isEmpty, lastEndLine > 0, start > lastEndLine + 1, output.last != .blank { output.append(.blank) }
    }

    package mutating func finish(_ node: Node) {
        lastEndLine = max(lastEndLine, Int(hk_cmark_end_line(node)))
    }

    /// The blocks of a document, quote or list item; `prefix` goes before the first line only (a list marker).
    package mutating func container(_ node: Node, prefix: String, depth: Int) {
        var pending = prefix
        let indent = String(repeating: "  ", count: depth)
        for child in CommonMarkTree.children(node) {
            block(child, prefix: pending.isEmpty ? (depth > 0 && !prefix.isEmpty ? indent : "") : pending, depth: depth)
            pending = ""
        }
    }

    package mutating func block(_ node: Node, prefix: String, depth: Int) {
        separate(node)
        defer { finish(node) }
        switch CommonMarkTree.typeName(node) {
        case "paragraph":
            let lines = CommonMarkTree.lines(node)
            for (index, content) in lines.enumerated() {
                output.append(.line(prefix: index == 0 ? prefix : (prefix.isEmpty ? "" : String(repeating: " ", count: prefix.count)),
                                    content: content))
            }
        case "heading":
            output.append(.heading(CommonMarkTree.merge(Array(CommonMarkTree.lines(node).joined(separator: [.text(" ")])))))
        case "code_block":
            var text = CommonMarkTree.string(hk_cmark_literal(node))
            if text.hasSuffix("\n") { text.removeLast() }
            let language = CommonMarkTree.string(hk_cmark_fence_info(node)).split(separator: " ").first.map(String.init) ?? ""
            output.append(.code(language: language, text: text))
        case "thematic_break":
            output.append(.rule)
        case "html_block":
            var text = SinkMarkdown.stripKnownTags(CommonMarkTree.string(hk_cmark_literal(node)))
            while text.hasSuffix("\n") { text.removeLast() }
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = Text.trimmed(String(line))
                if !trimmed.isEmpty { output.append(.line(prefix: prefix, content: [.text(trimmed)])) }
            }
        case "block_quote":
            container(node, prefix: prefix, depth: depth)
        case "list":
            let ordered = hk_cmark_list_ordered(node) != 0
            var number = Int(hk_cmark_list_start(node))
            let delimiter = hk_cmark_list_paren(node) != 0 ? ")" : "."
            let indent = String(repeating: "  ", count: depth)
            for item in CommonMarkTree.children(node) {
                separate(item)
                let marker: String
                if CommonMarkTree.typeName(item) == "tasklist" {
                    marker = hk_cmark_task_checked(item) != 0 ? "☑ " : "☐ "
                } else {
                    marker = ordered ? "\(number)\(delimiter) " : "• "
                }
                number += 1
                let before = output.count
                container(item, prefix: indent + marker, depth: depth + 1)
                if output.count == before { output.append(.line(prefix: indent + marker, content: [])) }
                finish(item)
            }
        case "table":
            for row in CommonMarkTree.children(node) {
                let cells = CommonMarkTree.children(row).map { CommonMarkTree.inlines($0) }
                output.append(.line(prefix: prefix, content: CommonMarkTree.merge(Array(cells.joined(separator: [.text(" | ")])))))
            }
        default:
            // Footnote definitions and blocks of extensions hookctl does not know: their content.
            container(node, prefix: prefix, depth: depth)
        }
    }

    /// A paragraph's inlines split at its line breaks (agents break lines on purpose; lock screens keep them).
    package static func lines(_ node: Node) -> [[MarkdownInline]] {
        var lines: [[MarkdownInline]] = [[]]
        for child in children(node) {
            let type = typeName(child)
            if type == "softbreak" || type == "linebreak" {
                lines.append([])
            } else {
                lines[lines.count - 1].append(contentsOf: inline(child))
            }
        }
        return lines.map(merge)
    }

    package static func inlines(_ node: Node) -> [MarkdownInline] {
        merge(children(node).flatMap(inline))
    }

    package static func inline(_ node: Node) -> [MarkdownInline] {
        switch typeName(node) {
        case "text": return [.text(string(hk_cmark_literal(node)))]
        case "softbreak", "linebreak": return [.text("\n")]
        case "code": return [.code(string(hk_cmark_literal(node)))]
        case "html_inline":
            let tag = string(hk_cmark_literal(node))
            return [.text(SinkMarkdown.htmlReplacement(tag) ?? tag)]
        case "emph": return [.emphasis(inlines(node))]
        case "strong": return [.strong(inlines(node))]
        case "strikethrough": return [.strike(inlines(node))]
        case "link": return [.link(label: inlines(node), url: string(hk_cmark_url(node)))]
        case "image": return [.text(SinkMarkdown.visibleText(inlines(node), dialect: .plain))]
        default:
            let literal = string(hk_cmark_literal(node))
            return literal.isEmpty ? inlines(node) : [.text(literal)]
        }
    }

    /// Adjacent text runs joined (cmark splits text at every special character it looked at).
    package static func merge(_ inlines: [MarkdownInline]) -> [MarkdownInline] {
        var result: [MarkdownInline] = []
        for inline in inlines {
            if case .text(let next) = inline {
                if next.isEmpty { continue }
                if case .text(let previous)? = result.last {
                    result[result.count - 1] = .text(previous + next)
                    continue
                }
            }
            result.append(inline)
        }
        return result
    }
}
