/// `hookctl session list`: the tmux server's sessions, marking the ones hookctl manages.
public enum SessionListCommand: Command {
    public static let spec = CommandSpec(
        path: ["session", "list"],
        summary: "List the tmux server's sessions, marking the ones hookctl manages.",
        usage: "[-L NAME | -S PATH] [--json]",
        discussion: "A session is managed when it carries hookctl's identity token (@hookctl_token). No server means no sessions.",
        options: SessionCommandOptions.common)

    public static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let client = try SessionCommandOptions.client(arguments, context: context)
        let listing = try client.listSessions()
        let socket = listing.socketPath ?? client.socket.path
        if arguments.flag("json") {
            context.printJSON(.object(JSONObject([
                ("socket", .string(socket)),
                ("sessions", .array(listing.sessions.map(\.json))),
            ])))
            return .ok
        }
        if listing.sessions.isEmpty {
            context.print("No tmux sessions on \(socket).")
            return .ok
        }
        context.standardOutput.write(table(listing.sessions))
        return .ok
    }

    /// A plain-text table; control characters in names are shown escaped so the terminal stays intact.
    static func table(_ sessions: [TmuxSession]) -> String {
        let header = ["ID", "NAME", "CREATED", "WINDOWS", "ATTACHED", "MANAGED"]
        let rows = sessions.map { session in
            [session.id, visible(session.name), String(Clock.iso8601(Double(session.created)).prefix(19)) + "Z",
             String(session.windows), String(session.attachedClients), session.isManaged ? "yes" : "no"]
        }
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ") + "\n"
        }
        return ([header] + rows).map(render).joined()
    }

    static func visible(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count < 2 ? "0" : "") + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
