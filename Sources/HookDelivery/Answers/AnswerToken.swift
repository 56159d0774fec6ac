/// An answer from a push (an ntfy action, a Telegram button): a token that names one option of one
/// question of one board agent, until an expiry, once. Its MAC (HMAC-SHA256, cut to 96 bits) is taken
/// under the user's answer key (`AnswerKey`, made by hookctl, mode 0600, never sent) over the token's
/// own fields and this host's and user's identity, so anyone who can read or post to the reply topic
/// can neither make one nor change one, and a token made on another host or by another user does not
/// verify here. It fits Telegram's 64-byte `callback_data`:
///
///     a1.<board key ref>.<question ref>.<option n>.<expiry, base 36>.<nonce>.<mac>
///
/// The refs are SHA-256 prefixes (base64url) of the board key (6 bytes) and of the question: its text
/// and options as the push showed them, and the board's number for this asking of it
/// (`BoardEntry.askedSeq`), so a button from an earlier asking of the same text is told apart (9 bytes);
/// the nonce is 8 random bytes, used once (`UsedNonces`).
package struct AnswerToken: Equatable, Sendable {
    package var keyRef: String
    package var questionRef: String
    /// The option's number as the agent's screen shows it (`Question.Option.n`).
    package var option: Int
    /// Epoch seconds.
    package var expiry: Int
    package var nonce: String
    package var mac: String

    package static let prefix = "a1"
    /// The longest token text: Telegram's `callback_data` takes at most 64 bytes.
    package static let maximumLength = 64
    /// How long a push's answers may be used.
    package static let lifetime: Double = 3600

    package var signedPart: String {
        [Self.prefix, keyRef, questionRef, String(option), String(expiry, radix: 36), nonce].joined(separator: ".")
    }

    package var text: String { signedPart + "." + mac }

    /// The ref of a board key (`claude:abc`).
    package static func keyRef(_ boardKey: String) -> String { ref(Array(boardKey.utf8), bytes: 6) }

    /// The ref of a question: its text, then each option's number and label, as the push shows them,
    /// then the sequence number of the event that asked it (`BoardEntry.askedSeq`).
    package static func questionRef(_ question: Question, asked: Int) -> String {
        var canonical = Array(question.text.utf8)
        for option in question.options {
            canonical.append(0)
            canonical += Array("\(option.n ?? 0)\t\(option.label)".utf8)
        }
        canonical += [0, question.multiSelect ? 1 : 0]
        canonical += Array("\u{0}#\(asked)".utf8)
        return ref(canonical, bytes: 9)
    }

    private static func ref(_ bytes: [UInt8], bytes count: Int) -> String {
        Base64.url(Array((SHA256.digest(bytes) ?? []).prefix(count)))
    }

    /// This host and user, bound into every MAC: `host|uid`.
    package static var identity: String { shortHostName() + "|" + String(getuid()) }

    /// A new token for option `option` of `question` asked by board agent `boardKey` in its event `asked`.
    package static func mint(key: [UInt8], boardKey: String, question: Question, asked: Int, option: Int, expiry: Int,
                     identity: String = AnswerToken.identity) -> AnswerToken {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var token = AnswerToken(keyRef: keyRef(boardKey), questionRef: questionRef(question, asked: asked), option: option, expiry: expiry,
                                nonce: Base64.url(nonce), mac: "")
        token.mac = token.expectedMAC(key: key, identity: identity)
        return token
    }

    package func expectedMAC(key: [UInt8], identity: String) -> String {
        Base64.url(Array(HMAC.sha256(key: key, message: Array((signedPart + "|" + identity).utf8)).prefix(12)))
    }

    /// Whether the MAC is the one this key and identity give (compared in constant time).
    package func verifies(key: [UInt8], identity: String = AnswerToken.identity) -> Bool {
        let expected = Array(expectedMAC(key: key, identity: identity).utf8)
        let given = Array(mac.utf8)
        guard expected.count == given.count, !key.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }

    /// Reads a token strictly: the prefix, six dots, each field of its exact length and alphabet.
    /// nil for anything else (a truncated, padded or oversized text).
    package static func parse(_ text: String) -> AnswerToken? {
        guard text.utf8.count <= maximumLength, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 7, parts[0] == prefix,
              parts[1].utf8.count == 8, Base64.decodeURL(parts[1]) != nil,
              parts[2].utf8.count == 12, Base64.decodeURL(parts[2]) != nil,
              (1...2).contains(parts[3].utf8.count), parts[3].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let option = Int(parts[3]), option >= 1,
              (1...8).contains(parts[4].utf8.count), parts[4].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }),
              let expiry = Int(parts[4], radix: 36),
              parts[5].utf8.count == 11, Base64.decodeURL(parts[5]) != nil,
              parts[6].utf8.count == 16, Base64.decodeURL(parts[6]) != nil else { return nil }
        return AnswerToken(keyRef: parts[1], questionRef: parts[2], option: option, expiry: expiry, nonce: parts[5], mac: parts[6])
    }
}

