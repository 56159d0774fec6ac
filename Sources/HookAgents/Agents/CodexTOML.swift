/// Careful line-based editing of Codex's `config.toml`, limited to what hookctl needs: the top-level
/// `notify = [...]` statement. Not a TOML parser: it finds where the top-level region ends (the first
/// `[table]` or `[[array]]` header outside multi-line strings and arrays), finds `notify` there, and
/// replaces or inserts exactly that statement. Every other byte stays as it was.
package struct CodexConfigText: Sendable {
    package var text: String
    package let path: String

    /// A top-level `key = value` statement: its key and where it sits in `lines`.
    package struct Statement {
        package var key: String
        package var firstLine: Int
        package var lastLine: Int
    }

    package var lines: [Substring]
    /// Index of the first table header line (`lines.count` when there is none).
    package var firstHeader: Int
    package var statements: [Statement]

    package init(_ text: String, path: String) throws {
        self.text = text
        self.path = path
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        firstHeader = lines.count
        statements = []
        try scan()
    }

    /// Walks the lines tracking multi-line strings and open brackets, to find the top-level statements
    /// and the first header.
    package mutating func scan() throws {
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" { index += 1; continue }
            if trimmed.first == "[" { firstHeader = index; return }
            guard let equals = CodexConfigText.keyEnd(trimmed) else {
                throw SetupError.malformedSettings(path: path, line: index + 1, column: 1, reason: "expected 'key = value' in the top-level section")
            }
            let key = String(trimmed[..<equals]).trimmingSpaces().unquotedKey()
            let start = index
            var state = ValueScanner()
            state.feed(trimmed[trimmed.index(after: equals)...])
            while !state.isComplete {
                index += 1
                guard index < lines.count else {
                    throw SetupError.malformedSettings(path: path, line: start + 1, column: 1, reason: "the value of '\(key)' never ends (unclosed string or array)")
                }
                state.feed("\n"[...])
                state.feed(lines[index])
            }
            statements.append(Statement(key: key, firstLine: start, lastLine: index))
            index += 1
        }
    }

    /// The `=` of a `key = value` line, outside quoted keys.
    package static func keyEnd(_ line: Substring) -> Substring.Index? {
        var quote: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote { if character == open { quote = nil }; continue }
            if character == "\"" || character == "'" { quote = character; continue }
            if character == "=" { return index }
        }
        return nil
    }

    /// The text of the top-level `notify` statement, if there is one.
    package var notifyStatement: String? {
        guard let statement = statements.first(where: { $0.key == "notify" }) else { return nil }
        return lines[statement.firstLine...statement.lastLine].joined(separator: "\n")
    }

    /// The argv of the top-level `notify`: nil when absent; throws when it is not an array of strings.
    package func notifyArguments() throws -> [String]? {
        guard let statement = notifyStatement else { return nil }
        guard let equals = CodexConfigText.keyEnd(statement[...]) else { return nil }
        let value = statement[statement.index(after: equals)...]
        guard let argv = TOMLStringArray.parse(value) else {
            let line = statements.first(where: { $0.key == "notify" })!.firstLine + 1
            throw SetupError.unsupportedSettings(path: "\(path):\(line)", reason: "the top-level 'notify' is not an array of strings")
        }
        return argv
    }

    /// The text with the `notify` statement replaced by `replacement` (nil: removed), or inserted
    /// before the first table when there was none.
    package func replacingNotify(with replacement: String?) -> String {
        var output = lines
        if let statement = statements.first(where: { $0.key == "notify" }) {
            if let replacement {
                output.replaceSubrange(statement.firstLine...statement.lastLine, with: [Substring(replacement)])
            } else {
                output.removeSubrange(statement.firstLine...statement.lastLine)
            }
            return output.joined(separator: "\n")
        }
        guard let replacement else { return text }
        if text.isEmpty { return replacement + "\n" }
        // After the last top-level statement, else at the very top: never under a table.
        let at = statements.last.map { $0.lastLine + 1 } ?? 0
        output.insert(Substring(replacement), at: at)
        return output.joined(separator: "\n")
    }

    /// `notify = ["…", "…"]` with TOML basic strings.
    package static func notifyLine(_ arguments: [String]) -> String {
        "notify = [" + arguments.map(JSON.quote).joined(separator: ", ") + "]"
    }

    /// The lines of a `[hooks.state…]` trust table and of `[features]`, for doctor.
    package var tableHeaders: [String] {
        lines[firstHeader...].compactMap { line in
            let trimmed = line.trimmingSpaces()
            return trimmed.hasPrefix("[") ? trimmed : nil
        }
    }
}

