/// A JSON document that keeps object key order and number spelling, so a settings file read and
/// written again changes only what hookctl changed.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written (`30`, `1.5e3`), so it round-trips unchanged.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    package static func int(_ value: Int) -> JSONValue { .number(String(value)) }
    package static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int(value))) }
        return .number(String(value))
    }

    package subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var intValue: Int? {
        guard case .number(var text) = self else { return nil }
        return text.withUTF8(JSON.int)
    }

    package var doubleValue: Double? {
        guard case .number(var text) = self else { return nil }
        return text.withUTF8(JSON.double)
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// A string, or the text of a scalar; nil for null, arrays and objects.
    package var scalarText: String? {
        switch self {
        case .string(let value): return value
        case .number(let value): return value
        case .bool(let value): return value ? "true" : "false"
        default: return nil
        }
    }
}

/// An ordered JSON object.
package struct JSONObject: Sendable, Equatable {
    package private(set) var entries: [(key: String, value: JSONValue)] = []
    /// Key → position, kept once the object is large: lookups stay O(1) for objects with thousands of
    /// keys (a hostile payload must not make parsing quadratic), while small objects scan their few keys.
    private var positions: [String: Int]?
    private static let indexThreshold = 32

    package init() {}
    package init(_ entries: [(String, JSONValue)]) {
        for (key, value) in entries { self[key] = value }
    }

    /// An object whose keys the caller knows are distinct (a document written in code): kept as
    /// given, no key compared or hashed. Lookups scan it until a key is added.
    package init(uniqueKeys entries: [(String, JSONValue)]) {
        self.entries = entries.map { (key: $0.0, value: $0.1) }
    }

    package var keys: [String] { entries.map(\.key) }
    package var isEmpty: Bool { entries.isEmpty }
    package var count: Int { entries.count }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        // Lengths first: most keys differ in length, and comparing two Strings costs far more.
        let length = key.utf8.count
        // Through the buffer: no entry (key and value) is copied out, retained and released.
        return entries.withUnsafeBufferPointer { buffer in
            for index in buffer.indices where buffer[index].key.utf8.count == length && buffer[index].key == key { return index }
            return nil
        }
    }

    package subscript(key: String) -> JSONValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                    if positions != nil { reindex() }
                }
            } else if let newValue {
                entries.append((key, newValue))
                if positions != nil {
                    positions![key] = entries.count - 1
                } else if entries.count > JSONObject.indexThreshold {
                    reindex()
                }
            }
        }
    }

    private mutating func reindex() {
        var index: [String: Int] = [:]
        index.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() { index[entry.key] = position }
        positions = index
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

/// Why a JSON text did not parse, with the 1-based line and column.
package struct JSONParseError: HookctlError {
    package var message: String
    package var line: Int
    package var column: Int
    package var exitCode: ExitCode { .dataError }
    package var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}

package enum JSON {
    package static func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { buffer in try read(buffer) { try $0.parseValue() } }
    }

    package static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in try read(buffer) { try $0.parseValue() } }
    }

    package static func parse(_ bytes: ArraySlice<UInt8>) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in try read(buffer) { try $0.parseValue() } }
    }

    /// Reads one JSON document with `body`, which takes its value apart as it likes (`readObject`,
    /// `parseString`, `skipValue`… of `JSONParser`) without a tree being built; text after the value is
    /// an error, as for `parse`.
    package static func read<T>(_ bytes: ArraySlice<UInt8>, _ body: (inout JSONParser) throws -> T) throws -> T {
        try bytes.withUnsafeBufferPointer { buffer in try read(buffer, body) }
    }

    package static func read<T>(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (inout JSONParser) throws -> T) throws -> T {
        var parser = JSONParser(bytes: buffer)
        parser.skipWhitespace()
        let value = try body(&parser)
        parser.skipWhitespace()
        if parser.index < buffer.count { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// A JSON number's text as an integer: itself when it is one, else its value when that is a whole
    /// number below 9e15 (`1.0`, `3e2`); nil otherwise.
    package static func int(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        // The usual case, a few digits, without making a String.
        let negative = text.first == UInt8(ascii: "-")
        let digits = negative ? text.count - 1 : text.count
        if digits > 0, digits <= 18 {
            var value = 0
            var plain = true
            for byte in text[(negative ? 1 : 0)...] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { plain = false; break }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            if plain { return negative ? -value : value }
        }
        let string = String(decoding: text, as: UTF8.self)
        return Int(string) ?? Double(string).flatMap { $0.isFinite && abs($0) < 9e15 ? Int($0) : nil }
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// A JSON number's text as a Double, rounded correctly (as `Double(String)`, which it falls back to).
    /// The usual case, at most 15 digits and no exponent, is computed directly: the digits as an integer
    /// below 2^53 and a power of ten up to 10^22 are both exact, so one division rounds correctly.
    package static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let negative = text.first == UInt8(ascii: "-")
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1
        var plain = text.count > (negative ? 1 : 0)
        for byte in text[(negative ? 1 : 0)...] {
            if byte == UInt8(ascii: "."), fraction < 0 { fraction = 0; continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 15 else { plain = false; break }
            mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
            digits += 1
            if fraction >= 0 { fraction += 1 }
        }
        if plain, fraction != 0 {
            let value = Double(mantissa) / exactPowersOfTen[max(0, fraction)]
            return negative ? -value : value
        }
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// Compact serialization (one line), as sent over HTTP and written to JSON-lines files.
    package static func serialize(_ value: JSONValue) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output, indent: nil, level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// Pretty serialization with the given indent, as editors and the agents themselves write settings files.
    package static func serializePretty(_ value: JSONValue, indent: String = "  ") -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output, indent: Array(indent.utf8), level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    package static func quote(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + 2)
        writeString(text, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Writes `value` as UTF-8 into one byte buffer: no String is built per value or per scalar.
    package static func write(_ value: JSONValue, into output: inout [UInt8], indent: [UInt8]?, level: Int) {
        func newline(_ level: Int) {
            guard let indent else { return }
            output.append(0x0A)
            for _ in 0..<level { output.append(contentsOf: indent) }
        }
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            if items.isEmpty { output.append(contentsOf: "[]".utf8); return }
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(level + 1)
                write(item, into: &output, indent: indent, level: level + 1)
            }
            newline(level)
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty { output.append(contentsOf: "{}".utf8); return }
            output.append(UInt8(ascii: "{"))
            for (index, entry) in object.entries.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(level + 1)
                writeString(entry.key, into: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(UInt8(ascii: " ")) }
                write(entry.value, into: &output, indent: indent, level: level + 1)
            }
            newline(level)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Whether `writeString` would change anything: quotes, backslashes, control characters, DEL, U+2028/9.
    package static func needsEscaping(_ text: String) -> Bool {
        scan(text.utf8, ascii: true)
    }

    /// Whether UTF-8 `bytes` hold, raw, a scalar above U+007F of `escapedAsUnicode` (a JSON text written
    /// before those were escaped).
    package static func holdsRawUnicodeEscapes<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        scan(bytes, ascii: false)
    }

    /// One pass over the bytes: the scalars above U+007F that `escapedAsUnicode` names, and with
    /// `ascii` also the quote, the backslash, C0 and DEL.
    private static func scan<Bytes: Sequence<UInt8>>(_ bytes: Bytes, ascii: Bool) -> Bool {
        var before2: UInt8 = 0, before1: UInt8 = 0
        for byte in bytes {
            if ascii, byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return true }
            // U+0080–U+009F (C2 80–9F), U+061C (D8 9C).
            if before1 == 0xC2, byte <= 0x9F { return true }
            if before1 == 0xD8, byte == 0x9C { return true }
            // U+200E/F, U+2028/9, U+202A–E (E2 80 …), U+2066–9 (E2 81 A6–A9).
            if before2 == 0xE2, before1 == 0x80, byte == 0x8E || byte == 0x8F || (0xA8...0xAE).contains(byte) { return true }
            if before2 == 0xE2, before1 == 0x81, (0xA6...0xA9).contains(byte) { return true }
            before2 = before1
            before1 = byte
        }
        return false
    }

    /// Scalars written as `\uXXXX` although JSON allows them raw: C1 controls (U+009B is CSI to many
    /// terminals), the bidi controls that reorder what a reader sees, and U+2028/9 (line breaks to
    /// JavaScript). The parsed value is the same; a terminal showing the JSON is not driven by it.
    package static func escapedAsUnicode(_ value: UInt32) -> Bool {
        value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || value == 0x061C || value == 0x200E || value == 0x200F
            || (0x2028...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    package static func writeString(_ text: String, into output: inout String) {
        var bytes: [UInt8] = []
        writeString(text, into: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    /// `text` as a JSON string, quoted and escaped, appended to `output` byte by byte: runs of bytes
    /// that need nothing (plain ASCII, and the scalars above U+007F not in `escapedAsUnicode`) are
    /// copied whole; only the others are decoded.
    package static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { appendEscaped($0, into: &output) }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var runStart = 0
        var index = 0
        let count = bytes.count
        func flush(_ end: Int) {
            if end > runStart { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end])) }
        }
        func escaped(_ letter: UInt8) {
            output.append(UInt8(ascii: "\\"))
            output.append(letter)
        }
        func unicodeEscape(_ value: UInt32) {
            escaped(UInt8(ascii: "u"))
            var shift: UInt32 = 16
            while shift > 0 {
                shift -= 4
                output.append(hexDigits[Int(value >> shift & 0xF)])
            }
        }
        while index < count {
            // Plain ASCII eight bytes at a time (no quote, backslash, control or DEL among them).
            if index + 8 <= count, ByteWords.printableASCII(bytes, at: index), !ByteWords.holdsQuoteOrBackslash(bytes, at: index) {
                index += 8
                continue
            }
            let byte = bytes[index]
            if byte >= 0x20, byte < 0x7F, byte != 0x22, byte != 0x5C { index += 1; continue }
            if byte < 0x80 {
                flush(index)
                switch byte {
                case 0x22: escaped(UInt8(ascii: "\""))
                case 0x5C: escaped(UInt8(ascii: "\\"))
                case 0x0A: escaped(UInt8(ascii: "n"))
                case 0x0D: escaped(UInt8(ascii: "r"))
                case 0x09: escaped(UInt8(ascii: "t"))
                case 0x08: escaped(UInt8(ascii: "b"))
                case 0x0C: escaped(UInt8(ascii: "f"))
                default: unicodeEscape(UInt32(byte))  // the other C0 controls and DEL
                }
                index += 1
                runStart = index
                continue
            }
            // A scalar above U+007F (a Swift string is valid UTF-8): its length from the lead byte.
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            guard index + length <= count else { break }
            var value = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
            if escapedAsUnicode(value) {
                flush(index)
                unicodeEscape(value)
                index += length
                runStart = index
            } else {
                index += length
            }
        }
        flush(count)
    }
}

/// The one JSON reader: a cursor over UTF-8 bytes that builds a `JSONValue` tree (`parseValue`) or,
/// for a caller that knows what it wants, hands out an object's keys as bytes and reads each value
/// as it asks (`readObject`, `readString`, `readDouble`, `skipValue`…), so no tree, no key string and
/// no number text is made. Used only inside `JSON.read`, which owns the bytes.
package struct JSONParser {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0
    package var depth = 0
    package static let maxDepth = 512

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A UTF-8 byte order mark is tolerated, as editors on some systems write one.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    package func error(_ message: String) -> JSONParseError {
        var line = 1
        var column = 1
        for byte in bytes[0..<min(index, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return JSONParseError(message: message, line: line, column: column)
    }

    @inline(__always) package mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// The next byte, nil at the end (whitespace is not skipped).
    package var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    // MARK: - The tree

    package mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[try numberBounds()]), as: UTF8.self))
        default: throw error("unexpected character")
        }
    }

    package mutating func parseArray() throws -> JSONValue {
        var items: [JSONValue] = []
        try readArray { parser in items.append(try parser.parseValue()) }
        return .array(items)
    }

    package mutating func parseObject() throws -> JSONValue {
        var object = JSONObject()
        try readObject { key, parser in
            // A key that repeats keeps its first place and takes the last value.
            object[String(decoding: key, as: UTF8.self)] = try parser.parseValue()
        }
        return .object(object)
    }

    // MARK: - Taking values apart without a tree

    /// Calls `body` for each element of the array at the cursor; `body` must read the element.
    package mutating func readArray(_ body: (inout JSONParser) throws -> Void) throws {
        guard next == UInt8(ascii: "[") else { throw error("expected an array") }
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if next == UInt8(ascii: "]") { index += 1; return }
        while true {
            skipWhitespace()
            try body(&self)
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return }
            throw error("expected ',' or ']'")
        }
    }

    /// Calls `body` with each key of the object at the cursor (its UTF-8 bytes, escapes decoded; valid
    /// only during the call) with the cursor on its value, which `body` must read or skip.
    package mutating func readObject(_ body: (UnsafeBufferPointer<UInt8>, inout JSONParser) throws -> Void) throws {
        guard next == UInt8(ascii: "{") else { throw error("expected an object") }
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if next == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard next == UInt8(ascii: "\"") else { throw error("expected a key string") }
            let (range, escaped) = try stringBounds()
            var decoded = escaped ? decodeString(range) : ""
            skipWhitespace()
            guard next == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            if escaped {
                try decoded.withUTF8 { try body($0, &self) }
            } else {
                try body(UnsafeBufferPointer(rebasing: bytes[range]), &self)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            throw error("expected ',' or '}'")
        }
    }

    /// Reads any value and drops it, checking it as `parseValue` would, building nothing.
    package mutating func skipValue() throws {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try readObject { _, parser in try parser.skipValue() }
        case UInt8(ascii: "["): try readArray { try $0.skipValue() }
        case UInt8(ascii: "\""): _ = try stringBounds()
        case UInt8(ascii: "t"): try expectWord("true")
        case UInt8(ascii: "f"): try expectWord("false")
        case UInt8(ascii: "n"): try expectWord("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try numberBounds()
        default: throw error("unexpected character")
        }
    }

    /// The string at the cursor; any other value is read and gives nil (as `JSONValue.stringValue`).
    package mutating func readString() throws -> String? {
        guard next == UInt8(ascii: "\"") else { try skipValue(); return nil }
        return try parseString()
    }

    /// The boolean at the cursor; any other value is read and gives nil (as `JSONValue.boolValue`).
    package mutating func readBool() throws -> Bool? {
        switch next {
        case UInt8(ascii: "t"): try expectWord("true"); return true
        case UInt8(ascii: "f"): try expectWord("false"); return false
        default: try skipValue(); return nil
        }
    }

    /// The number at the cursor as `JSONValue.doubleValue` gives it; any other value gives nil.
    package mutating func readDouble() throws -> Double? {
        guard let text = try numberText() else { return nil }
        return JSON.double(text)
    }

    /// The number at the cursor as `JSONValue.intValue` gives it; any other value gives nil.
    package mutating func readInt() throws -> Int? {
        guard let text = try numberText() else { return nil }
        return JSON.int(text)
    }

    private mutating func numberText() throws -> UnsafeBufferPointer<UInt8>? {
        guard let byte = next, byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
            try skipValue()
            return nil
        }
        return UnsafeBufferPointer(rebasing: bytes[try numberBounds()])
    }

    // MARK: - Tokens

    package mutating func expectWord(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else {
            throw error("expected \(word)")
        }
        index += count
    }

    @inline(__always) private func isDigit(_ position: Int) -> Bool {
        position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9")
    }

    /// Where the number at the cursor lies (its grammar checked); the cursor moves past it.
    package mutating func numberBounds() throws -> Range<Int> {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while isDigit(index) { index += 1 }
        if index == digitsStart { throw error("invalid number") }
        if next == UInt8(ascii: ".") {
            index += 1
            let fraction = index
            while isDigit(index) { index += 1 }
            if index == fraction { throw error("invalid number") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            index += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
            let exponent = index
            while isDigit(index) { index += 1 }
            if index == exponent { throw error("invalid number") }
        }
        return start..<index
    }

    package mutating func parseString() throws -> String {
        let (range, escaped) = try stringBounds()
        return escaped ? decodeString(range) : String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Checks the string at the cursor (its escapes, no raw control character, its end) and moves past
    /// it; returns the bytes between its quotes and whether they hold an escape.
    package mutating func stringBounds() throws -> (Range<Int>, escaped: Bool) {
        index += 1
        let start = index
        var escaped = false
        while true {
            // Skip the plain bytes of a run at once, eight at a time, then one by one.
            index = ByteWords.skipJSONStringRun(bytes, from: index)
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start..<(index - 1), escaped)
            }
            if byte < 0x20 { throw error("control character in string") }
            escaped = true
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                continue
            case UInt8(ascii: "u"):
                _ = try parseHex4()
            default:
                throw error("invalid escape in string")
            }
        }
    }

    /// The text of a string whose bytes `stringBounds` checked and found escapes in. Invalid UTF-8
    /// becomes U+FFFD; a lone or mismatched surrogate escape too.
    private func decodeString(_ range: Range<Int>) -> String {
        var scalars = String.UnicodeScalarView()
        var position = range.lowerBound
        var runStart = position
        func flush(_ end: Int) {
            if end > runStart {
                scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<end]), as: UTF8.self).unicodeScalars)
            }
        }
        func hex4(at offset: Int) -> UInt32 {
            var value: UInt32 = 0
            for byte in bytes[offset..<(offset + 4)] {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value * 16 + UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value * 16 + UInt32(byte - UInt8(ascii: "a") + 10)
                default: value = value * 16 + UInt32(byte - UInt8(ascii: "A") + 10)
                }
            }
            return value
        }
        while position < range.upperBound {
            guard bytes[position] == UInt8(ascii: "\\") else { position += 1; continue }
            flush(position)
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = hex4(at: position)
                position += 4
                if (0xD800...0xDBFF).contains(code) {
                    if position + 1 < range.upperBound, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        let low = hex4(at: position + 2)
                        position += 6
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalars.append("\u{FFFD}")
                            code = low
                        }
                    } else {
                        code = 0xFFFD
                    }
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: scalars.append(Unicode.Scalar(escape))  // `"`, `\`, `/`
            }
            runStart = position
        }
        flush(range.upperBound)
        return String(scalars)
    }

    package mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    package mutating func enter() throws {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting too deep") }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes spell `text` (a JSON key compared without making a String of it).
    @inline(__always) package func spells(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && (count == 0 || memcmp(baseAddress!, text.utf8Start, count) == 0)
    }
}

