/// `hookctl session ensure`: create or reuse the phone's tmux session and print its exact target.
package enum SessionEnsureCommand: Command {
    package static let path = ["session", "ensure"]
    package static let spec = CommandSpec(
        path: path,
        summary: "Create or reuse the phone's tmux session and print its exact target.",
        usage: "[--id UUID | --name NAME] [--prefix P] [--session-id ID --created EPOCH] [--token T] [--attach [--nested]] [-L NAME | -S PATH] [--timeout SECONDS] [--json]",
        discussion: """
        Reuses the stored session if it still exists: by --session-id only when its creation time
        (--created) and identity token (--token, when given) match too, else by exact name. Otherwise
        creates it detached, with the gate variable (SSHIDO_SESSION, or the config's defaults.gate) set
        to 1 in that session's environment only, mouse on, and a
        random identity token in the session option @hookctl_token.
        Prints the exact target ($N), name, session id, creation time, token, socket, tmux path and
        version, and whether it was created now. tmux is found on PATH or in the usual install
        locations (HOOKCTL_TMUX overrides); the caller's TMUX is ignored.

        --attach inside tmux: on the same server it switches this client to the session
        (switch-client); from another server's pane it refuses to nest a client unless --nested.
        """,
        options: [Options.id, Options.name, Options.prefix, Options.sessionID, Options.created, Options.token,
                  Options.attach, Options.nested] + TmuxServerOptions.descriptors)

    package struct Options: CommandOptions {
        package static let id = Option<String>("id", "UUID", help: "The phone's session UUID; the name is <prefix>-<first 8 hex digits>.")
        package static let name = Option<String>("name", "NAME", completes: .sessions, help: "An explicit session name instead of the derived one.")
        package static let prefix = Option<String>("prefix", "P", help: "Prefix of the derived name (default: sshido).")
        package static let sessionID = Option<String>("session-id", "ID", help: "The session id ($N) from an earlier ensure; needs --created.")
        package static let created = Option.int("created", "EPOCH", help: "The creation time (epoch seconds) from an earlier ensure.")
        package static let token = Option<String>("token", "T", help: "The identity token from an earlier ensure.")
        package static let attach = Flag("attach", help: "Then attach to it (switch-client when already inside that tmux server).")
        package static let nested = Flag("nested", help: "With --attach inside another tmux server: nest a client anyway.")

        package var request: EnsureRequest
        package var attach: Bool
        package var nested: Bool
        package var server: TmuxServerOptions

        package init(parsing arguments: ParsedArguments) throws {
            func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.path) }
            let name: String
            let prefix = try arguments.value(Self.prefix)
            switch (try arguments.value(Self.id), try arguments.value(Self.name)) {
            case (.some, .some):
                throw fail("give either --id or --name, not both")
            case (nil, nil):
                throw fail("give --id UUID (the phone's session) or --name NAME")
            case (let uuid?, nil):
                guard let derived = SessionIdentity.derivedName(uuid: uuid, prefix: prefix ?? SessionIdentity.defaultPrefix) else {
                    throw fail("--id expects a UUID such as 9B95BD2A-0C4E-4F6B-8E0A-2D1C3B4A5F60, got '\(uuid)'")
                }
                name = derived
            case (nil, let explicit?):
                if prefix != nil { throw fail("--prefix only applies to names derived from --id") }
                name = explicit
            }
            if name.isEmpty { throw fail("--name must not be empty") }
            let sessionID = try arguments.value(Self.sessionID)
            if let sessionID, !SessionIdentity.isSessionID(sessionID) {
                throw fail("--session-id expects a tmux session id such as $3, got '\(sessionID)'")
            }
            let created = try arguments.value(Self.created)
            if (sessionID == nil) != (created == nil) {
                throw fail("--session-id and --created go together (the id alone may have been recycled)")
            }
            let token = try arguments.value(Self.token).flatMap { $0.isEmpty ? nil : $0 }
            request = EnsureRequest(name: name, sessionID: sessionID, created: created, token: token)
            attach = arguments.flag(Self.attach)
            nested = arguments.flag(Self.nested)
            server = try TmuxServerOptions(arguments)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        // Attaching needs a terminal: say so before anything is created, rather than leave tmux's
        // "open terminal failed" after the fact.
        if options.attach, isatty(context.standardInput) != 1 {
            throw UsageError(message: "--attach needs a terminal on standard input: run it from one (ssh -t), or drop --attach")
        }
        let client = try options.server.client(context: context)
        // Inside tmux: which server this pane belongs to decides between switching and nesting.
        let insideSocket = context.environment["TMUX"].flatMap { $0.split(separator: ",").first.map(String.init) }
        let sameServer = insideSocket.map { TmuxSocket.realPath($0) == TmuxSocket.realPath(client.socket.path) } ?? false
        if options.attach, let insideSocket, !sameServer, !options.nested {
            throw UsageError(message: "this terminal is already inside tmux (\(insideSocket)): attaching would nest a client of "
                             + "another server; detach first, or add --nested")
        }
        var ensurer = SessionEnsurer(client: client, lockDirectory: context.paths().stateDirectory + "/locks")
        // The variable the hooks wait for (`defaults.gate`): the one the session must carry.
        ensurer.gate = Config.gateVariable(configFile: context.paths().configFile)
        let result = try ensurer.ensure(options.request)
        if options.server.json { context.printJSON(result.json) } else { context.print(result.line) }
        guard options.attach else { return .ok }
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
}

/// The tmux server the `session` commands talk to, the time limit of each call, and `--json`.
package struct TmuxServerOptions: Sendable {
    package static let socketName = Option<String>("socket-name", "NAME", short: "L", help: "The tmux server's socket name, as tmux -L.")
    package static let socketPath = Option<String>("socket-path", "PATH", short: "S", help: "The tmux server's socket path, as tmux -S (wins over -L).")
    package static let timeout = Option.seconds("timeout", "SECONDS", help: "Time limit for each tmux call (default 8s).")
    package static let json = Flag("json", help: "Print one JSON document (errors too, as {\"error\": …}).")
    package static let descriptors: [any OptionDescriptor] = [socketName, socketPath, timeout, json]

    package var socketName: String?
    package var socketPath: String?
    package var timeout: Double
    package var json: Bool

    package init(_ arguments: ParsedArguments) throws {
        socketName = try arguments.value(Self.socketName)
        socketPath = try arguments.value(Self.socketPath)
        timeout = try arguments.value(Self.timeout) ?? TmuxClient.defaultTimeout
        json = arguments.flag(Self.json)
    }

    package func client(context: CommandContext) throws -> TmuxClient {
        let executable = try TmuxClient.locate(environment: context.environment)
        let socket = TmuxSocket(socketPath: socketPath, socketName: socketName, environment: context.environment)
        // A custom gate is kept out of a tmux server started here, as SSHIDO_SESSION is (TmuxClient).
        var environment = context.environment
        environment[Config.gateVariable(configFile: context.paths().configFile)] = nil
        return TmuxClient(executable: executable, socket: socket, environment: environment, timeout: timeout)
    }
}
