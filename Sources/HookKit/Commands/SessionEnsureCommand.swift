/// `hookctl session ensure`: create or reuse the phone's tmux session and print its exact target.
public enum SessionEnsureCommand: Command {
    public static let spec = CommandSpec(
        path: ["session", "ensure"],
        summary: "Create or reuse the phone's tmux session and print its exact target.",
        usage: "[--id UUID | --name NAME] [--prefix P] [--session-id ID --created EPOCH] [--token T] [--attach [--nested]] [-L NAME | -S PATH] [--timeout SECONDS] [--json]",
        discussion: """
        Reuses the stored session if it still exists: by --session-id only when its creation time
        (--created) and identity token (--token, when given) match too, else by exact name. Otherwise
        creates it detached, with SSHIDO_SESSION=1 in that session's environment only, mouse on, and a
        random identity token in the session option @hookctl_token.
        Prints the exact target ($N), name, session id, creation time, token, socket, tmux path and
        version, and whether it was created now. tmux is found on PATH or in the usual install
        locations (HOOKCTL_TMUX overrides); the caller's TMUX is ignored.

        --attach inside tmux: on the same server it switches this client to the session
        (switch-client); from another server's pane it refuses to nest a client unless --nested.
        """,
        options: [
            .value("id", "UUID", help: "The phone's session UUID; the name is <prefix>-<first 8 hex digits>."),
            .value("name", "NAME", help: "An explicit session name instead of the derived one."),
            .value("prefix", "P", help: "Prefix of the derived name (default: sshido)."),
            .value("session-id", "ID", help: "The session id ($N) from an earlier ensure; needs --created."),
            .value("created", "EPOCH", help: "The creation time (epoch seconds) from an earlier ensure."),
            .value("token", "T", help: "The identity token from an earlier ensure."),
            .flag("attach", help: "Then attach to it (switch-client when already inside that tmux server)."),
            .flag("nested", help: "With --attach inside another tmux server: nest a client anyway."),
        ] + SessionCommandOptions.common)

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let request = try ensureRequest(arguments)
        // Attaching needs a terminal: say so before anything is created, rather than leave tmux's
        // "open terminal failed" after the fact.
        if arguments.flag("attach"), isatty(context.standardInput) != 1 {
            throw UsageError(message: "--attach needs a terminal on standard input: run it from one (ssh -t), or drop --attach")
        }
        let client = try SessionCommandOptions.client(arguments, context: context)
        // Inside tmux: which server this pane belongs to decides between switching and nesting.
        let insideSocket = context.environment["TMUX"].flatMap { $0.split(separator: ",").first.map(String.init) }
        let sameServer = insideSocket.map { TmuxSocket.realPath($0) == TmuxSocket.realPath(client.socket.path) } ?? false
        if arguments.flag("attach"), let insideSocket, !sameServer, !arguments.flag("nested") {
            throw UsageError(message: "this terminal is already inside tmux (\(insideSocket)): attaching would nest a client of "
                             + "another server; detach first, or add --nested")
        }
        let ensurer = SessionEnsurer(client: client, lockDirectory: context.paths(arguments).stateDirectory + "/locks")
        let result = try ensurer.ensure(request)
        if arguments.flag("json") { context.printJSON(result.json) } else { context.print(result.line) }
        guard arguments.flag("attach") else { return .ok }
        if sameServer {
            // The calling pane's own client (tmux finds it from TMUX and TMUX_PANE) moves to the session.
            let outcome = try Subprocess(executable: client.executable,
                                         arguments: ["-S", result.socketPath, "switch-client", "-t", result.target],
                                         environment: context.environment, timeout: client.timeout).run()
            guard outcome.status == 0 else { throw client.failure("switch-client", outcome) }
            return .ok
        }
        var environment = context.environment
        environment["TMUX"] = nil
        environment["TMUX_PANE"] = nil
        throw Subprocess.replaceProcess(executable: client.executable,
                                        arguments: client.attachArguments(target: result.target, socketPath: result.socketPath),
                                        environment: environment)
    }

    static func ensureRequest(_ arguments: ParsedArguments) throws -> EnsureRequest {
        let name: String
        switch (arguments.value("id"), arguments.value("name")) {
        case (.some, .some):
            throw UsageError(message: "give either --id or --name, not both", command: spec.path)
        case (nil, nil):
            throw UsageError(message: "give --id UUID (the phone's session) or --name NAME", command: spec.path)
        case (let uuid?, nil):
            let prefix = arguments.value("prefix") ?? SessionIdentity.defaultPrefix
            guard let derived = SessionIdentity.derivedName(uuid: uuid, prefix: prefix) else {
                throw UsageError(message: "--id expects a UUID such as 9B95BD2A-0C4E-4F6B-8E0A-2D1C3B4A5F60, got '\(uuid)'", command: spec.path)
            }
            name = derived
        case (nil, let explicit?):
            if arguments.value("prefix") != nil {
                throw UsageError(message: "--prefix only applies to names derived from --id", command: spec.path)
            }
            name = explicit
        }
        if name.isEmpty { throw UsageError(message: "--name must not be empty", command: spec.path) }
        let sessionID = arguments.value("session-id")
        if let sessionID, !SessionIdentity.isSessionID(sessionID) {
            throw UsageError(message: "--session-id expects a tmux session id such as $3, got '\(sessionID)'", command: spec.path)
        }
        let created = try arguments.int("created")
        if (sessionID == nil) != (created == nil) {
            throw UsageError(message: "--session-id and --created go together (the id alone may have been recycled)", command: spec.path)
        }
        let token = arguments.value("token").flatMap { $0.isEmpty ? nil : $0 }
        return EnsureRequest(name: name, sessionID: sessionID, created: created, token: token)
    }
}

/// Options and error reporting shared by the `session` commands.
enum SessionCommandOptions {
    static let common: [OptionSpec] = [
        .value("socket-name", "NAME", short: "L", help: "The tmux server's socket name, as tmux -L."),
        .value("socket-path", "PATH", short: "S", help: "The tmux server's socket path, as tmux -S (wins over -L)."),
        .value("timeout", "SECONDS", help: "Time limit for each tmux call (default 8s)."),
        .flag("json", help: "Print one JSON document (errors too, as {\"error\": …})."),
    ]

    static func client(_ arguments: ParsedArguments, context: CommandContext) throws -> TmuxClient {
        let timeout = try arguments.seconds("timeout") ?? TmuxClient.defaultTimeout
        let executable = try TmuxClient.locate(environment: context.environment)
        let socket = TmuxSocket(socketPath: arguments.value("socket-path"), socketName: arguments.value("socket-name"),
                                environment: context.environment)
        return TmuxClient(executable: executable, socket: socket, environment: context.environment, timeout: timeout)
    }

}
