/// The keys `reply --key` may send, by the names tmux's `send-keys` knows them. Nothing else is ever
/// passed to `send-keys` without `-l`: a name outside this list is a usage error, never a key lookup.
package enum ReplyKeys {
    /// Canonical tmux names, in the order help lists them.
    package static let allowed = ["Enter", "Escape", "Tab", "BTab", "Space", "BSpace", "Up", "Down", "Left", "Right",
                                 "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "y", "n", "C-c"]

    package static let aliases: [String: String] = [
        "enter": "Enter", "return": "Enter", "escape": "Escape", "esc": "Escape", "tab": "Tab", "btab": "BTab",
        "s-tab": "BTab", "space": "Space", "bspace": "BSpace", "backspace": "BSpace", "up": "Up", "down": "Down",
        "left": "Left", "right": "Right", "c-c": "C-c", "ctrl-c": "C-c", "^c": "C-c",
    ]

    /// The tmux name for `name` (case-insensitive, a few aliases), or nil when it is not allowed.
    package static func canonical(_ name: String) -> String? {
        if name.count == 1, allowed.contains(name) { return name }
        if name == "Y" || name == "N" { return nil }   // a capital letter is a different key
        return aliases[name.lowercased()]
    }

    /// Keys after which the agent is no longer waiting on the same prompt (the board moves to working).
    package static func submits(_ key: String) -> Bool {
        !["Tab", "BTab", "Space", "BSpace", "Up", "Down", "Left", "Right"].contains(key)
    }
}
