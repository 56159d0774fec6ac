import Synchronization

/// Puts hookctl on other hosts over the user's own `ssh` (their config, keys, agent and aliases),
/// into `~/.local` there, and runs `hookctl setup` there; or takes it away again. Each host is
/// first probed (machine, glibc, libraries, the copy it has), so a binary that cannot run there is
/// never copied; unchanged files are not sent again. Hosts run in parallel, each on its own thread.
struct Deployer: Sendable {
    struct Options: Sendable {
        var hosts: [String]
        var notifyURL: NotifyURL?
        var agents: [String]?
        var sshOptions: [String] = []
        var jobs: Int = 8
        var uninstall = false
    }

    var options: Options
    var ssh: String
    var environment: [String: String]
    var bundle: DeployBundle?
    var version: String
    /// How long one host's probe, and its install, may take (ssh's own connect timeout is shorter).
    var probeTimeout: Double = 60
    var applyTimeout: Double = 600
    static let connectTimeout = 10

    /// Every host's result, in the order the hosts were given.
    func run() -> [DeployResult] {
        Parallel.map(options.hosts.count, jobs: options.jobs) { index in
            let started = ContinuousClock.now
            var result = deploy(to: options.hosts[index])
            result.seconds = (ContinuousClock.now - started).inSeconds
            return result
        }
    }

    /// ssh's arguments: the user's options first (ssh keeps the first value it gets for each
    /// option), then batch mode and a connect timeout, then the host and the fixed bootstrap.
    func sshArguments(host: String) -> [String] {
        var arguments = ["-T"]
        for option in options.sshOptions { arguments += ["-o", option] }
        arguments += ["-o", "BatchMode=yes", "-o", "ConnectTimeout=\(Deployer.connectTimeout)", "--", host, RemoteScripts.bootstrap]
        return arguments
    }

    func runRemote(host: String, input: [UInt8], timeout: Double) throws -> Subprocess.Result {
        try Subprocess(executable: ssh, arguments: sshArguments(host: host), environment: environment,
                       input: input, timeout: timeout).run()
    }

    func deploy(to host: String) -> DeployResult {
        var result = DeployResult(host: host)
        do {
            var sendFiles = false
            if !options.uninstall {
                guard let bundle else { throw DeployError.bundle("nothing to deploy") }
                let probe = try runRemote(host: host, input: RemoteScripts.input(script: RemoteScripts.probe(
                    libraries: bundle.libraries, ldconfigTag: bundle.ldconfigTag)), timeout: probeTimeout)
                let facts = try RemoteReport(probe, host: host, expect: "probe")
                result.versionBefore = facts.value("version")
                try check(facts, host: host, bundle: bundle)
                sendFiles = !bundle.matches(facts.digests)
            }
            var request = options.uninstall ? "uninstall\n" : "install\n"
            request += (options.agents?.joined(separator: ",") ?? "") + "\n"
            request += (options.notifyURL?.text ?? "") + "\n"
            var payload = Array(request.utf8)
            if sendFiles, let bundle {
                payload += Array("\(bundle.files.count)\n".utf8) + bundle.encoded
            } else {
                payload += Array("0\n".utf8)
            }
            let applied = try runRemote(host: host, input: RemoteScripts.input(script: RemoteScripts.apply, then: payload),
                                        timeout: applyTimeout)
            let report = try RemoteReport(applied, host: host, expect: "status")
            result.versionBefore = report.value("version_before") ?? result.versionBefore
            result.versionAfter = report.value("version_after")
            let status = Int(report.value("status") ?? "") ?? 1
            let agents = report.json?["agents"]?.arrayValue ?? []
            result.agents = agents.compactMap { agent -> String? in
                guard let name = agent["agent"]?.stringValue, let state = agent["status"]?.stringValue else { return nil }
                return options.uninstall ? (state == "removed" ? name : nil)
                    : (["installed", "updated", "unchanged"].contains(state) ? name : nil)
            }
            let changedAgents = agents.contains { ["installed", "updated", "removed"].contains($0["status"]?.stringValue ?? "") }
            if options.uninstall {
                guard status == 0, report.value("removed") == "yes" || options.agents != nil || result.versionBefore == nil else {
                    throw DeployError.remote(host: host, reason: "hookctl uninstall failed there (exit \(status)): \(report.value("stderr") ?? "")",
                                             fix: "ssh \(host) ~/.local/bin/hookctl uninstall   (see what it says)")
                }
                result.outcome = result.versionBefore == nil ? .absent : (options.agents == nil ? .uninstalled : .hooksRemoved)
            } else {
                guard status == 0 else {
                    throw DeployError.remote(host: host, reason: "hookctl setup failed there (exit \(status)): \(report.value("stderr") ?? "")",
                                             fix: "ssh \(host) ~/.local/bin/hookctl doctor")
                }
                if report.value("replaced") == "yes" {
                    result.outcome = result.versionBefore == nil ? .installed : .updated
                } else {
                    result.outcome = changedAgents ? .configured : .unchanged
                }
            }
        } catch let error as DeployError {
            result.outcome = .failed
            result.reason = error.reason
            result.fix = error.fix
        } catch {
            result.outcome = .failed
            result.reason = "\(error)"
        }
        return result
    }

