internal import CCrypto
internal import CZlib

/// Pushover (pushover.net/api): `POST {api_url}/1/messages.json`, form-encoded `token`, `user`, `message`,
/// `title`, `priority`, `device`, `sound`, `url`, `url_title`, `html=1`, `timestamp`. The message is
/// Pushover's HTML converted from Markdown (or plain text with `html: false`), at most 1024 characters;
/// the title at most 250, the URL 512 (dropped, never cut, when longer), its title 100.
///
/// With `e2ee_key` (pushover.net/api#e2ee) `message`, `title`, `url` and `url_title` are each sealed
/// (`PushoverE2EE`) and `encrypted=1` is sent: Pushover and every relay in between see only ciphertext,
/// the phone's app decrypts. The limits then apply to the sealed text, so the plaintext is cut before
/// it is sealed until the sealed field fits; `url_title` is dropped when it would not fit.
///
/// Pushover answers `{"status":1,"request":"…"}`, or a 4xx with `{"status":0,"errors":[…]}`: other
/// 4xx than 429 are final (resending unchanged would fail again), 429 (the monthly quota) and 5xx are
/// retried.
package struct PushoverSink: Sink, SinkType {
    package static let type = "pushover"
    package static let keys = SinkKeys.names(of: type)
    package static let defaultAPI = "https://api.pushover.net"
    package static let maximumMessage = 1024
    package static let maximumTitle = 250
    package static let maximumURL = 512
    package static let maximumURLTitle = 100
    /// What an emergency-priority push (2) repeats and for how long: Pushover requires both.
    package static let emergencyRetry = 60
    package static let emergencyExpire = 3600

    package let name: String
    package let settings: SinkSettings
    package let token: String
    package let user: String
    package let device: String?
    package let sound: String?
    package let urlTemplate: String?
    package let urlTitleTemplate: String?
    package let html: Bool
    package let apiURL: String
    /// The end-to-end key (32 bytes), and the text it was written as (a secret like the others).
    package let e2eeKey: [UInt8]?
    package let e2eeKeyText: String?

    package var endpoint: String? { apiURL + "/1/messages.json" }
    package var secrets: [String] { [token, user] + (e2eeKeyText.map { [$0] } ?? []) }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        func credential(_ key: String, _ what: String) throws -> String {
            let value = try config.secret(key, required: true)!
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw config.error(config.node[key] ?? config.node[key + "_env"] ?? config.node[key + "_file"],
                                   "the Pushover \(what) must be letters and digits (30 of them, as pushover.net shows it)")
            }
            return value
        }
        let token = try credential("token", "application token")
        let user = try credential("user", "user or group key")
        var settings = try SinkSettings(config: config)
        for (kind, value) in settings.priorities {
            guard let number = priorityNumber(value) else {
                throw config.error(config.node["priority"], "Pushover priority for '\(kind.rawValue)' must be -2 to 2 or "
                    + "lowest, low, normal, high or emergency, got '\(value)'")
            }
            settings.priorities[kind] = String(number)
        }
        var apiURL = try config.string("api_url").map { try config.checkedURL($0, key: "api_url").text } ?? defaultAPI
        while apiURL.hasSuffix("/") { apiURL.removeLast() }
        let keyText = try config.secret("e2ee_key", required: false)
        var key: [UInt8]?
        if let keyText {
            guard let bytes = PushoverE2EE.key(from: keyText) else {
                throw config.error(config.node["e2ee_key"] ?? config.node["e2ee_key_env"] ?? config.node["e2ee_key_file"],
                                   "'e2ee_key' must be 32 bytes written as 64 hex digits (or 44 characters of base64), "
                                   + "as Pushover's app shows the device's key; got \(keyText.count) characters that are neither")
            }
            key = bytes
        }
        return PushoverSink(name: config.name, settings: settings, token: token, user: user,
                            device: try config.string("device"), sound: try config.string("sound"),
                            urlTemplate: try config.string("url"), urlTitleTemplate: try config.string("url_title"),
                            html: try config.bool("html") ?? true, apiURL: apiURL, e2eeKey: key, e2eeKeyText: keyText)
    }

    /// `-2`…`2` or Pushover's names for them.
    package static func priorityNumber(_ value: String) -> Int? {
        switch value.lowercased() {
        case "-2", "lowest": return -2
        case "-1", "low", "quiet": return -1
        case "0", "normal": return 0
        case "1", "high": return 1
        case "2", "emergency": return 2
        default: return nil
        }
    }

    /// High (through quiet hours) for what waits on you or failed, normal for the rest.
    package static func defaultPriority(_ event: Event) -> String {
        switch event.kind {
        case .needsInput, .failed: return "1"
        default: return "0"
        }
    }

    /// The fields of the push, in the order sent, and which ones were sealed or left out.
    package struct Fields {
        package var pairs: [(String, String)] = []
        package var sealed: [String] = []
        package var dropped: [String] = []
    }

    package func fields(for event: Event) throws -> Fields {
        var fields = Fields()
        fields.pairs = [("token", token), ("user", user)]
        // Pushover counts characters; UTF-16 units are never fewer, so a text within the limit in them is within it.
        let measure = TextMeasure.utf16
        let message = try fit(limit: Self.maximumMessage) { budget in
            guard html else { return measure.truncate(settings.message(for: event), to: budget) }
            return SinkMarkdown.convert(settings.markdownMessage(for: event), to: .pushoverHTML, limit: budget, measure: measure)
        }
        let fallback = html ? SinkMarkdown.escape(SinkText.fallbackText(for: event), .pushoverHTML) : SinkText.fallbackText(for: event)
        // Pushover refuses an empty message.
        fields.pairs.append(("message", Text.trimmed(message.plain).isEmpty ? try seal(fallback) : message.sent))
        let title = try fit(limit: Self.maximumTitle) { measure.truncate(settings.title(for: event), to: $0) }
        if !title.plain.isEmpty { fields.pairs.append(("title", title.sent)) }
        let priority = Self.priorityNumber(settings.priority(for: event, fallback: Self.defaultPriority)) ?? 0
        fields.pairs.append(("priority", String(priority)))
        if priority == 2 {
            fields.pairs.append(("retry", String(Self.emergencyRetry)))
            fields.pairs.append(("expire", String(Self.emergencyExpire)))
            // The question's tag: its retries are cancelled by it once it is answered (`answeredDelivery`).
            // `Event.outgoing` computed it from the event as recorded, as the follow-up's id is.
            if let id = event.replaceID { fields.pairs.append(("tags", id)) }
        }
        if let device, !device.isEmpty { fields.pairs.append(("device", device)) }
        if let sound, !sound.isEmpty { fields.pairs.append(("sound", sound)) }
        if let urlTemplate {
            let url = SinkText.renderURLTemplate(urlTemplate, event: event)
            // A URL cut short would open the wrong place: one that does not fit is left out.
            let sentURL = url.isEmpty ? nil : try seal(url)
            if let sentURL, sentURL.utf16.count <= Self.maximumURL {
                fields.pairs.append(("url", sentURL))
                if let urlTitleTemplate {
                    let urlTitle = try seal(measure.truncate(renderTemplate(urlTitleTemplate, values: event.templateValues),
                                                             to: Self.maximumURLTitle))
                    if urlTitle.utf16.count <= Self.maximumURLTitle { fields.pairs.append(("url_title", urlTitle)) } else { fields.dropped.append("url_title") }
                }
            } else if !url.isEmpty {
                fields.dropped += ["url"] + (urlTitleTemplate == nil ? [] : ["url_title"])
            }
        }
        if html { fields.pairs.append(("html", "1")) }
        fields.pairs.append(("timestamp", String(Int(event.time))))
        if e2eeKey != nil {
            fields.sealed = fields.pairs.map(\.0).filter { PushoverE2EE.fieldNames.contains($0) }
            fields.pairs.append(("encrypted", "1"))
        }
        return fields
    }

    /// A field as it is sent (sealed when the sink has a key), and its plaintext.
    package struct Fitted {
        package var sent: String
        package var plain: String
    }

    /// The longest rendering (`render(budget)`: the text cut to `budget` units) whose sent form, sealed
    /// or not, is within `limit`: a sealed field's size follows its compressed size, so the budget shrinks
    /// by how much too large the last try was until it fits (a few tries at most; each is smaller).
    package func fit(limit: Int, _ render: (Int) -> String) throws -> Fitted {
        var budget = limit
        while true {
            let text = render(budget)
            guard let e2eeKey else {
                let size = text.utf16.count
                if size <= limit || budget == 0 { return Fitted(sent: text, plain: text) }
                budget = max(0, min(budget - 1, budget - (size - limit)))
                continue
            }
            let packed = try PushoverE2EE.gzip(Array(text.utf8))
            if PushoverE2EE.sealedLength(compressed: packed.count) <= limit || budget == 0 {
                return Fitted(sent: try PushoverE2EE.seal(compressed: packed, key: e2eeKey), plain: text)
            }
            let room = Double(PushoverE2EE.compressedRoom(limit))
            budget = max(0, min(budget - 1, Int(Double(budget) * room / Double(packed.count) * 0.97)))
        }
    }

    /// `text` as it is sent: sealed when the sink has a key.
    package func seal(_ text: String) throws -> String {
        guard let e2eeKey else { return text }
        return try PushoverE2EE.seal(text, key: e2eeKey)
    }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        let fields = try fields(for: event)
        return .http(HTTPRequest(
            method: "POST", url: apiURL + "/1/messages.json",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("User-Agent", Product.userAgent)],
            body: Array(FormEncoding.encode(fields.pairs).utf8), timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }

    /// This thread's CPU time in seconds (`test` times the sealing with it).
    package static func threadCPUTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The request one field a line (the body decoded), token and user redacted, and whether it is encrypted:
    /// with a key, the sealed fields are opened again with it, so `test` shows the key works.
    package func preview(for event: Event) -> String {
        do {
            let fields = try fields(for: event.outgoing)
            var lines = ["POST \(Text.redactURL(apiURL + "/1/messages.json")) (application/x-www-form-urlencoded)"]
            for (name, value) in fields.pairs {
                lines.append("\(name)=\(name == "token" || name == "user" ? Text.redactSecret(value) : value)")
            }
            if let e2eeKey {
                let opened = fields.pairs.filter { fields.sealed.contains($0.0) }.allSatisfy { (try? PushoverE2EE.open($0.1, key: e2eeKey)) != nil }
                lines.append("encrypted: yes (e2ee): \(fields.sealed.joined(separator: ", ")) sealed"
                    + (opened ? ", and each opens again with the key" : ", BUT THEY DO NOT OPEN AGAIN with the key"))
                // Measured here, on this push: the CPU one build of the sealed request takes (the mean of a few,
                // the first one's set-up included), not a figure carried from a benchmark.
                let rounds = 8
                let start = Self.threadCPUTime()
                for _ in 0..<rounds { _ = try? self.fields(for: event.outgoing) }
                let perBuild = (Self.threadCPUTime() - start) / Double(rounds)
                lines.append("building this sealed request took \(Int((perBuild * 1_000_000).rounded())) µs of CPU"
                    + " (a whole push, sealed against plain: bench/delivery/pushover_e2ee_cpu.py)")
            } else {
                lines.append("encrypted: no (set e2ee_key_file to encrypt end to end)")
            }
            if !fields.dropped.isEmpty { lines.append("left out (too long to fit): \(fields.dropped.joined(separator: ", "))") }
            return Text.scrub(lines.joined(separator: "\n"), secrets: secrets)
        } catch {
            return "(cannot build the request: \(Text.scrub("\(error)", secrets: secrets)))"
        }
    }

    /// Pushover's answer: `{"status":1,"request":"…"}`, or `{"status":0,"errors":["…"],"request":"…"}` with a 4xx.
    package func outcome(for response: HTTPResponse) -> DeliveryOutcome {
        guard response.status != 0 else { return HTTPClassifier.classify(response, secrets: secrets) }
        let body = try? JSON.parse(response.body)
        let errors = body?["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let words = errors.isEmpty ? Text.singleLine(response.bodyText) : errors.joined(separator: "; ")
        let detail = Text.truncate(Text.scrub(words, secrets: secrets), characters: 160)
        func problem(_ advice: String = "") -> DeliveryProblem {
            .http(response.status, [detail, advice].filter { !$0.isEmpty }.joined(separator: " "), retryAfter: response.retryAfter)
        }
        switch response.status {
        case 200..<300:
            // A 2xx without status 1 is not an accepted push.
            return body?["status"]?.intValue == 1 ? .delivered : .failed(problem("(Pushover did not accept the message)"))
        case 429, 500..<600: return .retry(problem())
        case 400..<500:
            let credentials = errors.contains { $0.contains("token") || $0.contains("user") || $0.contains("key") }
            return .failed(problem(credentials ? "(check the sink's token and user)" : ""))
        default: return HTTPClassifier.classify(response, secrets: secrets)
        }
    }
}

