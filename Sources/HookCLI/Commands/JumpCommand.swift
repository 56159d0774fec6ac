/// `hookctl jump`: go to a board agent's pane. Inside tmux (the same server) the current client is
/// switched to the exact pane by its id; anywhere else the `tmux attach` line for it is printed.
package enum JumpCommand: Command {
    package static let path = ["jump"]
    package static let spec = CommandSpec(path: path, summary: "Go to an agent's tmux pane (inside tmux), or print the line that attaches to it.",
        usage: "TARGET | --next [--json]",
        discussion: """
        TARGET is named as for peek and reply: a board key, a session id, a tmux session or session:window
        (exact names), %pane, or a project's name when one agent works there; --next is the agent waiting
        longest for input. Inside tmux on the agent's server, this terminal's client is switched to the
        agent's pane with 'tmux switch-client -t %N' (the pane id, never a name tmux could prefix-match).
        Elsewhere (an SSH shell, another tmux server) it prints the command that attaches to the pane:
        tmux -S SOCKET attach-session -t %N
        which 'eval "$(hookctl jump api)"' runs. Only panes that still run the recorded agent (exit 69).
        --json prints {"key", "agent": {board entry}, "switched": bool, "command": [argv]}.
        """,
        options: [AnswerTargetOptions.next, Options.json],
        positionals: [("TARGET", "An agent key, session id, tmux target (session, session:window, %pane) or project name.")])

    package struct Options: CommandOptions {
        package static let json = Flag("json", help: "Print one JSON document (for apps).")

        package var target: AnswerTargetOptions
        package var json: Bool

        package init(parsing arguments: ParsedArguments) throws {
            target = try AnswerTargetOptions(arguments, command: spec.path)
            json = arguments.flag(Self.json)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        if let remote = try options.target.remote(context: context) {
            let attach = try remote.attachArguments()
            if options.json {
                context.printJSON(.object(JSONObject([("host", .string(remote.host.name)), ("target", .string(remote.target)),
                                                      ("switched", .bool(false)), ("command", .array(attach.map(JSONValue.string)))])))
                return .ok
            }
            if context.outputIsTerminal, isatty(context.standardInput) != 0 {
                throw Subprocess.replaceProcess(executable: attach[0], arguments: Array(attach.dropFirst()), environment: context.environment)
            }
            context.print(attach.map(shellQuoted).joined(separator: " "))
            return .ok
        }
        let log = EventLog(paths: context.paths())
        let entry = try AgentTarget.resolve(options.target.target, next: options.target.target == nil, log: log, warn: context.warn)
        let access = try PaneAccess.open(entry, environment: context.environment)
        let socket = access.client.socket.path
        let plan = plan(pane: access.pane, socket: socket, environment: context.environment)
        var switched = false
        if plan.switchClient {
            // The calling pane's own client (tmux finds it from TMUX and TMUX_PANE) moves to the pane.
            let outcome = try Subprocess(executable: access.client.executable, arguments: plan.command,
                                         environment: context.environment, timeout: access.client.timeout).run()
            guard outcome.status == 0 else { throw access.client.failure("switch-client", outcome) }
            switched = true
        }
        let attach = [access.client.executable] + plan.command
        if options.json {
            context.printJSON(.object(JSONObject([
                ("key", .string(entry.key)),
                ("agent", BoardView.agentJSON(entry, now: WallClock.nowEpoch(), staleAfter: BoardView.defaultStaleAfter)),
                ("switched", .bool(switched)),
                ("command", .array(attach.map(JSONValue.string))),
            ])))
            return .ok
        }
        if switched {
            let layout = context.layout(width: nil)
            context.print(BoardView.headline(entry, now: WallClock.nowEpoch(), width: layout.width, layout: layout))
            return .ok
        }
        if let other = plan.otherServer {
            context.warn("this terminal is inside another tmux server (\(other)); run the line below outside tmux (detach first)")
        }
        // Meant to be copied or eval'd: one line, never wrapped, every word quoted for the shell.
        context.print(attach.map(shellQuoted).joined(separator: " "))
        return .ok
    }

    /// What to run: `switch-client` when this terminal is a client of the agent's own tmux server, else
    /// the `attach-session` line (and the other server's socket, when inside one).
    package static func plan(pane: String, socket: String, environment: [String: String])
        -> (switchClient: Bool, command: [String], otherServer: String?) {
        let insideSocket = environment["TMUX"].flatMap { $0.split(separator: ",").first.map(String.init) }
        let sameServer = insideSocket.map { TmuxSocket.realPath($0) == TmuxSocket.realPath(socket) } ?? false
        if sameServer { return (true, ["-S", socket, "switch-client", "-t", pane], nil) }
        return (false, ["-S", socket, "attach-session", "-t", pane], insideSocket)
    }
}
