/// A response body cut into lines as its bytes come: chunked framing undone first when `chunked`.
/// Memory stays bounded: a line past `lineLimit` is dropped up to its newline; a chunk-size line past 32 bytes ends the body.
package struct BodyLines {
    package var lineLimit: Int
    package var chunked = false
    private var line: [UInt8] = []
    private var overlong = false
    private var sizeLine: [UInt8] = []
    /// Bytes of the current chunk still to come; -1: reading a size line; -2: the CRLF after a chunk.
    private var remaining = -1

    package init(lineLimit: Int) { self.lineLimit = lineLimit }

    /// Feeds bytes; false once the body has ended (the last chunk) or its framing is broken.
    package mutating func feed(_ bytes: ArraySlice<UInt8>, _ emit: ([UInt8]) -> Void) -> Bool {
        guard chunked else { content(bytes, emit); return true }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if remaining > 0 {
                let take = min(remaining, bytes.endIndex - index)
                content(bytes[index..<(index + take)], emit)
                remaining -= take
                index += take
                if remaining == 0 { remaining = -2 }
            } else if remaining == -2 {
                // The CRLF after a chunk's data.
                if bytes[index] == 10 { remaining = -1 }
                index += 1
            } else {
                let byte = bytes[index]
                index += 1
                if byte == 10 {
                    let text = String(decoding: sizeLine, as: UTF8.self)
                    sizeLine = []
                    let hex = Text.trimmed(String(text.split(separator: ";").first ?? ""))
                    guard let size = Int(hex, radix: 16), size >= 0 else { return false }
                    if size == 0 { return false }
                    remaining = size
                } else {
                    sizeLine.append(byte)
                    if sizeLine.count > 32 { return false }
                }
            }
        }
        return true
    }

    private mutating func content(_ bytes: ArraySlice<UInt8>, _ emit: ([UInt8]) -> Void) {
        for byte in bytes {
            if byte == 10 {
                if !overlong, !line.isEmpty { emit(line) }
                line.removeAll(keepingCapacity: true)
                overlong = false
            } else if !overlong {
                line.append(byte)
                if line.count > lineLimit {
                    overlong = true
                    line.removeAll(keepingCapacity: true)
                }
            }
        }
    }
}
