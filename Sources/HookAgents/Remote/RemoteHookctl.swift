/// The remote command line that runs hookctl on another host, built from a fixed allowlist.
///
/// ssh hands its command to the remote login shell (sh, bash, zsh, fish or csh), so what goes there is
/// a constant launcher (`/bin/sh -c '…'`, which finds hookctl on a non-interactive PATH with
/// `~/.local/bin` first) followed by words of an allowed hookctl command line, each single-quoted.
/// A word that is not an allowed subcommand or option is a value (a target, a label, a number): it
/// may not begin with `-`, hold a control character or `!` (csh history), and is quoted whatever it
/// holds. Text to type never comes here: it goes on ssh's standard input (`-`).
package enum RemoteHookctl {
    /// What the launcher prints on standard error when the host has no hookctl (exit 127).
    package static let missingMarker = "hookctl-remote: not-found"

    package static let launcher = #"/bin/sh -c 'PATH="$HOME/.local/bin:$PATH:/usr/local/bin:/usr/bin:/bin"; export PATH; "#
        + #"command -v hookctl >/dev/null 2>&1 || { echo "\#(missingMarker)" >&2; exit 127; }; exec hookctl "$@"' hookctl"#

    /// The link's remote end (`HostLink`): `hookctl hosts serve`, answering request lines on standard input.
    package static let serveCommand = launcher + " 'hosts' 'serve'"

    /// Each subcommand the board runs on a host, and the options it may pass.
    package static let allowed: [String: Set<String>] = [
        "status": ["--json"],
        "events": ["--json", "--follow", "--since"],
        "peek": ["--json", "--lines", "--next"],
        "reply": ["--json", "--key", "--choice", "--no-enter", "--next"],
        "jump": ["--json", "--next"],
        "dismiss": ["--json"],
    ]

    /// What is wrong with a value word (nil: fine).
    package static func valueProblem(_ word: String) -> String? {
        if word.isEmpty || word.utf8.count > 1024 { return "a value sent to another host must be 1 to 1024 bytes" }
        if word.hasPrefix("-"), word != "-" { return "'\(SSHRunner.clean(word))' begins with '-'" }
        if word.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f || $0 == "!" || (0x80...0x9f).contains($0.value) }) {
            return "'\(SSHRunner.clean(word))' holds a control character or '!'"
        }
        return nil
    }

    /// The remote command for `hookctl WORDS…`; throws a usage error for anything off the allowlist.
    package static func command(_ words: [String]) throws -> String {
        guard let subcommand = words.first, let options = allowed[subcommand] else {
            throw UsageError(message: "hookctl runs only \(allowed.keys.sorted().joined(separator: ", ")) on another host")
        }
        for word in words.dropFirst() {
            if word.hasPrefix("--") {
                guard options.contains(word) else { throw UsageError(message: "'\(SSHRunner.clean(word))' is not sent to another host") }
            } else if let problem = valueProblem(word) {
                throw UsageError(message: problem + "; it is not sent to another host")
            }
        }
        return launcher + " " + words.map(quote).joined(separator: " ")
    }

    /// One word for any POSIX shell, fish or csh: inside single quotes, a `'` closes, is escaped and reopens.
    package static func quote(_ word: String) -> String { "'" + word.replacing("'", with: #"'\''"#) + "'" }

    /// How a run of the remote hookctl went, classified for a row or an error.
    package enum Outcome: Equatable {
        case ok([UInt8])
        /// ssh could not run the command (exit 255), or the deadline passed.
        case unreachable(reason: String, fix: String)
        case missing
        case tooOld(String)
        /// hookctl ran and failed: its own message (cleaned) and exit status.
        case failed(reason: String, status: Int32)
        case badAnswer(String)
    }

    /// Reads a finished ssh run: what ssh said, the launcher's marker, hookctl's status and output.
    package static func outcome(_ result: Subprocess.Result, host: String, limit: Int) -> Outcome {
        if result.status == .exited(255) {
            let (reason, fix) = SSHRunner.failure(result, host: host)
            return .unreachable(reason: reason, fix: fix)
        }
        if result.status == .exited(127), result.errorText.contains(missingMarker) { return .missing }
        let said = SSHRunner.lines(result.errorText).last { !$0.isEmpty }
        if result.status == .exited(64), said.map({ $0.contains("unknown") }) ?? true {
            return .tooOld(said ?? "it does not know this command")
        }
        guard result.status.succeeded else {
            let status: Int32
            if case .exited(let code) = result.status { status = code } else { status = 70 }
            return .failed(reason: said ?? "hookctl \(result.status)", status: status)
        }
        if result.standardOutput.count >= limit { return .badAnswer("its answer is larger than \(limit >> 20) MB") }
        return .ok(result.standardOutput)
    }

    /// An answer's bytes as JSON: refused when it holds raw control bytes (a terminal sequence, not
    /// hookctl's JSON, which escapes them) or does not parse.
    package static func json(_ bytes: [UInt8]) throws(HostProblem) -> JSONValue {
        if bytes.contains(where: { ($0 < 0x20 && $0 != 0x0a && $0 != 0x0d && $0 != 0x09) || $0 == 0x7f }) {
            throw HostProblem("its answer holds terminal control bytes")
        }
        do { return try JSON.parse(bytes) } catch { throw HostProblem("its answer is not valid JSON") }
    }
}

/// Why one host's answer could not be used (shown on its row only).
package struct HostProblem: Error, Equatable {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
}
