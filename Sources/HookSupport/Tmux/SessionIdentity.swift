/// How a phone session is named and recognised: the derived name, the identity token, and the
/// checks on what the phone sends back.
package enum SessionIdentity {
    package static let defaultPrefix = "sshido"

    /// `<prefix>-<first 8 hex digits of the UUID, upper case>`; nil when `uuid` is not a UUID.
    package static func derivedName(uuid: String, prefix: String = defaultPrefix) -> String? {
        let hex = uuid.filter { $0 != "-" }
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
        return prefix + "-" + hex.prefix(8).uppercased()
    }

    /// A fresh random identity token (128 bits, hex), stored on the session as `@hookctl_token`.
    package static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (value: UInt64) -> String in
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// `$N`.
    package static func isSessionID(_ text: String) -> Bool {
        text.count > 1 && text.first == "$" && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Rejects names tmux cannot hold at all; names tmux rewrites (`.`, `:`, control characters)
    /// are accepted and reported as tmux stored them.
    package static func validateName(_ name: String) throws {
        if name.isEmpty { throw TmuxError.invalidName(name: name, reason: "it is empty") }
        if name.unicodeScalars.contains("\0") { throw TmuxError.invalidName(name: name, reason: "it contains a NUL character") }
        if name.utf8.count > 256 { throw TmuxError.invalidName(name: name, reason: "it is longer than 256 bytes") }
    }

    /// A session name as a literal `new-session -s` argument: `-s` is expanded as a format (so `#`
    /// is doubled, or `#(cmd)` would run), and an argument ending in `;` would end the command
    /// (so that `;` is escaped).
    package static func literalArgument(_ name: String) -> String {
        let escaped = name.replacing("#", with: "##")
        return escaped.hasSuffix(";") ? String(escaped.dropLast()) + "\\;" : escaped
    }

    /// The name tmux printed in `duplicate session: NAME` (how it stored the requested name).
    package static func duplicateName(in message: String) -> String? {
        guard let range = message.firstRange(of: "duplicate session: ") else { return nil }
        let rest = message[range.upperBound...]
        let line = rest.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
        return String(line)
    }
}
