/// The hosts the board reaches over ssh, kept in the config's `hosts:` list (one place).
package enum HostsSupport {
    package static func hosts(context: CommandContext) throws -> [SSHRunner.Host] {
        try Config.load(context.paths(), environment: context.environment)?.hosts ?? []
    }

    /// The hosts `--hosts` (all) or `--host NAME…` pick, in the config's order; `local` names this host.
    package static func select(_ known: [SSHRunner.Host], names: [String]) throws -> (local: Bool, hosts: [SSHRunner.Host]) {
        if names.isEmpty {
            guard !known.isEmpty else {
                throw UsageError(message: "no hosts yet: add one with 'hookctl hosts add NAME [user@]HOST' (or 'hookctl deploy HOST --add-host')")
            }
            return (true, known)
        }
        for name in names where name != HostRules.localName && !known.contains(where: { $0.name == name }) {
            throw RemoteError.unknownHost(name: name, known: known.map(\.name))
        }
        return (names.contains(HostRules.localName), known.filter { names.contains($0.name) })
    }

    /// The host a `HOST:TARGET` names, with the target on it; nil when the word names no configured
    /// host (then it is a target on this host, as before: `claude:abc` stays a local key).
    package static func split(_ word: String, hosts: [SSHRunner.Host]) -> (host: SSHRunner.Host, target: String)? {
        guard let colon = word.firstIndex(of: ":") else { return nil }
        let name = String(word[..<colon])
        guard let host = hosts.first(where: { $0.name == name }) else { return nil }
        return (host, String(word[word.index(after: colon)...]))
    }

    /// The runner the board uses: ssh with a short connect timeout and a control master in the
    /// runtime folder.
    package static func runner(context: CommandContext, connectTimeout: Int = 5) throws -> SSHRunner {
        let control = try SSHRunner.controlDirectory(paths: context.paths())
        var runner = SSHRunner(ssh: try SSHRunner.locate(environment: context.environment), environment: context.environment,
                               connectTimeout: connectTimeout, controlDirectory: control)
        if context.environment["HOOKCTL_NO_LINK"] != "1" { runner.linkDirectory = try SSHRunner.privateDirectory(HostLink.directory(controlDirectory: control)) }
        return runner
    }

    /// Adds `host` to the config file (made, mode 0600, when there is none).
    package static func add(_ host: SSHRunner.Host, context: CommandContext) throws {
        let path = context.paths().configFile
        let before = try FileSystem.readString(path)
        let after = try ConfigEditor.addHost(host, to: before, path: path)
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path), mode: 0o700)
        try FileSystem.writeAtomically(path, text: after, mode: 0o600)
    }

    /// Checks `hosts add`'s and `deploy --add-host`'s values with the config's rules.
    package static func check(_ host: SSHRunner.Host, command: [String]) throws {
        let problems = [HostRules.nameProblem(host.name), HostRules.destinationProblem(host.destination)] + host.options.map(HostRules.optionProblem)
        if let problem = problems.compactMap({ $0 }).first { throw UsageError(message: problem, command: command) }
    }
}

/// `hookctl hosts add NAME [user@]HOST [--ssh-option OPT]...`
package enum HostsAddCommand: Command {
    package static let path = ["hosts", "add"]
    package static let spec = CommandSpec(path: path, summary: "Add a host to the board across hosts (kept in the config).",
        usage: "NAME [user@]HOST [--ssh-option OPT]...",
        discussion: """
        NAME is a short label (box2) that 'status --hosts' shows and targets take (box2:%7); HOST is
        what you give ssh: a host, user@host or an alias from your ssh config. The host is added to
        the config's 'hosts:' list; nothing is contacted. 'hookctl deploy box2' puts hookctl there.
        """,
        options: [Options.sshOption],
        positionals: [("NAME", "A short label: letters, digits, - and _."), ("HOST", "An ssh destination.")],
        maximumPositionals: 2)

    package struct Options: CommandOptions {
        package static let sshOption = Option<String>("ssh-option", "OPT", repeatable: true, help: "Passed to ssh as -o OPT (e.g. Port=2222).")
        package var host: SSHRunner.Host

        package init(parsing arguments: ParsedArguments) throws {
            guard arguments.positionals.count == 2 else {
                throw UsageError(message: "give the host's NAME and its ssh destination: hookctl hosts add box2 user@box2.example.com", command: spec.path)
            }
            host = SSHRunner.Host(name: arguments.positionals[0], destination: arguments.positionals[1],
                                  options: try arguments.all(Self.sshOption))
            try HostsSupport.check(host, command: spec.path)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        try HostsSupport.add(options.host, context: context)
        context.print("added \(options.host.name) (\(options.host.destination)); 'hookctl status --hosts' shows its agents")
        return .ok
    }
}

/// `hookctl hosts list`
package enum HostsListCommand: Command {
    package static let path = ["hosts", "list"]
    package static let spec = CommandSpec(path: path, summary: "List the hosts the board reaches over ssh.", usage: "[--json]",
                                  options: [Options.json])

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print one JSON document.")
        package var json: Bool
        package init(parsing arguments: ParsedArguments) throws { json = arguments.flag(Self.json) }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let hosts = try HostsSupport.hosts(context: context)
        if options.json {
            context.printJSON(.object(JSONObject([("hosts", .array(hosts.map { host in
                .object(JSONObject([("name", .string(host.name)), ("ssh", .string(host.destination)),
                                    ("ssh_options", .array(host.options.map(JSONValue.string)))]))
            }))])))
            return .ok
        }
        if hosts.isEmpty {
            context.print("No hosts yet: 'hookctl hosts add NAME [user@]HOST' adds one.")
            return .ok
        }
        let width = max(4, hosts.map(\.name.count).max() ?? 4)
        for host in hosts {
            context.print(Terminal.pad(host.name, width) + "  " + host.destination
                          + (host.options.isEmpty ? "" : "  " + host.options.map { "-o " + $0 }.joined(separator: " ")))
        }
        return .ok
    }
}

