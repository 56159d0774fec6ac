/// One finding of `hookctl doctor`: what was checked, how it stands, and how to fix it.
package struct DoctorCheck: Sendable {
    package enum Status: String, Sendable { case ok, info, warning, broken }

    package var name: String
    package var status: Status
    package var message: String
    package var fix: String?

    package var json: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        object["status"] = .string(status.rawValue)
        object["message"] = .string(message)
        if let fix { object["fix"] = .string(fix) }
        return .object(object)
    }
}

/// The checks behind `hookctl doctor`. Nothing here sends a notification or writes a file.
package struct Doctor {
    package var environment: [String: String]
    package var paths: Paths
    package var resources: Resources

    package init(environment: [String: String], paths: Paths) {
        self.environment = environment
        self.paths = paths
        resources = Resources(environment: environment, paths: paths)
    }

    package var engine: SetupEngine { SetupEngine(environment: environment, paths: paths, resources: resources) }
    package func short(_ path: String) -> String { engine.tildePath(path) }

    package func run(reachabilityTimeout: Double = 5) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let layout = HookLayout(paths: paths, gate: Config.gateVariable(configFile: paths.configFile))
        checks += binaryChecks(layout: layout)
        checks.append(stateDirectoryCheck())
        let config = configChecks(&checks)
        checks += agentChecks(layout: layout)
        checks.append(tmuxCheck())
        checks.append(gateCheck(gate: layout.gate))
        let backlog = PushBacklog.load(paths: paths, sinkNames: config?.sinks.map(\.name) ?? [],
                                       expire: { config?.defaults.retry.expire ?? RetryPolicy().expire })
        if let config { checks += sinkChecks(config: config, timeout: reachabilityTimeout, backlog: backlog) }
        checks += outboxChecks(backlog: backlog)
        return checks
    }

    // MARK: binary and hook script

    /// The hookctl path baked into the generated script (`exec '/path/hookctl' notify …`).
    package static func scriptTarget(_ script: String) -> String? {
        for line in script.split(separator: "\n") {
            let trimmed = line.trimmingSpaces()
            guard trimmed.hasPrefix("exec '"), trimmed.contains("' notify") else { continue }
            var rest = trimmed.dropFirst(5)
            var result = ""
            // Undo Shell.quote: '…' segments joined by \' .
            while let first = rest.first {
                if first == "'" {
                    rest = rest.dropFirst()
                    guard let close = rest.firstIndex(of: "'") else { return nil }
                    result += rest[..<close]
                    rest = rest[rest.index(after: close)...]
                } else if rest.hasPrefix("\\'") {
                    result += "'"
                    rest = rest.dropFirst(2)
                } else {
                    break
                }
            }
            return result
        }
        return nil
    }

    package func binaryChecks(layout: HookLayout) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let onPath = AgentManifest.findProgram("hookctl", environment: environment)
        if let onPath {
            checks.append(DoctorCheck(name: "binary", status: .ok, message: "hookctl on PATH: \(short(onPath))"))
        } else {
            // The advice names the directory this hookctl really runs from, not where install.sh would put it.
            let directory = FileSystem.parentDirectory(of: FileSystem.resolveSymlinks(currentExecutablePath()))
            let shown = short(directory).hasPrefix("~/") ? "$HOME/" + short(directory).dropFirst(2) : directory
            checks.append(DoctorCheck(name: "binary", status: .warning,
                                      message: "hookctl (\(short(directory))/hookctl) is not on PATH (the hooks do not need it: they use an absolute path)",
                                      fix: "echo 'export PATH=\"\(shown):$PATH\"' >> ~/.profile"))
        }
        guard let script = (try? FileSystem.readString(layout.scriptPath)) ?? nil else {
            checks.append(DoctorCheck(name: "hook script", status: .warning, message: "\(short(layout.scriptPath)) does not exist: no hooks are installed",
                                      fix: "hookctl setup"))
            return checks
        }
        guard FileSystem.isExecutable(layout.scriptPath) else {
            checks.append(DoctorCheck(name: "hook script", status: .broken, message: "\(short(layout.scriptPath)) is not executable", fix: "hookctl setup"))
            return checks
        }
        guard let target = Doctor.scriptTarget(script) else {
            checks.append(DoctorCheck(name: "hook script", status: .broken, message: "\(short(layout.scriptPath)) was changed by hand: it no longer runs hookctl",
                                      fix: "hookctl setup (rewrites it from the template)"))
            return checks
        }
        if !FileSystem.isExecutable(target) {
            checks.append(DoctorCheck(name: "hook script", status: .broken, message: "the hooks run \(short(target)), which does not exist any more",
                                      fix: "hookctl setup (points the script at the hookctl you run it with)"))
        } else if let onPath, FileSystem.resolveSymlinks(onPath) != FileSystem.resolveSymlinks(target) {
            checks.append(DoctorCheck(name: "hook script", status: .warning,
                                      message: "the hooks run \(short(target)), but hookctl on PATH is \(short(onPath))",
                                      fix: "run 'hookctl setup' with the hookctl you want the hooks to use"))
        } else {
            checks.append(DoctorCheck(name: "hook script", status: .ok, message: "\(short(layout.scriptPath)) runs \(short(target))"))
        }
        if let template = try? resources.template("hook.sh"), layout.script(template: template, hookctl: target) != script {
            checks.append(DoctorCheck(name: "hook script", status: .warning, message: "the hook script is older than this hookctl's template",
                                      fix: "hookctl setup"))
        }
        if let front = frontCheck(layout: layout) { checks.append(front) }
        return checks
    }

    /// What the retired hook front left beside the script (`LegacyHookFront`): hooks still work through
    /// it until setup runs, but nothing maintains it any more.
    package func frontCheck(layout: HookLayout) -> DoctorCheck? {
        let folder = FileSystem.parentDirectory(of: layout.scriptPath)
        let found = LegacyHookFront.leftovers(folder: folder)
        guard !found.isEmpty else { return nil }
        return DoctorCheck(name: "hook front", status: .warning,
                           message: "the retired hook front's files are still in \(short(folder)): \(found.joined(separator: ", "))",
                           fix: "hookctl setup")
    }

    // MARK: state directory

    /// The event log, board and outbox live in the state directory: if hookctl cannot write there, no
    /// event is recorded or kept for retry. Checked without writing (doctor writes nothing).
    package func stateDirectoryCheck() -> DoctorCheck {
        let directory = paths.stateDirectory
        var existing = directory
        while !FileSystem.exists(existing), existing != "/" { existing = FileSystem.parentDirectory(of: existing) }
        let creates = existing != directory
        guard FileSystem.isDirectory(existing) else {
            return DoctorCheck(name: "state", status: .broken,
                               message: "\(short(existing)) is not a directory: events cannot be recorded or kept for retry",
                               fix: creates ? "mv \(short(existing)) \(short(existing)).bak" : "mv \(short(directory)) \(short(directory)).bak")
        }
        guard access(existing, W_OK | X_OK) == 0 else {
            return DoctorCheck(name: "state", status: .broken,
                               message: "\(short(existing)) is not writable: events cannot be recorded or kept for retry",
                               fix: "chown -R \(Doctor.userName()) \(short(existing)) && chmod u+rwx \(short(existing))")
        }
        // hookctl refuses a state file that is not a regular file (a link, a FIFO, a device, a folder).
        let log = EventLog(paths: paths)
        for file in log.files.rotated() + [log.files.current, log.boardFile, log.lockFile] {
            guard let info = FileSystem.status(file, followSymlinks: false), (info.st_mode & S_IFMT) != S_IFREG else { continue }
            return DoctorCheck(name: "state", status: .broken,
                               message: "\(short(file)) is not a regular file (a link, FIFO, device or folder): hookctl will not use it",
                               fix: "mv \(short(file)) \(short(file)).bak")
        }
        // Folders hookctl keeps state in must be real folders, and no one else may write there.
        let outbox = Outbox(paths: paths)
        for folder in [directory, outbox.directory, outbox.deadDirectory, SinkHealthStore(paths: paths).directory] {
            guard let info = FileSystem.status(folder, followSymlinks: false) else { continue }
            if (info.st_mode & S_IFMT) == S_IFLNK {
                return DoctorCheck(name: "state", status: .broken, message: "\(short(folder)) is a link: hookctl will not use it",
                                   fix: "mv \(short(folder)) \(short(folder)).bak")
            }
            if info.st_mode & 0o022 != 0 {
                return DoctorCheck(name: "state", status: .broken,
                                   message: "\(short(folder)) can be written by others: they could change or remove queued events",
                                   fix: "chmod go-w \(short(folder))")
            }
        }
        return DoctorCheck(name: "state", status: .ok, message: creates ? "\(short(directory)) will be created on the first event" : "\(short(directory)) is writable")
    }

    package static func userName() -> String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "$USER" }
        return String(cString: name)
    }

    /// The checks as a person reads them: the agents that are not installed become one line
    /// (`--json` keeps one check per agent).
    package static func summarizingAbsentAgents(_ checks: [DoctorCheck]) -> [DoctorCheck] {
        let absent = checks.filter { $0.status == .info && $0.message == absentAgentMessage }
        guard absent.count > 1, let first = checks.firstIndex(where: { $0.status == .info && $0.message == absentAgentMessage }) else {
            return checks
        }
        var result = checks.filter { !($0.status == .info && $0.message == absentAgentMessage) }
        result.insert(DoctorCheck(name: "agents", status: .info,
                                  message: "not installed, skipped: " + absent.map(\.name).joined(separator: ", ")),
                      at: min(first, result.count))
        return result
    }

    /// What an agent's check says when the agent is not installed.
    package static let absentAgentMessage = "not installed; skipped"

    // MARK: the gate

    /// The gate is one setting (`defaults.gate`): the hooks, notify and `session ensure` follow it. A
    /// shell that carries another gate variable (a phone session made before the gate changed, or by
    /// a script that sets SSHIDO_SESSION itself) starts agents that never push.
    package func gateCheck(gate: String) -> DoctorCheck {
        let here = !(environment[gate] ?? "").isEmpty
        let standard = Product.gateVariable
        if gate != standard, !(environment[standard] ?? "").isEmpty, !here {
            return DoctorCheck(name: "gate", status: .warning,
                               message: "this shell has \(standard) set, but the hooks wait for \(gate) (defaults.gate): agents started here never push",
                               fix: "hookctl session ensure sets \(gate) in the sessions it makes; or set defaults.gate back to \(standard)")
        }
        let source = gate == standard ? "" : " (defaults.gate)"
        return DoctorCheck(name: "gate", status: .ok,
                           message: "agents push only when \(gate)\(source) is set; in this shell it is \(here ? "set" : "not set")")
    }

    // MARK: config and sinks

    package func configChecks(_ checks: inout [DoctorCheck]) -> Config? {
        do {
            guard let config = try Config.load(paths, environment: environment) else {
                checks.append(DoctorCheck(name: "config", status: .info, message: "no config at \(short(paths.configFile)): events are only recorded locally",
                                          fix: "hookctl setup --notify-url-file - (paste the notify URL from the phone app), to push to the phone"))
                return nil
            }
            if let info = FileSystem.status(paths.configFile), info.st_mode & 0o077 != 0 {
                checks.append(DoctorCheck(name: "config", status: .warning, message: "\(short(paths.configFile)) is readable by others (it holds the notify URL)",
                                          fix: "chmod 600 \(short(paths.configFile))"))
            }
            do {
                let sinks = try SinkRegistry.makeSinks(config: config)
                let names = sinks.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
                checks.append(DoctorCheck(name: "config", status: .ok,
                                          message: "\(short(paths.configFile)) is valid; sinks: \(sinks.isEmpty ? "none (events are only recorded)" : names)"))
            } catch let error as HookctlError {
                for problem in Self.problems(error) {
                    checks.append(DoctorCheck(name: "config", status: .broken, message: problem, fix: "fix the sink in \(short(paths.configFile))"))
                }
                return nil
            }
            return config
        } catch let error as HookctlError {
            for problem in Self.problems(error) {
                checks.append(DoctorCheck(name: "config", status: .broken, message: problem, fix: "fix \(short(paths.configFile)) at the line named"))
            }
        } catch {
            checks.append(DoctorCheck(name: "config", status: .broken, message: "\(error)"))
        }
        return nil
    }

    /// Each problem of a config error on its own (one doctor line each).
    package static func problems(_ error: HookctlError) -> [String] {
        (error as? ConfigError.All)?.errors.map(\.description) ?? [error.description]
    }

    package func sinkChecks(config: Config, timeout: Double, backlog: PushBacklog) -> [DoctorCheck] {
        guard let sinks = try? SinkRegistry.makeSinks(config: config) else { return [] }
        return sinks.compactMap { sink -> DoctorCheck? in
            // What the last deliveries said outranks reachability: a relay answering 503 is reachable and failing.
            if let own = backlog.sinks.first(where: { $0.sink == sink.name }), let check = deliveryCheck(sink: sink, backlog: own) {
                return check
            }
            // A sink whose last event was given up (a deleted webhook's 404/410, a revoked token) is dead
            // even when its host still answers.
            var problems: [String] = []
            if let last = ((try? Outbox(paths: paths).dead(problems: &problems)) ?? []).filter({ $0.sink == sink.name })
                .max(by: { $0.created < $1.created }), let reason = last.deadReason {
                return DoctorCheck(name: "sink \(sink.name)", status: .broken,
                                   message: Text.scrub("the last event for this sink was given up: \(reason)", secrets: sink.secrets),
                                   fix: "fix the sink, check it with 'hookctl test --sink \(sink.name)', then clear it with 'hookctl outbox drop --dead'")
            }
            guard let endpoint = sink.endpoint else {
                return DoctorCheck(name: "sink \(sink.name)", status: .ok, message: "\(sink.type) sink (local, nothing to reach)")
            }
            let shown = Text.redactURL(endpoint)
            if let why = HTTPClient.checkReachable(url: endpoint, timeout: timeout) {
                return DoctorCheck(name: "sink \(sink.name)", status: .broken,
                                   message: Text.scrub("\(shown) is not reachable: \(why)", secrets: sink.secrets),
                                   fix: "check the network and the URL; 'hookctl test --sink \(sink.name)' sends a test notification")
            }
            let last = backlog.sinks.first(where: { $0.sink == sink.name })?.health?.lastSuccess
                .map { "; last delivery \(BoardView.relative(WallClock.nowEpoch() - $0)) ago" } ?? ""
            return DoctorCheck(name: "sink \(sink.name)", status: .ok, message: "\(shown) is reachable (nothing was sent)\(last)")
        }
    }

    /// The sink's last delivery result and backlog, when they say something is wrong; nil when it delivered
    /// last time (or was never tried) and nothing waits for it.
    package func deliveryCheck(sink: any Sink, backlog: PushBacklog.SinkBacklog) -> DoctorCheck? {
        let now = WallClock.nowEpoch()
        let name = "sink \(sink.name)"
        let failing = backlog.health.map { $0.result != .delivered }
            ?? ((backlog.waiting > 0 && backlog.lastProblem != nil) || backlog.givenUp > 0)
        guard failing || backlog.waiting > 0 else { return nil }
        var parts: [String] = []
        if let health = backlog.health {
            let when = BoardView.relative(now - health.lastAttempt)
            let result = health.result == .delivered ? "delivered" : (PushBacklog.problem(health) ?? health.result.rawValue)
            var text = "last delivery attempt \(when) ago: \(result)"
            if health.consecutiveFailures > 1 { text += " (\(health.consecutiveFailures) failures in a row)" }
            parts.append(text)
        } else if let problem = backlog.lastProblem {
            parts.append("last delivery attempt: \(problem)")
        }
        if backlog.givenUp > 0 {
            parts.append("\(backlog.givenUp) event\(backlog.givenUp == 1 ? " was" : "s were") given up"
                         + (backlog.deadReason.map { ", the last because \($0)" } ?? ""))
        }
        if backlog.waiting > 0 {
            var text = "\(backlog.waiting) event\(backlog.waiting == 1 ? "" : "s") waiting"
            if let until = backlog.retryUntil { text += ", retried until \(PushBacklog.clockTime(until, now: now))" }
            if let next = backlog.nextAttempt, next > now { text += " (next try in \(BoardView.relative(next - now)))" }
            parts.append(text)
        }
        let message = Text.scrub(parts.joined(separator: "; "), secrets: sink.secrets)
        // The HTTP status: the health record's, else the waiting entries' last error (`HTTP 503`).
        let status = backlog.health?.httpStatus ?? (backlog.lastProblem ?? backlog.deadReason.map(PushBacklog.shortReason)).flatMap { problem in
            problem.hasPrefix("HTTP ") ? Int(problem.dropFirst(5).prefix(while: \.isNumber)) : nil
        } ?? 0
        let host = sink.endpoint.map(Doctor.hostName) ?? sink.type
        let fix: String
        switch status {
        case 404, 410:
            fix = sink.type == "relay"
                ? "the relay does not know this URL any more: copy the current notify URL from the phone app, then run hookctl setup --notify-url-file - and paste it"
                : "the endpoint is gone: put its current URL in the config, then run hookctl test --sink \(sink.name)"
        case 401, 403:
            fix = "the sink refuses the credentials: renew the token in the config, then run hookctl test --sink \(sink.name)"
        case 429:
            fix = "\(host) limits how often it takes pushes: nothing to do, they are retried when it allows"
        case 500..<600:
            fix = "\(host) is failing on its side (HTTP \(status)): nothing to change here; events are retried until then. If it lasts, check the service's status, and see its answer with hookctl test --sink \(sink.name)"
        case 0 where sink.endpoint == nil:
            // A local sink (exec, file): no network between, the program or the file is what fails.
            fix = "the \(sink.type) sink keeps failing: see why with hookctl test --sink \(sink.name), fix it in \(short(paths.configFile))"
        case 0 where backlog.health?.result == .retrying || backlog.health == nil:
            fix = "nothing answers at \(host): check the network and the URL, and that the service runs; hookctl test --sink \(sink.name) shows the error"
        default:
            fix = "see its answer with hookctl test --sink \(sink.name), fix the sink in \(short(paths.configFile))"
        }
        let broken = backlog.health?.result == .failed || [404, 410, 401, 403].contains(status)
            || (backlog.health == nil && backlog.givenUp > 0)
        return DoctorCheck(name: name, status: broken ? .broken : .warning, message: message, fix: fix)
    }

    /// `https://push.example.com/n/…` → `push.example.com` (never the secret path).
    package static func hostName(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return "the sink" }
        let rest = url[schemeEnd.upperBound...]
        let host = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        return host.split(separator: "@").last.map(String.init) ?? String(host)
    }

    package func outboxChecks(backlog: PushBacklog) -> [DoctorCheck] {
        let now = WallClock.nowEpoch()
        var checks: [DoctorCheck] = []
        if backlog.waiting == 0 {
            checks.append(DoctorCheck(name: "outbox", status: .ok, message: "no undelivered events"))
        } else {
            // Each failing sink has its own line with what helps; this one only counts, per sink.
            let lines = backlog.statusLines(now: now)
            checks.append(DoctorCheck(name: "outbox", status: .warning, message: lines.first ?? "",
                                      fix: "they are retried on their own; hookctl outbox list shows each one"))
        }
        if backlog.givenUp > 0 {
            checks.append(DoctorCheck(name: "outbox", status: .warning,
                                      message: backlog.statusLines(now: now).last ?? "\(backlog.givenUp) event(s) were given up",
                                      fix: "once the sink is fixed: hookctl outbox drop --dead"))
        }
        // Entries and kept events that cannot be read (damaged, a link, another user's) are set aside with
        // the dead letters: each is one of these.
        for problem in backlog.problems {
            checks.append(DoctorCheck(name: "outbox", status: .warning, message: problem,
                                      fix: "look at it, then remove it (hookctl outbox drop --dead removes every dead letter)"))
        }
        return checks
    }

    // MARK: agents

    /// Every agent the manifests describe, each asked of its own installer (AgentDoctor.swift).
    package func agentChecks(layout: HookLayout) -> [DoctorCheck] {
        let manifests: [AgentManifest]
        do { manifests = try resources.manifests() } catch let error as HookctlError {
            return [DoctorCheck(name: "agents", status: .broken, message: error.description, fix: "fix or remove the manifest")]
        } catch { return [] }
        return manifests.flatMap { installerChecks(manifest: $0, layout: layout, installed: $0.isInstalled(environment: environment)) }
    }

    /// Codex keys hook trust by `<hooks.json path>:<event in snake_case>:<group index>:<handler index>`.
    package static func codexTrustKeys(hooksPath: String, hooksText: String) -> [String] {
        guard let root = try? JSON.parse(hooksText), let hooks = root["hooks"]?.objectValue else { return [] }
        var keys: [String] = []
        for (event, groups) in hooks.entries {
            for (groupIndex, group) in (groups.arrayValue ?? []).enumerated() {
                for (handlerIndex, handler) in (group["hooks"]?.arrayValue ?? []).enumerated() where JSONHooksInstaller.isOurs(handler) {
                    keys.append("\(hooksPath):\(snakeCase(event)):\(groupIndex):\(handlerIndex)")
                }
            }
        }
        return keys
    }

    /// The keys of `[hooks.state."KEY"]` tables in config.toml that hold a `trusted_hash`.
    package static func codexTrustedKeys(configText: String) -> Set<String> {
        var result: Set<String> = []
        var current: String?
        // Lines cut at "\n" bytes (a "\r" before one is trimmed): splitting the String itself walks its
        // Characters, 0.37 M instructions for a Codex `notify` hook's 1 KB config, and never cuts at "\r\n",
        // which is one Character.
        for line in configText.utf8.split(separator: UInt8(ascii: "\n")) {
            let trimmed = Substring(line).trimmingSpaces()
            if trimmed.hasPrefix("[") {
                current = nil
                let prefix = "[hooks.state."
                if trimmed.hasPrefix(prefix), trimmed.hasSuffix("]") {
                    let quoted = String(trimmed.dropFirst(prefix.count).dropLast()).trimmingSpaces()
                    if quoted.hasPrefix("\""), let parsed = try? JSON.parse(quoted) { current = parsed.stringValue }
                    else { current = quoted.unquotedKey() }
                }
                continue
            }
            if let key = current, trimmed.hasPrefix("trusted_hash") { result.insert(key) }
        }
        return result
    }

    /// `UserPromptSubmit` → `user_prompt_submit`.
    package static func snakeCase(_ name: String) -> String {
        // ASCII names (every agent's event names) byte by byte: Character's case look-ups cost 10 k
        // instructions a name.
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            for (index, byte) in name.utf8.enumerated() {
                if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) {
                    if index > 0 { bytes.append(UInt8(ascii: "_")) }
                    bytes.append(byte + 32)
                } else {
                    bytes.append(byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        var output = ""
        for (index, character) in name.enumerated() {
            if character.isUppercase {
                if index > 0 { output += "_" }
                output += character.lowercased()
            } else {
                output.append(character)
            }
        }
        return output
    }

    // MARK: tmux

    package func tmuxCheck() -> DoctorCheck {
        let tmux: String
        do { tmux = try TmuxClient.locate(environment: environment) } catch TmuxError.notExecutable(let path) {
            return DoctorCheck(name: "tmux", status: .broken, message: "HOOKCTL_TMUX is '\(path)', which is not an executable file",
                               fix: "point HOOKCTL_TMUX at tmux, or unset it")
        } catch {
            return DoctorCheck(name: "tmux", status: .warning, message: "tmux is not installed: phone sessions cannot be kept across reconnects",
                               fix: "apt-get install tmux")
        }
        guard let result = try? Subprocess(executable: tmux, arguments: ["-V"], environment: environment, timeout: 3).run(), result.status == 0 else {
            return DoctorCheck(name: "tmux", status: .broken, message: "\(tmux) -V failed", fix: "reinstall tmux")
        }
        let version = Text.trimmed(result.outputText)
        let number = Double(version.split(separator: " ").last.map { String($0.prefix { $0.isNumber || $0 == "." }) } ?? "") ?? 0
        if number > 0, number < 3.0 {
            return DoctorCheck(name: "tmux", status: .warning, message: "\(version) at \(tmux) is old; hookctl expects tmux 3.0 or newer", fix: "upgrade tmux")
        }
        return DoctorCheck(name: "tmux", status: .ok, message: "\(version) at \(tmux)")
    }
}
