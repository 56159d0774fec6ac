internal import CCrypto

/// HMAC-SHA256 from the system's libcrypto (OpenSSL), for signing webhooks; never a hand-written digest.
package enum HMAC {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    package static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
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

    /// OpenSSL contexts alive now: one per thread that signed or sealed and has not ended (each is freed
    /// when its thread ends).
    package static var contextsAlive: Int { hk_crypto_contexts_alive() }
}

/// AES-256-CBC with PKCS#7 padding from the system's libcrypto (Pushover's end-to-end encryption). Here,
/// beside the HMAC, so the shim's per-thread contexts have one owner (`CCrypto/shim.h`).
package enum AES256CBC {
    /// `input` encrypted (or decrypted) under the 32-byte `key` and 16-byte `iv`; nil when libcrypto is
    /// missing or, decrypting, the padding is wrong.
    package static func apply(encrypt: Bool, key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8]? {
        guard key.count == 32, iv.count == 16, input.count <= Int(Int32.max) - 16 else { return nil }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        let length = key.withUnsafeBufferPointer { keyBytes in
            iv.withUnsafeBufferPointer { ivBytes in
                input.withUnsafeBufferPointer { inputBytes in
                    output.withUnsafeMutableBufferPointer {
                        hk_aes256_cbc(encrypt ? 1 : 0, keyBytes.baseAddress, ivBytes.baseAddress, inputBytes.baseAddress,
                                      Int32(input.count), $0.baseAddress)
                    }
                }
            }
        }
        return length >= 0 ? Array(output[..<Int(length)]) : nil
    }
}

/// SHA-256 from the system's libcrypto, for comparing files with `sha256sum` on another host.
package enum SHA256 {
    /// The digest as lower-case hex (what `sha256sum` prints); nil when libcrypto cannot be loaded.
    package static func hex(_ bytes: [UInt8]) -> String? {
        digest(bytes).map(Base64.hex)
    }

    /// The 32-byte digest; nil when libcrypto cannot be loaded.
    package static func digest(_ bytes: [UInt8]) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        let length = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { hk_sha256(input.baseAddress, input.count, $0.baseAddress) }
        }
        return length == 32 ? digest : nil
    }
}

/// Base64 (RFC 4648, padded) and lower-case hex, as signature headers spell digests.
package enum Base64 {
    package static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// nil when `text` is not valid base64.
    package static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { [UInt8]($0) }
    }

    /// Base64url without padding (RFC 4648 §5): what fits in a URL, a header or Telegram's callback_data.
    package static func url(_ bytes: [UInt8]) -> String {
        var text = encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return text.replacing("+", with: "-").replacing("/", with: "_")
    }

    /// nil when `text` is not unpadded base64url.
    package static func decodeURL(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }),
              text.utf8.count % 4 != 1 else { return nil }
        var padded = text.replacing("-", with: "+").replacing("_", with: "/")
        while padded.utf8.count % 4 != 0 { padded += "=" }
        return decode(padded)
    }

    package static func hex(_ bytes: [UInt8]) -> String {
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
