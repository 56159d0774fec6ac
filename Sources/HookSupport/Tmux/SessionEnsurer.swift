/// What the phone knows about its session: the name to use and, from an earlier `ensure`, the
/// session id, creation time and token it was told.
package struct EnsureRequest: Sendable, Equatable {
    package var name: String
    package var sessionID: String? = nil
    package var created: Int? = nil
    package var token: String? = nil

    package init(
        name: String,
        sessionID: String? = nil,
        created: Int? = nil,
        token: String? = nil
    ) {
        self.name = name
        self.sessionID = sessionID
        self.created = created
        self.token = token
    }
}

/// How an existing session was recognised.
package enum SessionMatch: String, Sendable {
    /// The recorded id, with the same creation time (and token, when one was recorded).
    case sessionID = "session_id"
    /// The exact name.
    case name
}

/// The session `ensure` settled on, with everything the phone stores for next time.
package struct EnsureResult: Sendable, Equatable {
    package var session: TmuxSession
    package var createdNow: Bool
    package var matchedBy: SessionMatch?
    package var socketPath: String
    package var tmuxPath: String
    package var tmuxVersion: String

    /// `$N`: exact, and it follows renames; it was verified a moment ago.
    package var target: String { session.id }

    package var json: JSONValue {
        .object(JSONObject([
            ("target", .string(target)),
            ("name", .string(session.name)),
            ("session_id", .string(session.id)),
            ("created", .int(session.created)),
            ("token", session.token.map { .string($0) } ?? .null),
            ("socket", .string(socketPath)),
            ("tmux", .string(tmuxPath)),
            ("tmux_version", .string(tmuxVersion)),
            ("created_now", .bool(createdNow)),
            ("matched_by", matchedBy.map { .string($0.rawValue) } ?? .null),
        ]))
    }

    /// One stable line of `key=value` pairs, values shell-quoted when they need it.
    package var line: String {
        let pairs: [(String, String)] = [
            ("target", target), ("name", session.name), ("session_id", session.id), ("created", String(session.created)),
            ("token", session.token ?? ""), ("socket", socketPath), ("tmux", tmuxPath), ("tmux_version", tmuxVersion),
            ("created_now", createdNow ? "true" : "false"), ("matched_by", matchedBy?.rawValue ?? ""),
        ]
        return pairs.map { "\($0.0)=\(shellQuoted($0.1))" }.joined(separator: " ")
    }
}

/// Single-quotes `text` for a POSIX shell unless it is made only of characters that need no quoting.
package func shellQuoted(_ text: String) -> String {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
    if !text.isEmpty, text.allSatisfy({ safe.contains($0) }) { return text }
    return "'" + text.replacing("'", with: "'\\''") + "'"
}

