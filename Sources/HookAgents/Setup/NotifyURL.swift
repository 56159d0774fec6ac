/// The relay URL `setup --notify-url` takes. It ends up in the YAML config, so it is checked
/// before anything is written; it is a bearer secret, so it is only ever shown redacted.
package struct NotifyURL: Sendable, Equatable {
    package var text: String
    /// Set when the URL is acceptable but not of the relay's `/n/<token>` shape.
    package var warning: String?

    package var redacted: String { Text.redactURL(text) }

    package init(_ text: String) throws {
        func fail(_ why: String) -> SetupError { .invalidURL(redacted: Text.redactURL(NotifyURL.printable(text)), reason: why) }
        let url: SinkURL
        do { url = try SinkURL(text) } catch { throw fail("it \(error)") }
        // A placeholder pasted as it is (`https://HOST/n/<token>`, `${TOKEN}`) is not a URL to keep.
        if url.rest.contains(where: { "{}$<>".contains($0) }) {
            throw fail("it contains characters that do not belong in a URL ({ } $ < >)")
        }
        self.text = text
        let segments = url.pathSegments
        if !(segments.count >= 2 && segments[segments.count - 2] == "n" && segments.last!.count >= 8) {
            warning = "\(url.redacted) does not look like a relay URL (https://HOST/n/TOKEN); using it anyway"
        }
        if url.isPlainHTTP, !url.isLoopback {
            let note = "the URL uses plain http: the token travels unencrypted"
            warning = warning.map { $0 + "; " + note } ?? note
        }
    }

    /// The URL with control characters made visible, for an error message.
    package static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : $0 }))
    }
}

extension NotifyURL {
    /// The URL for `--notify-url-file FILE|-`: the one line of a file, or the first line of standard
    /// input for `-`, so the secret is in no process list or shell history. Input is capped at 8 KiB;
    /// a pipe that stays silent for 30 s is an error (a terminal waits for the user).
    /// On a terminal, `-` prints `prompt`'s question to it, reads with echo off (the secret never
    /// shows on screen or in a recording of the terminal) and confirms with the URL redacted.
    package static func read(file: String, standardInput: Int32, workingDirectory: String, prompt: OutputStream? = nil) throws -> NotifyURL {
        let name = file == "-" ? "standard input" : file
        func fail(_ why: String) -> SetupError { .notifyURLFile(name: name, reason: why) }
        var bytes: [UInt8]
        if file == "-" {
            bytes = []
            let deadline = ContinuousClock.Instant.after(seconds: 30)
            let waitsForever = isatty(standardInput) == 1
            let echoOff = waitsForever ? EchoOff(standardInput) : nil
            if waitsForever, let prompt {
                prompt.write(Self.prompt + (echoOff == nil ? " (your terminal will show it)" : " (it is not shown)") + ": ")
            }
            defer {
                echoOff?.restore()
                // The Enter the user typed was not echoed either.
                if waitsForever, let prompt { prompt.write("\n") }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let input = FileDescriptor(rawValue: standardInput)
            while !bytes.contains(0x0A), bytes.count <= 8192 {
                let read: Int?
                do throws(Errno) {
                    read = try input.read(into: &chunk, until: waitsForever ? nil : deadline)
                } catch {
                    throw fail(errnoDescription(error.code))
                }
                guard let count = read else { throw fail("nothing arrived within 30 s") }
                if count == 0 { break }
                bytes.append(contentsOf: chunk[0..<count])
            }
            if let newline = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(newline...) }
        } else {
            let path = file.hasPrefix("/") ? file : workingDirectory + "/" + file
            do {
                guard let read = try FileSystem.read(path, limit: 8192) else { throw fail("no such file") }
                bytes = read
            } catch let error as SystemError {
                if case .io(_, _, let code) = error { throw fail(code == EFBIG ? "it is larger than 8 KiB" : errnoDescription(code)) }
                throw error
            }
        }
        if bytes.count > 8192 { throw fail("the first line is longer than 8 KiB") }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { Text.trimmed(String($0)) }.filter { !$0.isEmpty }
        guard let line = lines.first else { throw fail("it holds no URL") }
        if lines.count > 1 { throw fail("it holds more than one line; put only the URL in it") }
        let url = try NotifyURL(line)
        if file == "-", isatty(standardInput) == 1, let prompt { prompt.write("Read the notify URL: \(url.redacted)\n") }
        return url
    }

    /// What `--notify-url-file -` asks on a terminal.
    package static let prompt = "Paste the notify URL from the phone app, then press Enter"
}

/// The terminal's echo turned off while a secret is typed or pasted; `restore` puts it back, and so
/// does Ctrl-C (or a SIGTERM/SIGHUP) before the process ends, so the shell is never left without echo.
package struct EchoOff {
    package let descriptor: Int32
    package let saved: termios
    package let previous: [sighandler_t?]
    package static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Nil when `descriptor` is not a terminal whose echo could be turned off.
    package init?(_ descriptor: Int32) {
        var current = termios()
        guard tcgetattr(descriptor, &current) == 0 else { return nil }
        var quiet = current
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        echoOffDescriptor = descriptor
        echoOffSaved = current
        let handler: @convention(c) (Int32) -> Void = { number in
            var saved = echoOffSaved
            tcsetattr(echoOffDescriptor, TCSANOW, &saved)
            signal(number, SIG_DFL)
            raise(number)
        }
        previous = Self.signals.map { signal($0, handler) }
        guard tcsetattr(descriptor, TCSANOW, &quiet) == 0 else {
            for (number, old) in zip(Self.signals, previous) { signal(number, old) }
            return nil
        }
        self.descriptor = descriptor
        saved = current
    }

    package func restore() {
        var saved = self.saved
        tcsetattr(descriptor, TCSANOW, &saved)
        for (number, old) in zip(Self.signals, previous) { signal(number, old) }
    }
}

/// What EchoOff's signal handler restores (a C handler captures nothing); set before it is installed.
nonisolated(unsafe) private var echoOffDescriptor: Int32 = -1
nonisolated(unsafe) private var echoOffSaved = termios()
