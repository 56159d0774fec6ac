/// The relay URL `setup --notify-url` takes. It ends up in the YAML config, so it is checked
/// before anything is written; it is a bearer secret, so it is only ever shown redacted.
public struct NotifyURL: Sendable, Equatable {
    public var text: String
    /// Set when the URL is acceptable but not of the relay's `/n/<token>` shape.
    public var warning: String?

    public var redacted: String { Text.redactURL(text) }

    public init(_ text: String) throws {
        func fail(_ why: String) -> SetupError { .invalidURL(redacted: Text.redactURL(NotifyURL.printable(text)), reason: why) }
        if text.isEmpty { throw fail("it is empty") }
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7f || (0x80...0x9f).contains(scalar.value) {
                throw fail("it contains a control character (newline, tab…)")
            }
            if scalar.properties.isWhitespace { throw fail("it contains whitespace") }
            if scalar == "\"" || scalar == "'" || scalar == "`" || scalar == "\\" {
                throw fail("it contains a quote or backslash")
            }
        }
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { throw fail("it must start with https:// or http://") }
        let afterScheme = text[text.index(text.startIndex, offsetBy: lower.hasPrefix("https://") ? 8 : 7)...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        var host = Substring(hostPort)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw fail("its IPv6 host has no closing ']'") }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.firstIndex(of: ":") {
            let port = host[host.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isNumber), let number = Int(port), number > 0, number < 65536 else {
                throw fail("its port is not a number between 1 and 65535")
            }
            host = host[..<colon]
        }
        if host.isEmpty { throw fail("it has no host") }
        if afterScheme.contains("{") || afterScheme.contains("}") || afterScheme.contains("$") || afterScheme.contains("<") || afterScheme.contains(">") {
            throw fail("it contains characters that do not belong in a URL ({ } $ < >)")
        }
        self.text = text
        let path = afterScheme.dropFirst(authority.count)
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        if !(segments.count >= 2 && segments[segments.count - 2] == "n" && segments.last!.count >= 8) {
            warning = "\(Text.redactURL(text)) does not look like a relay URL (https://HOST/n/TOKEN); using it anyway"
        }
        if lower.hasPrefix("http://"), !(host == "127.0.0.1" || host == "localhost" || host == "::1") {
            let note = "the URL uses plain http: the token travels unencrypted"
            warning = warning.map { $0 + "; " + note } ?? note
        }
    }

    /// The URL with control characters made visible, for an error message.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : $0 }))
    }
}

/// What setup, uninstall, doctor and test can fail with.
public enum SetupError: HookctlError {
    case invalidURL(redacted: String, reason: String)
    case unknownAgent(String, known: [String])
    case malformedSettings(path: String, line: Int, column: Int, reason: String)
    case unsupportedSettings(path: String, reason: String)
    case missingResource(String)
    case configLayout(path: String, reason: String)

    public var exitCode: ExitCode {
        switch self {
        case .invalidURL, .unknownAgent: return .usage
        case .malformedSettings, .unsupportedSettings: return .dataError
        case .missingResource: return .software
        case .configLayout: return .config
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "the notify URL \(url) is not usable: \(reason). Nothing was written. Paste the URL exactly as the app shows it."
        case .unknownAgent(let name, let known):
            return "unknown agent '\(name)'\(Suggest.hint(for: name, in: known)); known agents: \(known.joined(separator: ", ")) (add your own as a manifest, see hooks/README.md)"
        case .malformedSettings(let path, let line, let column, let reason):
            return "\(path):\(line):\(column): \(reason); the file was left untouched. Fix it (or move it away) and run the command again."
        case .unsupportedSettings(let path, let reason):
            return "\(path): \(reason); the file was left untouched."
        case .missingResource(let name):
            return "\(name) is missing from this installation; reinstall hookctl with ./install.sh"
        case .configLayout(let path, let reason):
            return "\(path): \(reason); the config was left untouched. Edit the relay sink by hand (see README)."
        }
    }
}
