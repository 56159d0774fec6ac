import Synchronization

/// Plain-HTTP requests to a host given as an IP address, over sockets hookctl opens itself. Loading
/// libcurl costs about what the curl program's whole run does (its ~30 libraries: ~10 M instructions,
/// 4–5 ms), which a sender a hook has just started would pay before its first push; a relay on
/// loopback or the LAN (`http://127.0.0.1:8080/…`, `http://192.168.1.5/…`) needs none of it.
/// Everything else goes through libcurl (`HTTPClient`): https, a host name to resolve (libcurl
/// resolves within a deadline), credentials in the URL, and every request while `http_proxy` or
/// `all_proxy` is set (libcurl honours them and `no_proxy`, as the curl program does).
///
/// HTTP/1.1, bodies sent with `Content-Length`; answers framed by `Content-Length`, chunked, or by the
/// connection's end; interim 1xx answers skipped; at most 64 KiB of headers and 1 MiB of body kept,
/// malformed framing an error. A connection is kept for the next request while the server allows it
/// (keep-alive); a request whose kept connection turns out closed before any answer is sent once more
/// on a fresh one, as libcurl does. Every wait is bounded by the request's connect and total timeouts
/// and by the caller's deadline.
package enum SocketHTTP {
    /// Whether `url` is sent here rather than through libcurl.
    package static func canSend(url: String) -> Bool { Address(url: url) != nil }

    /// As `HTTPClient.send`: every request at once, one response each, in order; a request still
    /// running at `deadline` is abandoned (nil: the caller words it). nil when a request is not
    /// this client's (`canSend`): libcurl sends them all.
    package static func send(_ requests: [HTTPRequest], deadline: ContinuousClock.Instant,
                     whileWaiting: (after: Duration, work: () -> Void)?) -> [HTTPResponse?]? {
        let addresses = requests.compactMap { Address(url: $0.url) }
        guard addresses.count == requests.count else { return nil }
        let start = ContinuousClock.now
        let transfers = zip(requests, addresses).map { Transfer($0, address: $1, start: start) }
        var waiting = whileWaiting.map { (at: start + $0.after, work: $0.work) }
        while true {
            var entries: [pollfd] = []
            var wake = deadline
            for transfer in transfers where transfer.response == nil {
                transfer.advance()
                guard transfer.response == nil else { continue }
                let events = switch transfer.stage {
                case .connecting: POLLOUT
                case .sending: POLLOUT | POLLIN
                case .receiving: POLLIN
                }
                entries.append(pollfd(fd: transfer.socket, events: Int16(events), revents: 0))
                wake = min(wake, transfer.nextTimeout)
            }
            if entries.isEmpty || deadline.hasPassed { break }
            if let pending = waiting {
                if pending.at.hasPassed {
                    waiting = nil
                    pending.work()
                    continue
                }
                wake = min(wake, pending.at)
            }
            let milliseconds = Int32(min(max(wake.secondsLeft, 0), 1) * 1000 + 1)
            _ = poll(&entries, nfds_t(entries.count), milliseconds)
        }
        return transfers.map { transfer in
            if transfer.response == nil { transfer.closeSocket() }
            return transfer.response
        }
    }

    /// Where a request goes: an IPv4 or IPv6 address and a port, with the Host header and request target.
    package struct Address {
        package let storage: sockaddr_storage
        package let length: socklen_t
        package let key: String
        package let hostHeader: String
        package let target: String

        package init?(url: String) {
            guard !SocketHTTP.proxied, let parsed = try? SinkURL(url), parsed.isPlainHTTP, !parsed.hasUserInfo else { return nil }
            let port = UInt16(parsed.port ?? 80)
            var v4 = sockaddr_in(), v6 = sockaddr_in6(), storage = sockaddr_storage()
            if inet_pton(AF_INET, parsed.host, &v4.sin_addr) == 1 {
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = port.bigEndian
                withUnsafeBytes(of: v4) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
                length = socklen_t(MemoryLayout<sockaddr_in>.size)
                hostHeader = parsed.host + (parsed.port.map { ":\($0)" } ?? "")
            } else if inet_pton(AF_INET6, parsed.host, &v6.sin6_addr) == 1 {
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = port.bigEndian
                withUnsafeBytes(of: v6) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
                length = socklen_t(MemoryLayout<sockaddr_in6>.size)
                hostHeader = "[\(parsed.host)]" + (parsed.port.map { ":\($0)" } ?? "")
            } else {
                return nil
            }
            self.storage = storage
            key = "\(parsed.host) \(port)"
            // The path and query (never the fragment), with any byte past ASCII percent-encoded as libcurl does (lower-case hex).
            var target = ""
            for byte in parsed.rest.utf8.prefix(while: { $0 != UInt8(ascii: "#") }) {
                if byte < 0x80 {
                    target.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    target += "%" + String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
                }
            }
            self.target = target.hasPrefix("/") ? target : "/" + target
        }
    }

    /// `http_proxy` / `all_proxy` as libcurl reads them (the upper-case `HTTP_PROXY` is ignored for http, as
    /// curl does): set and not empty, every plain-HTTP request goes through libcurl and the proxy.
    private static let proxied: Bool = ["http_proxy", "all_proxy", "ALL_PROXY"].contains { (name: String) in
        getenv(name).map { $0.pointee != 0 } ?? false
    }

    /// Connections the servers left open, by address, for the next request (a long-lived sender keeps them warm).
    fileprivate static let idle = Mutex<[(key: String, socket: Int32, since: ContinuousClock.Instant)]>([])
    /// How long a kept connection may sit unused: libcurl's limit (a NAT or firewall may drop it silently).
    package static let idleLimit: Duration = .seconds(118)

    /// A kept connection to `key` that is still open and quiet, or nil.
    fileprivate static func takeIdle(_ key: String) -> Int32? {
        while let kept = idle.withLock({ list -> (socket: Int32, since: ContinuousClock.Instant)? in
            guard let index = list.lastIndex(where: { $0.key == key }) else { return nil }
            let found = list.remove(at: index)
            return (found.socket, found.since)
        }) {
            let socket = kept.socket
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if ContinuousClock.now - kept.since < idleLimit, poll(&entry, 1, 0) == 0 { return socket }
            close(socket)  // too old, closed by the server, or it sent something unasked: not reusable
        }
        return nil
    }

    fileprivate static func giveIdle(_ key: String, _ socket: Int32) {
        let extra = idle.withLock { list -> Int32? in
            list.append((key, socket, .now))
            return list.count > 8 ? list.removeFirst().socket : nil
        }
        if let extra { close(extra) }
    }
}

