import Testing
import TestSupport
@testable import HookSupport

/// `/proc/PID/stat` read in place (reply and peek read it for each pane they touch).
@Suite struct ProcessStatTests {
    @Test func decimalsAreReadAsProcWritesThem() {
        func decimal(_ text: String) -> Int64? { ProcessStat.decimal(Array(text.utf8)[...]) }
        #expect(decimal("0") == 0)
        #expect(decimal("-1") == -1)
        #expect(decimal("123456789012345678") == 123_456_789_012_345_678)
        for bad in ["", "-", "1a", " 1", "1 ", "+1", "1234567890123456789", "\u{0661}"] { #expect(decimal(bad) == nil, "\(bad)") }
    }

    /// Our own process, against getppid/getpgrp and the start time counted the plain way (field 22).
    @Test func ourOwnProcessIsReadAsTheKernelSaysIt() throws {
        let stat = try #require(ProcessStat.read(getpid()))
        #expect(stat.pid == getpid() && stat.parent == getppid() && stat.group == getpgrp())
        #expect(stat.isAlive)
        let text = try #require(try FileSystem.readString("/proc/self/stat"))
        let after = text[text.index(after: try #require(text.lastIndex(of: ")")))...].split(separator: " ")
        #expect(stat.start == UInt64(after[19]))
        #expect(stat.foregroundGroup == Int32(after[5]))
        #expect(stat.terminal == Int32(after[4]))
        // Our own environment as /proc has it (set at exec, so the variables the runner started us with).
        #expect(ProcessStat.environment(getpid())?["PATH"] != nil)
        #expect(ProcessStat.all().contains(getpid()))
    }

    /// A command name with spaces and parentheses (the kernel does not escape it) does not shift the fields.
    @Test func aCommandNameWithParenthesesAndSpacesIsRead() throws {
        let directory = try TemporaryDirectory("procstat")
        let program = directory.path + "/a) b (c 1"
        try FileSystem.writeAtomically(program, bytes: try #require(try FileSystem.read("/bin/sleep")), mode: 0o755, sync: false)
        let child = try Subprocess(executable: program, arguments: ["5"], timeout: 10).spawn()
        defer {
            kill(child.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(child.pid, &status, 0)
            child.output.close()
            child.errors.close()
        }
        var stat: ProcessStat?
        // The child's name is its program's once it has exec'd.
        for _ in 0..<500 where stat?.command != "a) b (c 1" {
            stat = ProcessStat.read(child.pid)
            usleep(2000)
        }
        #expect(stat?.command == "a) b (c 1")
        #expect(stat?.parent == getpid())
        #expect(stat?.isAlive == true)
        #expect((stat?.start ?? 0) >= (ProcessStat.read(getpid())?.start ?? .max))
    }
}