/// Writes one JSON document straight into UTF-8 bytes, member by member, exactly as `JSON.serialize`
/// writes the same tree: for a large document made only to be printed (`status --json`), where
/// building the tree and freeing it cost more than writing it.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's key; its value follows. Keys are written as they are: literals of plain ASCII
    /// without quotes, backslashes or controls (checked in debug builds).
    package mutating func key(_ name: StaticString) {
        separate()
        let key = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        assert(!JSON.needsEscaping(String(decoding: key, as: UTF8.self)))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member's key made at run time, escaped as any string.
    package mutating func key(_ name: String) {
        separate()
        JSON.writeString(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    package mutating func string(_ text: String) {
        separate()
        JSON.writeString(text, into: &bytes)
    }

    /// Ends the document with a line break (a JSON-lines record, a document printed on a terminal).
    package mutating func endLine() { bytes.append(0x0A) }

    /// The text, or null.
    package mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    package mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// A value already made as a tree.
    package mutating func value(_ value: JSONValue) {
        separate()
        JSON.write(value, into: &bytes, indent: nil, level: 0)
    }
}

/// A dotted path into a JSON document (`tool_input.questions.0.question`): object keys, and array
/// indexes where the value is an array.
package enum JSONPath {
    /// The value at a dotted path of a payload (`workspace_roots.0`, `error.message`).
    package static func value(at path: String, in object: JSONObject) -> JSONValue? {
        var current: JSONValue = .object(object)
        for part in path.split(separator: ".") {
            if let index = Int(part), let array = current.arrayValue {
                guard index >= 0, index < array.count else { return nil }
                current = array[index]
            } else if let next = current[String(part)] {
                current = next
            } else {
                return nil
            }
        }
        return current
    }
}
