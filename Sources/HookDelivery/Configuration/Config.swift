/// A problem in the config file, with where it is: `config.yaml:12:5: …` (exit 78).
package struct ConfigError: HookctlError {
    package var file: String
    package var line: Int
    package var column: Int
    package var message: String

    package var exitCode: ExitCode { .config }
    package var description: String {
        if file.isEmpty { return message }
        return line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }

    package init(
        file: String,
        line: Int,
        column: Int,
        message: String
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }
}

extension ConfigError {
    /// Several problems at once: each on its own line, `file:line:column: message`.
    package struct All: HookctlError {
        package var errors: [ConfigError]
        package var exitCode: ExitCode { .config }
        package var code: String { "config" }
        package var description: String {
            "\(errors.count) problems in the config:\n" + errors.map { "  " + $0.description }.joined(separator: "\n")
        }
    }

    /// Throws nothing for no problem, the one problem alone, or all of them together.
    package static func throwAll(_ problems: [ConfigError]) throws {
        if problems.count == 1 { throw problems[0] }
        if problems.count > 1 { throw All(errors: problems) }
    }
}

/// How retries are spaced: exponential from `base`, capped at `max`, with full jitter; given up after `expire`.
package struct RetryPolicy: Sendable, Equatable {
    package var base: Double = 1
    package var max: Double = 300
    package var expire: Double = 86_400

    /// The wait before attempt `attempt + 1` (attempt counts from 1): a random value up to the exponential step.
    package func delay(afterAttempt attempt: Int, hint: Double? = nil) -> Double {
        let step = Swift.min(max, base * pow(2, Double(Swift.max(0, attempt - 1))))
        let jittered = step / 2 + Double.random(in: 0...(step / 2))
        if let hint { return Swift.max(hint, jittered / 4) }
        return jittered
    }

    package init(
        base: Double = 1,
        max: Double = 300,
        expire: Double = 86_400
    ) {
        self.base = base
        self.max = max
        self.expire = expire
    }
}

/// Settings that apply to every sink unless a sink overrides them.
package struct Defaults: Sendable, Equatable {
    /// The environment variable that must be set (non-empty) for notify to push.
    package var gate = Product.gateVariable
    /// How long notify may spend delivering on the agent's hook path before leaving the rest to the outbox.
    package var budget: Double = 2
    package var connectTimeout: Double = 5
    package var timeout: Double = 10
    package var retry = RetryPolicy()
    /// The event log rotates past this size, keeping `logKeep` older generations.
    package var logMaxSize = 10 << 20
    package var logKeep = 3
    /// Which events are recorded but not pushed (`quiet: {idle_after_done, repeats}`).
    package var pushRules = PushRules()
    /// `quiet.present`: no push for an agent whose tmux session has a client attached and was typed into
    /// within this many seconds (a question is held and pushed if the user leaves first; `PresenceHold`);
    /// nil (`off`) pushes regardless.
    package var presentWindow: Double? = 120

    package init() {}
}

