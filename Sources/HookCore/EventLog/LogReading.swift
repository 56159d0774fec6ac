/// One line of the event log as read from disk: its bytes, where it is, and its sequence number
/// when it could be read without parsing the whole line.
package struct LogLine: Sendable {
    package var bytes: ArraySlice<UInt8>
    package var file: String
    /// 1-based line number within `file`.
    package var number: Int

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The `seq` of a line hookctl wrote (`{"id":"…","seq":N,…`), found by a short byte scan; nil otherwise.
    package var quickSeq: Int? { LogLine.quickSeq(bytes) }

    package static let seqKey: [UInt8] = Array("\"seq\":".utf8)

    package static func quickSeq(_ bytes: ArraySlice<UInt8>) -> Int? {
        let window = bytes.prefix(160)
        guard window.count > seqKey.count else { return nil }
        var index = window.startIndex
        let last = window.endIndex - seqKey.count
        while index <= last {
            if window[index] == seqKey[0], window[index..<(index + seqKey.count)].elementsEqual(seqKey) {
                var cursor = index + seqKey.count
                var value = 0
                var digits = 0
                while cursor < bytes.endIndex, bytes[cursor] >= 48, bytes[cursor] <= 57, digits < 18 {
                    value = value * 10 + Int(bytes[cursor] - 48)
                    cursor += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            index += 1
        }
        return nil
    }

    /// Parses the line as an event; throws a message naming the file and line when it is corrupt.
    package func event() throws -> Event {
        do {
            let event = try Event(json: JSON.parse(Array(bytes)))
            guard event.seq != nil else { throw EventError.malformedRecord("no seq") }
            return event
        } catch let error as HookctlError {
            throw LogCorruption(file: file, line: number, reason: error.description)
        }
    }
}

/// A log line that is not an event: it is skipped with a warning, the rest is still read.
package struct LogCorruption: Error, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var reason: String
    package var description: String { "\(file):\(line): skipped a corrupt event line (\(reason))" }
}

/// Reads a file descriptor line by line from an offset, in chunks, keeping an unfinished last line
/// for the next call (the follower reads a file that is still being written).
package struct LineReader {
    package let fd: FileDescriptor
    package let file: String
    /// Offset just after the last complete line handed out.
    package private(set) var offset: Int
    package private(set) var lineNumber: Int
    private var pending: [UInt8] = []

    package init(fd: FileDescriptor, file: String, offset: Int = 0, lineNumber: Int = 0) {
        self.fd = fd
        self.file = file
        self.offset = offset
        self.lineNumber = lineNumber
    }

    /// Bytes after the last complete line that were read but end without a newline.
    package var unfinished: [UInt8] { pending }
    /// How many bytes at the start of `pending` are known to hold no newline.
    private var searchedPending = 0

    /// Reads to the current end of the file, calling `body` for each complete, non-empty line.
    /// `body` returns false to stop early.
    package mutating func readAvailable(_ body: (LogLine) throws -> Bool) throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var readOffset = offset + pending.count
        while true {
            let count = try onFile(file) { try fd.read(into: &chunk, at: readOffset) }
            if count == 0 { return }
            readOffset += count
            // Only the new bytes can hold the next newline: searching the unfinished line again after
            // every chunk made one long line cost quadratic time (an 8 MiB line: 28 s).
            let searchFrom = searchedPending
            pending.append(contentsOf: chunk[0..<count])
            var start = 0
            var stop = false
            var first = true
            while let newline = pending[(first ? searchFrom : start)...].firstIndex(of: 0x0A) {
                first = false
                lineNumber += 1
                var end = newline
                if end > start, pending[end - 1] == 0x0D { end -= 1 }
                let line = LogLine(bytes: pending[start..<end], file: file, number: lineNumber)
                start = newline + 1
                offset += line.bytes.count + (newline + 1 - end)
                if !line.bytes.isEmpty, !line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                    if try !body(line) { stop = true; break }
                }
            }
            pending.removeFirst(start)
            // After a stop the rest may still hold lines: the next call searches it from its start.
            searchedPending = stop ? 0 : pending.count
            if stop { return }
        }
    }

    /// Hands out what is left without a newline as a last line (a finished file whose writer died mid-line).
    package mutating func finish(_ body: (LogLine) throws -> Bool) rethrows {
        guard !pending.isEmpty else { return }
        lineNumber += 1
        let line = LogLine(bytes: pending[...], file: file, number: lineNumber)
        offset += pending.count
        pending = []
        searchedPending = 0
        _ = try body(line)
    }
}

