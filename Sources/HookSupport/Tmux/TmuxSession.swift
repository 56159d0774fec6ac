/// One session on a tmux server, as one `list-sessions` row reports it.
package struct TmuxSession: Sendable, Equatable {
    /// `$N`: unique within one server process, recycled after a restart.
    package var id: String
    package var name: String
    /// `session_created`, epoch seconds.
    package var created: Int
    package var windows: Int = 1
    package var attachedClients: Int = 0
    /// hookctl's identity token (`@hookctl_token`); nil when the session has none.
    package var token: String? = nil

    /// Whether hookctl stamped this session with its token.
    package var isManaged: Bool { token != nil }

    package var json: JSONValue {
        .object(JSONObject([
            ("session_id", .string(id)),
            ("name", .string(name)),
            ("created", .int(created)),
            ("windows", .int(windows)),
            ("attached", .int(attachedClients)),
            ("managed", .bool(isManaged)),
            ("token", token.map { .string($0) } ?? .null),
        ]))
    }
}

/// Everything one `list-sessions` call learned: the sessions and, when any exist, the server's version and socket.
package struct SessionListing: Sendable, Equatable {
    package var sessions: [TmuxSession]
    package var serverVersion: String? = nil
    package var socketPath: String? = nil

    package func session(id: String) -> TmuxSession? { sessions.first { $0.id == id } }
    package func session(named name: String) -> TmuxSession? { sessions.first { $0.name == name } }
}

/// The `-F` format hookctl reads sessions with, and its parser.
///
/// Fields are separated by US (0x1f) and records end with RS (0x1e): since tmux 3.2 every control
/// character in a session name is escaped (`\t`, `\037`), so neither can appear. The name comes
/// last, so on older servers a separator inside a name still lands in the name.
package enum SessionRow {
    package static let tokenOption = "@hookctl_token"
    package static let fieldSeparator: Character = "\u{1f}"
    package static let recordEnd: Character = "\u{1e}"

    package static let format = [
        "#{session_id}", "#{session_created}", "#{session_windows}", "#{session_attached}",
        "#{version}", "#{socket_path}", "#{\(tokenOption)}", "#{session_name}",
    ].joined(separator: String(fieldSeparator)) + String(recordEnd)

    /// Parses `list-sessions -F format` (or `new-session -P -F format`) output.
    package static func parse(_ output: String, command: String) throws -> SessionListing {
        var listing = SessionListing(sessions: [])
        var records = output.split(separator: recordEnd, omittingEmptySubsequences: false)
        // What follows the last record end is only its newline.
        guard Text.trimmed(String(records.removeLast())).isEmpty else {
            throw TmuxError.unreadableOutput(command: command, output: output)
        }
        for (index, raw) in records.enumerated() {
            // Every record after the first starts with the newline that ended the previous line.
            var record = raw[...]
            if index > 0 {
                guard record.first == "\n" else { throw TmuxError.unreadableOutput(command: command, output: output) }
                record = record.dropFirst()
            }
            let fields = record.split(separator: fieldSeparator, maxSplits: 7, omittingEmptySubsequences: false)
            guard fields.count == 8 else { throw TmuxError.unreadableOutput(command: command, output: output) }
            if !fields[4].isEmpty { listing.serverVersion = String(fields[4]) }
            if !fields[5].isEmpty { listing.socketPath = String(fields[5]) }
            // `display-message` on a missing target expands the session fields to nothing.
            if fields[0].isEmpty && fields[1].isEmpty { continue }
            guard fields[0].hasPrefix("$"), let created = Int(fields[1]) else {
                throw TmuxError.unreadableOutput(command: command, output: output)
            }
            let token = fields[6].isEmpty ? nil : String(fields[6])
            listing.sessions.append(TmuxSession(id: String(fields[0]), name: String(fields[7]), created: created,
                                                windows: Int(fields[2]) ?? 0, attachedClients: Int(fields[3]) ?? 0,
                                                token: token))
        }
        return listing
    }
}
