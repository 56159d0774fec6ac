/// `hookctl session list`: the tmux server's sessions, marking the ones hookctl manages.
enum SessionListCommand: Command {
    static let path = ["session", "list"]
    static let spec = CommandSpec(
        path: path,
        summary: "List the tmux server's sessions, marking the ones hookctl manages.",
        usage: "[-L NAME | -S PATH] [--timeout SECONDS] [--json] [--width N]",
        discussion: "A session is managed when it carries hookctl's identity token (@hookctl_token). No server means no sessions.",
        options: TmuxServerOptions.descriptors + [Options.width])

    struct Options: CommandOptions {
        static let width = Option.width()

        var server: TmuxServerOptions
        var width: Int?

        init(parsing arguments: ParsedArguments) throws {
            server = try TmuxServerOptions(arguments)
            width = try arguments.value(Self.width)
        }
    }

    static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
        let client = try options.server.client(context: context)
        let listing = try client.listSessions()
        let socket = listing.socketPath ?? client.socket.path
        if options.server.json {
            context.printJSON(.object(JSONObject([
                ("socket", .string(socket)),
                ("sessions", .array(listing.sessions.map(\.json))),
            ])))
            return .ok
        }
        if listing.sessions.isEmpty {
            context.layout(width: options.width).paragraph("No tmux sessions on \(socket).").forEach(context.print)
            return .ok
        }
        context.print(HumanViews.sessions(listing.sessions, layout: context.layout(width: options.width)))
        return .ok
    }

    /// A session name shown on one line, control characters made visible.
    static func visible(_ name: String) -> String { TerminalText.visible(name, keepLineBreaks: false) }
}
