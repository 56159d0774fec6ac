import Testing
@testable import HookSupport
@testable import HookAgents
import TestSupport
import Synchronization

@Suite struct ELFRequirementsTests {
    @Test func readsTheRunningBinary() throws {
        let bytes = try #require(try FileSystem.read(currentExecutablePath(), limit: 1 << 30))
        let requirements = try #require(ELFRequirements(bytes: bytes))
        #expect(requirements.machine == ELFRequirements.hostMachine())
        #expect(requirements.neededLibraries.contains("libc.so.6"))
        let glibc = try #require(requirements.glibc)
        #expect(ELFRequirements.compare(glibc, [2, 2, 5]) >= 0)
        // The binary cannot need a glibc newer than the one it runs on.
        var version = [CChar](repeating: 0, count: 64)
        let length = confstr(Int32(_CS_GNU_LIBC_VERSION), &version, 64)
        let running = String(decoding: version[0..<max(0, length - 1)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let host = try #require(ELFRequirements.parseVersion(String(running.dropFirst("glibc ".count))))
        #expect(ELFRequirements.compare(glibc, host) <= 0)
    }

    @Test(arguments: [0, 4, 63, 64, 100, 4096])
    func truncatedOrCorruptBinariesAreRefusedWithoutCrashing(length: Int) throws {
        let bytes = try #require(try FileSystem.read(currentExecutablePath(), limit: 1 << 30))
        _ = ELFRequirements(bytes: Array(bytes.prefix(length)))
        var corrupt = bytes
        // Section header offset and count pointing past the end of the file.
        for index in 40..<48 { corrupt[index] = 0x7f }
        #expect(ELFRequirements(bytes: corrupt) == nil)
        #expect(ELFRequirements(bytes: Array("#!/bin/sh\necho hi\n".utf8)) == nil)
    }

    @Test func versionsCompareNumerically() {
        #expect(ELFRequirements.compare([2, 35], [2, 4]) > 0)
        #expect(ELFRequirements.compare([2, 2, 5], [2, 2]) > 0)
        #expect(ELFRequirements.compare([2, 36], [2, 36, 0]) == 0)
        #expect(ELFRequirements.parseVersion("2.36") == [2, 36])
        #expect(ELFRequirements.parseVersion("2.x") == nil)
        #expect(ELFRequirements.parseVersion("") == nil)
    }
}

@Suite(.onTestThreads) struct DeployUnitTests {
    /// What a probe prints on a host, as ssh hands it back.
    func result(_ stdout: String, status: Subprocess.Termination = 0, stderr: String = "") -> Subprocess.Result {
        Subprocess.Result(status: status, standardOutput: Array(stdout.utf8), standardError: Array(stderr.utf8))
    }

    func bundle(glibc: [Int] = [2, 35]) throws -> DeployBundle {
        let bytes = try #require(try FileSystem.read(currentExecutablePath(), limit: 1 << 30))
        var requirements = try #require(ELFRequirements(bytes: bytes))
        requirements.machine = "x86_64"
        requirements.glibc = glibc
        requirements.neededLibraries = ["libyaml-0.so.2", "libstdc++.so.6", "libc.so.6"]
        return DeployBundle(files: [("bin/hookctl", "755", Array("binary".utf8))], requirements: requirements)
    }

    @Test func aHostThatLacksLibcurlIsToldTheAptCommand() throws {
        let deployer = Deployer(options: .init(hosts: ["box"]), ssh: "/bin/false", environment: [:], bundle: nil, version: "0")
        let facts = try RemoteReport(result("arch=x86_64\nglibc=2.36\nhave=libyaml-0.so.2\nhave=libstdc++.so.6\nmissing=libcurl.so.4\napt=libcurl.so.4:libcurl4\nprobe=done\n"),
                                     host: "box", expect: "probe")
        #expect(throws: DeployError.self) { try deployer.check(facts, host: "box", bundle: try bundle()) }
        do {
            try deployer.check(facts, host: "box", bundle: try bundle())
        } catch let error as DeployError {
            #expect(error.reason == "box lacks libcurl.so.4")
            #expect(error.fix == "ssh box sudo apt-get install libcurl4")
        }
        // Without apt's answer, the newest package name of the known ones is not guessed: the oldest is.
        let bare = try RemoteReport(result("arch=x86_64\nglibc=2.39\nmissing=libcurl.so.4\nmissing=libyaml-0.so.2\nprobe=done\n"), host: "box", expect: "probe")
        do {
            try deployer.check(bare, host: "box", bundle: try bundle())
            Issue.record("a host without libraries was accepted")
        } catch let error as DeployError {
            #expect(error.fix == "ssh box sudo apt-get install libcurl4 libyaml-0-2")
        }
    }

    @Test func libcurlLoadedAtRunTimeIsCheckedAndCmarkGfmLinkedInIsNot() throws {
        // CCurl dlopens libcurl, so DT_NEEDED does not list it and the bundle must; cmark-gfm is linked
        // in from its static archives, so no host is asked for it.
        let libraries = try bundle().libraries
        #expect(libraries.first { $0.soname == "libcurl.so.4" }?.packages == ["libcurl4t64", "libcurl4"])
        #expect(!libraries.contains { $0.soname.contains("cmark") }, "\(libraries.map(\.soname))")
        let probe = RemoteScripts.probe(libraries: libraries, ldconfigTag: try bundle().ldconfigTag)
        #expect(probe.contains("libcurl.so.4") && !probe.contains("cmark"))
        let deployer = Deployer(options: .init(hosts: ["box"]), ssh: "/bin/false", environment: [:], bundle: nil, version: "0")
        let facts = try RemoteReport(result("arch=x86_64\nglibc=2.36\nhave=libcurl.so.4\nhave=libyaml-0.so.2\nhave=libstdc++.so.6\n"
            + "have=libgcc_s.so.1\nprobe=done\n"), host: "box", expect: "probe")
        try deployer.check(facts, host: "box", bundle: try bundle())
    }

    @Test func anOldGlibcOrAnotherMachineIsRefused() throws {
        let deployer = Deployer(options: .init(hosts: ["box"]), ssh: "/bin/false", environment: [:], bundle: nil, version: "0")
        let old = try RemoteReport(result("arch=x86_64\nglibc=2.31\nprobe=done\n"), host: "box", expect: "probe")
        #expect(throws: DeployError.self) { try deployer.check(old, host: "box", bundle: try bundle()) }
        let arm = try RemoteReport(result("arch=aarch64\nglibc=2.36\nprobe=done\n"), host: "box", expect: "probe")
        do {
            try deployer.check(arm, host: "box", bundle: try bundle())
            Issue.record("an aarch64 host was accepted")
        } catch let error as DeployError {
            #expect(error.reason.contains("aarch64") && error.fix?.contains("aarch64") == true)
        }
        let fine = try RemoteReport(result("arch=x86_64\nglibc=2.35\nhave=libcurl.so.4\nprobe=done\n"), host: "box", expect: "probe")
        try deployer.check(fine, host: "box", bundle: try bundle())
    }

    @Test(arguments: [
        ("u@h: Permission denied (publickey).", "refused the key"),
        ("ssh: connect to host h port 22: Connection refused", "unreachable"),
        ("ssh: Could not resolve hostname nosuch: Name or service not known", "host name"),
        ("Host key verification failed.", "host key"),
    ])
    func sshFailuresSayWhatToDo(stderr: String, fix: String) throws {
        #expect(throws: DeployError.self) { try RemoteReport(result("", status: 255, stderr: stderr), host: "h", expect: "probe") }
        let error = RemoteReport.sshFailure(result("", status: 255, stderr: stderr), host: "h")
        #expect(error.reason == stderr)
        #expect(error.fix?.contains(fix) == true)
    }

    @Test func textFromAHostCannotDriveTheTerminal() throws {
        let hostile = "arch=x86_64\u{1b}]52;c;ZWNobyBoaQ==\u{07}\u{1b}[2J\u{202e}\nprobe=done\n"
        let report = try RemoteReport(result(hostile), host: "h", expect: "probe")
        let arch = try #require(report.value("arch"))
        #expect(!arch.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202e })
        let error = RemoteReport.sshFailure(result("", status: 255, stderr: "\u{1b}[31mbad\u{1b}[0m\r\n"), host: "h")
        #expect(!error.reason.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func theRemoteCommandLineIsConstant() {
        let deployer = Deployer(options: .init(hosts: ["h"], notifyURL: try? NotifyURL("https://push.example.com/n/0123456789abcdef")),
                                ssh: "/usr/bin/ssh", environment: [:], bundle: nil, version: "0")
        var options = deployer.options
        options.sshOptions = ["Port=2222", "ConnectTimeout=3"]
        let arguments = Deployer(options: options, ssh: "/usr/bin/ssh", environment: [:], bundle: nil, version: "0").sshArguments(host: "u@h")
        #expect(arguments == ["-T", "-o", "Port=2222", "-o", "ConnectTimeout=3", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
                              "--", "u@h", RemoteScripts.bootstrap])
        #expect(!arguments.joined().contains("0123456789abcdef"))
    }

    @Test func parallelMapKeepsOrderAndRunsAtOnce() {
        // Each job waits (with a deadline) until all six have started: only true when they run at once.
        final class Count: Sendable { let value = Mutex(0) }
        let count = Count()
        let results = Parallel.map(6, jobs: 6) { index -> (Int, Bool) in
            count.value.withLock { $0 += 1 }
            let deadline = monotonicSeconds() + 20
            while count.value.withLock({ $0 }) < 6, monotonicSeconds() < deadline { sleepSeconds(0.005) }
            return (index * index, count.value.withLock { $0 } == 6)
        }
        #expect(results.map(\.0) == [0, 1, 4, 9, 16, 25])
        let allAtOnce = results.allSatisfy { $0.1 }
        #expect(allAtOnce)
        let none = Parallel.map(0, jobs: 4) { $0 }
        #expect(none.isEmpty)
        let serial = Parallel.map(3, jobs: 1) { $0 + 1 }
        #expect(serial == [1, 2, 3])
    }

    @Test func sha256MatchesSha256sum() throws {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
