/// The one rule for text that leaves hookctl for a sink: agent text is attacker-controlled, and a
/// phone's lock screen, a chat client or a terminal tailing a file must never be driven by it.
///
/// Drops C0 and C1 control characters except newline and tab, whole ANSI escape sequences (CSI,
/// OSC, DCS/SOS/PM/APC strings, two-character escapes, in their 7-bit and 8-bit forms), and the
/// bidirectional override and isolate characters (U+202A–U+202E, U+2066–U+2069) that make text read
/// differently from what it says. A carriage return becomes nothing (CRLF becomes LF).
package enum OutgoingText {
    package static func clean(_ text: String) -> String {
        guard needsCleaning(text) else { return text }
        var output = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            switch value {
            case 0x1B:
                index = skipEscape(scalars, from: index + 1)
                continue
            case 0x9B:
                index = skipControlSequence(scalars, from: index + 1)
                continue
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
                index = skipString(scalars, from: index + 1)
                continue
            case 0x0A, 0x09:
                output.append(scalars[index])
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                break
            default:
                output.append(scalars[index])
            }
            index += 1
        }
        return String(output)
    }

    /// Whether `clean` would change anything (the common case, plain text, costs one pass and no copy).
    package static func needsCleaning(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            let value = scalar.value
            return (value < 0x20 && value != 0x0A && value != 0x09) || (value >= 0x7F && value <= 0x9F)
                || (value >= 0x202A && value <= 0x202E) || (value >= 0x2066 && value <= 0x2069)
        }
    }

    /// After ESC: the index past the whole sequence it starts.
    package static func skipEscape(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        guard start < scalars.count else { return start }
        switch scalars[start] {
        case "[": return skipControlSequence(scalars, from: start + 1)
        case "]", "P", "X", "^", "_": return skipString(scalars, from: start + 1)
        default:
            // ESC, intermediates (0x20–0x2F), then one final character: `ESC ( B`, `ESC c`, `ESC 7`.
            var index = start
            while index < scalars.count, (0x20...0x2F).contains(scalars[index].value) { index += 1 }
            return index < scalars.count ? index + 1 : index
        }
    }

    /// A CSI sequence's parameters and intermediates, up to and including its final byte (0x40–0x7E).
    /// A sequence broken by another control character ends there (the character is looked at again).
    package static func skipControlSequence(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count {
            let value = scalars[index].value
            if (0x40...0x7E).contains(value) { return index + 1 }
            if !(0x20...0x3F).contains(value) { return index }
            index += 1
        }
        return index
    }

    /// An OSC/DCS/SOS/PM/APC string, up to and including its terminator (BEL, ESC \ or ST). Unterminated,
    /// it runs to the end of the line (never past a newline, so the rest of a message survives).
    package static func skipString(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count {
            let value = scalars[index].value
            if value == 0x07 || value == 0x9C { return index + 1 }
            if value == 0x1B {
                return index + 1 < scalars.count && scalars[index + 1] == "\\" ? index + 2 : index + 1
            }
            if value == 0x0A { return index }
            index += 1
        }
        return index
    }
}
