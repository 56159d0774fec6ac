/// What names hookctl itself, defined once: its version and the variable that marks the phone's
/// sessions.
package enum Product {
    package static let version = "0.1.0"
    /// The `User-Agent` of every HTTP request.
    package static var userAgent: String { "hookctl/" + version }
    /// The environment variable the phone's sessions carry: hooks only act where it is set (the config's
    /// `defaults.gate` can name another), `session ensure` sets it in the sessions it makes, and tmux
    /// clients hookctl starts do not inherit it.
    package static let gateVariable = "SSHIDO_SESSION"
}
