import Testing
@testable import HookSupport
@testable import HookAgents
import TestSupport

/// `deploy`'s remote scripts and result handling, run for real on this machine: the built hookctl
/// is the payload, `/bin/sh` runs the scripts in a per-host HOME. Only ssh's transport is stood in
/// for (a script that runs the remote command locally); Tests/package/run.sh runs the same against
/// real sshd servers in Debian roots.
@Suite(.onTestThreads) struct DeployEndToEndTests {
    let home: TemporaryHome
    let fakeSSH: String
    let token = "f00dfeed0123456789abcdef00112233"

    init() throws {
        home = try TemporaryHome()
        fakeSSH = home.file("bin/ssh")
        try home.write("bin/ssh", """
        #!/bin/sh
        printf '%s\\n' "$*" >>"$FAKE_SSH_LOG"
        while [ $# -gt 0 ]; do case $1 in -o) shift 2 ;; -T) shift ;; --) shift; break ;; *) break ;; esac; done
        host=$1; shift
        case $host in down) echo "ssh: connect to host down port 22: Connection refused" >&2; exit 255 ;; esac
        mkdir -p "$FAKE_HOSTS/$host"
        exec env -i HOME="$FAKE_HOSTS/$host" PATH=/usr/bin:/bin /bin/sh -c "$*"

        """, mode: 0o755)
    }

    /// The built hookctl and its data as deploy sends them (the debug build needs the toolchain's
    /// runtime, which this machine has; the real package test sends the release build).
    func bundle() throws -> DeployBundle {
        let binary = try #require(try FileSystem.read(Harness.binary, limit: 1 << 30))
        var requirements = try #require(ELFRequirements(bytes: binary))
        requirements.neededLibraries.removeAll { $0.hasPrefix("libswift") || $0.hasPrefix("libFoundation") || $0.hasPrefix("lib_") || $0.hasPrefix("libdispatch") || $0.hasPrefix("libBlocksRuntime") }
        var files: [(String, String, [UInt8])] = [("bin/hookctl", "755", binary)]
        for (name, text) in BuiltinResources.manifests.sorted(by: { $0.key < $1.key }) { files.append(("share/hookctl/hooks/" + name, "644", Array(text.utf8))) }
        for (name, text) in BuiltinResources.templates.sorted(by: { $0.key < $1.key }) { files.append(("share/hookctl/templates/" + name, "644", Array(text.utf8))) }
        return DeployBundle(files: files, requirements: requirements)
    }

    func deployer(_ hosts: [String], url: String? = nil, uninstall: Bool = false, agents: [String]? = ["claude"],
                  bundle: DeployBundle?) throws -> Deployer {
        var options = Deployer.Options(hosts: hosts, notifyURL: try url.map(NotifyURL.init), agents: agents)
        options.uninstall = uninstall
        options.sshOptions = ["Port=2222"]
        let environment = ["FAKE_SSH_LOG": home.file("ssh.log"), "FAKE_HOSTS": home.file("hosts"), "PATH": "/usr/bin:/bin"]
        return Deployer(options: options, ssh: fakeSSH, environment: environment, bundle: bundle, version: Product.version)
    }

    func host(_ name: String, _ relative: String) -> String { home.file("hosts/\(name)/\(relative)") }

    @Test func installsReDeploysUpgradesAndUninstalls() throws {
        let bundle = try bundle()
        let url = "https://push.example.com/n/\(token)"
        let first = try deployer(["h1", "h2", "down"], url: url, bundle: bundle).run()
        #expect(first.map(\.outcome) == [.installed, .installed, .failed])
        #expect(first[0].versionBefore == nil && first[0].versionAfter == Product.version)
        #expect(first[0].agents == ["claude"])
        #expect(first[2].reason?.contains("Connection refused") == true && first[2].fix?.contains("unreachable") == true)
        for name in ["h1", "h2"] {
            #expect(FileSystem.isExecutable(host(name, ".local/bin/hookctl")))
            #expect(FileSystem.exists(host(name, ".local/share/hookctl/hooks/claude.json")))
            #expect((try FileSystem.readString(host(name, ".config/hookctl/config.yaml")))?.contains(url) == true)
            #expect((try FileSystem.readString(host(name, ".claude/settings.json")))?.contains("hookctl-hook") == true)
        }
        // Nothing is left staged, and the URL was on no command line.
        #expect(try FileSystem.list(host("h1", ".local/share/hookctl")).filter { $0.hasPrefix(".") }.isEmpty)
        #expect(try FileSystem.list(host("h1", ".local/bin")) == ["hookctl"])
        let log = try #require(try FileSystem.readString(home.file("ssh.log")))
        #expect(!log.contains(token) && log.contains("-o Port=2222 -o BatchMode=yes"))

        // Again: nothing to send, nothing to change; the relay is kept without a URL.
        let again = try deployer(["h1"], bundle: bundle).run()
        #expect(again.map(\.outcome) == [.unchanged])
        #expect((try FileSystem.readString(host("h1", ".config/hookctl/config.yaml")))?.contains(url) == true)

        // A different binary there is replaced by a rename: an open copy of the old one stays intact.
        let installed = host("h1", ".local/bin/hookctl")
        try FileSystem.writeAtomically(installed, bytes: Array("#!/bin/sh\necho 'hookctl 0.0.1'\n".utf8), mode: 0o755, sync: false)
        let old = open(installed, O_RDONLY)
        defer { close(old) }
        let upgraded = try deployer(["h1"], bundle: bundle).run()
        #expect(upgraded.map(\.outcome) == [.updated])
        #expect(upgraded[0].versionBefore == "0.0.1" && upgraded[0].versionAfter == Product.version)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(old, &buffer, 64)
        #expect(String(decoding: buffer[0..<max(0, count)], as: UTF8.self).contains("0.0.1"))
        #expect(try FileSystem.read(installed, limit: 1 << 30) == bundle.files[0].bytes)

        // --agents: only those hooks go, hookctl stays for the others.
        let hooksOnly = try deployer(["h2"], uninstall: true, bundle: nil).run()
        #expect(hooksOnly.map(\.outcome) == [.hooksRemoved] && hooksOnly[0].agents == ["claude"])
        #expect((try FileSystem.readString(host("h2", ".claude/settings.json")))?.contains("hookctl") != true)
        #expect(FileSystem.isExecutable(host("h2", ".local/bin/hookctl")))

        let removed = try deployer(["h1", "h3"], uninstall: true, agents: nil, bundle: nil).run()
        #expect(removed.map(\.outcome) == [.uninstalled, .absent])
        #expect(!FileSystem.exists(installed))
        #expect(!FileSystem.exists(host("h1", ".local/share/hookctl")), "left: \((try? Subprocess(executable: "/usr/bin/find", arguments: [host("h1", ".local/share/hookctl")]).run().outputText) ?? "")")
        #expect((try FileSystem.readString(host("h1", ".claude/settings.json")))?.contains("hookctl") != true)
    }

