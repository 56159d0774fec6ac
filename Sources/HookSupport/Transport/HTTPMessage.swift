/// An HTTP request to send (`HTTPClient`): a sink builds one, the delivery engine sends every sink's concurrently.
package struct HTTPRequest: Sendable {
    package var method: String = "POST"
    package var url: String
    package var headers: [(String, String)] = []
    package var body: [UInt8] = []
    package var timeout: Double = 10
    package var connectTimeout: Double = 5

    /// A readable rendering with the URL redacted and the given secrets scrubbed (for `test` and logs).
    package func redacted(secrets: [String]) -> String {
        var lines = ["\(method) \(Text.scrub(Text.redactURL(url), secrets: secrets))"]
        for (name, value) in headers {
            let lower = name.lowercased()
            let hidden = lower == "authorization" || lower.contains("token") || lower.contains("signature")
                || lower.contains("secret") || lower == "cookie"
            lines.append("\(name): \(hidden ? Text.redactSecret(value) : Text.scrub(value, secrets: secrets))")
        }
        lines.append("")
        lines.append(Text.scrub(String(decoding: body, as: UTF8.self), secrets: secrets))
        return lines.joined(separator: "\n")
    }

    package init(
        method: String = "POST",
        url: String,
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        timeout: Double = 10,
        connectTimeout: Double = 5
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
    }
}

/// What came back: a status with headers and body, or a transport error before any answer.
package struct HTTPResponse: Sendable {
    /// 0 when no HTTP answer arrived.
    package var status: Int
    /// Header names in lower case.
    package var headers: [(String, String)] = []
    package var body: [UInt8] = []
    /// The transport error (connection refused, timeout…), when there was one.
    package var error: String? = nil
    package var duration: Double = 0
    /// Abandoned at the caller's deadline, not by the request's own timeouts: the endpoint is not at fault.
    package var cutOff = false

    /// A header line's (name in lower case, value), both trimmed; nil for a line that is no header.
    package static func field<Line: StringProtocol>(_ line: Line) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (Text.trimmed(String(line[..<colon])).lowercased(), Text.trimmed(String(line[line.index(after: colon)...])))
    }

    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.0 == lower })?.1
    }

    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}
