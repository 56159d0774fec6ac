internal import CCurl
internal import CCrypto
import Synchronization

/// Sends HTTP requests: many at once, each bounded by its own timeouts and all together by a deadline.
/// Every request goes through libcurl (one multi handle per caller, kept for its connections); no C
/// pointer leaves this file.
package enum HTTPClient {
    /// nil when libcurl is ready, else why it is not (loaded on first use, once).
    private static let loadError: String? = {
        _ = hk_openssl_init_lean()
        guard hk_curl_load() == 1 else {
            return "libcurl is not available (\(String(cString: hk_curl_load_error()))): install libcurl4"
        }
        return hk_curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK ? nil : "libcurl failed to initialize"
    }()

    /// Loads libcurl (and its ~30 libraries) on a thread of its own while a new sender reads its config and
    /// the outbox; whoever sends first waits for the load to finish (it runs once).
    package static func preload() {
        var thread = pthread_t()
        if pthread_create(&thread, nil, { _ in _ = HTTPClient.loadError; return nil }, nil) == 0 { pthread_detach(thread) }
    }

    /// Sends every request concurrently and returns one response per request, in order. A request still
    /// running at `deadline` is abandoned with a transport error. `whileWaiting.work` runs once, when
    /// the requests have been under way for `whileWaiting.after` and are still waiting.
    package static func send(_ requests: [HTTPRequest], deadline: ContinuousClock.Instant,
                     whileWaiting: (after: Duration, work: () -> Void)? = nil) -> [HTTPResponse] {
        guard !requests.isEmpty else { return [] }
        let start = ContinuousClock.now
        let unanswered = {
            HTTPResponse(status: 0, error: "no answer within the delivery budget (\(formatSeconds((deadline - start).inSeconds)))",
                         duration: (ContinuousClock.now - start).inSeconds, cutOff: true)
        }
        if let loadError { return requests.map { _ in HTTPResponse(status: 0, error: loadError) } }
        guard let multi = MultiPool.take() else {
            return requests.map { _ in HTTPResponse(status: 0, error: "cannot start libcurl") }
        }
        defer { MultiPool.give(multi) }
        let transfers = requests.map { Transfer(request: $0) }
        for transfer in transfers where transfer.handle != nil {
            hk_curl_multi_add_handle(multi, transfer.handle)
        }
        var running: Int32 = 0
        var waiting = whileWaiting.map { (at: start + $0.after, work: $0.work) }
        repeat {
            hk_curl_multi_perform(multi, &running)
            collectFinished(multi, transfers: transfers, start: start)
            if running == 0 { break }
            var remaining = deadline.secondsLeft
            if remaining <= 0 { break }
            if let pending = waiting {
                if pending.at.hasPassed {
                    waiting = nil
                    pending.work()
                    continue
                }
                remaining = min(remaining, pending.at.secondsLeft)
            }
            var ready: Int32 = 0
            hk_curl_multi_poll(multi, Int32(min(remaining * 1000, 1000).rounded(.up)), &ready)
        } while true
        collectFinished(multi, transfers: transfers, start: start)
        for transfer in transfers where transfer.handle != nil {
            hk_curl_multi_remove_handle(multi, transfer.handle)
        }
        return transfers.map { $0.response ?? unanswered() }
    }

    /// `CURL_CA_BUNDLE`, as the curl program reads it: a file of certificate authorities to trust instead
    /// of the system's (a private CA, a test CA).
    package static let caBundle: String? = getenv("CURL_CA_BUNDLE").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }

    /// Sends one request and waits for it (bounded by its own timeouts).
    package static func send(_ request: HTTPRequest) -> HTTPResponse {
        send([request], deadline: .after(seconds: request.timeout + request.connectTimeout + 1))[0]
    }

    /// Connects to the URL's host and port without sending a request: nil when reachable, else why not.
    /// Used by doctor to check a sink without notifying anyone.
    package static func checkReachable(url: String, timeout: Double = 5) -> String? {
        if let loadError { return loadError }
        guard let handle = hk_curl_easy_init() else { return "cannot start libcurl" }
        defer { hk_curl_easy_cleanup(handle) }
        hk_easy_setopt_string(handle, CURLOPT_URL, url)
        hk_easy_setopt_long(handle, CURLOPT_CONNECT_ONLY, 1)
        hk_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        hk_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(timeout))
        hk_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(timeout))
        let code = hk_curl_easy_perform(handle)
        return code == CURLE_OK ? nil : String(cString: hk_curl_easy_strerror(code))
    }

    /// How a stream ended: whether the server answered 200 (then the stream was followed), and why it
    /// ended when not because `stop` said so.
    package struct StreamEnd: Equatable, Sendable {
        package var status: Int
        package var why: String?
        package var answered: Bool { status == 200 }
    }

    /// The longest line `stream` hands on by default.
    package static let lineLimit = 16 << 10

    /// A GET whose body is read as it comes, line by line (ntfy's JSON stream): each line is handed to `line` as soon as its newline arrives,
    /// at most `lineLimit` bytes (a longer one is skipped whole); the stream ends when the server closes
    /// it, when about `silence` seconds pass with no byte (a dead connection: libcurl's low-speed limit,
    /// which averages over its last ~5 s), or when `stop` (asked at least once a second) says so.
    /// libcurl's write callback only takes the bytes (and pauses the transfer while 1 MiB waits, so a
    /// flood stays bounded); the lines are cut and handed on by this loop, on the caller's thread, so
    /// no Swift closure is called from inside libcurl. Nothing of libcurl's outlives the call.
    @inline(never)
    package static func stream(url: String, headers: [(String, String)], connectTimeout: Double, silence: Double,
                       lineLimit: Int = lineLimit, stop: () -> Bool, line: ([UInt8]) -> Void) -> StreamEnd {
        if let loadError { return StreamEnd(status: 0, why: loadError) }
        guard let multi = hk_curl_multi_init() else { return StreamEnd(status: 0, why: "cannot start libcurl") }
        defer { hk_curl_multi_cleanup(multi) }
        guard let handle = hk_curl_easy_init() else { return StreamEnd(status: 0, why: "cannot start libcurl") }
        let transfer = StreamTransfer(handle: handle, url: url, headers: headers, connectTimeout: connectTimeout, silence: silence)
        hk_curl_multi_add_handle(multi, transfer.handle)
        // libcurl holds `transfer` (its write callback's context, unretained) until the handle leaves the multi:
        // kept alive past that explicitly, not by where its last use happens to fall.
        defer {
            hk_curl_multi_remove_handle(multi, transfer.handle)
            withExtendedLifetime(transfer) {}
        }
        var lines = BodyLines(lineLimit: lineLimit)
        var running: Int32 = 1
        while true {
            hk_curl_multi_perform(multi, &running)
            if !transfer.received.isEmpty {
                lines.feed(transfer.received[...], line)
                transfer.received.removeAll(keepingCapacity: true)
            }
            if transfer.paused {
                transfer.paused = false
                hk_curl_easy_unpause(transfer.handle)
                // A flood never starves `stop`: it is asked before the next round too.
                if stop() { return withExtendedLifetime(transfer) { StreamEnd(status: transfer.status, why: nil) } }
                continue
            }
            if running == 0 { break }
            if stop() { return StreamEnd(status: transfer.status, why: nil) }
            var ready: Int32 = 0
            hk_curl_multi_poll(multi, 1000, &ready)
        }
        var code = CURLE_OK
        var queued: Int32 = 0
        while let message = hk_curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { code = message.pointee.data.result }
        }
        return transfer.end(code)
    }

    private static func collectFinished(_ multi: UnsafeMutableRawPointer, transfers: [Transfer], start: ContinuousClock.Instant) {
        var queued: Int32 = 0
        while let message = hk_curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE,
                  let transfer = transfers.first(where: { $0.handle == message.pointee.easy_handle }),
                  transfer.response == nil else { continue }
            let code = message.pointee.data.result
            transfer.finish(code: code, duration: (ContinuousClock.now - start).inSeconds)
        }
    }
}

