/// `peek` / `reply` / `jump` / `dismiss` with `HOST:TARGET`: the same command runs on that host
/// (its hookctl makes the same checks there) through the host's control master; text goes on ssh's
/// standard input. What comes back is another host's output: JSON is parsed and written out again,
/// text goes through the terminal filter line by line, and its size is capped.
package struct RemoteTarget {
    package var host: SSHRunner.Host
    /// The target on that host (`%7`, `claude:abc`, …).
    package var target: String
    package var runner: SSHRunner

    /// The host and target `word` names when it is `HOST:TARGET` for a host of the config; nil for a
    /// target on this host (a key such as `claude:abc` stays local unless `claude` names a host).
    package static func route(_ word: String?, context: CommandContext) throws -> RemoteTarget? {
        guard let word, let colon = word.firstIndex(of: ":"), colon != word.startIndex else { return nil }
        let name = String(word[..<colon])
        guard HostRules.nameProblem(name) == nil,
              let hosts = try? HostsSupport.hosts(context: context), let host = hosts.first(where: { $0.name == name }) else { return nil }
        let target = String(word[word.index(after: colon)...])
        if let problem = RemoteHookctl.valueProblem(target) { throw UsageError(message: "the target on \(name): " + problem) }
        return RemoteTarget(host: host, target: target, runner: try HostsSupport.runner(context: context))
    }

    /// `--next` across hosts: the agent waiting longest for input on this host or any host of the
    /// config; nil when it is on this host (or no host is configured). The hosts are asked at once
    /// (through the link when it is up: milliseconds) and the pick is made as soon as every host has
    /// answered, or after `timeout` seconds at most: a host that has not answered by then is named in a
    /// warning and the pick is the longest-waiting agent of the hosts that did (never one from a cache,
    /// never from a host whose answer was refused).
    package static func next(context: CommandContext, timeout: Double = nextTimeout) throws -> RemoteTarget? {
        let hosts = (try? HostsSupport.hosts(context: context)) ?? []
        guard !hosts.isEmpty else { return nil }
        let runner = try HostsSupport.runner(context: context)
        let boards = HostsBoard.ask(hosts, runner: runner, timeout: timeout, warn: context.warn)
        for board in boards where board.state != .ok {
            context.standardError.write("hookctl: warning: --next did not look at \(board.name): \(board.reason ?? "no answer")\n")
        }
        let log = EventLog(paths: context.paths())
        let local = (try? log.board(warn: { _ in }))?.entries.filter { $0.state == .needsInput }.map(\.since).min()
        var best: (since: Double, host: Int, key: String)?
        for (index, board) in boards.enumerated() where board.state == .ok {
            for entry in board.entries where entry.state == .needsInput && (best == nil || entry.since < best!.since) {
                best = (entry.since, index, entry.key)
            }
        }
        guard let best, local.map({ best.since < $0 }) ?? true else { return nil }
        return RemoteTarget(host: hosts[best.host], target: best.key, runner: runner)
    }

    /// How long `--next` waits for the slowest host (a host that answers at all answers in well under a
    /// second over a warm master; `status --hosts` waits 10 s because it shows every host's state).
    package static let nextTimeout = 3.0

    /// Runs `hookctl SUBCOMMAND TARGET REST…` there; `input` on standard input.
    package func run(_ subcommand: String, _ rest: [String] = [], input: [UInt8]? = nil, timeout: Double = 60) throws -> Subprocess.Result {
        let command = try RemoteHookctl.command([subcommand, target] + rest)
        let result = try runner.run(host, command: command, input: input, timeout: timeout)
        switch RemoteHookctl.outcome(result, host: host.destination, limit: runner.answerLimit) {
        case .unreachable(let reason, let fix): throw RemoteError.host(name: host.name, reason: reason, fix: fix)
        case .missing: throw RemoteError.host(name: host.name, reason: "hookctl is not installed there", fix: "hookctl deploy \(host.name)")
        case .tooOld(let said):
            throw RemoteError.host(name: host.name, reason: "its hookctl is too old for this (\(said))", fix: "hookctl deploy \(host.name)")
        case .badAnswer(let reason): throw RemoteError.host(name: host.name, reason: reason, fix: nil)
        case .ok, .failed: return result
        }
    }

    /// Passes another host's run on: its standard error as warnings naming the host, its output
    /// filtered (`json`: parsed and written again), its exit status as this command's.
    package func relay(_ result: Subprocess.Result, json: Bool, context: CommandContext) throws -> ExitCode {
        for line in SSHRunner.lines(result.errorText) where !line.isEmpty {
            context.standardError.write("\(host.name): \(line)\n")
        }
        if json, !result.standardOutput.isEmpty, result.status.succeeded {
            do {
                context.printJSON(try RemoteHookctl.json(result.standardOutput))
            } catch {
                throw RemoteError.host(name: host.name, reason: error.reason, fix: nil)
            }
        } else {
            for line in result.outputText.split(separator: "\n", omittingEmptySubsequences: false).dropLast(result.outputText.hasSuffix("\n") ? 1 : 0) {
                context.standardOutput.write(TerminalText.visible(String(line), keepLineBreaks: false) + "\n")
            }
        }
        if case .exited(let code) = result.status { return ExitCode(rawValue: code) ?? .failure }
        return .failure
    }

    /// `jump HOST:TARGET`: the ssh line that attaches to the agent's exact pane there (`ssh -t … tmux -S
    /// SOCKET attach-session -t %N`), from the remote jump's own checked command.
    package func attachArguments() throws -> [String] {
        let result = try run("jump", ["--json"], timeout: 30)
        guard result.status.succeeded else { throw RemoteError.host(name: host.name, reason: Self.said(result), fix: nil) }
        let json: JSONValue
        do { json = try RemoteHookctl.json(result.standardOutput) } catch { throw RemoteError.host(name: host.name, reason: error.reason, fix: nil) }
        guard let command = json["command"]?.arrayValue?.compactMap(\.stringValue), command.count >= 2,
              FileSystem.fileName(of: command[0]) == "tmux", command.contains("attach-session") else {
            throw RemoteError.host(name: host.name, reason: "its jump gave no tmux attach command", fix: "hookctl deploy \(host.name)")
        }
        let words = ["tmux"] + command.dropFirst()
        for word in words where RemoteHookctl.valueProblem(word) != nil && !word.hasPrefix("-") {
            throw RemoteError.host(name: host.name, reason: "its jump named a pane hookctl does not pass on", fix: nil)
        }
        return [runner.ssh] + runner.arguments(host, command: words.map(RemoteHookctl.quote).joined(separator: " "), terminal: true)
    }

    package static func said(_ result: Subprocess.Result) -> String {
        let line = SSHRunner.lines(result.errorText).last { !$0.isEmpty } ?? "it \(result.status)"
        return line.hasPrefix("hookctl: error: ") ? String(line.dropFirst("hookctl: error: ".count)) : line
    }
}
