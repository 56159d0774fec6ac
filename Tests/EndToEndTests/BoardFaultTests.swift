import Testing
import TestSupport
@testable import HookSupport
@testable import HookCore

/// `board.state` under a crash of its writer, end to end: a hook (notify) killed between the two
/// writes of a board update (the changed sessions at the end of the file, then the header) leaves a
/// board whose header does not match its body; the next reader rebuilds it from the log, and nothing
/// the log holds is lost.
@Suite(.onTestThreads) struct BoardFaultTests {
    static func claude(_ event: String, session: String, extra: String = "") -> String {
        #"{"session_id":"\#(session)","cwd":"/w/api","hook_event_name":"\#(event)"\#(extra)}"#
    }

    @Test func aHookKilledBetweenTheBoardsWritesLeavesABoardRebuiltFromTheLog() throws {
        let home = try TemporaryHome()
        let environment = home.hookEnvironment()
        // Some sessions first, so the update rewrites only the end of a larger file.
        for index in 0..<30 {
            let result = try hookctl(["notify", "--agent", "claude"], environment: environment,
                                     input: Self.claude("UserPromptSubmit", session: "s-\(index)", extra: #","prompt":"go \#(index)""#))
            #expect(result.status == .exited(0), "\(result.stderr)")
        }
        let board = home.file(".local/state/hookctl/board.state")
        let before = try #require(try FileSystem.read(board))
        let killed = try hookctl(["notify", "--agent", "claude"], environment: environment.merging(["HOOKCTL_FAULT": "board-spliced"]) { $1 },
                                 input: Self.claude("Stop", session: "s-3", extra: #","last_assistant_message":"all done""#))
        #expect(killed.status == .signalled(SIGKILL), "\(killed.status) \(killed.stderr)")
        let torn = try #require(try FileSystem.read(board))
        #expect(torn != before, "the kill came after the first write")
        #expect(BoardFile(bytes: torn) == nil, "a half-written board must not read as one")
        #expect(home.loggedEvents().count == 31)

        let status = try hookctl(["status", "--json"], environment: home.environment())
        #expect(status.status == .exited(0), "\(status.stderr)")
        let agents = try #require(try JSON.parse(status.stdout)["agents"]?.arrayValue)
        #expect(agents.count == 30)
        #expect(agents.first { $0["session_id"]?.stringValue == "s-3" }?["state"]?.stringValue == "done")
        let rebuilt = try #require(try FileSystem.read(board))
        #expect(try BoardFile(bytes: rebuilt)?.board().lastSeq == 31)
        // And the next hook appends to the rebuilt board as usual.
        let next = try hookctl(["notify", "--agent", "claude"], environment: environment,
                               input: Self.claude("UserPromptSubmit", session: "s-3", extra: #","prompt":"more""#))
        #expect(next.status == .exited(0), "\(next.stderr)")
        #expect(try BoardFile(bytes: #require(try FileSystem.read(board)))?.board().entries.first { $0.sessionID == "s-3" }?.state == .working)
    }
}