/// Multi handles kept for reuse: a multi handle owns its connection cache, so a long-lived sender
/// that reuses one keeps its connections open (HTTP keep-alive, no new TCP or TLS handshake) from one
/// request to the next. One per concurrent caller; a handle is never used by two threads at once.
private enum MultiPool {
    private final class Handle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
        init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
    }

    private static let idle = Mutex<[Handle]>([])

    static func take() -> UnsafeMutableRawPointer? {
        idle.withLock { $0.popLast() }?.pointer ?? hk_curl_multi_init()
    }

    static func give(_ multi: UnsafeMutableRawPointer) {
        idle.withLock { $0.append(Handle(multi)) }
    }
}

/// A timeout in whole milliseconds for libcurl: at least 1 ms, at most a day, never a trap.
private func milliseconds(_ seconds: Double) -> Int {
    guard seconds.isFinite else { return 86_400_000 }
    return Int(min(max(seconds, 0.001), 86_400) * 1000)
}

/// One easy handle with the buffers libcurl writes into; lives until the multi loop ends.
private final class Transfer {
    let handle: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    let body: UnsafeMutableBufferPointer<UInt8>
    var received: [UInt8] = []
    var receivedHeaders: [(String, String)] = []
    var response: HTTPResponse?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(request: HTTPRequest) {
        body = .allocate(capacity: max(1, request.body.count))
        _ = body.initialize(from: request.body)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // A header that would split the request (or end it early) is refused before anything is sent.
        if let bad = request.headers.first(where: { ($0.0 + $0.1).utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 } }) {
            handle = nil
            response = HTTPResponse(status: 0, error: "the header '\(Text.singleLine(bad.0))' is not a valid HTTP header")
            return
        }
        handle = hk_curl_easy_init()
        guard let handle else {
            response = HTTPResponse(status: 0, error: "cannot start libcurl")
            return
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        hk_easy_setopt_string(handle, CURLOPT_URL, request.url)
        hk_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        hk_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeout))
        hk_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(request.timeout))
        hk_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        hk_easy_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        hk_easy_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        hk_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        // The certificate authorities the curl program would trust with the same environment.
        if let bundle = HTTPClient.caBundle { hk_easy_setopt_string(handle, CURLOPT_CAINFO, bundle) }
        hk_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        switch request.method {
        case "GET":
            hk_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        default:
            hk_easy_setopt_long(handle, CURLOPT_POST, 1)
            hk_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, body.baseAddress)
            hk_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count)
            if request.method != "POST" { hk_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method) }
        }
        // No "Expect: 100-continue" round trip for larger bodies.
        for header in request.headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            headerList = hk_curl_slist_append(headerList, header)
        }
        hk_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        hk_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        hk_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if transfer.received.count < 1 << 20, let data {
                data.withMemoryRebound(to: UInt8.self, capacity: length) {
                    transfer.received.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                }
            }
            return length
        }
        hk_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        hk_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data else { return length }
            let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
            if line.hasPrefix("HTTP/") {
                transfer.receivedHeaders.removeAll()
            } else if let field = HTTPResponse.field(line) {
                transfer.receivedHeaders.append(field)
            }
            return length
        }
    }

    func finish(code: CURLcode, duration: Double) {
        guard let handle else { return }
        if code != CURLE_OK {
            let detail = String(cString: errorBuffer)
            let reason = detail.isEmpty ? String(cString: hk_curl_easy_strerror(code)) : detail
            response = HTTPResponse(status: 0, error: reason, duration: duration)
            return
        }
        var status = 0
        hk_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        response = HTTPResponse(status: status, headers: receivedHeaders, body: received, duration: duration)
    }

    deinit {
        if let handle { hk_curl_easy_cleanup(handle) }
        hk_curl_slist_free_all(headerList)
        body.deallocate()
        errorBuffer.deallocate()
    }
}

