/// Text helpers shared by every sink: safe truncation, secret redaction, time and duration formats.
package enum Text {
    /// 64-bit FNV-1a: a stable, dependency-free fingerprint (not a security hash).
    package static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `parts` with `separator` between them, joined by hand: the standard `joined(separator:)` runs
    /// generic here, and its first call in a process looks its conformance up through every one in the
    /// binary (0.17 M instructions on a hook's path).
    package static func join(_ parts: [String], separator: String) -> String {
        var result = ""
        for index in parts.indices {
            if index > 0 { result += separator }
            result += parts[index]
        }
        return result
    }

    /// Cuts `text` to at most `limit` characters (grapheme clusters), ending with `…` when cut.
    package static func truncate(_ text: String, characters limit: Int) -> String {
        guard limit > 0 else { return "" }
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }

    /// Cuts `text` to at most `limit` UTF-8 bytes without splitting a character, ending with `…` when cut.
    package static func truncate(_ text: String, utf8Bytes limit: Int) -> String {
        truncate(text, limit: limit, size: { $0.utf8.count })
    }

    /// Cuts to a UTF-16 length (Telegram and Discord count in UTF-16 code units).
    package static func truncate(_ text: String, utf16Units limit: Int) -> String {
        truncate(text, limit: limit, size: { $0.utf16.count })
    }

    /// Keeps whole characters while their total `size` (with the ellipsis) stays within `limit`.
    package static func truncate(_ text: String, limit: Int, size: (String) -> Int) -> String {
        guard size(text) > limit else { return text }
        let ellipsis = "…"
        let budget = limit - size(ellipsis)
        guard budget > 0 else { return "" }
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let characterSize = size(String(text[index]))
            if used + characterSize > budget { break }
            used += characterSize
            end = text.index(after: index)
        }
        return String(text[..<end]) + ellipsis
    }

    /// Word-wraps `text` into lines of at most `width` characters (a longer word stands on its own line).
    /// Existing line breaks are kept.
    package static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// Collapses whitespace runs (newlines included) to single spaces and trims the ends.
    package static func singleLine(_ text: String) -> String {
        if isSingleLine(text) { return text }
        // By hand, not `split(…).joined(separator:)`: that runs generic and costs a hook's first call a
        // conformance search through the binary (0.33 M instructions for a permission request's question).
        var result = ""
        var space = false
        for character in text {
            if isWhitespace(character) {
                space = !result.isEmpty
            } else {
                if space { result.append(" ") }
                result.append(character)
                space = false
            }
        }
        return result
    }

    /// Whether `text` is already what `singleLine` makes of it, decided on its UTF-8 bytes (the board
    /// and the event list put every message through `singleLine`): no control, no space at either end
    /// or twice in a row, and none of Unicode's other whitespace (U+0085, U+00A0, U+1680, U+2000–200A,
    /// U+2028/9, U+202F, U+205F, U+3000). Other text (`·`, `…`, any script) passes.
    package static func isSingleLine(_ text: String) -> Bool {
        if text.isEmpty { return true }
        var copy = text
        return copy.withUTF8 { bytes -> Bool in
            var previousSpace = true
            var index = 0
            let count = bytes.count
            while index < count {
                // Eight printable ASCII bytes without two spaces in a row (nor a space after one before them).
                if index + 8 <= count, ByteWords.printableASCII(bytes, at: index) {
                    let spaces = ByteWords.spaceLanes(bytes, at: index)
                    if spaces & (spaces << 8) == 0, !(previousSpace && spaces & 0x80 != 0) {
                        previousSpace = spaces >> 63 != 0
                        index += 8
                        continue
                    }
                }
                let byte = bytes[index]
                if byte < 0x80 {
                    if byte < 0x20 || byte == 0x7F || (byte == 0x20 && previousSpace) { return false }
                    previousSpace = byte == 0x20
                } else {
                    previousSpace = false
                    let second = index + 1 < count ? bytes[index + 1] : 0
                    let third = index + 2 < count ? bytes[index + 2] : 0
                    switch byte {
                    case 0xC2 where second == 0x85 || second == 0xA0: return false
                    case 0xE1 where second == 0x9A && third == 0x80: return false
                    case 0xE2 where second == 0x80 && ((0x80...0x8A).contains(third) || [0xA8, 0xA9, 0xAF].contains(third)): return false
                    case 0xE2 where second == 0x81 && third == 0x9F: return false
                    case 0xE3 where second == 0x80 && third == 0x80: return false
                    default: break
                    }
                }
                index += 1
            }
            return !previousSpace
        }
    }

    /// Whether `needle`'s UTF-8 bytes occur in `haystack`'s. A byte search, for prefilters on whole files:
    /// `String.contains(_:)` compares Characters and costs about 100 instructions a byte.
    package static func containsBytes(_ haystack: String, _ needle: String) -> Bool {
        var haystack = haystack
        var needle = needle
        return haystack.withUTF8 { text in
            needle.withUTF8 { pattern in
                guard let first = pattern.first else { return true }
                guard text.count >= pattern.count, let base = text.baseAddress, let wanted = pattern.baseAddress else { return false }
                var offset = 0
                let last = text.count - pattern.count
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                    offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + offset, wanted, pattern.count) == 0 { return true }
                    offset += 1
                }
                return false
            }
        }
    }

    /// `Character.isWhitespace`, with ASCII decided by its byte (tab to carriage return, space; `\r\n` is
    /// one character, a line feed): the Unicode property look-up is for the rest.
    package static func isWhitespace(_ character: Character) -> Bool {
        if let byte = character.asciiValue { return byte == 0x20 || (0x09...0x0D).contains(byte) }
        return character.isWhitespace
    }

    package static func trimmed(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, isWhitespace(first) { slice.removeFirst() }
        while let last = slice.last, isWhitespace(last) { slice.removeLast() }
        return String(slice)
    }

    /// Hides the secret parts of a URL (its path and query, user info) while keeping it recognisable:
    /// `https://push.example.com/n/abcd…` → `https://push.example.com/n/ab…(redacted)`.
    package static func redactURL(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return redactSecret(url) }
        let scheme = url[..<schemeEnd.lowerBound]
        var rest = url[schemeEnd.upperBound...]
        if let at = rest.firstIndex(of: "@"), !(rest[..<at].contains("/")) {
            rest = rest[rest.index(after: at)...]
        }
        let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let host = rest[..<hostEnd]
        let path = rest[hostEnd...]
        if path.isEmpty || path == "/" { return "\(scheme)://\(host)\(path)" }
        // Keep a short first path segment (e.g. `/n/` or `/api/`), hide what follows. A long first
        // segment may itself be the secret (Telegram's `/bot<TOKEN>/`), so it is hidden too.
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if segments.count <= 1 || segments[0].count > 12 {
            return "\(scheme)://\(host)/\(redactSecret(segments.joined(separator: "/")))"
        }
        return "\(scheme)://\(host)/\(segments[0])/\(redactSecret(segments.dropFirst().joined(separator: "/")))"
    }

    /// `abcdef123456` → `ab…(redacted)`: enough to tell two secrets apart, never enough to use one.
    package static func redactSecret(_ secret: String) -> String {
        if secret.isEmpty { return "" }
        return String(secret.prefix(secret.count >= 12 ? 2 : 0)) + "…(redacted)"
    }

    /// Replaces every occurrence of each secret in `text` with its redacted form.
    package static func scrub(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 && containsBytes(result, secret) {
            // By bytes, not Characters (`String.replacing` costs a hook 0.4 M instructions even when
            // nothing matches): a secret is valid UTF-8, so a match starts and ends on scalar boundaries.
            let pattern = Array(secret.utf8)
            let replacement = Array(redactSecret(secret).utf8)
            let bytes = Array(result.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                if index + pattern.count <= bytes.count, bytes[index] == pattern[0],
                   bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                    out += replacement
                    index += pattern.count
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
            result = String(decoding: out, as: UTF8.self)
        }
        return result
    }
}

