/// The colours and weights hookctl uses on a terminal (SGR parameters).
package enum TerminalStyle: String, Sendable, CaseIterable {
    case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"
    case boldRed = "1;31", boldYellow = "1;33"
}

/// The one way hookctl prints text a person reads. Every piece is made inert when rendered:
/// C0 and C1 control characters (ESC, BEL, NUL, CSI …) are shown in caret or `<U+…>` form, bidi
/// controls are shown instead of obeyed, so agent-written text, relay error bodies or session names
/// can never drive the terminal (OSC 52 clipboard writes, screen clears, reordered lines). Colour is
/// added only around the pieces hookctl styles itself, after they were made inert.
package struct TerminalText: Sendable, Equatable, ExpressibleByStringLiteral {
    package struct Piece: Sendable, Equatable {
        package var text: String
        package var style: TerminalStyle?
    }

    package private(set) var pieces: [Piece]

    package init(_ text: String = "", style: TerminalStyle? = nil) {
        pieces = text.isEmpty ? [] : [Piece(text: text, style: style)]
    }

    package init(stringLiteral value: String) { self.init(value) }

    package static func + (lhs: TerminalText, rhs: TerminalText) -> TerminalText {
        var result = lhs
        result.pieces += rhs.pieces
        return result
    }

    package static func + (lhs: TerminalText, rhs: String) -> TerminalText { lhs + TerminalText(rhs) }

    package static func += (lhs: inout TerminalText, rhs: TerminalText) { lhs = lhs + rhs }

    /// This text without trailing spaces.
    package func trimmingTrailingSpaces() -> TerminalText {
        var copy = self
        while var last = copy.pieces.last {
            last.text = Terminal.trimEnd(last.text)
            if !last.text.isEmpty { copy.pieces[copy.pieces.count - 1] = last; break }
            copy.pieces.removeLast()
        }
        return copy
    }

    /// The text without styles (still unsanitized).
    package var plain: String { pieces.map(\.text).joined() }

    /// Terminal columns once rendered.
    package var columns: Int { Terminal.columns(TerminalText.visible(plain)) }

    /// What reaches the terminal: every piece made inert, SGR colour around styled pieces when `color`.
    package func rendered(color: Bool) -> String {
        var output = ""
        render(into: &output, color: color)
        return output
    }

    private func render(into output: inout String, color: Bool) {
        for piece in pieces {
            let safe = TerminalText.visible(piece.text)
            if color, let style = piece.style, !safe.isEmpty {
                output += "\u{1B}["
                output += style.rawValue
                output += "m"
                output += safe
                output += "\u{1B}[0m"
            } else {
                output += safe
            }
        }
    }

    /// Lines rendered into one text, each ending with a newline (one write for a whole view).
    package static func rendered(_ lines: [TerminalText], color: Bool) -> String {
        var output = ""
        output.reserveCapacity(lines.count * 48)
        for line in lines {
            line.render(into: &output, color: color)
            output += "\n"
        }
        return output
    }

    /// `text` with every character that could steer a terminal made visible and inert. Line breaks
    /// and tabs stay when `keepLineBreaks` (multi-line output), else they are shown too.
    ///   ESC → `^[`, BEL → `^G`, NUL → `^@`, DEL → `^?`, CR → `^M`; C1 (U+0080…U+009F), bidi
    ///   controls (U+202A…U+202E, U+2066…U+2069, U+200E, U+200F, U+061C) and line/paragraph
    ///   separators → `<U+202E>`.
    package static func visible(_ text: String, keepLineBreaks: Bool = true) -> String {
        // Fast path: nothing to change (the common case, checked on UTF-8 bytes; `·`, `…` and other
        // printable non-ASCII text pass it).
        if !mayNeedEscaping(text) { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if keepLineBreaks, value == 0x0A || value == 0x09 {
                result.append(scalar)
            } else if value < 0x20 {
                result.append(contentsOf: "^".unicodeScalars)
                result.append(Unicode.Scalar(UInt8(value + 0x40)))
            } else if value == 0x7F {
                result.append(contentsOf: "^?".unicodeScalars)
            } else if isInvisibleControl(value) {
                let hex = String(value, radix: 16, uppercase: true)
                result.append(contentsOf: "<U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)>".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether `text`'s UTF-8 holds a byte sequence that `visible` changes: a C0 control or DEL, a C1
    /// control (C2 80–9F), U+061C (D8 9C), or U+200E/F, U+2028–202E, U+2066–2069 (E2 80 8E/8F/A8–AE,
    /// E2 81 A6–A9). A cheap over-approximation is fine: the slow path decides.
    package static func mayNeedEscaping(_ text: String) -> Bool {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var index = 0
            let count = bytes.count
            while index < count {
                if index + 8 <= count, ByteWords.printableASCII(bytes, at: index) {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte < 0x80 {
                    if byte < 0x20 || byte == 0x7F { return true }
                } else if byte == 0xC2 {
                    if index + 1 < count, bytes[index + 1] < 0xA0 { return true }
                } else if byte == 0xD8 {
                    if index + 1 < count, bytes[index + 1] == 0x9C { return true }
                } else if byte == 0xE2, index + 2 < count {
                    let second = bytes[index + 1], third = bytes[index + 2]
                    if second == 0x80, third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third) { return true }
                    if second == 0x81, (0xA6...0xA9).contains(third) { return true }
                }
                index += 1
            }
            return false
        }
        var text = text
        return text.withUTF8(scan)
    }

    /// C1 controls, bidi embeddings/overrides/isolates/marks, and the Unicode line separators.
    package static func isInvisibleControl(_ value: UInt32) -> Bool {
        switch value {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }
}

/// When hookctl colours its output (`--color auto|always|never`).
package enum ColorChoice: String, Sendable, CaseIterable {
    case auto, always, never

    /// `auto`: only on a terminal, and not when `NO_COLOR` is set (any non-empty value) or `TERM=dumb`.
    package func enabled(environment: [String: String], isTerminal: Bool) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }
}

/// How wide the output may be, and whether lines may be cut to fit.
package struct TerminalLayout: Sendable, Equatable {
    /// The columns to lay out for.
    package var width: Int
    /// False when the output is not a terminal (a pipe, a file) and no width was asked for: then
    /// nothing is cut, long text is wrapped or left whole.
    package var cuts: Bool

    /// Widths below this get the narrow (card) layouts: phone terminals.
    package static let narrowWidth = 60

    package var isNarrow: Bool { width < TerminalLayout.narrowWidth }

    /// `text` cut to `columns` when this layout cuts, whole otherwise.
    package func fit(_ text: String, _ columns: Int) -> String { cuts ? Terminal.fit(text, columns) : text }

    /// `text` wrapped to `columns`; long words are broken only on a terminal.
    package func wrap(_ text: String, _ columns: Int) -> [String] { Terminal.wrap(text, columns: columns, breakWords: cuts) }

    /// A sentence as lines that fit the width on a terminal (wrapped at spaces, a long word such as a
    /// path broken only when it alone is wider); whole into a pipe or a file.
    package func paragraph(_ text: String) -> [String] { cuts ? Terminal.wrap(text, columns: width) : [text] }
}

/// Terminal geometry: the width to fit, and the columns a text takes (wide characters count two).
package enum Terminal {
    /// The terminal width to fit: `--width`, else `COLUMNS`, else the terminal's own size, else 80.
    package static func width(option: Int?, environment: [String: String], terminal: Int32?) -> Int {
        if let option, option > 0 { return option }
        if let columns = environment["COLUMNS"].flatMap({ Int(Text.trimmed($0)) }), columns > 0 { return columns }
        if let terminal, isatty(terminal) != 0 {
            var size = winsize()
            if ioctl(terminal, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        return 80
    }

    /// The layout for output to `terminal` (nil: not the process's own descriptor): an explicit
    /// `--width` or a real terminal cuts to fit; a pipe or a file gets every character.
    package static func layout(option: Int?, environment: [String: String], terminal: Int32?) -> TerminalLayout {
        let width = width(option: option, environment: environment, terminal: terminal)
        let isTerminal = terminal.map { isatty($0) != 0 } ?? false
        return TerminalLayout(width: width, cuts: option != nil || isTerminal)
    }

    /// The rows of the terminal on `descriptor`, when it is one.
    package static func rows(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard isatty(descriptor) != 0, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return Int(size.ws_row)
    }

    /// Terminal columns a text takes: East Asian wide characters and emoji take two.
    package static func columns(_ text: String) -> Int {
        // Printable ASCII (most of what is measured): one column a byte.
        if isPrintableASCII(text) { return text.utf8.count }
        // Text with a few simple non-ASCII characters (a cut message's `…`, `·`, `é`): one column a scalar.
        if let simple = simpleScalars(text, upTo: .max), !simple.cut { return simple.count }
        var total = 0
        for character in text { total += columns(character) }
        return total
    }

    package static func columns(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.isASCII { return 1 }
        if first.properties.isEmojiPresentation || character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// Cuts `text` to at most `width` terminal columns on a character boundary, ending with `…` when cut.
    package static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if isPrintableASCII(text) {
            guard text.utf8.count > width else { return text }
            var text = text
            return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[..<(width - 1)]), as: UTF8.self) } + "…"
        }
        // One column a scalar, each its own character: cut after `width - 1` of them.
        if let simple = simpleScalars(text, upTo: width) {
            guard simple.cut else { return text }
            var text = text
            let kept = simpleScalars(text, upTo: width - 1)?.end ?? 0
            return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[..<kept]), as: UTF8.self) } + "…"
        }
        guard columns(text) > width else { return text }
        var output = ""
        var used = 0
        for character in text {
            let size = columns(character)
            if used + size > width - 1 { break }
            output.append(character)
            used += size
        }
        return output + "…"
    }

    /// Scalars that are each a character of one column on their own, whatever surrounds them: no
    /// combining mark, joiner, variation selector, control, wide or emoji-presentation scalar among
    /// them (Latin-1 and Latin Extended letters, modifier letters, general punctuation such as `…` `·` `•`).
    package static func isSimpleScalar(_ value: UInt32) -> Bool {
        switch value {
        case 0x20...0x7E, 0xA1...0xAC, 0xAE...0x2FF, 0x2010...0x2027, 0x2030...0x205E: return true
        default: return false
        }
    }

    /// For text made only of `isSimpleScalar` scalars: how many of them there are up to `limit`, the
    /// UTF-8 offset after the last one counted, and whether more follow (`cut`). Nil for other text.
    package static func simpleScalars(_ text: String, upTo limit: Int) -> (count: Int, end: Int, cut: Bool)? {
        var text = text
        return text.withUTF8 { bytes -> (count: Int, end: Int, cut: Bool)? in
            var index = 0, count = 0, end = 0
            var cut = false
            while index < bytes.count {
                let lead = bytes[index]
                let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                guard index + length <= bytes.count else { return nil }
                var value = UInt32(lead) & (length == 1 ? 0x7F : length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                for offset in 1..<max(1, length) { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
                guard isSimpleScalar(value) else { return nil }
                if count < limit {
                    count += 1
                    end = index + length
                } else {
                    cut = true
                }
                index += length
            }
            return (count, end, cut)
        }
    }

    /// Whether every byte of `text` is printable ASCII (each one character of one column).
    package static func isPrintableASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes[ByteWords.skipPrintableASCII(bytes, from: 0)...].allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
    }

    /// Pads `text` with spaces to `width` columns (never cuts).
    package static func pad(_ text: String, _ width: Int) -> String {
        let used = columns(text)
        return used >= width ? text : text + String(repeating: " ", count: width - used)
    }

    /// Word-wraps `text` to lines of at most `columns` terminal columns; existing line breaks stay.
    /// A word longer than a line is broken across lines when `breakWords`, else it stands alone.
    package static func wrap(_ text: String, columns width: Int, breakWords: Bool = true) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = String(word)
                var size = columns(word)
                if used > 0, used + 1 + size <= width {
                    line += " " + word
                    used += 1 + size
                    continue
                }
                if used > 0 { lines.append(line); line = ""; used = 0 }
                while breakWords, size > width {
                    var head = ""
                    var headSize = 0
                    var rest = Substring(word)
                    while let character = rest.first, headSize + columns(character) <= width {
                        head.append(character)
                        headSize += columns(character)
                        rest.removeFirst()
                    }
                    if head.isEmpty, let character = rest.first { head.append(character); rest.removeFirst() }
                    lines.append(head)
                    word = String(rest)
                    size = columns(word)
                }
                line = word
                used = size
            }
            lines.append(line)
        }
        return lines
    }

    package static func trimEnd(_ text: String) -> String {
        var slice = Substring(text)
        while slice.last == " " { slice.removeLast() }
        return String(slice)
    }
}