    /// Refuses a host the binary cannot run on, naming what is missing and how to get it.
    func check(_ facts: RemoteReport, host: String, bundle: DeployBundle) throws {
        let machine = facts.value("arch") ?? "?"
        if machine != bundle.requirements.machine {
            throw DeployError.remote(host: host, reason: "\(host) is \(machine); this hookctl is built for \(bundle.requirements.machine)",
                                     fix: "build hookctl on a \(machine) machine (./install.sh --package) and deploy from there")
        }
        if let needed = bundle.requirements.glibc {
            let have = facts.value("glibc").flatMap(ELFRequirements.parseVersion)
            if have.map({ ELFRequirements.compare($0, needed) < 0 }) ?? true {
                let needText = bundle.requirements.glibcText ?? ""
                throw DeployError.remote(host: host, reason: "\(host) has glibc \(facts.value("glibc").flatMap { $0.isEmpty ? nil : $0 } ?? "(unknown)"); hookctl needs \(needText) or newer",
                                         fix: "upgrade the host to Debian 12 / Ubuntu 22.04 or newer, or build hookctl on a system as old as it")
            }
        }
        let missing = facts.values("missing")
        if !missing.isEmpty {
            var packages: [String] = []
            for soname in missing {
                let offered = facts.values("apt").first { $0.hasPrefix(soname + ":") }.map { String($0.dropFirst(soname.count + 1)) }
                let fallback = bundle.libraries.first { $0.soname == soname }?.packages.last
                if let package = offered ?? fallback, !packages.contains(package) { packages.append(package) }
            }
            throw DeployError.remote(host: host, reason: "\(host) lacks \(missing.joined(separator: ", "))",
                                     fix: packages.isEmpty ? "install the packages that provide \(missing.joined(separator: ", "))"
                                        : "ssh \(host) sudo apt-get install \(packages.joined(separator: " "))")
        }
    }
}

/// One host's outcome.
struct DeployResult: Sendable {
    enum Outcome: String, Sendable {
        case installed, updated, unchanged, uninstalled, failed
        /// The files were already there; setup changed the agents' hooks or the config.
        case configured
        /// `--uninstall` on a host that had no hookctl in ~/.local.
        case absent = "not_installed"
        /// `--uninstall --agents …`: those agents' hooks are gone, hookctl stays for the others.
        case hooksRemoved = "hooks_removed"
    }

    var host: String
    var outcome: Outcome = .failed
    var versionBefore: String?
    var versionAfter: String?
    var agents: [String] = []
    var reason: String?
    var fix: String?
    var seconds: Double = 0

    init(host: String) { self.host = host }

    var json: JSONValue {
        var object = JSONObject()
        object["host"] = .string(host)
        object["result"] = .string(outcome.rawValue)
        object["ok"] = .bool(outcome != .failed)
        object["version_before"] = versionBefore.map { .string($0) } ?? .null
        object["version_after"] = versionAfter.map { .string($0) } ?? .null
        object["agents"] = .array(agents.map { .string($0) })
        object["reason"] = reason.map { .string($0) } ?? .null
        object["fix"] = fix.map { .string($0) } ?? .null
        object["seconds"] = .double((seconds * 1000).rounded() / 1000)
        return .object(object)
    }
}

/// The `key=value` lines (and the trailing JSON document) a remote script printed, or the ssh
/// failure that kept it from running, told in words a user can act on.
struct RemoteReport {
    var lines: [(String, String)] = []
    var json: JSONValue?