/// `hookctl hosts remove NAME...`
package enum HostsRemoveCommand: Command {
    package static let path = ["hosts", "remove"]
    package static let spec = CommandSpec(path: path, summary: "Remove hosts from the board across hosts (and close their ssh master).",
                                  usage: "NAME...", positionals: [("NAME", "A host's label, as 'hosts list' shows it.")],
                                  maximumPositionals: Int.max)

    package struct Options: CommandOptions {
        package var names: [String]
        package init(parsing arguments: ParsedArguments) throws {
            names = arguments.positionals
            if names.isEmpty { throw UsageError(message: "name the host to remove ('hookctl hosts list' shows them)", command: spec.path) }
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let paths = context.paths()
        let known = try HostsSupport.hosts(context: context)
        for name in options.names where !known.contains(where: { $0.name == name }) {
            throw RemoteError.unknownHost(name: name, known: known.map(\.name))
        }
        guard var text = try FileSystem.readString(paths.configFile) else { throw RemoteError.unknownHost(name: options.names[0], known: []) }
        for name in options.names { text = try ConfigEditor.removeHost(named: name, from: text, path: paths.configFile) }
        try FileSystem.writeAtomically(paths.configFile, text: text, mode: 0o600)
        // Its master, if one is up, goes too: no logged-in socket is left for a host no longer listed.
        if let ssh = try? SSHRunner.locate(environment: context.environment),
           let directory = try? SSHRunner.controlDirectory(paths: paths) {
            let runner = SSHRunner(ssh: ssh, environment: context.environment, controlDirectory: directory)
            for host in known where options.names.contains(host.name) { runner.closeMaster(host) }
        }
        for name in options.names { context.print("removed \(name)") }
        return .ok
    }
}

/// `hookctl hosts link`: the owner of the links to the hosts (started in the background by `status --hosts`).
package enum HostsLinkCommand: Command {
    package static let path = ["hosts", "link"]
    package static let spec = CommandSpec(path: path, summary: "Keep one ssh session to each host for the board across hosts (started by status --hosts).",
        usage: "[NAME...]",
        discussion: """
        NAMEs: hosts of the config to link at once (the others when first asked). Owns one long-lived ssh session per host, over the host's control master, each running
        'hookctl hosts serve' there; 'status --hosts' and its watch ask it over a socket in hookctl's
        runtime folder (mode 0700) instead of starting ssh and hookctl on every host each time. One
        per user; it stops 10 minutes after the last ask, and a host's session ends with its master.
        Its start, each session and why it stops are lines of link.log in the state directory.
        """,
        options: [],
        positionals: [("NAME", "A host of 'hookctl hosts list'.")],
        maximumPositionals: 64)

    package struct Options: CommandOptions {
        package var names: [String]
        package init(parsing arguments: ParsedArguments) throws { names = arguments.positionals }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let runner = try HostsSupport.runner(context: context)
        guard let directory = runner.linkDirectory else { return .ok }
        let first = try HostsSupport.hosts(context: context).filter { options.names.contains($0.name) }
        try HostLink.own(runner: runner, directory: directory, paths: context.paths(), idle: Double(runner.controlPersist), first: first)
        return .ok
    }
}

/// `hookctl hosts serve`: the link's remote end (run over ssh by another host's `hosts link`).
package enum HostsServeCommand: Command {
    package static let path = ["hosts", "serve"]
    package static let spec = CommandSpec(path: path, summary: "Answer another host's board requests on standard input (run over ssh by hosts link).",
        usage: "",
        discussion: """
        Reads one request per line ('status') and writes one line for each: this host's
        'status --json' document. It listens on no port and exits at the end of its input, that is
        when the other host's link or the ssh connection ends.
        """,
        options: [])

    package struct Options: CommandOptions {
        package init(parsing arguments: ParsedArguments) throws {}
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        HostLink.serve(input: FileDescriptor(rawValue: STDIN_FILENO), output: FileDescriptor(rawValue: STDOUT_FILENO)) {
            do {
                return try StatusCommand.jsonDocument(filter: .none, staleAfter: BoardView.defaultStaleAfter, context: context)
            } catch {
                return Array(JSON.serialize(.object(JSONObject([("error", .string("\(error)"))]))).utf8)
            }
        }
        return .ok
    }
}