/// The user's answer key: 32 random bytes in the state directory (`answer.key`, mode 0600), made by
/// hookctl the first time a push carries answers, never sent and never printed. Written in full to a
/// temporary file, flushed, then linked into place (never over an existing key: two senders making
/// it at once end with one key).
package enum AnswerKey {
    package static let size = 32

    package static func path(_ paths: Paths) -> String { paths.stateDirectory + "/answer.key" }

    /// The key; made when there is none and `create` is true. Throws on a key that is not a regular
    /// file of 32 bytes readable by the user alone.
    package static func load(paths: Paths, create: Bool) throws -> [UInt8]? {
        let path = path(paths)
        if let key = try read(path) { return key }
        guard create else { return nil }
        try FileSystem.makeDirectories(paths.stateDirectory)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let temporary = "\(paths.stateDirectory)/.answer.key.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = try FileSystem.openStateFile(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600, operation: .create)
        do throws(Errno) {
            try fd.closeAfter { (fd) throws(Errno) in
                try fd.writeAll(bytes)
                fchmod(fd.rawValue, 0o600)
                fd.sync()
            }
        } catch {
            unlink(temporary)
            throw error.at(path)
        }
        let linked = link(temporary, path) == 0
        let code = errno
        unlink(temporary)
        if !linked, code != EEXIST { throw SystemError.io(path: path, operation: .create, errno: code) }
        FileSystem.syncDirectory(paths.stateDirectory)
        // The one in place now: this one, or the one another process linked first.
        return try read(path)
    }

    private static func read(_ path: String) throws -> [UInt8]? {
        guard let status = FileSystem.status(path, followSymlinks: false) else { return nil }
        guard status.st_mode & S_IFMT == S_IFREG else { throw AnswerKeyError.unsafe(path: path, why: "it is not a regular file") }
        guard status.st_mode & 0o077 == 0 else { throw AnswerKeyError.unsafe(path: path, why: "others may read it (chmod 600 it, or remove it)") }
        guard status.st_uid == getuid() else { throw AnswerKeyError.unsafe(path: path, why: "another user owns it") }
        guard let bytes = try FileSystem.read(path, limit: size + 1, followSymlinks: false), bytes.count == size else {
            throw AnswerKeyError.unsafe(path: path, why: "it is not \(size) bytes (remove it: a new key is made, and pushes sent before can no longer be answered)")
        }
        return bytes
    }
}

package enum AnswerKeyError: HookctlError {
    case unsafe(path: String, why: String)

    package var code: String { "answer_key_unsafe" }
    package var exitCode: ExitCode { .config }
    package var description: String {
        switch self {
        case .unsafe(let path, let why): return "the answer key \(path) is not used: \(why)"
        }
    }
}

/// A file of lines that each expire: appended and flushed under `PATH.lock`; past `compactAfter`
/// lines, rewritten atomically without the expired ones. What `UsedNonces` and `AnswerRecords` keep.
package struct ExpiringLines {
    package var path: String
    /// A line's expiry (epoch seconds); nil: the line is dropped when the file is rewritten.
    package var expiry: (Substring) -> Int?
    package static let compactAfter = 1000
    package static let readLimit = 8 << 20

    package func lines() throws -> [Substring] {
        let bytes = try FileSystem.read(path, limit: Self.readLimit, followSymlinks: false) ?? []
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    }

    /// Under the lock: `decide` sees the lines and returns the lines to add (none: nothing is written).
    package func update(now: Double = WallClock.nowEpoch(), _ decide: ([Substring]) throws -> [String]) throws {
        let lock = try FileLock(path: path + ".lock", deadline: .after(seconds: 5))
        defer { lock?.unlock() }
        var lines = try lines()
        let added = try decide(lines)
        guard !added.isEmpty else { return }
        if lines.count + added.count > Self.compactAfter {
            lines = lines.filter { expiry($0).map { Double($0) >= now } ?? false }
            try FileSystem.writeAtomically(path, text: (lines.map(String.init) + added).joined(separator: "\n") + "\n", mode: 0o600,
                                           sync: true, followSymlinks: false)
        } else {
            let fd = try FileSystem.openStateFile(path, O_WRONLY | O_APPEND | O_CREAT, mode: 0o600)
            try fd.closeAfter { fd in
                try FileSystem.appendOrTruncate(fd, bytes: Array((added.joined(separator: "\n") + "\n").utf8), path: path)
                fd.sync()
            }
        }
    }
}

