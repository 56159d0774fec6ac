/// Markdown → plain text for lock screens (sinks.md §7): a line-based pass, blocks first, then inline
/// rules outside code spans. Not a CommonMark parser: it removes the markup agents commonly emit.
public enum Markdown {
    public static func plainText(_ text: String) -> String {
        guard text.contains(where: { "*_`#>[]<|~\\&-+!=".contains($0) }) || text.contains("\n\n\n") else { return text }
        var output: [String] = []
        var inFence: String?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        for line in lines {
            let stripped = Text.trimmed(line)
            if let fence = inFence {
                if stripped.hasPrefix(fence) { inFence = nil } else { output.append(line) }
                continue
            }
            if stripped.hasPrefix("```") || stripped.hasPrefix("~~~") {
                inFence = String(stripped.prefix(3))
                continue
            }
            if let block = blockLine(line, previous: output.last) {
                if block == "\u{0}" {
                    if !output.isEmpty { output.removeLast() }
                    continue
                }
                output.append(block)
            }
        }
        // Collapse runs of blank lines and trim trailing spaces.
        var result: [String] = []
        for line in output.map(trimTrailing) {
            if line.isEmpty, result.last?.isEmpty ?? true { continue }
            result.append(line)
        }
        while result.last?.isEmpty == true { result.removeLast() }
        return result.joined(separator: "\n")
    }

    /// A line's plain form; nil to drop it; "\0" to drop it and the previous line's setext marker case.
    static func blockLine(_ line: String, previous: String?) -> String? {
        var body = Substring(line)
        let indent = body.prefix(while: { $0 == " " || $0 == "\t" }).count
        body = body.dropFirst(indent)
        let trimmed = Text.trimmed(String(body))
        if trimmed.isEmpty { return "" }
        // Horizontal rules and setext underlines.
        if trimmed.count >= 3, Set(trimmed.filter { $0 != " " }).count == 1, let mark = trimmed.first, "-*_=".contains(mark) {
            return nil
        }
        // Reference definitions.
        if trimmed.hasPrefix("["), trimmed.contains("]:"), !trimmed.contains("](") { return nil }
        // Tables: drop separator rows, join cells.
        if trimmed.hasPrefix("|") || (trimmed.contains(" | ") && trimmed.hasSuffix("|")) {
            if trimmed.allSatisfy({ "|-: ".contains($0) }) { return nil }
            let cells = trimmed.split(separator: "|").map { Text.trimmed(String($0)) }.filter { !$0.isEmpty }
            return inline(cells.joined(separator: " | "))
        }
        var text = trimmed
        // Headings.
        if text.hasPrefix("#") {
            let hashes = text.prefix(while: { $0 == "#" }).count
            if hashes <= 6, text.dropFirst(hashes).first == " " {
                text = Text.trimmed(String(text.dropFirst(hashes)))
                while text.hasSuffix("#") { text = Text.trimmed(String(text.dropLast())) }
                return inline(text)
            }
        }
        // Blockquotes (nested).
        while text.hasPrefix(">") { text = Text.trimmed(String(text.dropFirst())) }
        let prefix = String(repeating: "  ", count: min(indent / 2, 4))
        // Task items and bullets.
        for marker in ["- ", "* ", "+ "] where text.hasPrefix(marker) {
            var item = String(text.dropFirst(2))
            if item.hasPrefix("[ ] ") { return prefix + "☐ " + inline(String(item.dropFirst(4))) }
            if item.hasPrefix("[x] ") || item.hasPrefix("[X] ") { return prefix + "☑ " + inline(String(item.dropFirst(4))) }
            item = inline(item)
            return prefix + "• " + item
        }
        return prefix + inline(text)
    }

    /// Inline rules: code spans protected first, then images, links, emphasis, escapes, HTML.
    static func inline(_ text: String) -> String {
        var result = ""
        var index = text.startIndex
        var plain = ""
        func flush() {
            result += inlinePlain(plain)
            plain = ""
        }
        while index < text.endIndex {
            if text[index] == "`" {
                let ticks = text[index...].prefix(while: { $0 == "`" }).count
                let start = text.index(index, offsetBy: ticks)
                let fence = String(repeating: "`", count: ticks)
                if let close = text[start...].firstRange(of: fence) {
                    flush()
                    result += Text.trimmed(String(text[start..<close.lowerBound]))
                    index = close.upperBound
                    continue
                }
            }
            plain.append(text[index])
            index = text.index(after: index)
        }
        flush()
        return result
    }