/// One streamed GET (`HTTPClient.stream`): an easy handle whose write callback takes the body's bytes
/// (libcurl has undone the chunked framing already) for the caller's loop to cut into lines.
private final class StreamTransfer {
    let handle: UnsafeMutableRawPointer
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    let silence: Double
    /// Bytes taken since the loop last looked; at most about `pauseAt` (then the transfer pauses).
    var received: [UInt8] = []
    var paused = false
    static let pauseAt = 1 << 20
    /// The response's status once its body began (0 before); a status other than 200 ends the transfer.
    var status = 0

    /// Takes `handle` (cleaned up with the transfer); not a failable init: the optimized build of one that
    /// returned nil before its buffers were set up never reached libcurl at all (Swift 6.3.1).
    init(handle: UnsafeMutableRawPointer, url: String, headers: [(String, String)], connectTimeout: Double, silence: Double) {
        self.handle = handle
        self.silence = silence
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let context = Unmanaged.passUnretained(self).toOpaque()
        hk_easy_setopt_string(handle, CURLOPT_URL, url)
        hk_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        hk_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(connectTimeout))
        // No overall timeout: the stream lasts as long as the server keeps it; silence ends it instead.
        hk_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, 0)
        hk_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        hk_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(silence.rounded(.up))))
        hk_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        hk_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        hk_easy_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        hk_easy_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        hk_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        if let bundle = HTTPClient.caBundle { hk_easy_setopt_string(handle, CURLOPT_CAINFO, bundle) }
        // No Accept-Encoding: a compressed body would reach the callback in the decoder's own pieces, late.
        hk_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        for header in headers.map({ "\($0.0): \($0.1)" }) + ["Accept: application/x-ndjson"] {
            headerList = hk_curl_slist_append(headerList, header)
        }
        hk_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        hk_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        hk_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<StreamTransfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if transfer.status == 0 {
                var status = 0
                hk_easy_getinfo_long(transfer.handle, CURLINFO_RESPONSE_CODE, &status)
                transfer.status = status
            }
            // Anything but 200 is not the stream: returning less than was given ends the transfer.
            guard transfer.status == 200, let data else { return 0 }
            // Enough waits for the reader: these bytes come again once it has caught up.
            if transfer.received.count >= StreamTransfer.pauseAt {
                transfer.paused = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            data.withMemoryRebound(to: UInt8.self, capacity: length) {
                transfer.received.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
            }
            return length
        }
    }

    /// How the transfer ended, from libcurl's result.
    func end(_ code: CURLcode) -> HTTPClient.StreamEnd {
        if status == 0 { hk_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) }
        if status != 0, status != 200 { return HTTPClient.StreamEnd(status: status, why: "HTTP \(status)") }
        switch code {
        case CURLE_OK:
            return HTTPClient.StreamEnd(status: status, why: "the server ended the stream")
        case CURLE_OPERATION_TIMEDOUT where status == 200:
            return HTTPClient.StreamEnd(status: status, why: "nothing came for \(Int(silence.rounded(.up))) s")
        default:
            let detail = String(cString: errorBuffer)
            return HTTPClient.StreamEnd(status: status, why: detail.isEmpty ? String(cString: hk_curl_easy_strerror(code)) : detail)
        }
    }

    deinit {
        hk_curl_easy_cleanup(handle)
        hk_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }
}

/// A response body cut into lines as its bytes come (libcurl has undone any chunked framing). Memory
/// stays bounded: a line past `lineLimit` is dropped up to its newline.
package struct BodyLines {
    package var lineLimit: Int
    private var line: [UInt8] = []
    private var overlong = false

    package init(lineLimit: Int) { self.lineLimit = lineLimit }

    package mutating func feed(_ bytes: ArraySlice<UInt8>, _ emit: ([UInt8]) -> Void) {
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