/// One request's exchange: connect, send, receive, each step as far as the socket allows without waiting.
private final class Transfer {
    enum Stage { case connecting, sending, receiving }
    /// Where the reading of a chunked body is.
    enum Chunked { case size, data(Int), dataEnd, trailers }
    /// How the body's end is known.
    enum Framing { case empty, length(Int), chunked(Chunked), close }

    let request: HTTPRequest
    let address: SocketHTTP.Address
    let start: ContinuousClock.Instant
    /// "127.0.0.1 port 8080", for messages.
    let server: String
    var socket: Int32 = -1
    var stage = Stage.connecting
    var reused = false
    var output: [UInt8] = []
    var sent = 0
    var input: [UInt8] = []
    var anythingReceived = false
    var status = 0
    /// An HTTP/1.0 server closes the connection after its answer.
    var closes = false
    var headers: [(String, String)] = []
    var framing: Framing?
    var body: [UInt8] = []
    var bodySeen = 0
    var response: HTTPResponse?

    init(_ request: HTTPRequest, address: SocketHTTP.Address, start: ContinuousClock.Instant) {
        self.request = request
        self.start = start
        self.address = address
        server = address.key.replacing(" ", with: " port ")
        var head = "\(request.method) \(address.target) HTTP/1.1\r\n"
        if !request.headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: \(address.hostHeader)\r\n" }
        if !request.headers.contains(where: { $0.0.lowercased() == "accept" }) { head += "Accept: */*\r\n" }
        if request.method != "GET" || !request.body.isEmpty { head += "Content-Length: \(request.body.count)\r\n" }
        for (name, value) in request.headers {
            guard SinkText.isValidHeaderName(name), SinkText.isValidHeaderValue(value) else {
                fail("the header '\(Text.singleLine(name))' is not a valid HTTP header")
                return
            }
            let lower = name.lowercased()
            // The framing is this client's; a header with no value is left out, as libcurl does.
            if lower == "content-length" || lower == "transfer-encoding" || Text.trimmed(value).isEmpty { continue }
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        output = Array(head.utf8) + request.body
        open()
    }

    /// When the current connection was started: each connection gets the whole connect timeout (within the total one).
    var connectStart = ContinuousClock.now
    var connectDeadline: ContinuousClock.Instant { connectStart + .seconds(clampingSeconds: request.connectTimeout) }
    var totalDeadline: ContinuousClock.Instant { start + .seconds(clampingSeconds: request.timeout) }
    var nextTimeout: ContinuousClock.Instant { stage == .connecting ? min(connectDeadline, totalDeadline) : totalDeadline }


    func fail(_ error: String) {
        closeSocket()
        response = HTTPResponse(status: 0, error: error, duration: (ContinuousClock.now - start).inSeconds)
    }

    func closeSocket() {
        if socket >= 0 { close(socket) }
        socket = -1
    }

    /// A kept connection when there is one (and `fresh` is false), else a new socket connecting.
    func open(fresh: Bool = false) {
        connectStart = .now
        if !fresh, let kept = SocketHTTP.takeIdle(address.key) {
            socket = kept
            reused = true
            stage = .sending
            return
        }
        reused = false
        var storage = address.storage
        socket = Glibc.socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return fail("cannot open a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, address.length) }
        }
        if result == 0 {
            stage = .sending
        } else if errno == EINPROGRESS || errno == EINTR {
            stage = .connecting
        } else {
            fail("cannot connect to \(server): \(String(cString: strerror(errno)))")
        }
    }

    /// The same request, once, on a new connection: the kept one was closed before it answered anything.
    func reopen() {
        closeSocket()
        sent = 0
        input = []
        open(fresh: true)
    }

    /// Goes as far as the socket allows now; sets `response` when the exchange is over.
    func advance() {
        guard response == nil else { return }
        if stage == .connecting {
            var entry = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            if poll(&entry, 1, 0) > 0 {
                var code: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(socket, SOL_SOCKET, SO_ERROR, &code, &size)
                guard code == 0 else { return fail("cannot connect to \(server): \(String(cString: strerror(code)))") }
                stage = .sending
            } else if connectDeadline.hasPassed {
                return fail("cannot connect to \(server) within \(formatSeconds(request.connectTimeout))")
            }
        }
        if stage == .sending {
            while sent < output.count {
                let count = output[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                } else if errno == EAGAIN || errno == EINTR {
                    break
                } else if reused && !anythingReceived {
                    return reopen()
                } else {
                    // The server may have answered before taking the whole body (413) and closed: that answer counts.
                    let problem = "cannot send to \(server): \(String(cString: strerror(errno)))"
                    receive()
                    if response == nil { fail(problem) }
                    return
                }
            }
            if sent == output.count {
                stage = .receiving
            } else {
                receive()  // an early answer (the body refused) ends the exchange
            }
        }
        if stage == .receiving { receive() }
        if response == nil, totalDeadline.hasPassed {
            fail("no answer from \(server) within \(formatSeconds(request.timeout))")
        }
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var taken = 0
        // At most 1 MiB a turn, so a peer that never stops sending cannot hold off the deadlines.
        while response == nil, taken < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                if reused && !anythingReceived { return reopen() }
                return fail("cannot read the answer of \(server): \(String(cString: strerror(errno)))")
            }
            if count == 0 {
                if reused && !anythingReceived { return reopen() }
                if case .close = framing { return finish(keep: false) }
                return fail(framing == nil ? "\(server) closed the connection without an answer"
                                           : "\(server) closed the connection before the end of its answer")
            }
            anythingReceived = true
            taken += count
            input += buffer[0..<count]
            if let problem = parse() { return fail(problem) }
        }
    }

    /// Reads what `input` holds: the status and headers, then the body. Returns what is wrong, if anything.
    private func parse() -> String? {
        while response == nil {
            guard let framing else {
                guard let end = headEnd() else {
                    return input.count > 65_536 ? "the answer's headers from \(server) are longer than 64 KiB" : nil
                }
                let lines = input[..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    .map { String(decoding: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0, as: UTF8.self) }
                input.removeSubrange(..<end)
                let words = lines[0].split(separator: " ", maxSplits: 2)
                let version = words.first?.uppercased() ?? ""
                guard words.count >= 2, version.hasPrefix("HTTP/1."), words[1].count == 3,
                      let code = Int(words[1]), code >= 100 else {
                    return "\(server) did not answer in HTTP/1.1"
                }
                if code < 200 && code != 101 { continue }  // interim (100 Continue, 103 Early Hints): the real answer follows
                status = code
                // After 101 the connection speaks another protocol: read to its end, as libcurl does, never reuse it.
                closes = version == "HTTP/1.0" || code == 101
                headers = lines.dropFirst().compactMap(HTTPResponse.field)
                // "Content-Length: 2, 2" is one length (RFC 9110 8.6); different ones are an error.
                let lengths = Set(headers.filter { $0.0 == "content-length" }.flatMap { $0.1.split(separator: ",").map { Text.trimmed(String($0)) } })
                let codings = headers.filter { $0.0 == "transfer-encoding" }.map { $0.1.lowercased() }
                if request.method == "HEAD" || code == 204 || code == 304 || (code < 200 && code != 101) {
                    self.framing = .empty
                } else if !codings.isEmpty {
                    // Chunked last: chunks. Any other coding: the body ends with the connection (RFC 9112 6.3).
                    let chunked = codings.joined(separator: ",").hasSuffix("chunked")
                    self.framing = chunked ? .chunked(.size) : .close
                    // A length beside the chunks is ignored, and the connection not trusted again.
                    if !lengths.isEmpty { closes = true }
                } else if code == 101 {
                    self.framing = .close
                } else if let length = lengths.first {
                    guard lengths.count == 1, (1...18).contains(length.count), length.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                          let count = Int(length) else {
                        return "\(server) sent a Content-Length that is not one number"
                    }
                    self.framing = .length(count)
                } else {
                    self.framing = .close
                }
                continue
            }
            switch framing {
            case .empty:
                finish(keep: input.isEmpty)
            case .length(let count):
                take(min(count - bodySeen, input.count))
                if bodySeen == count { finish(keep: input.isEmpty) } else { return nil }
            case .close:
                take(input.count)
                return nil
            case .chunked(let state):
                switch state {
                case .data(let left):
                    let count = min(left, input.count)
                    take(count)
                    if count == 0 { return nil }
                    self.framing = .chunked(left == count ? .dataEnd : .data(left - count))
                case .size, .dataEnd, .trailers:
                    guard let line = takeLine() else {
                        return input.count > 4096 ? "\(server) sent a malformed chunked answer" : nil
                    }
                    if case .dataEnd = state {
                        guard line.isEmpty else { return "\(server) sent a malformed chunked answer" }
                        self.framing = .chunked(.size)
                    } else if case .trailers = state {
                        if line.isEmpty { finish(keep: input.isEmpty) }
                    } else {
                        let digits = line.prefix { $0 != ";" && $0 != " " && $0 != "\t" }
                        guard (1...15).contains(digits.count), digits.allSatisfy(\.isHexDigit), let size = Int(digits, radix: 16) else {
                            return "\(server) sent a malformed chunked answer"
                        }
                        self.framing = .chunked(size == 0 ? .trailers : .data(size))
                    }
                }
            }
        }
        return nil
    }

    /// The index just past the empty line that ends the headers ("\r\n\r\n", or bare "\n\n").
    private func headEnd() -> Int? {
        var index = 0
        while let newline = input[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < input.count, input[next] == UInt8(ascii: "\n") { return next + 1 }
            if next + 1 < input.count, input[next] == UInt8(ascii: "\r"), input[next + 1] == UInt8(ascii: "\n") { return next + 2 }
            index = next
        }
        return nil
    }

    private func takeLine() -> String? {
        guard let newline = input.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = input[..<newline].last == UInt8(ascii: "\r") ? input[..<(newline - 1)] : input[..<newline]
        defer { input.removeSubrange(...newline) }
        return Text.trimmed(String(decoding: line, as: UTF8.self))
    }

    /// Moves `count` bytes of body from `input`, keeping at most 1 MiB of it.
    private func take(_ count: Int) {
        if body.count < 1 << 20 { body += input[..<min(count, (1 << 20) - body.count)] }
        input.removeSubrange(..<count)
        bodySeen += count
    }

    private func finish(keep: Bool) {
        if keep, !closes, sent == output.count, headers.allSatisfy({ !($0.0 == "connection" && $0.1.lowercased().contains("close")) }) {
            SocketHTTP.giveIdle(address.key, socket)
            socket = -1
        }
        closeSocket()
        response = HTTPResponse(status: status, headers: headers, body: body, duration: (ContinuousClock.now - start).inSeconds)
    }
}