    init(_ result: Subprocess.Result, host: String, expect: String) throws {
        let text = result.outputText
        var sections = text.components(separatedBy: "\n--- json ---\n")
        if sections.count > 1 {
            json = try? JSON.parse(sections.removeLast())
        }
        for line in sections.joined().split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            lines.append((String(line[..<equals]), RemoteReport.clean(String(line[line.index(after: equals)...]))))
        }
        if let error = value("error") {
            throw DeployError.remote(host: host, reason: error, fix: nil)
        }
        if result.status == 255 || value(expect) == nil {
            throw RemoteReport.sshFailure(result, host: host)
        }
    }

    func value(_ key: String) -> String? { lines.last { $0.0 == key }.map { $0.1 } }
    func values(_ key: String) -> [String] { lines.filter { $0.0 == key }.map { $0.1 } }

    var digests: [String: String] {
        var result: [String: String] = [:]
        for entry in values("sum") {
            let parts = entry.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { result[String(parts[1])] = String(parts[0]) }
        }
        return result
    }

    /// Text from another host, made safe to print: control characters dropped, one line, capped.
    static func clean(_ text: String) -> String {
        let visible = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !($0.value < 0x20 || $0.value == 0x7f || (0x80...0x9f).contains($0.value) || (0x202a...0x202e).contains($0.value) || (0x2066...0x2069).contains($0.value))
                || $0 == "\t" || $0 == "\n"
        }))
        return Text.truncate(Text.singleLine(visible), characters: 300)
    }

    static func sshFailure(_ result: Subprocess.Result, host: String) -> DeployError {
        let lines = result.errorText.split(separator: "\n").map { clean(String($0)) }.filter { !$0.isEmpty && !$0.hasPrefix("Warning: Permanently added") }
        let said = lines.last ?? "ssh \(result.status)"
        let lower = said.lowercased()
        let fix: String
        if lower.contains("permission denied") {
            fix = "the host refused the key: check that 'ssh \(host) true' works without a prompt (ssh-copy-id \(host), ssh-add)"
        } else if lower.contains("host key verification failed") || lower.contains("remote host identification has changed") {
            fix = "the host key is unknown or changed: connect once with 'ssh \(host)' and check the fingerprint"
        } else if lower.contains("could not resolve") || lower.contains("name or service not known") {
            fix = "check the host name (or add it to ~/.ssh/config)"
        } else if lower.contains("connection refused") || lower.contains("timed out") || lower.contains("no route") || lower.contains("unreachable") {
            fix = "the host is unreachable: check that it is up and that sshd listens on the port you use"
        } else if result.status == 127 || lower.contains("not found") {
            fix = "the host lacks a POSIX shell tool hookctl uses (sh, head, sha256sum, getconf); see the message"
        } else {
            fix = "run 'ssh \(host) true' to see what is wrong"
        }
        return .remote(host: host, reason: said, fix: fix)
    }
}

/// What deploy can fail with: per host (reported in the table) or before any host is tried.
enum DeployError: HookctlError {
    case bundle(String)
    case remote(host: String, reason: String, fix: String?)
    case noSSH

    var exitCode: ExitCode { .unavailable }
    var code: String { "deploy" }

    var reason: String {
        switch self {
        case .bundle(let text): return text
        case .remote(_, let reason, _): return reason
        case .noSSH: return "ssh was not found on PATH"
        }
    }

    var fix: String? {
        switch self {
        case .remote(_, _, let fix): return fix
        case .noSSH: return "install the OpenSSH client: sudo apt-get install openssh-client"
        case .bundle: return nil
        }
    }

    var description: String { reason + (fix.map { "; " + $0 } ?? "") }
}

/// Runs `body` for indices 0..<count on up to `jobs` OS threads at once (each may block on a child
/// process for minutes, which would starve a small shared pool) and returns the results in order.
enum Parallel {
    static func map<T: Sendable>(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = ParallelResults<T>(count: count)
        let queue = ParallelQueue(count: count) { index in results.set(index, body(index)) }
        var threads: [pthread_t] = []
        for _ in 0..<max(1, min(jobs, count)) {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(queue).toOpaque()
            if pthread_create(&thread, nil, { raw in
                Unmanaged<ParallelQueue>.fromOpaque(raw!).takeRetainedValue().work()
                return nil
            }, box) == 0 {
                threads.append(thread)
            } else {
                Unmanaged<ParallelQueue>.fromOpaque(box).release()
            }
        }
        if threads.isEmpty { queue.work() }
        for thread in threads { pthread_join(thread, nil) }
        return results.values.map { $0! }
    }
}

/// The indices still to run; each worker thread takes the next one until none is left.
final class ParallelQueue: Sendable {
    private let next = Mutex(0)
    private let count: Int
    private let body: @Sendable (Int) -> Void

    init(count: Int, body: @escaping @Sendable (Int) -> Void) {
        self.count = count
        self.body = body
    }

    func work() {
        while true {
            let index: Int? = next.withLock { next in
                guard next < count else { return nil }
                next += 1
                return next - 1
            }
            guard let index else { return }
            body(index)
        }
    }
}

final class ParallelResults<T: Sendable>: Sendable {
    private let storage: Mutex<[T?]>
    init(count: Int) { storage = Mutex(Array(repeating: nil, count: count)) }
    func set(_ index: Int, _ value: T) { storage.withLock { $0[index] = value } }
    var values: [T?] { storage.withLock { $0 } }
}
