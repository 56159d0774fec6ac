/// `hookctl deploy HOST…`: this hookctl (binary and data) onto other hosts over ssh, then setup there.
package enum DeployCommand: Command {
    package static let path = ["deploy"]
    package static let spec = CommandSpec(path: path, summary: "Install this hookctl on other hosts over ssh and run setup there.",
        usage: "[user@]HOST... [--notify-url URL | --notify-url-file FILE|-] [--agents LIST] [--ssh-option OPT]... [--jobs N] [--uninstall] [--add-host] [--json]",
        discussion: """
        Copies the running hookctl and its agent manifests and templates into ~/.local on each host
        with your own ssh (your config, keys, agent and host aliases; no password prompts), then runs
        'hookctl setup' there. A host is checked first (machine, glibc, libcurl) and is told exactly
        what to install when it lacks something; files it already has are not sent again. The old
        copy is replaced by renames, so hooks running at that moment keep working.

        The notify URL travels on ssh's standard input, never on a command line on either side;
        --notify-url-file keeps it off this host's command line too. Without a URL, a host keeps the
        relay it has. --uninstall runs 'hookctl uninstall' there and removes what deploy put;
        with --agents it removes only those agents' hooks and leaves hookctl for the others.
        --add-host adds each host that succeeded to 'hookctl hosts' (named by its host name up to the
        first dot, with the same --ssh-option), so 'status --hosts' shows its agents.
        Hosts are done in parallel; the exit status is 0 when every host succeeded, 69 otherwise.
        """,
        options: [Options.notifyURL, Options.notifyURLFile, Options.agents, Options.sshOption, Options.jobs,
                  Options.uninstall, Options.addHost, Options.json],
        positionals: [("HOST", "An ssh destination: a host, user@host or an alias from your ssh config.")],
        maximumPositionals: Int.max)

    package struct Options: CommandOptions {
        package static let notifyURL = Option<String>("notify-url", "URL", help: "The phone's push relay URL, set up on every host.")
        package static let notifyURLFile = Option<String>("notify-url-file", "FILE", help: "Read the URL from FILE, or standard input for '-'.")
        package static let agents = Option<String>("agents", "LIST", repeatable: true, completes: .agents, help: "Only these agents (comma-separated), on every host.")
        package static let sshOption = Option<String>("ssh-option", "OPT", repeatable: true, help: "Passed to ssh as -o OPT (e.g. Port=2222, IdentityFile=~/.ssh/k).")
        package static let jobs = Option.int("jobs", "N", help: "Hosts done at once (default 8).")
        package static let uninstall = Flag("uninstall", help: "Run 'hookctl uninstall' on each host and remove hookctl from ~/.local.")
        package static let addHost = Flag("add-host", help: "Add each host that succeeded to 'hookctl hosts' (the board across hosts).")
        package static let json = Flag("json", help: "Print the results as JSON.")

        package var hosts: [String]
        package var notifyURL: NotifyURLSource
        package var agents: [String]?
        package var sshOptions: [String]
        package var jobs: Int
        package var uninstall: Bool
        package var addHost: Bool
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.path) }
            hosts = arguments.positionals
            if hosts.isEmpty { throw fail("name at least one host") }
            for host in hosts where host.hasPrefix("-") || host.isEmpty || host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) {
                throw fail("'\(RemoteReport.clean(host))' is not a host name ssh can take")
            }
            if Set(hosts).count != hosts.count { throw fail("a host is named twice") }
            notifyURL = try NotifyURLSource(arguments, url: Self.notifyURL, file: Self.notifyURLFile, command: spec.path)
            uninstall = arguments.flag(Self.uninstall)
            if notifyURL.given, uninstall { throw fail("--uninstall takes no notify URL") }
            agents = arguments.list(Self.agents)
            for agent in agents ?? [] where !agent.unicodeScalars.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "-" || $0 == "_" }) {
                throw fail("'\(RemoteReport.clean(agent))' is not an agent name")
            }
            sshOptions = try arguments.all(Self.sshOption)
            for option in sshOptions where option.isEmpty || option.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
                throw fail("--ssh-option takes one ssh option such as Port=2222")
            }
            jobs = try arguments.value(Self.jobs) ?? 8
            guard (1...64).contains(jobs) else { throw fail("--jobs expects a number from 1 to 64") }
            json = arguments.flag(Self.json)
            addHost = arguments.flag(Self.addHost)
            if addHost, uninstall { throw fail("--add-host goes with a deploy, not --uninstall") }
            if addHost {
                for host in hosts { try HostsSupport.check(SSHRunner.Host(name: hostName(host), destination: host, options: sshOptions), command: spec.path) }
            }
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let hosts = options.hosts
        let url = try options.notifyURL.read(context: context)
        let ssh = try SSHRunner.locate(environment: context.environment)

        var plan = Deployer.Options(hosts: hosts, notifyURL: url, agents: options.agents)
        plan.sshOptions = options.sshOptions
        plan.jobs = options.jobs
        plan.uninstall = options.uninstall
        let resources = Resources(environment: context.environment, paths: context.paths())
        let bundle = plan.uninstall ? nil : try DeployBundle(resources: resources)
        if !options.json {
            if let warning = url?.warning { context.warn(warning) }
            let what = plan.uninstall ? "removing hookctl from" : "deploying hookctl \(Product.version) to"
            context.note("\(what) \(hosts.count) host\(hosts.count == 1 ? "" : "s") over ssh…")
        }
        let results = Deployer(options: plan, ssh: ssh, environment: context.environment, bundle: bundle,
                               version: Product.version).run()

        if options.addHost {
            let known = try HostsSupport.hosts(context: context)
            for result in results where result.outcome != .failed {
                let host = SSHRunner.Host(name: hostName(result.host), destination: result.host, options: options.sshOptions)
                if known.contains(where: { $0.name == host.name && $0.destination == host.destination }) { continue }
                do {
                    try HostsSupport.add(host, context: context)
                    if !options.json { context.note("added host \(host.name) (\(host.destination)) for 'hookctl status --hosts'") }
                } catch {
                    context.warn("\(host.name) was not added to the hosts: \(error)")
                }
            }
        }
        if options.json {
            var object = JSONObject()
            object["version"] = .string(Product.version)
            object["hosts"] = .array(results.map(\.json))
            object["ok"] = .bool(results.allSatisfy { $0.outcome != .failed })
            context.printJSON(.object(object), pretty: true)
        } else {
            print(results, context: context)
        }
        return results.allSatisfy({ $0.outcome != .failed }) ? .ok : .unavailable
    }

    /// The label `--add-host` gives a destination: its host name up to the first dot (`u@box2.lan` is `box2`).
    package static func hostName(_ destination: String) -> String {
        let host = destination.split(separator: "@").last.map(String.init) ?? destination
        let label = host.split(separator: ".").first.map(String.init) ?? host
        return label.allSatisfy({ $0.isNumber }) ? host.replacing(".", with: "-") : label
    }

    /// One row per host (host, result, version before → after, agents), and under a failed host
    /// what went wrong and the fix.
    package static func print(_ results: [DeployResult], context: CommandContext) {
        let hostWidth = min(max(results.map { $0.host.count }.max() ?? 4, 4), 30)
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }
        context.print(pad("HOST", hostWidth + 2) + pad("RESULT", 15) + pad("VERSION", 18) + "AGENTS")
        for result in results {
            let before = result.versionBefore ?? "-"
            let after = result.versionAfter ?? (result.outcome == .uninstalled ? "-" : before)
            let version = result.outcome == .failed ? before : (before == after ? after : "\(before) → \(after)")
            let agents = result.agents.isEmpty ? "-" : result.agents.joined(separator: ",")
            context.print(pad(result.host, hostWidth + 2) + pad(result.outcome.rawValue.replacing("_", with: " "), 15)
                + pad(version, 18) + (result.outcome == .failed ? "" : agents))
            if result.outcome == .failed {
                context.print("  why: " + (result.reason ?? "unknown"))
                if let fix = result.fix { context.print("  fix: " + fix) }
            }
        }
        let failed = results.filter { $0.outcome == .failed }.count
        context.print("")
        context.print("\(results.count - failed) of \(results.count) host\(results.count == 1 ? "" : "s") done" + (failed > 0 ? ", \(failed) failed." : "."))
    }
}
