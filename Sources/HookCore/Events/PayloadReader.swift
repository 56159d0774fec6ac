/// Reads a hook payload from standard input without ever hanging: stops at the first complete JSON
/// document, at end of input, at a size cap, or at a time limit (some hosts never close stdin).
package struct PayloadReader {
    package var limit = 1 << 20
    package var timeLimit: Duration = .seconds(2)

    package struct Input {
        package var bytes: [UInt8]
        package var truncated: Bool
        package var timedOut: Bool
        /// The payload parsed, when the reader parsed it to see it was complete (nil: not parsed here).
        package var document: JSONValue? = nil
    }

    package func read(fd: Int32) -> Input {
        let input = FileDescriptor(rawValue: fd)
        if input.isTerminal { return Input(bytes: [], truncated: false, timedOut: false) }
        let deadline = ContinuousClock.now + timeLimit
        // The chunk is not zero-filled first: read(2) fills what is used (zeroing 64 KiB cost a hook 65 K instructions).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { chunk in
            var bytes: [UInt8] = []
            while true {
                let read: Int?
                do { read = try input.read(into: UnsafeMutableRawBufferPointer(chunk), until: deadline) } catch {
                    return Input(bytes: bytes, truncated: false, timedOut: false)
                }
                guard let count = read else { return Input(bytes: bytes, truncated: false, timedOut: true) }
                if count == 0 { return Input(bytes: bytes, truncated: false, timedOut: false) }
                bytes.append(contentsOf: UnsafeMutableBufferPointer(rebasing: chunk[0..<count]))
                if bytes.count >= limit {
                    bytes.removeSubrange(limit...)
                    return Input(bytes: bytes, truncated: true, timedOut: false)
                }
                // A complete JSON object with nothing more waiting: done, even if the writer keeps stdin open.
                if Self.endsWithClosingBrace(bytes), !input.hasInput, let document = try? JSON.parse(bytes) {
                    return Input(bytes: bytes, truncated: false, timedOut: false, document: document)
                }
            }
        }
    }

    package static func endsWithClosingBrace(_ bytes: [UInt8]) -> Bool {
        for byte in bytes.reversed() {
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { continue }
            return byte == UInt8(ascii: "}")
        }
        return false
    }

    package init(limit: Int = 1 << 20, timeLimit: Duration = .seconds(2)) {
        self.limit = limit
        self.timeLimit = timeLimit
    }
}
