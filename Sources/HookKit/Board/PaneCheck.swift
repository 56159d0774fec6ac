/// Checks the board against tmux: which of the panes the agents ran in still exist. One
/// `tmux list-panes -a` per tmux server (socket) the live sessions used, bounded by a timeout.
public struct PaneCheck: Sendable {
    /// What one tmux server said.
    public enum Answer: Sendable, Equatable {
        /// The server runs and has these panes (`%3`, …).
        case panes(Set<String>)
        /// No server on that socket: every pane it had is gone.
        case serverGone
        /// tmux is missing, hung or refused: nothing can be concluded.
        case unknown
    }

    public var environment: [String: String]
    public var timeout: Double

    public init(environment: [String: String], timeout: Double = 2) {
        self.environment = environment
        self.timeout = timeout
    }

    /// The sessions whose pane no longer exists, among those not yet ended.
    public func goneSessions(in board: BoardState) -> [BoardEntry] {
        let live = board.entries.filter { $0.state != .ended && $0.tmux != nil }
        guard !live.isEmpty else { return [] }
        var answers: [String: Answer] = [:]
        var gone: [BoardEntry] = []
        for entry in live {
            guard let tmux = entry.tmux else { continue }
            let socket = tmux.socket ?? ""
            let answer = answers[socket] ?? ask(socket: tmux.socket)
            answers[socket] = answer
            switch answer {
            case .panes(let panes): if !panes.contains(tmux.pane) { gone.append(entry) }
            case .serverGone: gone.append(entry)
            case .unknown: break
            }
        }
        return gone
    }

    /// Asks the tmux server on `socket` (the default server when nil) for its panes.
    public func ask(socket: String?) -> Answer {
        if let socket, !socket.isEmpty, !FileSystem.exists(socket) { return .serverGone }
        // PATH as the shell would use it; the usual places only when there is no PATH at all.
        let fallback = environment["PATH"] == nil ? ["/usr/bin", "/usr/local/bin", "/bin"] : []
        guard let tmux = Subprocess.findExecutable("tmux", path: environment["PATH"], extraDirectories: fallback) else {
            return .unknown
        }
        var arguments: [String] = []
        if let socket, !socket.isEmpty { arguments += ["-S", socket] }
        arguments += ["list-panes", "-a", "-F", "#{pane_id}"]
        guard let result = try? Subprocess(executable: tmux, arguments: arguments, environment: environment,
                                           timeout: timeout).run() else { return .unknown }
        if result.status == 0 {
            return .panes(Set(result.outputText.split(separator: "\n").map { Text.trimmed(String($0)) }))
        }
        let message = result.errorText
        if message.contains("no server running") || message.contains("No such file or directory")
            || message.contains("Connection refused") {
            return .serverGone
        }
        return .unknown
    }
}
