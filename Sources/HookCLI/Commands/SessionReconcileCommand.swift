/// `hookctl session reconcile`: pairs the phone's local session records (JSON on stdin) with the server's sessions.
package enum SessionReconcileCommand: Command {
    package static let path = ["session", "reconcile"]
    package static let spec = CommandSpec(
        path: path,
        summary: "Pair the phone's session records (JSON on stdin) with the server's sessions.",
        usage: "[--prefix P] [-L NAME | -S PATH] [--json] < records.json",
        discussion: """
        Standard input: a JSON array of records {"local_id", "name", "session_id", "created", "token"}
        (or {"sessions": [...]}). Rules: exact name first (for records without a name, the name derived
        from the local id); then session id, only with the same creation time and, where recorded, the
        same token; no server session is claimed twice. Prints the bindings, the records that matched
        nothing, and the server sessions nobody claimed (to adopt).
        """,
        options: [Options.prefix] + TmuxServerOptions.descriptors)

    package struct Options: CommandOptions {
        package static let prefix = Option<String>("prefix", "P", help: "Prefix of names derived from local ids (default: sshido).")

        package var prefix: String
        package var server: TmuxServerOptions

        package init(parsing arguments: ParsedArguments) throws {
            prefix = try arguments.value(Self.prefix) ?? SessionIdentity.defaultPrefix
            server = try TmuxServerOptions(arguments)
        }
    }

    /// The most standard input read; the phone's records are a few kilobytes.
    package static let inputLimit = 4 << 20

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let input = try readInput(fd: context.standardInput, limit: inputLimit, timeout: options.server.timeout)
        let records = try Reconciler.parseRecords(input)
        let client = try options.server.client(context: context)
        let listing = try client.listSessions()
        let result = Reconciler.reconcile(locals: records, remotes: listing.sessions,
                                          prefix: options.prefix)
        if options.server.json {
            var object = JSONObject([("socket", .string(listing.socketPath ?? client.socket.path))])
            if case .object(let body) = result.json { for entry in body.entries { object[entry.key] = entry.value } }
            context.printJSON(.object(object))
            return .ok
        }
        for binding in result.bindings {
            context.print("bound      \(binding.localID) -> \(binding.session.id) \(SessionListCommand.visible(binding.session.name)) (by \(binding.matchedBy.rawValue))")
        }
        for local in result.unmatchedLocals { context.print("gone       \(local)") }
        for remote in result.unmatchedRemotes {
            context.print("unclaimed  \(remote.id) \(SessionListCommand.visible(remote.name))")
        }
        return .ok
    }

    /// Reads standard input to its end, within a size cap and a time limit (some hosts never close it).
    package static func readInput(fd: Int32, limit: Int, timeout: Double) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.Instant.after(seconds: timeout)
        let input = FileDescriptor(rawValue: fd)
        while true {
            let read = try onFile("standard input") { try input.read(into: &buffer, until: deadline) }
            guard let count = read else { throw TmuxError.invalidRecords("standard input was not closed within \(formatSeconds(timeout))") }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > limit { throw TmuxError.invalidRecords("more than \(limit >> 20) MiB on standard input") }
        }
    }
}
