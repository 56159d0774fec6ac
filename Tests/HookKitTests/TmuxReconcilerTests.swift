import Testing
@testable import HookSupport

/// The pairing rules as a table of cases, in-process.
@Suite struct TmuxReconcilerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var locals: [LocalSessionRecord]
        var remotes: [TmuxSession]
        /// local id → (session id, matched by)
        var bindings: [String: (String, SessionMatch)]
        var unmatchedLocals: [String]
        var unmatchedRemotes: [String]
        var testDescription: String { label }
    }

    static let uuidA = "9b95bd2a-0c4e-4f6b-8e0a-2d1c3b4a5f60"
    static let uuidB = "0f0e0d0c-0b0a-4908-8706-050403020100"

    static let cases: [Case] = [
        Case(label: "name match learns the id",
             locals: [LocalSessionRecord(localID: "L1", name: "sshido-9B95BD2A")],
             remotes: [TmuxSession(id: "$4", name: "sshido-9B95BD2A", created: 100)],
             bindings: ["L1": ("$4", .name)], unmatchedLocals: [], unmatchedRemotes: []),
        Case(label: "legacy record without a name matches its derived name",
             locals: [LocalSessionRecord(localID: uuidA)],
             remotes: [TmuxSession(id: "$1", name: "sshido-9B95BD2A", created: 100), TmuxSession(id: "$2", name: "sshido-9B95BD2AX", created: 100)],
             bindings: [uuidA: ("$1", .name)], unmatchedLocals: [], unmatchedRemotes: ["$2"]),
        Case(label: "a rename on the server is followed by id and creation time",
             locals: [LocalSessionRecord(localID: "L1", name: "sshido-9B95BD2A", sessionID: "$3", created: 200, token: "t1")],
             remotes: [TmuxSession(id: "$3", name: "renamed by user", created: 200, token: "t1")],
             bindings: ["L1": ("$3", .sessionID)], unmatchedLocals: [], unmatchedRemotes: []),
        Case(label: "a recycled id (other creation time) is refused",
             locals: [LocalSessionRecord(localID: "L1", name: "sshido-9B95BD2A", sessionID: "$0", created: 200)],
             remotes: [TmuxSession(id: "$0", name: "other", created: 900)],
             bindings: [:], unmatchedLocals: ["L1"], unmatchedRemotes: ["$0"]),
        Case(label: "a recycled id with the same second but another token is refused",
             locals: [LocalSessionRecord(localID: "L1", name: "sshido-9B95BD2A", sessionID: "$0", created: 200, token: "t1")],
             remotes: [TmuxSession(id: "$0", name: "other", created: 200, token: nil)],
             bindings: [:], unmatchedLocals: ["L1"], unmatchedRemotes: ["$0"]),
        Case(label: "no id match without a creation time",
             locals: [LocalSessionRecord(localID: "L1", name: "gone-name", sessionID: "$2")],
             remotes: [TmuxSession(id: "$2", name: "renamed", created: 300)],
             bindings: [:], unmatchedLocals: ["L1"], unmatchedRemotes: ["$2"]),
        Case(label: "untracked server sessions are returned for adoption",
             locals: [LocalSessionRecord(localID: "L1", name: "mine")],
             remotes: [TmuxSession(id: "$0", name: "mine", created: 1), TmuxSession(id: "$1", name: "build", created: 2),
                       TmuxSession(id: "$2", name: "logs", created: 3)],
             bindings: ["L1": ("$0", .name)], unmatchedLocals: [], unmatchedRemotes: ["$1", "$2"]),
        Case(label: "two locals cannot claim one remote",
             locals: [LocalSessionRecord(localID: "L1", name: "shared"),
                      LocalSessionRecord(localID: "L2", name: "old-name", sessionID: "$5", created: 50)],
             remotes: [TmuxSession(id: "$5", name: "shared", created: 50)],
             bindings: ["L1": ("$5", .name)], unmatchedLocals: ["L2"], unmatchedRemotes: []),
        Case(label: "two locals with the same id: only the first is bound",
             locals: [LocalSessionRecord(localID: "L1", name: "x", sessionID: "$5", created: 50),
                      LocalSessionRecord(localID: "L2", name: "y", sessionID: "$5", created: 50)],
             remotes: [TmuxSession(id: "$5", name: "z", created: 50)],
             bindings: ["L1": ("$5", .sessionID)], unmatchedLocals: ["L2"], unmatchedRemotes: []),
        Case(label: "a name match beats a stale id",
             locals: [LocalSessionRecord(localID: "L1", name: "alpha", sessionID: "$1", created: 100),
                      LocalSessionRecord(localID: "L2", name: "beta", sessionID: "$9", created: 999)],
             remotes: [TmuxSession(id: "$1", name: "beta", created: 100)],
             bindings: ["L2": ("$1", .name)], unmatchedLocals: ["L1"], unmatchedRemotes: []),
        Case(label: "a killed session is not rebound to a stranger",
             locals: [LocalSessionRecord(localID: "L1", name: "sshido-AAAA1111", sessionID: "$3", created: 100, token: "t1")],
             remotes: [TmuxSession(id: "$3", name: "scratch", created: 100),
                       TmuxSession(id: "$4", name: "sshido-AAAA11110", created: 101, token: "t2"),
                       TmuxSession(id: "$5", name: "sshido-AAAA111", created: 102)],
             bindings: [:], unmatchedLocals: ["L1"], unmatchedRemotes: ["$3", "$4", "$5"]),
        Case(label: "no remotes",
             locals: [LocalSessionRecord(localID: "L1", name: "a", sessionID: "$0", created: 1), LocalSessionRecord(localID: uuidB)],
             remotes: [],
             bindings: [:], unmatchedLocals: ["L1", uuidB], unmatchedRemotes: []),
        Case(label: "no locals",
             locals: [],
             remotes: [TmuxSession(id: "$0", name: "a", created: 1)],
             bindings: [:], unmatchedLocals: [], unmatchedRemotes: ["$0"]),
    ]

    @Test(arguments: cases)
    func pairing(_ item: Case) {
        let result = Reconciler.reconcile(locals: item.locals, remotes: item.remotes)
        #expect(result.bindings.count == item.bindings.count)
        for binding in result.bindings {
            let expected = item.bindings[binding.localID]
            #expect(expected?.0 == binding.session.id, "\(binding.localID)")
            #expect(expected?.1 == binding.matchedBy, "\(binding.localID)")
        }
        #expect(result.unmatchedLocals == item.unmatchedLocals)
        #expect(result.unmatchedRemotes.map(\.id) == item.unmatchedRemotes)
        // Whatever the input, no remote is bound twice and every remote is accounted for once.
        let bound = result.bindings.map(\.session.id)
        #expect(Set(bound).count == bound.count)
        #expect(Set(bound + result.unmatchedRemotes.map(\.id)) == Set(item.remotes.map(\.id)))
    }

    @Test func recordsParseFromThePhonesJSON() throws {
        let input = """
        {"sessions": [
          {"local_id": "L1", "name": "sshido-9B95BD2A", "session_id": "$3", "created": 1795955763, "token": "abc"},
          {"id": "L2", "name": null, "session_id": null, "created": "2026-11-29T12:36:03Z"},
          {"local_id": "L3", "created": 1795955763.9, "name": ""}
        ]}
        """
        let records = try Reconciler.parseRecords(Array(input.utf8))
        #expect(records == [
            LocalSessionRecord(localID: "L1", name: "sshido-9B95BD2A", sessionID: "$3", created: 1_795_955_763, token: "abc"),
            LocalSessionRecord(localID: "L2", created: 1_795_955_763),
            LocalSessionRecord(localID: "L3", created: 1_795_955_763),
        ])
        #expect(try Reconciler.parseRecords(Array("[]".utf8)).isEmpty)
    }

    @Test(arguments: [
        ("not json", "invalid JSON"),
        ("{\"x\": 1}", "expected a JSON array"),
        ("[1]", "record 0: expected an object"),
        ("[{\"name\": \"a\"}]", "record 0: \"local_id\" is missing"),
        ("[{\"local_id\": \"a\"}, {\"local_id\": \"a\"}]", "record 1: local id 'a' appears twice"),
        ("[{\"local_id\": \"a\", \"session_id\": \"3\"}]", "\"session_id\" must look like $N"),
        ("[{\"local_id\": \"a\", \"created\": \"yesterday\"}]", "\"created\" must be epoch seconds or an ISO 8601 time"),
        ("[{\"local_id\": \"a\", \"token\": 5}]", "\"token\" must be a string"),
    ])
    func badRecordsAreDataErrors(input: String, message: String) {
        if let error = #expect(throws: TmuxError.self, "expected an error for \(input)", performing: { try Reconciler.parseRecords(Array(input.utf8)) }) {
            #expect(error.exitCode == .dataError)
            #expect(error.description.contains(message), "\(error.description)")
        }
    }
}
