/// What a host in the config may be: one place for the rules the config reader, `hosts add` and
/// `deploy --add-host` apply. Each returns nil when the value is fine, else what is wrong with it.
package enum HostRules {
    /// The label the local host's rows carry (not a name a remote host may take).
    package static let localName = "local"
    package static let longestName = 24

    /// A short label: letters, digits, `-` and `_`, starting with a letter or digit, at most 24
    /// characters (it qualifies targets as `NAME:TARGET`, so no `:`, and it is shown in a column).
    package static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty else { return "a host needs a name (a short label such as box2)" }
        guard name.count <= longestName else { return "the host name '\(SSHRunner.clean(name))' is longer than \(longestName) characters" }
        let scalars = name.unicodeScalars
        let allowed = scalars.allSatisfy { $0.isASCIILetterOrDigit || $0 == "-" || $0 == "_" }
        guard allowed, let first = scalars.first, first != "-", first != "_" else {
            return "'\(SSHRunner.clean(name))' is not a host name: use letters, digits, - and _ (such as box2)"
        }
        if name == localName { return "'\(localName)' names this host's own rows; pick another name" }
        return nil
    }

    /// An ssh destination: `host`, `user@host` or an alias; nothing ssh could read as an option, no
    /// space or control character.
    package static func destinationProblem(_ destination: String) -> String? {
        guard !destination.isEmpty, destination.utf8.count <= 255 else { return "the ssh destination must be 1 to 255 characters" }
        guard !destination.hasPrefix("-"),
              destination.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7f && !"'\"`$;&|<>(){}\\!*?#~".unicodeScalars.contains($0) })
        else { return "'\(SSHRunner.clean(destination))' is not an ssh destination ([user@]host or an alias from your ssh config)" }
        return nil
    }

    /// The ssh options hookctl sets itself, which a host may not change (ssh keeps the first value
    /// given, so a host's own would win), and the ones that would switch off ssh's host key check.
    package static let reservedOptions = ["batchmode", "controlmaster", "controlpath", "controlpersist"]

    /// One `-o` option, `Key=Value` (or `Key Value`).
    package static func optionProblem(_ option: String) -> String? {
        guard !option.isEmpty, option.utf8.count <= 1024,
              !option.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            return "an ssh option is one line such as Port=2222"
        }
        let key = option.prefix { $0 != "=" && $0 != " " }
        let value = Text.trimmed(String(option.dropFirst(key.count).drop { $0 == "=" || $0 == " " })).lowercased()
        guard !key.isEmpty, key.allSatisfy({ $0.isASCII && $0.isLetter }), !value.isEmpty else {
            return "'\(SSHRunner.clean(option))' is not an ssh option: use Key=Value such as Port=2222"
        }
        if reservedOptions.contains(key.lowercased()) {
            return "hookctl sets \(key) itself (batch mode and its own control socket); drop it"
        }
        if key.lowercased() == "stricthostkeychecking", ["no", "off"].contains(value) {
            return "StrictHostKeyChecking=\(value) would accept any host key; hookctl keeps ssh's own check"
        }
        if key.lowercased() == "userknownhostsfile", value == "/dev/null" {
            return "UserKnownHostsFile=/dev/null would accept any host key; hookctl keeps ssh's own check"
        }
        return nil
    }
}