    static func inlinePlain(_ input: String) -> String {
        guard !input.isEmpty else { return input }
        var text = input
        // Images ![alt](url) → alt ; links [text](url) → text (url) ; <https://x> → https://x
        text = replaceLinks(text)
        // HTML: <br> → newline, other tags removed, entities decoded.
        text = text.replacing("<br>", with: "\n").replacing("<br/>", with: "\n").replacing("<br />", with: "\n")
        text = removeTags(text)
        for (entity, value) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            text = text.replacing(entity, with: value)
        }
        text = stripEmphasis(text)
        return text
    }

    static func replaceLinks(_ text: String) -> String {
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let isImage = character == "!" && text.index(after: index) < text.endIndex && text[text.index(after: index)] == "["
            if character == "[" || isImage {
                let open = isImage ? text.index(after: index) : index
                if let close = text[open...].firstIndex(of: "]") {
                    let label = String(text[text.index(after: open)..<close])
                    let after = text.index(after: close)
                    if after < text.endIndex, text[after] == "(", let end = text[after...].firstIndex(of: ")") {
                        var url = String(text[text.index(after: after)..<end])
                        if let space = url.firstIndex(of: " ") { url = String(url[..<space]) }
                        if isImage {
                            output += label
                        } else {
                            output += (label == url || label.isEmpty) ? url : "\(label) (\(url))"
                        }
                        index = text.index(after: end)
                        continue
                    }
                    if after < text.endIndex, text[after] == "[", let end = text[after...].firstIndex(of: "]") {
                        output += label
                        index = text.index(after: end)
                        continue
                    }
                }
            }
            if character == "<", let end = text[index...].firstIndex(of: ">") {
                let inner = text[text.index(after: index)..<end]
                if inner.hasPrefix("http://") || inner.hasPrefix("https://") {
                    output += inner
                    index = text.index(after: end)
                    continue
                }
            }
            output.append(character)
            index = text.index(after: index)
        }
        return output
    }

    static func removeTags(_ text: String) -> String {
        guard text.contains("<") else { return text }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "<", let end = text[index...].firstIndex(of: ">") {
                let inner = text[text.index(after: index)..<end]
                let name = inner.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber })
                if !name.isEmpty, name.first!.isLetter, !inner.contains("<") {
                    index = text.index(after: end)
                    continue
                }
            }
            output.append(text[index])
            index = text.index(after: index)
        }
        return output
    }

    /// `***x***`, `**x**`, `__x__`, `*x*`, `_x_`, `~~x~~` → `x`; `_` only at word boundaries so
    /// `snake_case` and `my_file.py` survive; backslash escapes become the literal character.
    static func stripEmphasis(_ text: String) -> String {
        let characters = Array(text)
        // Matching markers costs up to the square of a line's length: past this, leave the line as written.
        guard characters.count <= 2000 else { return text }
        var output = ""
        var index = 0
        var open: [String] = []
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, "\\`*_{}[]()#+-.!~|>".contains(characters[index + 1]) {
                output.append(characters[index + 1])
                index += 2
                continue
            }
            if character == "*" || character == "_" || character == "~" {
                var run = 0
                while index + run < characters.count, characters[index + run] == character { run += 1 }
                let marker = String(repeating: character, count: run)
                let before: Character? = index > 0 ? characters[index - 1] : nil
                let after: Character? = index + run < characters.count ? characters[index + run] : nil
                let leftFlanking = after != nil && !after!.isWhitespace
                let rightFlanking = before != nil && !before!.isWhitespace
                let wordInside = (before?.isLetter ?? false || before?.isNumber ?? false) && (after?.isLetter ?? false || after?.isNumber ?? false)
                if character == "~" && run != 2 || character == "_" && wordInside || run > 3 {
                    output += marker
                    index += run
                    continue
                }
                if let last = open.last, last == marker, rightFlanking {
                    open.removeLast()
                    index += run
                    continue
                }
                if leftFlanking, hasCloser(characters, from: index + run, marker: marker) {
                    open.append(marker)
                    index += run
                    continue
                }
                output += marker
                index += run
                continue
            }
            output.append(character)
            index += 1
        }
        return output
    }

    static func hasCloser(_ characters: [Character], from start: Int, marker: String) -> Bool {
        let symbol = marker.first!
        let length = marker.count
        var index = start + 1
        while index + length <= characters.count {
            if characters[index] == symbol, !characters[index - 1].isWhitespace {
                var run = 0
                while index + run < characters.count, characters[index + run] == symbol { run += 1 }
                if run == length { return true }
                index += run
                continue
            }
            index += 1
        }
        return false
    }

    static func trimTrailing(_ line: String) -> String {
        var slice = Substring(line)
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
