/// An http(s) endpoint URL, parsed and checked once: `http://` or `https://`, a host (an IPv6 host in
/// brackets), a port from 1 to 65535 when one is given, and nothing that could break out of a header,
/// a YAML scalar or a file: no whitespace, control characters, quotes or backslashes. Every URL
/// hookctl sends to is read through this type (the sinks' `url` keys, Telegram's `api_url`,
/// `setup --notify-url`); the redacted form and the secrets to scrub are derived from it. A URL can be
/// a bearer secret, so `description` is the redacted form.
package struct SinkURL: Sendable, Equatable, CustomStringConvertible {
    package let text: String
    /// The host without brackets or port.
    package let host: String
    /// Everything after the authority: path, query and fragment ("" when there is none).
    package let rest: String
    package let isPlainHTTP: Bool
    /// The port the URL gives, nil for the scheme's own.
    package let port: Int?
    /// Whether the authority carries credentials (`user:password@host`).
    package let hasUserInfo: Bool

    /// Why a text is not a usable URL, phrased to follow its name ("'url' must start with …").
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case empty, controlCharacter, whitespace, quote, scheme, unclosedIPv6, port, noHost

        package var description: String {
            switch self {
            case .empty: return "is empty"
            case .controlCharacter: return "must not contain control characters (newline, tab…)"
            case .whitespace: return "must not contain spaces or other whitespace"
            case .quote: return "must not contain quotes or backslashes"
            case .scheme: return "must start with http:// or https://"
            case .unclosedIPv6: return "has an IPv6 host without its closing ']'"
            case .port: return "has a port that is not a number between 1 and 65535"
            case .noHost: return "has no host"
            }
        }
    }

    package init(_ text: String) throws(Problem) {
        if text.isEmpty { throw .empty }
        let bytes = text.utf8
        if bytes.contains(where: { $0 >= 0x80 }) {
            for scalar in text.unicodeScalars {
                if scalar.value < 0x20 || scalar.value == 0x7f || (0x80...0x9f).contains(scalar.value) { throw .controlCharacter }
                // Controls are out already: in ASCII only the space is whitespace (the Unicode table only past it).
                if scalar == " " || (scalar.value > 0x7f && scalar.properties.isWhitespace) { throw .whitespace }
                if scalar == "\"" || scalar == "'" || scalar == "`" || scalar == "\\" { throw .quote }
            }
        } else {
            // ASCII (every URL a sink is normally given): the same checks, byte by byte.
            for byte in bytes {
                if byte < 0x20 || byte == 0x7f { throw .controlCharacter }
                if byte == 0x20 { throw .whitespace }
                if byte == 0x22 || byte == 0x27 || byte == 0x60 || byte == 0x5c { throw .quote }
            }
        }
        /// Whether the text starts with `scheme` (lower case), in any case.
        func starts(with scheme: String) -> Bool {
            bytes.count >= scheme.utf8.count && zip(bytes, scheme.utf8).allSatisfy { ($0 | 0x20) == $1 }
        }
        isPlainHTTP = starts(with: "http://")
        guard isPlainHTTP || starts(with: "https://") else { throw .scheme }
        let afterScheme = bytes.index(bytes.startIndex, offsetBy: isPlainHTTP ? 7 : 8)
        let authorityEnd = bytes[afterScheme...].firstIndex { $0 == 0x2f || $0 == 0x3f || $0 == 0x23 } ?? bytes.endIndex
        let authority = text[afterScheme..<authorityEnd]
        hasUserInfo = authority.utf8.contains(0x40)
        var host = authority.utf8.lastIndex(of: 0x40).map { authority[authority.utf8.index(after: $0)...] } ?? authority
        var port: Substring?
        if host.utf8.first == 0x5b {
            guard let close = host.utf8.firstIndex(of: 0x5d) else { throw .unclosedIPv6 }
            let after = host[host.utf8.index(after: close)...]
            if !after.isEmpty {
                port = after.dropFirst()
                guard after.utf8.first == 0x3a, Self.isPort(port!) else { throw .port }
            }
            host = host[host.utf8.index(after: host.startIndex)..<close]
        } else if let colon = host.utf8.firstIndex(of: 0x3a) {
            port = host[host.utf8.index(after: colon)...]
            guard Self.isPort(port!) else { throw .port }
            host = host[..<colon]
        }
        if host.isEmpty { throw .noHost }
        self.text = text
        self.host = String(host)
        self.port = port.flatMap { Int($0) }
        self.rest = String(text[authorityEnd...])
    }

    private static func isPort(_ text: Substring) -> Bool {
        (1...5).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) } && (1...65535).contains(Int(text) ?? 0)
    }

    package var description: String { redacted }
    package var redacted: String { Text.redactURL(text) }
    package var isLoopback: Bool { host == "127.0.0.1" || host == "localhost" || host == "::1" }

    /// The path's segments, without the query and fragment.
    package var pathSegments: [Substring] {
        rest.prefix { $0 != "?" && $0 != "#" }.split(separator: "/")
    }

    /// What to scrub from anything shown: the whole URL, a query of 8 characters or more, and each path
    /// segment that is not a plain word: 16 characters or more, or 6 or more with a digit (a webhook's
    /// token, Slack's `T…/B…` ids), since servers echo the path in their error pages.
    package var secrets: [String] {
        var secrets = [text]
        let beforeFragment = rest.prefix { $0 != "#" }
        if let query = beforeFragment.firstIndex(of: "?") {
            let queryText = String(beforeFragment[beforeFragment.index(after: query)...])
            if queryText.count >= 8 { secrets.append(queryText) }
        }
        for segment in pathSegments where segment.count >= 16 || (segment.count >= 6 && segment.contains(where: \.isNumber)) {
            secrets.append(String(segment))
        }
        return secrets
    }
}

extension SinkConfig {
    /// A sink's URL key (`url`, or `url_env` / `url_file` naming where it is kept), checked as a
    /// `SinkURL`; nil only when it is absent and not required.
    package func url(_ key: String = "url", required: Bool = true) throws -> SinkURL? {
        guard let text = try secret(key, required: required) else { return nil }
        return try checkedURL(text, key: key)
    }

    /// `text`, the value of `key`, checked as a `SinkURL`; the error points at the key.
    package func checkedURL(_ text: String, key: String) throws -> SinkURL {
        do {
            return try SinkURL(text)
        } catch {
            throw self.error(node[key] ?? node[key + "_env"] ?? node[key + "_file"], "'\(key)' \(error)")
        }
    }
}
