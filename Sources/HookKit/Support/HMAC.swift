internal import CCrypto

/// HMAC-SHA256 from the system's libcrypto (OpenSSL), for signing webhooks; never a hand-written digest.
enum HMAC {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let length = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                digest.withUnsafeMutableBufferPointer { output in
                    hk_hmac_sha256(keyBytes.baseAddress, Int32(key.count), messageBytes.baseAddress, message.count,
                                   output.baseAddress)
                }
            }
        }
        // HMAC() only fails when libcrypto itself is broken; an empty signature would then fail verification.
        return length == 32 ? digest : []
    }
}

/// SHA-256 from the system's libcrypto, for comparing files with `sha256sum` on another host.
enum SHA256 {
    /// The digest as lower-case hex (what `sha256sum` prints); nil when libcrypto cannot be loaded.
    static func hex(_ bytes: [UInt8]) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        let length = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { hk_sha256(input.baseAddress, input.count, $0.baseAddress) }
        }
        return length == 32 ? Base64.hex(digest) : nil
    }
}

/// Base64 (RFC 4648, padded) and lower-case hex, as signature headers spell digests.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// nil when `text` is not valid base64.
    static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { [UInt8]($0) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
