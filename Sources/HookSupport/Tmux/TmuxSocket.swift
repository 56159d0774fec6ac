/// Which tmux server a command talks to, chosen exactly as tmux chooses it: `-S PATH`, else
/// `-L NAME` (default `default`) under `${TMUX_TMPDIR:-/tmp}/tmux-UID/`. The caller's `TMUX` is
/// never consulted: the phone's session must not depend on where hookctl happens to run.
package struct TmuxSocket: Sendable, Equatable {
    /// The arguments that select this server (`["-S", path]`, `["-L", name]` or none), passed to
    /// tmux as given so it creates its socket directory itself when it has to.
    package var arguments: [String]
    /// The socket path tmux will use, for reports, errors and lock keys.
    package var path: String

    package init(socketPath: String?, socketName: String?, environment: [String: String], uid: uid_t = getuid()) {
        if let socketPath, !socketPath.isEmpty {
            arguments = ["-S", socketPath]
            path = socketPath
            return
        }
        let label = (socketName?.isEmpty == false) ? socketName! : "default"
        arguments = socketName?.isEmpty == false ? ["-L", label] : []
        let base = (environment["TMUX_TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp") + "/tmux-\(uid)"
        path = TmuxSocket.realDirectory(base) + "/" + label
    }

    /// `path` with symlinks resolved when it exists (to compare two ways of naming one socket).
    package static func realPath(_ path: String) -> String { realDirectory(path) }

    /// tmux resolves the socket directory with realpath(3) when it exists; so do we.
    package static func realDirectory(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
