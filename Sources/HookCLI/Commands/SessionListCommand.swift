/// `hookctl session list`: the tmux server's sessions, marking the ones hookctl manages.
package enum SessionListCommand: Command {
    package static let path = ["session", "list"]
    package static let spec = CommandSpec(
        path: path,
        summary: "List the tmux server's sessions, marking the ones hookctl manages.",
        usage: "[-L NAME | -S PATH] [--timeout SECONDS] [--json] [--width N]",
        discussion: "A session is managed when it carries hookctl's identity token (@hookctl_token). No server means no sessions.",
        options: TmuxServerOptions.descriptors + [Options.width])

    package struct Options: CommandOptions {
        package static let width = Option.width()

        package var server: TmuxServerOptions
        package var width: Int?

        package init(parsing arguments: ParsedArguments) throws {
            server = try TmuxServerOptions(arguments)
            width = try arguments.value(Self.width)
        }
    }

    package static func run(_ options: Options, context: CommandContext) throws -> ExitCode {
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
    package static func visible(_ name: String) -> String { TerminalText.visible(name, keepLineBreaks: false) }
}