/// Replace once answered (`AnsweredPushes`): Pushover has no way to change or withdraw a message; it can
/// only stop an emergency-priority push from repeating (`POST /1/receipts/cancel_by_tag/TAG.json`), so a
/// sink whose questions go out at emergency priority cancels them by their tag once answered, and the
/// others send nothing.
extension PushoverSink {
    package var canReplace: Bool { settings.priorities[.needsInput] == "2" }

    package func answeredDelivery(for followUp: Event, receipt: String?) throws -> Delivery? {
        guard canReplace, let id = AnsweredPushes.answeredID(of: followUp) else { return nil }
        return .http(HTTPRequest(
            method: "POST", url: apiURL + "/1/receipts/cancel_by_tag/" + id + ".json",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("User-Agent", Product.userAgent)],
            body: Array(FormEncoding.encode([("token", token)]).utf8), timeout: settings.timeout, connectTimeout: settings.connectTimeout))
    }
}

/// `application/x-www-form-urlencoded` (WHATWG URL "application/x-www-form-urlencoded serializer"):
/// unreserved bytes as they are, space as `+`, every other byte `%XX`.
package enum FormEncoding {
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    package static func escape(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                output.append(byte)
            case UInt8(ascii: " "): output.append(UInt8(ascii: "+"))
            default: output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Pushover's end-to-end encryption of one field (pushover.net/api#e2ee, as Apprise's Pushover plugin
/// `_encrypt_field` implements it): the UTF-8 text gzip-compressed, AES-256-CBC encrypted with PKCS#7
/// padding under a fresh random 16-byte IV, then HMAC-SHA256 over IV‖ciphertext under the same key;
/// sent as base64(IV‖ciphertext‖MAC). The cipher and the MAC are OpenSSL's libcrypto (EVP), the IV the
/// kernel's CSPRNG (getrandom(2), as Apprise's `os.urandom`), the gzip zlib's, as Python's
/// `gzip.compress(…, compresslevel=1, mtime=0)` writes it.
package enum PushoverE2EE {
    /// The fields Pushover decrypts.
    package static let fieldNames: Set<String> = ["message", "title", "url", "url_title"]
    package static let ivBytes = 16
    package static let macBytes = 32
    /// A sealed field opened by `open` inflates to at most this (a hostile field cannot make it allocate more).
    package static let maximumOpened = 1 << 20

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The key from its text: 64 hex digits, or base64 of 32 bytes; nil for anything else.
    package static func key(from text: String) -> [UInt8]? {
        let text = Text.trimmed(text)
        if text.utf8.count == 64, text.utf8.allSatisfy({ isHexDigit($0) }) {
            let digits = Array(text.utf8)
            return stride(from: 0, to: 64, by: 2).map { UInt8(hexValue(digits[$0]) << 4 | hexValue(digits[$0 + 1])) }
        }
        guard let bytes = Base64.decode(text), bytes.count == 32 else { return nil }
        return bytes
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> Int {
        Int(byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x61 + 10)
    }

    /// The length of a sealed field whose compressed text is `compressed` bytes: PKCS#7 always pads (1-16
    /// bytes), IV and MAC are fixed, base64 writes 4 characters for 3 bytes.
    package static func sealedLength(compressed: Int) -> Int {
        let raw = ivBytes + (compressed / 16 + 1) * 16 + macBytes
        return (raw + 2) / 3 * 4
    }

    /// The most compressed bytes a sealed field of at most `limit` characters can hold (negative: none).
    package static func compressedRoom(_ limit: Int) -> Int {
        let cipher = (limit / 4 * 3 - ivBytes - macBytes) / 16 * 16
        return cipher - 1
    }

    package static func seal(_ text: String, key: [UInt8], iv: [UInt8]? = nil) throws -> String {
        try seal(compressed: try gzip(Array(text.utf8)), key: key, iv: iv)
    }

    /// base64(IV‖AES-256-CBC(compressed)‖HMAC-SHA256(IV‖ciphertext)); a fresh IV unless one is given (tests).
    package static func seal(compressed: [UInt8], key: [UInt8], iv given: [UInt8]? = nil) throws -> String {
        guard key.count == 32 else { throw Failure(description: "the e2ee key is not 32 bytes") }
        var iv = given ?? [UInt8](repeating: 0, count: ivBytes)
        if given == nil {
            guard iv.withUnsafeMutableBufferPointer({ hk_random_bytes($0.baseAddress, Int32(ivBytes)) }) == 1 else {
                throw Failure(description: "the kernel gave no random bytes (getrandom): nothing was sent unencrypted")
            }
        }
        guard iv.count == ivBytes else { throw Failure(description: "the IV is not 16 bytes") }
        let cipher = try aes(encrypt: true, key: key, iv: iv, compressed)
        let mac = HMAC.sha256(key: key, message: iv + cipher)
        guard mac.count == macBytes else { throw Failure(description: "libcrypto could not compute the HMAC: nothing was sent unencrypted") }
        return Base64.encode(iv + cipher + mac)
    }

    /// The text of a sealed field, after checking its MAC (in constant time) before anything is decrypted.
    package static func open(_ field: String, key: [UInt8]) throws -> String {
        guard let bytes = Base64.decode(field), bytes.count >= ivBytes + 16 + macBytes, (bytes.count - ivBytes - macBytes) % 16 == 0 else {
            throw Failure(description: "not a sealed field (base64 of IV, ciphertext and MAC)")
        }
        let iv = Array(bytes[..<ivBytes])
        let cipher = Array(bytes[ivBytes..<(bytes.count - macBytes)])
        let mac = Array(bytes[(bytes.count - macBytes)...])
        let expected = HMAC.sha256(key: key, message: iv + cipher)
        guard expected.count == macBytes, zip(expected, mac).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw Failure(description: "the MAC does not match (another key, or the field was changed)")
        }
        let compressed = try aes(encrypt: false, key: key, iv: iv, cipher)
        let text = try gunzip(compressed)
        guard let string = String(validating: text, as: UTF8.self) else { throw Failure(description: "the opened field is not UTF-8") }
        return string
    }

    private static func aes(encrypt: Bool, key: [UInt8], iv: [UInt8], _ input: [UInt8]) throws -> [UInt8] {
        guard let output = AES256CBC.apply(encrypt: encrypt, key: key, iv: iv, input) else {
            throw Failure(description: encrypt ? "libcrypto (libcrypto.so.3) could not encrypt: nothing was sent unencrypted"
                                               : "the ciphertext does not decrypt (bad padding)")
        }
        return output
    }

    /// A gzip member of `bytes` (zlib, level 1, mtime 0, as Python's `gzip.compress(…, compresslevel=1, mtime=0)` writes it).
    package static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        // Deflate's worst case is a few bytes per 16 KiB block over the input, plus the gzip header and trailer.
        var output = [UInt8](repeating: 0, count: bytes.count + bytes.count / 1000 + 64)
        let length = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { hk_gzip(input.baseAddress, input.count, $0.baseAddress, $0.count) }
        }
        guard length >= 0 else { throw Failure(description: "zlib (libz.so.1) could not compress: nothing was sent unencrypted") }
        return Array(output[..<Int(length)])
    }

    package static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: maximumOpened)
        let length = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { hk_gunzip(input.baseAddress, input.count, $0.baseAddress, $0.count) }
        }
        guard length >= 0 else {
            throw Failure(description: length == -2 ? "the opened field is larger than \(maximumOpened) bytes" : "the decrypted field is not gzip")
        }
        return Array(output[..<Int(length)])
    }
}