/// Create-or-reuse of the phone's session, in as few tmux round trips as correctness allows:
/// one targeted look-up (by id and by exact name) when the session exists; otherwise, under a
/// per-name lock, a full `list-sessions` and one chained `new-session … ; set-option …` invocation
/// (plus `tmux -V` when no server can say its version).
package struct SessionEnsurer: Sendable {
    package var client: TmuxClient
    /// Where the per-socket, per-name lock files live (the state directory); nil: no lock, only
    /// tmux's own `duplicate session` check.
    package var lockDirectory: String?
    /// nil: decide from the tmux version; true forces the pre-3.2 way of scoping the gate variable.
    package var legacyEnvironment: Bool? = nil
    /// The gate variable set (to 1) in the sessions it creates: `defaults.gate`, SSHIDO_SESSION by default.
    package var gate = Product.gateVariable

    package func ensure(_ request: EnsureRequest) throws -> EnsureResult {
        try SessionIdentity.validateName(request.name)
        // Fast path, one round trip: the stored session exists and carries a token.
        let probe = try client.probe(sessionID: request.sessionID, name: request.name)
        if let (session, match) = SessionEnsurer.find(request, in: probe), session.token != nil {
            return result(session, createdNow: false, match: match, listing: probe, version: probe.serverVersion)
        }
        // Slow path: stamp a token on a session that has none, or create the session. Serialised
        // per name so two phones' connections at the same moment end with one session.
        let lock = try acquireLock(name: request.name)
        defer { lock?.unlock() }
        let current = try client.listSessions()
        if let (session, match) = SessionEnsurer.find(request, in: current) {
            return try reuse(session, match: match, listing: current)
        }
        return try create(request, listing: current)
    }

    /// The stored session: by recorded id when its creation time (and token, when recorded) match,
    /// else by exact name. Never a prefix, never a recycled id.
    package static func find(_ request: EnsureRequest, in listing: SessionListing) -> (TmuxSession, SessionMatch)? {
        if let id = request.sessionID, let created = request.created, let session = listing.session(id: id),
           session.created == created, request.token == nil || session.token == request.token {
            return (session, .sessionID)
        }
        if let session = listing.session(named: request.name) { return (session, .name) }
        return nil
    }

    private func reuse(_ found: TmuxSession, match: SessionMatch, listing: SessionListing) throws -> EnsureResult {
        var session = found
        if session.token == nil {
            let token = SessionIdentity.newToken()
            let outcome = try client.run(["set-option", "-t", session.id, SessionRow.tokenOption, token])
            guard outcome.status == 0 else { throw client.failure("set-option", outcome) }
            session.token = token
        }
        return result(session, createdNow: false, match: match, listing: listing, version: listing.serverVersion)
    }

    private func create(_ request: EnsureRequest, listing: SessionListing) throws -> EnsureResult {
        let version = try listing.serverVersion ?? client.binaryVersion()
        let legacy = legacyEnvironment ?? !TmuxVersion.supportsSessionEnvironment(version)
        let token = SessionIdentity.newToken()
        let variable = gate
        // One invocation; the chained commands act on the session new-session just made (its
        // "current" target), so no name has to round-trip through a target.
        var arguments = ["new-session", "-d", "-s", SessionIdentity.literalArgument(request.name), "-P", "-F", SessionRow.format]
        if legacy {
            // No `-e` before 3.2: scope the variable to the session, then restart the first pane
            // (a shell that has done nothing yet) so it sees it too.
            arguments += [";", "set-environment", variable, "1", ";", "respawn-pane", "-k"]
        } else {
            arguments += ["-e", "\(variable)=1"]
        }
        arguments += [";", "set-option", SessionRow.tokenOption, token]
        // tmux's status-left ("[NAME] ") is cut at 10 columns by default: `[sshido-9B0`. Widened for
        // this session only, never globally.
        arguments += [";", "set-option", "status-left-length", String(min(200, max(10, request.name.count + 4)))]
        // The `mouse` option arrived in 2.1; on older servers it would fail the whole invocation.
        if TmuxVersion(version).map({ $0 >= TmuxVersion(major: 2, minor: 1) }) ?? true {
            arguments += [";", "set-option", "mouse", "on"]
        }
        var outcome = try client.run(arguments)
        if outcome.status != 0, client.isNoServer(outcome) {
            // The old server was still shutting down when we connected; the next call starts a new one.
            sleepSeconds(0.05)
            outcome = try client.run(arguments)
        }
        if outcome.status != 0 {
            // Someone else (another tool, or a hookctl without our lock) created it meanwhile.
            if let stored = SessionIdentity.duplicateName(in: outcome.errorText) {
                let current = try client.listSessions()
                if let session = current.session(named: stored) ?? current.session(named: request.name) {
                    return try reuse(session, match: .name, listing: current)
                }
            }
            throw client.failure("new-session", outcome)
        }
        let created = try SessionRow.parse(outcome.outputText, command: "new-session")
        guard var session = created.sessions.first else {
            throw TmuxError.unreadableOutput(command: "new-session", output: outcome.outputText)
        }
        session.token = token
        return result(session, createdNow: true, match: nil, listing: created, version: created.serverVersion ?? version)
    }

    private func result(_ session: TmuxSession, createdNow: Bool, match: SessionMatch?, listing: SessionListing, version: String?) -> EnsureResult {
        EnsureResult(session: session, createdNow: createdNow, matchedBy: match,
                     socketPath: listing.socketPath ?? client.socket.path, tmuxPath: client.executable,
                     tmuxVersion: version ?? "")
    }

    /// Waits for the lock up to the tmux time limit; a lock file that cannot be made only costs the
    /// extra safety (tmux still refuses a duplicate name).
    private func acquireLock(name: String) throws -> FileLock? {
        guard let lockDirectory else { return nil }
        guard (try? FileSystem.makeDirectories(lockDirectory)) != nil else { return nil }
        let path = lockDirectory + "/session-" + SessionEnsurer.lockKey(socket: client.socket.path, name: name) + ".lock"
        let deadline = ContinuousClock.Instant.after(seconds: client.timeout)
        while true {
            let attempt: FileLock?
            do { attempt = try FileLock(path: path, wait: false) } catch { return nil }
            if let attempt { return attempt }
            if deadline.hasPassed { throw TmuxError.busy(name: name, seconds: client.timeout) }
            sleepSeconds(0.005)
        }
    }

    /// FNV-1a of socket and name: a file name that needs no escaping.
    package static func lockKey(socket: String, name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(socket.utf8) + [0] + Array(name.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    package init(
        client: TmuxClient,
        lockDirectory: String? = nil,
        legacyEnvironment: Bool? = nil,
        gate: String = Product.gateVariable
    ) {
        self.client = client
        self.lockDirectory = lockDirectory
        self.legacyEnvironment = legacyEnvironment
        self.gate = gate
    }
}