/// Wall-clock time helpers (UTC, ISO 8601), without DateFormatter (which pulls in ICU). Hand-written
/// rather than Date.ISO8601FormatStyle: making the style costs a hook 1.4 M instructions, +20%
/// (bench/iso8601), and its parser is several times slower.
package enum WallClock {
    package static func nowEpoch() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// `2026-11-29T13:02:29.123Z`
    package static func iso8601(_ epoch: Double) -> String {
        // Saturate: a damaged or absurd time prints as a far date, never traps.
        let clamped = epoch.isFinite ? min(max(epoch, 0), 253_402_300_799) : 0
        let totalMillis = Int((clamped * 1000).rounded())
        let seconds = totalMillis / 1000
        let date = civil(days: seconds / 86_400)
        let secondOfDay = seconds % 86_400
        // Fixed width (the clamp keeps the year at four digits): digits written into 24 bytes, no
        // String built per field (`status --json` writes three times per agent).
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, at offset: Int, width: Int) {
            var rest = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        put(date.year, at: 0, width: 4)
        put(date.month, at: 5, width: 2)
        put(date.day, at: 8, width: 2)
        put(secondOfDay / 3600, at: 11, width: 2)
        put(secondOfDay / 60 % 60, at: 14, width: 2)
        put(secondOfDay % 60, at: 17, width: 2)
        put(totalMillis % 1000, at: 20, width: 3)
        bytes[4] = UInt8(ascii: "-"); bytes[7] = UInt8(ascii: "-"); bytes[10] = UInt8(ascii: "T")
        bytes[13] = UInt8(ascii: ":"); bytes[16] = UInt8(ascii: ":"); bytes[19] = UInt8(ascii: "."); bytes[23] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Epoch seconds of a UTC date and time, normalising fields out of range the way `timegm` does
    /// (month 13 is January of the next year, second 60 the next minute). Plain arithmetic: glibc's
    /// `gmtime_r`/`timegm` read the local time zone file on first use, which no UTC time needs.
    package static func epoch(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        let monthIndex = month - 1
        let carried = year + (monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12)
        let days = daysSinceEpoch(year: carried, month: monthIndex - (carried - year) * 12 + 1, day: 1) + day - 1
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date, month 1...12 (Howard Hinnant's
    /// `days_from_civil`, http://howardhinnant.github.io/date_algorithms.html).
    package static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (the inverse, `civil_from_days`).
    package static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Parses the ISO 8601 UTC forms hookctl and the agents write; nil otherwise.
    package static func parseISO8601(_ text: String) -> Double? {
        let digits = Array(text.utf8)
        guard digits.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for index in range {
                let byte = digits[index]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int32(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var fraction = 0.0
        var index = 19
        if index < digits.count, digits[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < digits.count, digits[index] >= 48 && digits[index] <= 57 {
                fraction += Double(digits[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        return Double(epoch(year: Int(year), month: Int(month), day: Int(day), hour: Int(hour), minute: Int(minute),
                            second: Int(second))) + fraction
    }
}

/// Durations as the config writes them: `500ms`, `5s`, `10m`, `24h`, `2d`, or a bare number of seconds.
package enum DurationText {
    /// The longest duration the config accepts (a year).
    package static let longest: Double = 366 * 86_400

    package static func parse(_ text: String) -> Double? {
        guard let seconds = parseUnbounded(text), seconds.isFinite, seconds <= longest else { return nil }
        return seconds
    }

    package static func parseUnbounded(_ text: String) -> Double? {
        let trimmed = Text.trimmed(text)
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            let number = trimmed.dropLast(suffix.count)
            if let value = Double(number), value >= 0, !number.isEmpty { return value * scale }
        }
        if let value = Double(trimmed), value >= 0 { return value }
        return nil
    }

    package static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e12 else { return "forever" }
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds < 120 { return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\((seconds * 10).rounded() / 10)s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded()))m" }
        if seconds < 172_800 { return "\(Int((seconds / 3600).rounded()))h" }
        return "\(Int((seconds / 86400).rounded()))d"
    }
}

/// Byte scans eight bytes at a time (SWAR: a 64-bit word as eight lanes), for the per-byte loops that
/// every command runs over every string it reads or prints: a JSON string's plain run, "is this
/// printable ASCII". Each answers only "this word is all plain"; the caller looks at the rest byte by byte.
package enum ByteWords {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always) package static func load(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt64 {
        UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self).littleEndian
    }

    /// A lane's high bit is set where the byte is 0 (lanes above a zero lane may be set too).
    @inline(__always) package static func zeroLanes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }

    /// A lane's high bit is set where the byte is below `limit` (at most 0x80).
    @inline(__always) package static func lanesBelow(_ word: UInt64, _ limit: UInt8) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highs
    }

    /// Whether the eight bytes at `offset` are all printable ASCII (0x20–0x7E).
    @inline(__always) package static func printableASCII(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        let word = load(bytes, offset)
        return (word & highs) | lanesBelow(word, 0x20) | zeroLanes(word ^ (ones &* 0x7F)) == 0
    }

    /// The high bit of each lane set exactly where the byte at `offset` + lane is a space (no lane
    /// above a hit is set falsely, unlike `zeroLanes`).
    @inline(__always) package static func spaceLanes(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        let word = load(bytes, offset) ^ (ones &* 0x20)
        let low7 = ones &* 0x7F
        return ~(((word & low7) &+ low7) | word | low7)
    }

    /// Whether one of the eight bytes at `offset` is `"` or `\`.
    @inline(__always) package static func holdsQuoteOrBackslash(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        let word = load(bytes, offset)
        return zeroLanes(word ^ (ones &* 0x22)) | zeroLanes(word ^ (ones &* 0x5C)) != 0
    }

    /// The first offset from `start` where the bytes are not all printable ASCII, in steps of eight
    /// (the byte there or one of the seven after it is not); `bytes.count` rounded down otherwise.
    @inline(__always) package static func skipPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index + 8 <= bytes.count, printableASCII(bytes, at: index) { index += 8 }
        return index
    }

    /// As `skipPrintableASCII`, but bytes above 0x7F count as plain, and `"` and `\` do not: a JSON
    /// string's run up to its next quote, escape or raw control.
    @inline(__always) package static func skipJSONStringRun(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index + 8 <= bytes.count {
            let word = load(bytes, index)
            // Bytes above 0x7F must not count as "below 0x20": only lanes whose high bit is clear are looked at.
            let special = (lanesBelow(word, 0x20) | zeroLanes(word ^ (ones &* 0x22)) | zeroLanes(word ^ (ones &* 0x5C)))
            if special != 0 { break }
            index += 8
        }
        return index
    }
}

/// A stable order of `count` positions by `before`, as a bottom-up merge sort over `[Int]`. The
/// standard library's stable sort would do, but its first use in a process instantiates the runtime
/// metadata of its run stack (`[Range<Int>]`, a protocol conformance scan): ~150 K instructions, more
/// than sorting the board's 200 sessions costs. `status` sorts once per run, so the start-up cost is all.
package func stableOrder(count: Int, by before: (Int, Int) -> Bool) -> [Int] {
    var order = Array(0..<count)
    guard count > 1 else { return order }
    var scratch = order
    var width = 1
    while width < count {
        var start = 0
        while start < count {
            let middle = min(start + width, count), end = min(start + 2 * width, count)
            var left = start, right = middle, out = start
            while left < middle, right < end {
                // Ties take the left (earlier) one: the order is stable.
                if before(order[right], order[left]) { scratch[out] = order[right]; right += 1 } else { scratch[out] = order[left]; left += 1 }
                out += 1
            }
            while left < middle { scratch[out] = order[left]; left += 1; out += 1 }
            while right < end { scratch[out] = order[right]; right += 1; out += 1 }
            start = end
        }
        swap(&order, &scratch)
        width *= 2
    }
    return order
}

extension Unicode.Scalar {
    /// `a`–`z` or `A`–`Z`: the letters of agent, event, host and variable names. A range test, not
    /// `properties.isAlphabetic` (a table look-up in the Unicode data, 300 instructions a character).
    package var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }

    /// An ASCII letter or digit.
    package var isASCIILetterOrDigit: Bool { isASCIILetter || ("0"..."9").contains(self) }
}