/// The files of one event log and how to read them: `events.jsonl` (current) and the rotated
/// generations `events.1.jsonl` (newest) … `events.N.jsonl` (oldest).
package struct LogFiles: Sendable {
    package var directory: String

    package init(directory: String) { self.directory = directory }

    package var current: String { directory + "/events.jsonl" }

    package func generation(_ number: Int) -> String {
        number == 0 ? current : directory + "/events.\(number).jsonl"
    }

    /// Rotated generations present on disk, oldest first (highest number first).
    package func rotated() -> [String] {
        let names = (try? FileSystem.list(directory)) ?? []
        var numbers: [Int] = []
        for name in names where name.hasPrefix("events.") && name.hasSuffix(".jsonl") {
            let middle = name.dropFirst("events.".count).dropLast(".jsonl".count)
            if let number = Int(middle), number > 0 { numbers.append(number) }
        }
        return numbers.sorted(by: >).map(generation)
    }

    /// Every file of the log, oldest first.
    package func all() -> [String] {
        rotated() + (FileSystem.exists(current) ? [current] : [])
    }

    /// How far back from the log's end the sender looks for an event its hook has just logged.
    package static let recentWindow = 256 << 10

    /// Whether the event `id` is in the log, newest first: the current file, then `events.1.jsonl`, … up to
    /// generation `last`, within the log's last `window` bytes. No lock: a line being written is simply not
    /// found yet, and a rotation while searching only moves lines on to the file searched next (a file
    /// missing for a moment is skipped, not taken for the end). As state files: a link, FIFO or device in
    /// a file's place, or a file over `fileLimit` bytes, is skipped without blocking.
    package func contains(eventID id: String, through last: Int, window: Int = .max, fileLimit: Int = .max) -> Bool {
        let needle = Array("\"id\":\"\(id)\"".utf8)
        var left = window
        for number in 0...max(0, last) where left > 0 {
            guard let fd = try? FileDescriptor.open(generation(number), O_RDONLY | FileSystem.stateFileFlags) else { continue }
            let found: Bool = fd.closeAfter { fd in
                guard let info = try? fd.status(), (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= fileLimit else { return false }
                let size = Int(info.st_size), start = max(0, size - left)
                left -= size - start
                guard let bytes = try? fd.read(count: size - start, at: start) else { return false }
                return EventLog.contains(bytes, needle)
            }
            if found { return true }
        }
        return false
    }

    /// The sequence number of the last complete event line of `path` (a short read from the end).
    package static func lastSeq(of path: String) -> Int? {
        guard let fd = (try? FileSystem.openLogFile(path)) ?? nil else { return nil }
        return fd.closeAfter(lastSeq(fd:))
    }

    package static func lastSeq(fd: FileDescriptor) -> Int? {
        guard let info = try? fd.status() else { return nil }
        let size = Int(info.st_size)
        var window = 4096
        while true {
            let start = max(0, size - window)
            guard let bytes = try? fd.read(count: size - start, at: start), !bytes.isEmpty else { return nil }
            // Walk complete lines from the end; the first with a seq wins.
            var end = bytes.lastIndex(of: 0x0A) ?? -1
            while end > 0 {
                let lineStart = bytes[..<end].lastIndex(of: 0x0A).map { $0 + 1 }
                if lineStart == nil && start > 0 { break }  // the line may begin before the window
                if let seq = LogLine.quickSeq(bytes[(lineStart ?? 0)..<end]) { return seq }
                end = (lineStart ?? 0) - 1
            }
            if start == 0 || window >= 1 << 20 { return nil }
            window *= 4
        }
    }

    /// Reads the events with a sequence number above `after` (all when nil), oldest first, across
    /// every generation. Files that end at or before `after` are skipped without reading them.
    /// Corrupt lines go to `warn` and are skipped. `body` returns false to stop.
    package func read(after: Int?, files: [String]? = nil, warn: (String) -> Void,
                     _ body: (LogLine, Event) throws -> Bool) throws {
        for path in files ?? all() {
            if let after, let last = LogFiles.lastSeq(of: path), last <= after { continue }
            guard let fd = try FileSystem.openLogFile(path) else { continue }  // rotated away while listing
            defer { fd.close() }
            var reader = LineReader(fd: fd, file: path)
            var stop = false
            let handle: (LogLine) throws -> Bool = { line in
                if let after, let seq = line.quickSeq, seq <= after { return true }
                do {
                    let event = try line.event()
                    if let after, let seq = event.seq, seq <= after { return true }
                    if try !body(line, event) { stop = true; return false }
                } catch let corruption as LogCorruption {
                    warn(corruption.description)
                }
                return true
            }
            try reader.readAvailable(handle)
            if stop { return }
            try reader.finish(handle)
            if stop { return }
        }
    }

    /// The last `count` events, oldest first, reading generations from the newest until enough were found.
    package func last(_ count: Int, warn: (String) -> Void) throws -> [(LogLine, Event)] {
        guard count > 0 else { return [] }
        var newestFirst: [(LogLine, Event)] = []
        for path in all().reversed() {
            guard let fd = try FileSystem.openLogFile(path) else { continue }
            defer { fd.close() }
            var lines: [LogLine] = []
            var reader = LineReader(fd: fd, file: path)
            try reader.readAvailable { lines.append($0); return true }
            reader.finish { lines.append($0); return true }
            for line in lines.reversed() where newestFirst.count < count {
                do {
                    newestFirst.append((line, try line.event()))
                } catch let corruption as LogCorruption {
                    warn(corruption.description)
                }
            }
            if newestFirst.count >= count { break }
        }
        return newestFirst.reversed()
    }
}
