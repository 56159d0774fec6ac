/// An HTTP request to send (`HTTPClient`): a sink builds one, the delivery engine sends every sink's concurrently.
struct HTTPRequest: Sendable {
    var method: String = "POST"
    var url: String
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var timeout: Double = 10
    var connectTimeout: Double = 5

    /// A readable rendering with the URL redacted and the given secrets scrubbed (for `test` and logs).
    func redacted(secrets: [String]) -> String {
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
}

/// What came back: a status with headers and body, or a transport error before any answer.
struct HTTPResponse: Sendable {
    /// 0 when no HTTP answer arrived.
    var status: Int
    /// Header names in lower case.
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    /// The transport error (connection refused, timeout…), when there was one.
    var error: String? = nil
    var duration: Double = 0
    /// Abandoned at the caller's deadline, not by the request's own timeouts: the endpoint is not at fault.
    var cutOff = false

    /// A header line's (name in lower case, value), both trimmed; nil for a line that is no header.
    static func field<Line: StringProtocol>(_ line: Line) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (Text.trimmed(String(line[..<colon])).lowercased(), Text.trimmed(String(line[line.index(after: colon)...])))
    }

    func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.0 == lower })?.1
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
