/// One of the phone's local session records, as `reconcile` reads it from standard input.
package struct LocalSessionRecord: Sendable, Equatable {
    /// The phone's own id for the session (a UUID in the app).
    package var localID: String
    /// The tmux name it stored; nil for records from before names were stored.
    package var name: String? = nil
    package var sessionID: String? = nil
    package var created: Int? = nil
    package var token: String? = nil
}

/// A local record paired with a server session.
package struct SessionBinding: Sendable, Equatable {
    package var localID: String
    package var session: TmuxSession
    package var matchedBy: SessionMatch
}

package struct ReconcileResult: Sendable, Equatable {
    package var bindings: [SessionBinding]
    /// Local records that match nothing on the server (their session is gone).
    package var unmatchedLocals: [String]
    /// Server sessions no record claimed: offered to the phone for adoption.
    package var unmatchedRemotes: [TmuxSession]
}

/// The pairing rules, as a pure function:
/// 1. by exact name (the stored name, or for records without one the name derived from the local id);
/// 2. then by session id, only with the same creation time and, where recorded, the same token:
///    this follows renames and refuses ids recycled by a restarted server;
/// and no server session is claimed twice, so a killed session is never rebound to a stranger.
package enum Reconciler {
    package static func reconcile(locals: [LocalSessionRecord], remotes: [TmuxSession],
                                 prefix: String = SessionIdentity.defaultPrefix) -> ReconcileResult {
        var claimed = Set<String>()
        var bindingFor: [String: SessionBinding] = [:]
        let byName = Dictionary(remotes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

        for local in locals {
            let name = local.name.flatMap { $0.isEmpty ? nil : $0 } ?? SessionIdentity.derivedName(uuid: local.localID, prefix: prefix)
            guard let name, let remote = byName[name], !claimed.contains(remote.id), bindingFor[local.localID] == nil else { continue }
            claimed.insert(remote.id)
            bindingFor[local.localID] = SessionBinding(localID: local.localID, session: remote, matchedBy: .name)
        }
        for local in locals where bindingFor[local.localID] == nil {
            guard let id = local.sessionID, let created = local.created else { continue }
            guard let remote = remotes.first(where: {
                $0.id == id && !claimed.contains($0.id) && $0.created == created
                    && (local.token == nil || $0.token == local.token)
            }) else { continue }
            claimed.insert(remote.id)
            bindingFor[local.localID] = SessionBinding(localID: local.localID, session: remote, matchedBy: .sessionID)
        }
        var seen = Set<String>()
        let ordered = locals.filter { seen.insert($0.localID).inserted }
        return ReconcileResult(
            bindings: ordered.compactMap { bindingFor[$0.localID] },
            unmatchedLocals: ordered.filter { bindingFor[$0.localID] == nil }.map(\.localID),
            unmatchedRemotes: remotes.filter { !claimed.contains($0.id) })
    }

    /// Reads the records: a JSON array of objects, or an object with a `sessions` array. Keys
    /// (snake_case, as `ensure` prints them): `local_id` (or `id`), `name`, `session_id`,
    /// `created` (epoch seconds, or an ISO 8601 time), `token`; all but the local id may be null.
    package static func parseRecords(_ bytes: [UInt8]) throws -> [LocalSessionRecord] {
        let document: JSONValue
        do { document = try JSON.parse(bytes) } catch {
            throw TmuxError.invalidRecords(String(describing: error))
        }
        let items: [JSONValue]
        if let array = document.arrayValue {
            items = array
        } else if let array = document["sessions"]?.arrayValue {
            items = array
        } else {
            throw TmuxError.invalidRecords("expected a JSON array of records, or an object with a \"sessions\" array")
        }
        var records: [LocalSessionRecord] = []
        var ids = Set<String>()
        for (index, item) in items.enumerated() {
            func fail(_ message: String) -> TmuxError { .invalidRecords("record \(index): \(message)") }
            guard let object = item.objectValue else { throw fail("expected an object") }
            func text(_ key: String) throws -> String? {
                switch object[key] {
                case nil, .null?: return nil
                case .string(let value)?: return value.isEmpty ? nil : value
                default: throw fail("\"\(key)\" must be a string")
                }
            }
            guard let localID = try text("local_id") ?? text("id") else { throw fail("\"local_id\" is missing") }
            guard ids.insert(localID).inserted else { throw fail("local id '\(localID)' appears twice") }
            let sessionID = try text("session_id")
            if let sessionID, !SessionIdentity.isSessionID(sessionID) {
                throw fail("\"session_id\" must look like $N, got '\(sessionID)'")
            }
            var created: Int?
            switch object["created"] {
            case nil, .null?: created = nil
            case .number(let number)?:
                guard let value = Double(number), value >= 0, value < 1e12 else { throw fail("\"created\" must be epoch seconds") }
                created = Int(value.rounded(.down))
            case .string(let string)?:
                if let value = Int(string) { created = value }
                else if let value = WallClock.parseISO8601(string) { created = Int(value.rounded(.down)) }
                else { throw fail("\"created\" must be epoch seconds or an ISO 8601 time, got '\(string)'") }
            default: throw fail("\"created\" must be epoch seconds")
            }
            records.append(LocalSessionRecord(localID: localID, name: try text("name"), sessionID: sessionID,
                                              created: created, token: try text("token")))
        }
        return records
    }
}

extension ReconcileResult {
    package var json: JSONValue {
        .object(JSONObject([
            ("bindings", .array(bindings.map { binding in
                var object = JSONObject([("local_id", .string(binding.localID)), ("matched_by", .string(binding.matchedBy.rawValue)),
                                         ("target", .string(binding.session.id))])
                if case .object(let session) = binding.session.json {
                    for entry in session.entries { object[entry.key] = entry.value }
                }
                return .object(object)
            })),
            ("unmatched_locals", .array(unmatchedLocals.map { .string($0) })),
            ("unmatched_remotes", .array(unmatchedRemotes.map(\.json))),
        ]))
    }
}