/// hookctl's configuration: defaults and the list of sinks.
package struct Config: Sendable {
    package var version = 1
    package var defaults = Defaults()
    package var sinks: [SinkConfig] = []
    /// Other hosts the board reaches over ssh (`hosts:`; `hookctl hosts add` writes them).
    package var hosts: [SSHRunner.Host] = []
    /// The file it came from (nil for the built-in empty config).
    package var path: String?

    package init() {}

    package static let topLevelKeys = ["version", "defaults", "sinks", "hosts"]
    package static let hostKeys = ["name", "ssh", "ssh_options"]
    package static let defaultsKeys = ["gate", "budget", "connect_timeout", "timeout", "retry", "log", "quiet"]

    /// Loads the config file; nil when it does not exist (no config is not an error).
    package static func load(path: String, environment: [String: String]) throws -> Config? {
        let text: String?
        do {
            text = try FileSystem.readString(path)
        } catch {
            throw ConfigError(file: path, line: 0, column: 0, message: "cannot read the config: \(error)")
        }
        guard let text else { return nil }
        return try parse(text, path: path, environment: environment)
    }

    /// Loads the config `paths` names, as a command a person runs does: nil when the default file does
    /// not exist, an error when a file named by `--config` or `HOOKCTL_CONFIG` does not.
    package static func load(_ paths: Paths, environment: [String: String]) throws -> Config? {
        let config = try load(path: paths.configFile, environment: environment)
        if config == nil, paths.configIsNamed, !FileSystem.exists(paths.configFile) {
            throw ConfigError(file: "", line: 0, column: 0,
                              message: "no such file: \(paths.configFile) (named by --config or HOOKCTL_CONFIG)")
        }
        return config
    }

    /// Parses config text; `path` only names the file in errors. Every problem found is reported at
    /// once (`ConfigError.all`), not only the first.
    package static func parse(_ text: String, path: String, environment: [String: String]) throws -> Config {
        var config = Config()
        config.path = path
        let root: YAMLNode?
        do {
            root = try YAML.parse(text)
        } catch let error as YAMLError {
            throw ConfigError(file: path, line: error.line, column: error.column, message: "invalid YAML: \(error.message)")
        }
        guard let root, !root.isNull else { return config }
        func fail(_ node: YAMLNode, _ message: String) -> ConfigError {
            ConfigError(file: path, line: node.line, column: node.column, message: message)
        }
        guard root.kind == .mapping else { throw fail(root, "the config must be a mapping with 'version' and 'sinks'") }
        var problems: [ConfigError] = []
        for pair in root.pairs where !topLevelKeys.contains(pair.key.value) {
            problems.append(fail(pair.key, "unknown key '\(pair.key.value)'" + Suggest.hint(for: pair.key.value, in: topLevelKeys)))
        }
        if let version = root["version"], version.value != "1" {
            problems.append(fail(version, "unsupported config version '\(version.value)' (this hookctl reads version 1)"))
        }
        if let defaults = root["defaults"], !defaults.isNull {
            config.defaults = parseDefaults(defaults, fail: fail, problems: &problems)
        }
        if let sinks = root["sinks"], !sinks.isNull {
            if sinks.kind != .sequence {
                problems.append(fail(sinks, "'sinks' must be a list of sinks, each with 'name' and 'type'"))
            }
            // An array, not a Set: a config has a handful of sinks, and the hook path makes no Set<String> for them.
            var names: [String] = []
            for item in sinks.kind == .sequence ? sinks.items : [] {
                guard item.kind == .mapping else { problems.append(fail(item, "each sink must be a mapping with 'name' and 'type'")); continue }
                guard let name = item["name"], name.kind == .scalar, !name.value.isEmpty else {
                    problems.append(fail(item, "a sink needs a 'name'"))
                    continue
                }
                guard let type = item["type"], type.kind == .scalar, !type.value.isEmpty else {
                    problems.append(fail(item, "sink '\(name.value)' needs a 'type' (one of \(SinkRegistry.typeNames.joined(separator: ", ")))"))
                    continue
                }
                guard !names.contains(name.value) else { problems.append(fail(name, "two sinks are named '\(name.value)'")); continue }
                names.append(name.value)
                config.sinks.append(SinkConfig(name: name.value, type: type.value, node: item, file: path,
                                               environment: environment, defaults: config.defaults))
            }
        }
        if let hosts = root["hosts"], !hosts.isNull {
            config.hosts = parseHosts(hosts, fail: fail, problems: &problems)
        }
        // Shown with the rest: the sinks' unknown types and keys (alone, they leave the other sinks working).
        if !problems.isEmpty { try SinkRegistry.collect(&problems) { try SinkRegistry.checkStructure(config: config) } }
        try ConfigError.throwAll(problems)
        return config
    }

    /// The `defaults:` mapping; each problem is added to `problems` and its key keeps its default.
    package static func parseDefaults(_ node: YAMLNode, fail: (YAMLNode, String) -> ConfigError, problems: inout [ConfigError]) -> Defaults {
        var defaults = Defaults()
        guard node.kind == .mapping else { problems.append(fail(node, "'defaults' must be a mapping")); return defaults }
        func duration(_ value: YAMLNode, _ key: String) throws -> Double {
            guard value.kind == .scalar, let seconds = DurationText.parse(value.value) else {
                throw fail(value, "'\(key)' must be a duration such as 500ms, 10s, 5m or 24h, got '\(value.value)'")
            }
            return seconds
        }
        for pair in node.pairs {
            do {
                let key = pair.key.value, value = pair.value
                switch key {
                case "gate":
                    guard let gate = gateName(value) else {
                        throw fail(value, "'gate' must be an environment variable name such as SSHIDO_SESSION")
                    }
                    defaults.gate = gate
                case "budget": defaults.budget = try duration(value, "defaults.budget")
                case "connect_timeout": defaults.connectTimeout = try duration(value, "defaults.connect_timeout")
                case "timeout": defaults.timeout = try duration(value, "defaults.timeout")
                case "retry":
                    guard value.kind == .mapping else { throw fail(value, "'retry' must be a mapping with base, max and expire") }
                    for retryPair in value.pairs {
                        switch retryPair.key.value {
                        case "base": defaults.retry.base = try duration(retryPair.value, "retry.base")
                        case "max": defaults.retry.max = try duration(retryPair.value, "retry.max")
                        case "expire": defaults.retry.expire = try duration(retryPair.value, "retry.expire")
                        default:
                            throw fail(retryPair.key, "unknown key 'retry.\(retryPair.key.value)'" + Suggest.hint(for: retryPair.key.value, in: ["base", "max", "expire"]))
                        }
                    }
                case "log":
                    guard value.kind == .mapping else { throw fail(value, "'log' must be a mapping with max_size and keep") }
                    for logPair in value.pairs {
                        switch logPair.key.value {
                        case "max_size":
                            guard let size = parseSize(logPair.value.value), size >= 4096 else {
                                throw fail(logPair.value, "'log.max_size' must be a size such as 10MB (from 4KB to 1TB)")
                            }
                            defaults.logMaxSize = size
                        case "keep":
                            guard let keep = Int(logPair.value.value), keep >= 1, keep <= 100 else {
                                throw fail(logPair.value, "'log.keep' must be a whole number from 1 to 100")
                            }
                            defaults.logKeep = keep
                        default:
                            throw fail(logPair.key, "unknown key 'log.\(logPair.key.value)'" + Suggest.hint(for: logPair.key.value, in: ["max_size", "keep"]))
                        }
                    }
                case "quiet":
                    guard value.kind == .mapping else { throw fail(value, "'quiet' must be a mapping with idle_after_done, repeats and present") }
                    for quietPair in value.pairs {
                        let setting = quietPair.value.value.lowercased()
                        switch quietPair.key.value {
                        case "idle_after_done":
                            guard quietPair.value.kind == .scalar, ["true", "false", "yes", "no", "on", "off"].contains(setting) else {
                                throw fail(quietPair.value, "'quiet.idle_after_done' must be true or false")
                            }
                            defaults.pushRules.quietIdleAfterDone = ["true", "yes", "on"].contains(setting)
                        case "present":
                            if quietPair.value.kind == .scalar, ["off", "false", "no", "0"].contains(setting) {
                                defaults.presentWindow = nil
                            } else {
                                defaults.presentWindow = try duration(quietPair.value, "quiet.present")
                            }
                        case "repeats":
                            if quietPair.value.kind == .scalar, ["off", "false", "no", "0"].contains(setting) {
                                defaults.pushRules.repeatWindow = 0
                            } else {
                                defaults.pushRules.repeatWindow = try duration(quietPair.value, "quiet.repeats")
                            }
                        default:
                            throw fail(quietPair.key, "unknown key 'quiet.\(quietPair.key.value)'"
                                + Suggest.hint(for: quietPair.key.value, in: ["idle_after_done", "repeats", "present"]))
                        }
                    }
                default:
                    throw fail(pair.key, "unknown key 'defaults.\(key)'" + Suggest.hint(for: key, in: defaultsKeys))
                }
            } catch let error as ConfigError {
                problems.append(error)
            } catch {
                problems.append(fail(pair.key, "\(error)"))
            }
        }
        return defaults
    }

    /// The `hosts:` list: each a mapping with `name`, `ssh` (the destination) and optional
    /// `ssh_options`, checked by `HostRules`; names unique.
    package static func parseHosts(_ node: YAMLNode, fail: (YAMLNode, String) -> ConfigError, problems: inout [ConfigError]) -> [SSHRunner.Host] {
        guard node.kind == .sequence else {
            problems.append(fail(node, "'hosts' must be a list of hosts, each with 'name' and 'ssh'"))
            return []
        }
        var hosts: [SSHRunner.Host] = []
        var names: [String] = []
        for item in node.items {
            guard item.kind == .mapping else { problems.append(fail(item, "each host must be a mapping with 'name' and 'ssh'")); continue }
            var ok = true
            for pair in item.pairs where !hostKeys.contains(pair.key.value) {
                problems.append(fail(pair.key, "unknown key 'hosts.\(pair.key.value)'" + Suggest.hint(for: pair.key.value, in: hostKeys)))
                ok = false
            }
            guard let name = item["name"], name.kind == .scalar else { problems.append(fail(item, "a host needs a 'name'")); continue }
            if let problem = HostRules.nameProblem(name.value) { problems.append(fail(name, problem)); continue }
            if names.contains(name.value) { problems.append(fail(name, "two hosts are named '\(name.value)'")); continue }
            names.append(name.value)
            guard let destination = item["ssh"], destination.kind == .scalar else {
                problems.append(fail(item, "host '\(name.value)' needs 'ssh', its destination ([user@]host)"))
                continue
            }
            if let problem = HostRules.destinationProblem(destination.value) { problems.append(fail(destination, problem)); ok = false }
            var options: [String] = []
            if let list = item["ssh_options"], !list.isNull {
                if list.kind != .sequence {
                    problems.append(fail(list, "'ssh_options' must be a list such as [Port=2222]"))
                    ok = false
                }
                for option in list.kind == .sequence ? list.items : [] {
                    if option.kind != .scalar {
                        problems.append(fail(option, "an ssh option is one line such as Port=2222"))
                        ok = false
                    } else if let problem = HostRules.optionProblem(option.value) {
                        problems.append(fail(option, problem))
                        ok = false
                    } else {
                        options.append(option.value)
                    }
                }
            }
            if ok { hosts.append(SSHRunner.Host(name: name.value, destination: destination.value, options: options)) }
        }
        return hosts
    }

    /// The gate: the variable `defaults.gate` names in the config file (SSHIDO_SESSION when it names
    /// none). The one reading that setup, doctor and `session ensure` follow; notify reads the same key.
    package static func gateVariable(configFile: String) -> String {
        Config.gate(in: (try? FileSystem.readString(configFile)) ?? nil) ?? Product.gateVariable
    }

    /// The gate variable from `defaults.gate`, if set: the same reading (and checks) as notify's
    /// (`Config.parse`), so setup registers hooks gated on the variable notify waits for. Nil when the
    /// config does not say, or cannot be read (setup refuses such a config; doctor reports it).
    package static func gate(in text: String?) -> String? {
        guard let text, let root = try? YAML.parse(text), let defaults = root["defaults"], defaults.kind == .mapping,
              let gate = defaults["gate"] else { return nil }
        return gateName(gate)
    }

    /// The gate variable a `defaults.gate` node names; nil when it is not a variable name.
    package static func gateName(_ value: YAMLNode) -> String? {
        guard value.kind == .scalar, !value.value.isEmpty,
              value.value.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else { return nil }
        return value.value
    }

    /// `10MB`, `512KB`, `1GB`, or bytes.
    package static func parseSize(_ text: String) -> Int? {
        let trimmed = Text.trimmed(text).uppercased()
        let units: [(String, Int)] = [("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 1 << 10), ("MB", 1 << 20),
                                      ("GB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1)]
        for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
            guard let count = Int(Text.trimmed(String(trimmed.dropLast(suffix.count)))) else { return nil }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: scale)
            return overflow || bytes > 1 << 40 ? nil : bytes
        }
        return Int(trimmed).flatMap { $0 > 1 << 40 ? nil : $0 }
    }
}
