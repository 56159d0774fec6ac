/// A plain-HTTP GET whose answer is read as it comes, line by line (ntfy's JSON stream), over
/// hookctl's own socket: chunked or connection-framed, each line at most `lineLimit` bytes (a longer
/// one is skipped whole), every wait bounded.
package final class LineStream {
    package static let lineLimit = 16 << 10
    package static let headLimit = 64 << 10
    package let address: SocketHTTP.Address
    package let headers: [(String, String)]

    package init(address: SocketHTTP.Address, headers: [(String, String)]) {
        self.address = address
        self.headers = headers
    }

    /// Connects, sends the request, then hands each line to `line` until the server closes, `silence`
    /// seconds pass without a byte, or `stop`. True when the server answered 200.
    package func follow(silence: Double, stop: () -> Bool, line: ([UInt8]) -> Void) -> Bool {
        var storage = address.storage
        let socket = Glibc.socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        let connected = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, address.length) } }
        if connected != 0 {
            guard errno == EINPROGRESS, wait(socket, events: Int16(POLLOUT), seconds: 5) else { return false }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { return false }
        }
        var request = "GET \(address.target) HTTP/1.1\r\nHost: \(address.hostHeader)\r\nAccept: application/x-ndjson\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        var sent = 0
        while sent < bytes.count {
            guard wait(socket, events: Int16(POLLOUT), seconds: 5) else { return false }
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        var decoder = BodyLines(lineLimit: Self.lineLimit)
        var head: [UInt8] = []
        var inBody = false
        var status = 0
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var quietSince = ContinuousClock.now
        while !stop() {
            guard wait(socket, events: Int16(POLLIN), seconds: 1) else {
                if (ContinuousClock.now - quietSince).inSeconds > silence { return status == 200 }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            guard count > 0 else { return status == 200 }
            quietSince = .now
            var chunk = buffer[0..<count]
            if !inBody {
                head += chunk
                guard let end = Self.headEnd(head) else {
                    if head.count > Self.headLimit { return false }
                    continue
                }
                let text = String(decoding: head[..<end], as: UTF8.self)
                let lines = text.split(separator: "\r\n")
                let parts = lines.first?.split(separator: " ") ?? []
                status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
                guard status == 200 else { return false }
                decoder.chunked = lines.dropFirst().contains { line in
                    HTTPResponse.field(line).map { $0.0 == "transfer-encoding" && $0.1.lowercased().contains("chunked") } ?? false
                }
                inBody = true
                chunk = ArraySlice(head[(end + 4)...])
                head = []
            }
            guard decoder.feed(chunk, line) else { return true }
        }
        return true
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func wait(_ socket: Int32, events: Int16, seconds: Double) -> Bool {
        var entry = pollfd(fd: socket, events: events, revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) > 0
    }
}
