import Foundation
import Synchronization
import Testing
@testable import HookSupport

/// A loopback TCP server that plays a script of raw bytes per connection, so the answers can be as
/// broken as a real server's: each accepted connection reads one request (its head and its
/// `Content-Length` body), records it, then plays the next connection's steps; a connection whose
/// steps end with `.read` reads and answers the next request on the same connection.
private final class RawServer: @unchecked Sendable {
    enum Step: Sendable {
        case send(String)
        case bytes([UInt8])
        case pause(Double)
        /// Reads the next request on this connection before going on.
        case read
        /// Closes the connection (also what happens after the last step).
        case close
        /// Keeps the connection open, silent, until the server stops.
        case hang
    }

    let port: Int
    private let listener: Int32
    /// False: a request is recorded once its head is in, and its body is never read (a server refusing it early).
    private let readsBody: Bool
    private let state = Mutex<(scripts: [[Step]], requests: [String], accepted: Int, stopped: Bool, open: Set<Int32>)>(([], [], 0, false, []))

    init(_ scripts: [[Step]], readsBody: Bool = true) throws {
        self.readsBody = readsBody
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, size) == 0 && listen(listener, 16) == 0 && getsockname(listener, pointer, &size) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.scripts = scripts }
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }
                let steps = state.withLock { state -> [Step] in
                    state.accepted += 1
                    state.open.insert(connection)
                    return state.scripts.isEmpty ? [.send("HTTP/1.1 204 No Content\r\n\r\n")] : state.scripts.removeFirst()
                }
                Thread.detachNewThread { [self] in play(steps, on: connection) }
            }
        }
    }

    var requests: [String] { state.withLock { $0.requests } }
    var accepted: Int { state.withLock { $0.accepted } }

    /// Stops listening and ends every connection (a later server on the same port is a new one to clients).
    func stop() {
        for connection in state.withLock({ state -> Set<Int32> in
            state.stopped = true
            return state.open
        }) {
            shutdown(connection, Int32(SHUT_RDWR))
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func play(_ steps: [Step], on connection: Int32) {
        defer {
            state.withLock { _ = $0.open.remove(connection) }
            close(connection)
        }
        guard readRequest(connection) else { return }
        for step in steps {
            switch step {
            case .send(let text): _ = Array(text.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .bytes(let bytes): _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .pause(let seconds): usleep(UInt32(seconds * 1_000_000))
            case .read: guard readRequest(connection) else { return }
            case .close: return
            case .hang:
                while !state.withLock({ $0.stopped }) { usleep(10_000) }
                return
            }
        }
    }

    /// Reads one request (head and `Content-Length` body) and records it; false at the connection's end.
    private func readRequest(_ connection: Int32) -> Bool {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = data.indices.dropLast(3).first(where: { data[$0..<($0 + 4)].elementsEqual("\r\n\r\n".utf8) }) {
                let head = String(decoding: data[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if !readsBody || data.count >= end + 4 + length {
                    state.withLock { $0.requests.append(String(decoding: data[..<min(data.count, end + 4 + length)], as: UTF8.self)) }
                    return true
                }
            }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return false }
            data += buffer[0..<count]
        }
    }
}

/// `HTTPClient` (libcurl) against a loopback server's raw answers: the framings a server may use, the
/// request it sends, connections kept and replaced, broken and endless answers, timeouts and deadlines.
@Suite(.onTestThreads) struct HTTPClientTests {
    private func post(_ port: Int, path: String = "/n/abc", timeout: Double = 5, deadline: Double = 10,
                      headers: [(String, String)] = [("Content-Type", "application/json")]) -> HTTPResponse {
        let request = HTTPRequest(url: "http://127.0.0.1:\(port)\(path)", headers: headers, body: Array("{\"a\":1}".utf8),
                                  timeout: timeout, connectTimeout: timeout)
        return HTTPClient.send([request], deadline: .after(seconds: deadline))[0]
    }

    /// Each framing an HTTP/1.x server may use gives the status, headers and body it sent.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Id: 7\r\n\r\nhello", 200, "hello"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Id: 7\r\n\r\n3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nX-Trailer: t\r\n\r\n", 200, "hello"),
        ("HTTP/1.0 200 OK\r\nX-Id: 7\r\n\r\nhello", 200, "hello"),
        ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 201 Created\r\nX-Id: 7\r\nContent-Length: 2\r\n\r\nok", 201, "ok"),
        ("HTTP/1.1 204 No Content\r\nX-Id: 7\r\n\r\n", 204, ""),
        ("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nX-Id: 7\r\nContent-Length: 4\r\n\r\nslow", 429, "slow"),
        ("HTTP/1.1 200 OK\nContent-Length: 2\nX-Id: 7\n\nok", 200, "ok"),
    ])
    func framingsAreRead(answer: String, status: Int, body: String) throws {
        let server = try RawServer([[.send(answer)]])
        defer { server.stop() }
        let response = post(server.port)
        #expect(response.error == nil, "\(response.error ?? "")")
        #expect(response.status == status && response.bodyText == body && response.header("x-id") == "7")
        #expect(response.retryAfter == (status == 429 ? 7 : nil))
        #expect(!response.headers.contains { $0.0 == "link" }, "an interim answer's headers are not the answer's")
    }

    @Test func theRequestIsWhatWasAsked() throws {
        let server = try RawServer([])
        defer { server.stop() }
        let response = post(server.port, path: "/n/abc?x=1", headers: [("Content-Type", "application/json"), ("Idempotency-Key", "k1")])
        #expect(response.status == 204)
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("POST /n/abc?x=1 HTTP/1.1\r\n"))
        #expect(request.contains("\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(request.contains("\r\nContent-Length: 7\r\n") && request.contains("\r\nIdempotency-Key: k1\r\n"))
        #expect(!request.contains("Expect:"), "no 100-continue round trip")
        #expect(request.hasSuffix("\r\n\r\n{\"a\":1}"))
        // A header that would split the request is refused before anything is sent.
        let injected = post(server.port, headers: [("X-Title", "a\r\nX-Evil: 1")])
        #expect(injected.status == 0 && injected.error?.contains("not a valid HTTP header") == true)
        #expect(server.requests.count == 1)
    }

    /// A kept connection the server closed after answering, or closes when the next request arrives, is
    /// replaced by a fresh one: the request is answered, never reported failed.
    @Test func aKeptConnectionTheServerClosedIsReplaced() throws {
        let keep = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        let closedAfter = try RawServer([[.send(keep), .pause(0.05), .close], [.send(keep)]])
        defer { closedAfter.stop() }
        #expect(post(closedAfter.port).status == 200)
        usleep(200_000)
        #expect(post(closedAfter.port).status == 200)
        #expect(closedAfter.accepted == 2)

        let closedOnNext = try RawServer([[.send(keep), .read, .close], [.send(keep)]])
        defer { closedOnNext.stop() }
        #expect(post(closedOnNext.port).status == 200)
        let second = post(closedOnNext.port)
        #expect(second.status == 200 && second.error == nil)
    }

    /// Absurd and broken answers end in an error, never a crash, a hang or a status read from junk.
    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        "SSH-2.0-OpenSSH_9.2\r\n\r\n",
        "",
    ])
    func brokenAnswersAreErrors(answer: String) throws {
        let server = try RawServer([[.send(answer)]])
        defer { server.stop() }
        let response = post(server.port)
        #expect(response.status == 0 && response.error != nil, "status \(response.status), \(response.error ?? "no error")")
        #expect(!response.cutOff)
    }

    @Test func aHugeBodyIsBounded() throws {
        let huge = [UInt8]("HTTP/1.1 200 OK\r\nContent-Length: 3145728\r\n\r\n".utf8) + [UInt8](repeating: 0x61, count: 3 << 20)
        let server = try RawServer([[.bytes(huge)]])
        defer { server.stop() }
        let response = post(server.port)
        #expect(response.status == 200)
        #expect(response.body.count >= 1 << 20 && response.body.count < (1 << 20) + (1 << 18), "about 1 MiB kept, the rest read and dropped")
    }

    @Test func silenceEndsAtTheRequestsTimeoutAndAtTheCallersDeadline() throws {
        let server = try RawServer([[.hang], [.send("HTTP/1.1 200 OK\r\n"), .hang]])
        defer { server.stop() }
        let timedOut = post(server.port, timeout: 0.3)
        #expect(timedOut.status == 0 && timedOut.error != nil && !timedOut.cutOff)
        let cutOff = post(server.port, timeout: 30, deadline: 0.3)
        #expect(cutOff.status == 0 && cutOff.cutOff, "the caller's deadline is not the endpoint's fault")
    }

    @Test func aRefusedConnectionSaysSo() throws {
        // A port bound and not listening refuses connections, and no other test's server can take it meanwhile.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, size) == 0 && getsockname(holder, $0, &size) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let response = post(port)
        #expect(response.status == 0 && response.error?.contains("\(port)") == true, "\(response.error ?? "no error")")
    }

    /// Several requests run at once: a slow server holds up none of the others, and each gets its own answer.
    @Test func requestsRunAtOnce() throws {
        let slow = try RawServer([[.pause(0.5), .send("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n")]])
        let fast = try RawServer([[.send("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nf")]])
        defer { slow.stop(); fast.stop() }
        let requests = [slow, fast].map { HTTPRequest(url: "http://127.0.0.1:\($0.port)/n", body: [1]) }
        var waited = false
        let responses = HTTPClient.send(requests, deadline: .after(seconds: 10), whileWaiting: (.milliseconds(100), { waited = true }))
        #expect(responses.map(\.status) == [503, 200] && responses[1].bodyText == "f")
        #expect(waited && responses[1].duration < responses[0].duration)
    }
}
