/// Puts hookctl on other hosts over the user's own `ssh` (their config, keys, agent and aliases),
/// into `~/.local` there, and runs `hookctl setup` there; or takes it away again. Each host is
/// first probed (machine, glibc, libraries, the copy it has), so a binary that cannot run there is
/// never copied; unchanged files are not sent again. Hosts run in parallel, each on its own thread.
package struct Deployer: Sendable {
    package struct Options: Sendable {
        package var hosts: [String]
        package var notifyURL: NotifyURL?
        package var agents: [String]?
        package var sshOptions: [String] = []
        package var jobs: Int = 8
        package var uninstall = false

        package init(
            hosts: [String],
            notifyURL: NotifyURL? = nil,
            agents: [String]? = nil,
            sshOptions: [String] = [],
            jobs: Int = 8,
            uninstall: Bool = false
        ) {
            self.hosts = hosts
            self.notifyURL = notifyURL
            self.agents = agents
            self.sshOptions = sshOptions
            self.jobs = jobs
            self.uninstall = uninstall
        }
    }

    package var options: Options
    package var ssh: String
    package var environment: [String: String]
    package var bundle: DeployBundle?
    package var version: String
    /// How long one host's probe, and its install, may take (ssh's own connect timeout is shorter).
    package var probeTimeout: Double = 60
    package var applyTimeout: Double = 600
    package static let connectTimeout = 10

    /// Every host's result, in the order the hosts were given.
    package func run() -> [DeployResult] {
        Parallel.map(options.hosts.count, jobs: options.jobs) { index in
            let started = ContinuousClock.now
            var result = deploy(to: options.hosts[index])
            result.seconds = (ContinuousClock.now - started).inSeconds
            return result
        }
    }

    /// The shared ssh runner, without a control master (each host is asked twice, minutes apart).
    package var runner: SSHRunner { SSHRunner(ssh: ssh, environment: environment, connectTimeout: Deployer.connectTimeout) }

    /// ssh's arguments for `host`: the runner's, with the constant bootstrap as the remote command.
    package func sshArguments(host: String) -> [String] {
        runner.arguments(SSHRunner.Host(name: host, destination: host, options: options.sshOptions), command: RemoteScripts.bootstrap)
    }

    package func runRemote(host: String, input: [UInt8], timeout: Double) throws -> Subprocess.Result {
        try runner.run(SSHRunner.Host(name: host, destination: host, options: options.sshOptions), command: RemoteScripts.bootstrap,
                       input: input, timeout: timeout)
    }

    package func deploy(to host: String) -> DeployResult {
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
    package func check(_ facts: RemoteReport, host: String, bundle: DeployBundle) throws {
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

    package init(
        options: Options,
        ssh: String,
        environment: [String: String],
        bundle: DeployBundle? = nil,
        version: String,
        probeTimeout: Double = 60,
        applyTimeout: Double = 600
    ) {
        self.options = options
        self.ssh = ssh
        self.environment = environment
        self.bundle = bundle
        self.version = version
        self.probeTimeout = probeTimeout
        self.applyTimeout = applyTimeout
    }
}

/// One host's outcome.
package struct DeployResult: Sendable {
    package enum Outcome: String, Sendable {
        case installed, updated, unchanged, uninstalled, failed
        /// The files were already there; setup changed the agents' hooks or the config.
        case configured
        /// `--uninstall` on a host that had no hookctl in ~/.local.
        case absent = "not_installed"
        /// `--uninstall --agents …`: those agents' hooks are gone, hookctl stays for the others.
        case hooksRemoved = "hooks_removed"
    }

    package var host: String
    package var outcome: Outcome = .failed
    package var versionBefore: String?
    package var versionAfter: String?
    package var agents: [String] = []
    package var reason: String?
    package var fix: String?
    package var seconds: Double = 0

    package init(host: String) { self.host = host }

    package var json: JSONValue {
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
package struct RemoteReport {
    package var lines: [(String, String)] = []
    package var json: JSONValue?

    package init(_ result: Subprocess.Result, host: String, expect: String) throws {
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

    package func value(_ key: String) -> String? { lines.last { $0.0 == key }.map { $0.1 } }
    package func values(_ key: String) -> [String] { lines.filter { $0.0 == key }.map { $0.1 } }

    package var digests: [String: String] {
        var result: [String: String] = [:]
        for entry in values("sum") {
            let parts = entry.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { result[String(parts[1])] = String(parts[0]) }
        }
        return result
    }

    /// Text from another host, made safe to print (the runner's rule).
    package static func clean(_ text: String) -> String { SSHRunner.clean(text) }

    package static func sshFailure(_ result: Subprocess.Result, host: String) -> DeployError {
        let (reason, fix) = SSHRunner.failure(result, host: host)
        return .remote(host: host, reason: reason, fix: fix)
    }
}

/// What deploy can fail with: per host (reported in the table) or before any host is tried.
package enum DeployError: HookctlError {
    case bundle(String)
    case remote(host: String, reason: String, fix: String?)

    package var exitCode: ExitCode { .unavailable }
    package var code: String { "deploy" }

    package var reason: String {
        switch self {
        case .bundle(let text): return text
        case .remote(_, let reason, _): return reason
        }
    }

    package var fix: String? {
        switch self {
        case .remote(_, _, let fix): return fix
        case .bundle: return nil
        }
    }

    package var description: String { reason + (fix.map { "; " + $0 } ?? "") }
}
