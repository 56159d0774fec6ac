/// `hookctl dismiss`: takes agents off the board that no hook will ever end (an agent killed with its
/// tmux server still up, a session on another machine's socket): they end with reason `dismissed`.
package enum DismissCommand: Command {
    package static let path = ["dismiss"]
    package static let spec = CommandSpec(path: path, summary: "Take an agent off the board (it ends, reason 'dismissed').",
        usage: "TARGET... [--json]",
        discussion: """
        TARGET is an agent on the board, as for 'peek': its key, session id or tmux target. The session
        is marked ended (end_reason 'dismissed') in the board, so 'status', the tmux segment and
        '--next' no longer count it; its events stay in the log. A later event of the same agent session
        puts it back on the board. Nothing is sent to the agent or its pane.
        """,
        options: [Options.json],
        positionals: [("TARGET", "An agent key, session id, or tmux target; several may be given.")],
        maximumPositionals: Int.max)

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print the dismissed keys as JSON.")

        package var targets: [String]
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            targets = arguments.positionals
            json = arguments.flag(Self.json)
            guard !targets.isEmpty else {
                throw UsageError(message: "name the agent to dismiss (TARGET): 'hookctl status' lists them", command: spec.path)
            }
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let log = EventLog(paths: context.paths())
        var keys: [String] = [], ended: [String] = []
        var local: [String] = []
        for target in options.targets {
            guard let remote = try RemoteTarget.route(target, context: context) else { local.append(target); continue }
            // Dismissed there, by that host's hookctl; its keys come back qualified by the host.
            let result = try remote.run("dismiss", ["--json"])
            guard result.status.succeeded else { return try remote.relay(result, json: false, context: context) }
            let json: JSONValue
            do { json = try RemoteHookctl.json(result.standardOutput) } catch { throw RemoteError.host(name: remote.host.name, reason: error.reason, fix: nil) }
            let qualify = { (key: JSONValue) in key.stringValue.map { remote.host.name + ":" + $0 } }
            let done = (json["dismissed"]?.arrayValue ?? []).compactMap(qualify)
            keys += done + (json["already_ended"]?.arrayValue ?? []).compactMap(qualify)
            ended += done
        }
        let localKeys = try local.map { try AgentTarget.resolve($0, next: false, log: log, warn: context.warn).key }
        keys += localKeys
        ended += try log.dismiss(keys: localKeys, at: WallClock.nowEpoch())
        if options.json {
            context.printJSON(.object(JSONObject([("dismissed", .array(ended.map(JSONValue.string))),
                                                  ("already_ended", .array(keys.filter { !ended.contains($0) }.map(JSONValue.string)))])))
        } else {
            for key in keys {
                context.print(AnswerText.forTerminal(key) + (ended.contains(key) ? ": dismissed" : ": already ended"))
            }
        }
        return .ok
    }
}