    @Test func aTransferCutShortChangesNothing() throws {
        let bundle = try bundle()
        _ = try deployer(["h1"], bundle: bundle).run()
        let before = try FileSystem.read(host("h1", ".local/bin/hookctl"), limit: 1 << 30)
        // The apply script with a file announced longer than what arrives.
        var request = Array("install\n\n\n1\n755 999999999 bin/hookctl\n".utf8)
        request += Array("short".utf8)
        let result = try Subprocess(executable: "/bin/sh", arguments: ["-c", RemoteScripts.bootstrap],
                                    environment: ["HOME": home.file("hosts/h1"), "PATH": "/usr/bin:/bin"],
                                    input: RemoteScripts.input(script: RemoteScripts.apply, then: request)).run()
        #expect(result.status != 0)
        #expect(result.outputText.contains("error=the transfer was cut short"))
        #expect(try FileSystem.read(host("h1", ".local/bin/hookctl"), limit: 1 << 30) == before)
        #expect(try FileSystem.list(host("h1", ".local/share/hookctl")).filter { $0.hasPrefix(".") }.isEmpty)
        #expect(try FileSystem.list(host("h1", ".local/bin")) == ["hookctl"])
    }

    @Test func theCommandRefusesBadInputAndDebugBuilds() throws {
        let env = home.environment()
        let noHosts = try hookctl(["deploy"], environment: env)
        #expect(noHosts.status == 64 && noHosts.stderr.contains("name at least one host"))
        let option = try hookctl(["deploy", "--", "-oProxyCommand=touch /tmp/x"], environment: env)
        #expect(option.status == 64 && option.stderr.contains("not a host name"))
        let both = try hookctl(["deploy", "h", "--notify-url", "https://a.example/n/0123456789", "--notify-url-file", "-"], environment: env)
        #expect(both.status == 64)
        // A debug build needs the toolchain's runtime: deploy says so instead of sending it.
        var withSSH = env
        withSSH["PATH"] = home.file("bin") + ":/usr/bin:/bin"
        let debug = try hookctl(["deploy", "h1"], environment: withSSH)
        let binary = try #require(try FileSystem.read(Harness.binary, limit: 1 << 30))
        if ELFRequirements(bytes: binary)?.neededLibraries.contains(where: { $0.hasPrefix("libswift") }) == true {
            #expect(debug.status == 69 && debug.stderr.contains("Swift runtime"))
        }
    }
}

@Suite(.onTestThreads) struct NotifyURLFileTests {
    let url = "https://push.example.com/n/0123456789abcdef0123"

    @Test func setupReadsTheURLFromAFileOrStandardInput() throws {
        let home = try TemporaryHome()
        try home.write("url", url + "\n")
        let fromFile = try hookctl(["setup", "--notify-url-file", home.file("url"), "--agents", "claude"], environment: home.environment())
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(home.read(".config/hookctl/config.yaml")?.contains(url) == true)
        #expect(!fromFile.stdout.contains("0123456789abcdef0123") && !fromFile.stderr.contains("0123456789abcdef0123"))

        let other = try TemporaryHome()
        let fromStdin = try hookctl(["setup", "--notify-url-file", "-", "--agents", "claude"], environment: other.environment(), input: "  \(url)  \n")
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(other.read(".config/hookctl/config.yaml")?.contains(url) == true)
    }

    @Test(arguments: [
        ("", "holds no URL"),
        ("\n\n", "holds no URL"),
        ("https://a.example/n/0123456789\nhttps://b.example/n/0123456789\n", "more than one line"),
        ("https://a.example/n/01234\u{1b}[2J56789\n", "control character"),
    ])
    func badFilesAreRefusedAndNothingIsWritten(content: String, message: String) throws {
        let home = try TemporaryHome()
        try home.write("url", content)
        let result = try hookctl(["setup", "--notify-url-file", home.file("url")], environment: home.environment())
        #expect(result.status == 65 || result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileSystem.exists(home.file(".config/hookctl/config.yaml")))
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1b })
    }

    @Test func aMissingFileAndBothOptionsAreErrors() throws {
        let home = try TemporaryHome()
        let missing = try hookctl(["setup", "--notify-url-file", home.file("nope")], environment: home.environment())
        #expect(missing.status == 65 && missing.stderr.contains("no such file"))
        let both = try hookctl(["setup", "--notify-url", url, "--notify-url-file", "-"], environment: home.environment())
        #expect(both.status == 64 && both.stderr.contains("not both"))
    }
}