/// The nonces of answers acted on, until their tokens expire: one line `NONCE EXPIRY` each in
/// `answer-nonces`, recorded and flushed before the answer is pressed, so an answer is pressed at most
/// once even across a kill -9. Only tokens whose MAC verified are recorded (nobody else can add lines).
package struct UsedNonces {
    package var file: ExpiringLines
    package static let compactAfter = ExpiringLines.compactAfter
    package var path: String { file.path }

    package init(paths: Paths) {
        file = ExpiringLines(path: paths.stateDirectory + "/answer-nonces", expiry: { $0.split(separator: " ").last.flatMap { Int($0) } })
    }

    /// Records `nonce`; false when it was recorded before (a replay).
    package func use(_ nonce: String, expiry: Int, now: Double = WallClock.nowEpoch()) throws -> Bool {
        var fresh = false
        try file.update(now: now) { lines in
            guard !lines.contains(where: { $0.split(separator: " ").first.map(String.init) == nonce }) else { return [] }
            fresh = true
            return ["\(nonce) \(expiry)"]
        }
        return fresh
    }
}

/// What each token's button offered, kept on the host (the token carries only refs): the board key,
/// the question as the push showed it and which asking of it (`BoardEntry.askedSeq`), the option. One JSON line per token in `answer-tokens`,
/// written (flushed) before the push goes out.
package struct AnswerRecords {
    package struct Record: Equatable {
        package var nonce: String
        package var boardKey: String
        package var question: Question
        /// The board's `askedSeq` when the push went out: the event that asked this question this time.
        package var asked: Int
        /// The option's place in `question.options`, 1-based (the token's option field).
        package var position: Int
        package var expiry: Int

        package var option: Question.Option? { question.options.indices.contains(position - 1) ? question.options[position - 1] : nil }

        package var json: JSONValue {
            .object(JSONObject([("nonce", .string(nonce)), ("key", .string(boardKey)), ("question", question.json),
                                ("asked", .int(asked)), ("option", .int(position)), ("expiry", .int(expiry))]))
        }

        package init(nonce: String, boardKey: String, question: Question, asked: Int, position: Int, expiry: Int) {
            self.nonce = nonce
            self.boardKey = boardKey
            self.question = question
            self.asked = asked
            self.position = position
            self.expiry = expiry
        }

        package init?(json: JSONValue) {
            guard let nonce = json["nonce"]?.stringValue, let key = json["key"]?.stringValue,
                  let question = json["question"].flatMap(Question.init(json:)), let asked = json["asked"]?.intValue,
                  let position = json["option"]?.intValue, let expiry = json["expiry"]?.intValue else { return nil }
            self.init(nonce: nonce, boardKey: key, question: question, asked: asked, position: position, expiry: expiry)
        }
    }

    package var file: ExpiringLines

    package init(paths: Paths) {
        file = ExpiringLines(path: paths.stateDirectory + "/answer-tokens",
                             expiry: { (try? JSON.parse(String($0)))?["expiry"]?.intValue })
    }

    package func add(_ records: [Record]) throws {
        try file.update { _ in records.map { JSON.serialize($0.json) } }
    }

    /// The record of `nonce`, newest first; nil when there is none.
    package func find(_ nonce: String) throws -> Record? {
        let needle = "\"nonce\":\"" + nonce + "\""
        for line in try file.lines().reversed() where line.contains(needle) {
            if let record = (try? JSON.parse(String(line))).flatMap(Record.init(json:)), record.nonce == nonce { return record }
        }
        return nil
    }
}