extension CodexConfigText {
    /// The boolean feature flags among `names`, from the `[features]` table (`hooks = false`) and from
    /// dotted top-level keys (`features.hooks = true`). A line-based reading, as for `notify`.
    package static func featureFlags(_ text: String, names: [String]) -> [String: Bool] {
        var result: [String: Bool] = [:]
        var inFeatures = false
        var topLevel = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var trimmed = line.trimmingSpaces()
            if let hash = trimmed.firstIndex(of: "#") { trimmed = String(trimmed[..<hash]).trimmingSpaces() }
            if trimmed.hasPrefix("[") {
                inFeatures = trimmed.replacing(" ", with: "") == "[features]"
                topLevel = false
                continue
            }
            guard let equals = keyEnd(trimmed[...]) else { continue }
            var key = String(trimmed[..<equals]).trimmingSpaces()
            let value = String(trimmed[trimmed.index(after: equals)...]).trimmingSpaces()
            if topLevel, key.hasPrefix("features.") { key = String(key.dropFirst("features.".count)) }
            else if !inFeatures { continue }
            key = key.unquotedKey()
            guard names.contains(key), value == "true" || value == "false" else { continue }
            result[key] = value == "true"
        }
        return result
    }
}

/// Tracks whether a TOML value that may span lines has ended: strings (basic, literal, multi-line),
/// arrays and inline tables, comments.
package struct ValueScanner {
    package var depth = 0
    package var inString: String?     // the closing delimiter
    package var seenValue = false

    package var isComplete: Bool { inString == nil && depth == 0 && seenValue }

    package mutating func feed(_ text: Substring) {
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if let closing = inString {
                if closing.count == 1, rest.first == "\\", closing == "\"" {
                    index = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
                    continue
                }
                if closing == "\"\"\"", rest.first == "\\" {
                    index = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
                    continue
                }
                if rest.hasPrefix(closing) {
                    index = text.index(index, offsetBy: closing.count)
                    inString = nil
                    if depth == 0 { seenValue = true }
                    continue
                }
                if closing.count == 1, rest.first == "\n" { inString = nil }  // unterminated single-line string
                index = text.index(after: index)
                continue
            }
            let character = text[index]
            if character == "#" {
                // A comment runs to the end of the line.
                while index < text.endIndex, text[index] != "\n" { index = text.index(after: index) }
                continue
            }
            if rest.hasPrefix("\"\"\"") || rest.hasPrefix("'''") {
                inString = String(rest.prefix(3))
                index = text.index(index, offsetBy: 3)
                continue
            }
            if character == "\"" || character == "'" {
                inString = String(character)
                index = text.index(after: index)
                continue
            }
            if character == "[" || character == "{" { depth += 1 }
            if character == "]" || character == "}" { depth = max(0, depth - 1); if depth == 0 { seenValue = true } }
            if !character.isWhitespace, depth == 0, character != "]", character != "}" { seenValue = true }
            index = text.index(after: index)
        }
    }
}

/// Parses a TOML array of strings (`["a", 'b']`, possibly multi-line with comments); nil for anything else.
package enum TOMLStringArray {
    package static func parse(_ value: Substring) -> [String]? {
        let scalars = Array(value.unicodeScalars)
        var index = 0
        func skipBlank() {
            while index < scalars.count {
                let c = scalars[index]
                if c == " " || c == "\t" || c == "\n" || c == "\r" || c == "," { index += 1; continue }
                if c == "#" { while index < scalars.count, scalars[index] != "\n" { index += 1 }; continue }
                break
            }
        }
        skipBlank()
        guard index < scalars.count, scalars[index] == "[" else { return nil }
        index += 1
        var result: [String] = []
        while true {
            skipBlank()
            guard index < scalars.count else { return nil }
            let c = scalars[index]
            if c == "]" {
                index += 1
                // Only a comment may follow.
                while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
                if index < scalars.count, scalars[index] != "#", scalars[index] != "\n", scalars[index] != "\r" { return nil }
                return result
            }
            if c == "'" {
                index += 1
                var text = String.UnicodeScalarView()
                while index < scalars.count, scalars[index] != "'" { text.append(scalars[index]); index += 1 }
                guard index < scalars.count else { return nil }
                index += 1
                result.append(String(text))
                continue
            }
            guard c == "\"" else { return nil }
            index += 1
            var text = String.UnicodeScalarView()
            while index < scalars.count, scalars[index] != "\"" {
                if scalars[index] == "\\" {
                    index += 1
                    guard index < scalars.count else { return nil }
                    switch scalars[index] {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "b": text.append("\u{08}")
                    case "f": text.append("\u{0C}")
                    case "e": text.append("\u{1B}")
                    case "\"": text.append("\"")
                    case "\\": text.append("\\")
                    case "u", "U":
                        let width = scalars[index] == "u" ? 4 : 8
                        guard index + width < scalars.count,
                              let code = UInt32(String(String.UnicodeScalarView(scalars[(index + 1)...(index + width)])), radix: 16),
                              let scalar = Unicode.Scalar(code) else { return nil }
                        text.append(scalar)
                        index += width
                    default: return nil
                    }
                    index += 1
                    continue
                }
                text.append(scalars[index])
                index += 1
            }
            guard index < scalars.count else { return nil }
            index += 1
            result.append(String(text))
        }
    }
}

extension StringProtocol {
    package func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice.removeLast() }
        return String(slice)
    }

    /// `"notify"` → `notify`, `'a b'` → `a b`, bare keys unchanged.
    package func unquotedKey() -> String {
        let text = String(self)
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return text
    }
}
