/// What the retired hook front (issue 42) left beside the hook script: `hookctl-front` (the small C
/// program the script's `#!` line named), its `hookctl` link, the warm hook server's socket and lock, and
/// the throwaway HOMEs (`.warm-*`) of its warm-ups. Each hook is one hookctl process again; an old script
/// keeps working until setup rewrites it (the old front falls back to running its link as
/// `hookctl "hook-script GATE" SCRIPT ARGS…`, which `HookScript` still reads), and an old server still
/// running stops when its socket file goes. Setup and uninstall remove these files; doctor reports them.
package enum LegacyHookFront {
    package static let programName = "hookctl-front"
    package static let linkName = "hookctl"
    package static let socketName = "hookctl-hook.sock"
    package static let lockName = "hookctl-hook.lock"
    package static let warmUpPrefix = ".warm-"

    /// The names of the front's files present in `folder` (the hook script's), the socket first; none
    /// unless the front itself, its socket or its lock is there. The link counts only as a symbolic link
    /// beside them (a hookctl binary or link put there by hand, alone, is the user's).
    package static func leftovers(folder: String) -> [String] {
        var found: [String] = []
        for name in [socketName, programName, linkName, lockName] {
            guard let info = FileSystem.status(folder + "/" + name, followSymlinks: false) else { continue }
            if name == linkName, info.st_mode & S_IFMT != S_IFLNK { continue }
            found.append(name)
        }
        guard found.contains(where: { $0 != linkName }) else { return [] }
        return found + ((try? FileSystem.list(folder)) ?? []).filter { $0.hasPrefix(warmUpPrefix) }
    }

    /// Removes them (the socket first, so an old warm server still running stops).
    package static func removeLeftovers(folder: String) {
        for name in leftovers(folder: folder) { FileSystem.removeTree(folder + "/" + name) }
    }
}
