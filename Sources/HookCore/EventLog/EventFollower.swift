/// Streams events as they are recorded: inotify on the state directory wakes it, it reads the new
/// complete lines of `events.jsonl` from where it stopped, and hands out each event once, in order.
///
/// Rotation: the follower keeps the file it has open (even after it was renamed or deleted) and
/// reads it to its end, then catches up from the rotated generations by sequence number, then
/// reads the new current file. Every event with a sequence number above the last one handed out is
/// delivered exactly once, so a reconnecting client that passes its last seen seq misses nothing.
package struct EventFollower {
    package var files: LogFiles
    /// The last sequence number already delivered; only later events are handed out.
    package private(set) var lastSeq: Int
    /// A descriptor whose hang-up ends the stream (standard output: the SSH channel went away).
    package var hangupDescriptor: Int32?
    /// Checked on every wake-up (and at least every `pollInterval`); true ends the stream.
    package var shouldStop: () -> Bool = { false }
    package var pollInterval: Double = 1.0
    /// A descriptor whose input wakes the loop early to check `shouldStop` (a live board's keyboard).
    package var wakeDescriptor: Int32?

    package init(files: LogFiles, after lastSeq: Int, hangupDescriptor: Int32? = nil) {
        self.files = files
        self.lastSeq = lastSeq
        self.hangupDescriptor = hangupDescriptor
    }

    /// Whether a batch of inotify records names one of the log's files (`events….jsonl`), or lost some.
    package static func namesLogFile(_ records: ArraySlice<UInt8>) -> Bool {
        let header = MemoryLayout<inotify_event>.size
        var offset = records.startIndex
        while offset + header <= records.endIndex {
            let mask = records[(offset + 4)..<(offset + 8)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { return true }  // records were lost: check anyway
            let length = records[(offset + 12)..<(offset + 16)].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
            let name = records[(offset + header)..<min(records.endIndex, offset + header + length)].prefix { $0 != 0 }
            if name.starts(with: Array("events".utf8)), name.reversed().starts(with: Array(".jsonl".utf8).reversed()) { return true }
            offset += header + length
        }
        return false
    }

    private struct OpenFile {
        var fd: FileDescriptor
        var inode: UInt64
        var reader: LineReader
    }

    /// Runs until `deliver` returns false, the hang-up descriptor closes, or `shouldStop` says so.
    package mutating func run(warn: (String) -> Void, deliver: (LogLine, Event) -> Bool) throws {
        try FileSystem.makeDirectories(files.directory)
        let notify = FileDescriptor(rawValue: inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)))
        guard notify.rawValue >= 0 else { throw SystemError.io(path: files.directory, operation: .watchInit, errno: errno) }
        defer { notify.close() }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM)
        guard inotify_add_watch(notify.rawValue, files.directory, mask) >= 0 else {
            throw SystemError.io(path: files.directory, operation: .watchAdd, errno: errno)
        }
        // The watch exists before anything is read: nothing written from here on can be missed.
        var current: OpenFile?
        defer { current?.fd.close() }
        var stopped = false
        var last = lastSeq
        defer { lastSeq = last }
        func emit(_ line: LogLine) -> Bool {
            if let seq = line.quickSeq, seq <= last { return true }
            do {
                let event = try line.event()
                guard let seq = event.seq, seq > last else { return true }
                last = seq
                if !deliver(line, event) { stopped = true; return false }
            } catch let corruption as LogCorruption {
                warn(corruption.description)
            } catch {}
            return true
        }
        func catchUp() throws {
            // Open the current file first, then read what was rotated before it: a rotation in between
            // leaves this file among the generations, read by seq, and the next check moves on.
            if let fd = (try? FileSystem.openLogFile(files.current)) ?? nil {
                let info = (try? fd.status()) ?? stat()
                current = OpenFile(fd: fd, inode: UInt64(info.st_ino), reader: LineReader(fd: fd, file: files.current))
            }
            try files.read(after: last, files: files.rotated(), warn: warn) { line, _ in emit(line) }
            if stopped { return }
            try current?.reader.readAvailable(emit)
        }
        try catchUp()
        var buffer = [UInt8](repeating: 0, count: 8192)
        while !stopped, !shouldStop() {
            var watched = [(notify, events: Int16(POLLIN))]
            if let hangupDescriptor { watched.append((FileDescriptor(rawValue: hangupDescriptor), 0)) }
            if let wakeDescriptor { watched.append((FileDescriptor(rawValue: wakeDescriptor), Int16(POLLIN))) }
            let events: [Int16]
            do throws(Errno) {
                events = try FileDescriptor.poll(watched, timeout: pollInterval)
            } catch {
                throw SystemError.io(path: files.directory, operation: .watchPoll, errno: error.code)
            }
            if hangupDescriptor != nil, events[1] & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
            if let wake = events.last, wakeDescriptor != nil, wake != 0, shouldStop() { return }
            // Only changes to the log's files matter (board.state is rewritten on every append too).
            var aboutLog = events.allSatisfy { $0 == 0 }  // a periodic wake-up checks anyway
            while true {
                let count = (try? notify.read(into: &buffer)) ?? 0
                if count <= 0 { break }
                aboutLog = aboutLog || EventFollower.namesLogFile(buffer[0..<count])
            }
            if shouldStop() { return }
            if !aboutLog { continue }
            try current?.reader.readAvailable(emit)
            if stopped { return }
            let onDisk = FileSystem.status(files.current).map { UInt64($0.st_ino) }
            if let open = current, onDisk == open.inode { continue }
            if current == nil, onDisk == nil { continue }
            // Rotated (or first created): finish the old file, then catch up by sequence number.
            if var old = current {
                try old.reader.readAvailable(emit)
                if stopped { return }
                old.reader.finish(emit)
                old.fd.close()
                current = nil
            }
            try catchUp()
        }
    }
}
