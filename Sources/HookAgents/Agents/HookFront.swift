import CHookFront

/// The hook front: `hookctl-front`, a small static C program (Sources/CHookFront) that hookctl carries and
/// setup writes beside the hook script, whose `#!` line names it. The agent's hook command starts the
/// front; it hands the hook to a warm hookctl (`HookServer`) over a socket in the same 0700 folder, or
/// execs hookctl as before when none answers. So the agent waits for a C program and one fork, not for a
/// Swift process to start.
package enum HookFront {
    package static let fileName = "hookctl-front"
    /// The link beside the front to the hookctl setup ran with: the front runs it, and a worker checks a
    /// front's hookctl through it (`HK_FRONT_LINK`).
    package static let linkName = HK_FRONT_LINK

    /// The program's bytes, as this hookctl was built with them.
    package static var program: [UInt8] { Base64.decode(BuiltinResources.hookFront) ?? [] }

    /// The front's path beside the hook script.
    package static func path(layout: HookLayout) -> String {
        FileSystem.parentDirectory(of: layout.scriptPath) + "/" + fileName
    }

    /// The link to hookctl beside the front.
    package static func linkPath(layout: HookLayout) -> String {
        FileSystem.parentDirectory(of: layout.scriptPath) + "/" + linkName
    }

    /// The files setup's front leaves in the script's folder (the program, the link, the warm server's
    /// socket and lock).
    package static func files(layout: HookLayout) -> [String] {
        let folder = FileSystem.parentDirectory(of: layout.scriptPath)
        return [path(layout: layout), linkPath(layout: layout), HookServer.socketPath(folder: folder), HookServer.lockPath(folder: folder)]
    }

    /// The throwaway HOMEs of warm-ups (`.warm-XXXXXX`) a killed server left in the folder.
    package static func removeWarmUps(folder: String) {
        for name in (try? FileSystem.list(folder)) ?? [] where name.hasPrefix(".warm-") {
            FileSystem.removeTree(folder + "/" + name)
        }
    }

    /// Whether the front at `path` is this hookctl's.
    package static func isCurrent(_ path: String) -> Bool {
        guard let bytes = (try? FileSystem.read(path, limit: 16 << 20)) ?? nil else { return false }
        return bytes == program && FileSystem.isExecutable(path)
    }

    /// Writes the front beside the script (atomically, 0755) unless it is already this hookctl's, and
    /// points the link beside it at `hookctl` (a new link renamed over the old one).
    package static func install(layout: HookLayout, hookctl: String) throws {
        let target = path(layout: layout)
        let bytes = program
        if !isCurrent(target), !bytes.isEmpty {
            try FileSystem.writeAtomically(target, bytes: bytes, mode: 0o755, followSymlinks: false)
        }
        let link = linkPath(layout: layout)
        if FileSystem.linkTarget(link) == hookctl { return }
        let temporary = "\(link).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard symlink(hookctl, temporary) == 0 else { throw SystemError.io(path: link, operation: .create, errno: errno) }
        guard rename(temporary, link) == 0 else {
            let code = errno
            unlink(temporary)
            throw SystemError.io(path: link, operation: .create, errno: code)
        }
    }

    /// Whether hooks may start a warm server (`HOOKCTL_HOOK_SERVER=off` says no, and so does
    /// `HOOKCTL_NO_BACKGROUND=1`, which keeps every process within the hook: each hook then runs hookctl as
    /// its own process, as before the front).
    package static func serverAllowed(environment: [String: String]) -> Bool {
        !["0", "off", "false", "no"].contains((environment["HOOKCTL_HOOK_SERVER"] ?? "").lowercased())
            && environment["HOOKCTL_NO_BACKGROUND"] != "1"
    }

    /// Up to `count` bytes from the start of a file (none when it cannot be read).
    private static func firstBytes(_ path: String, count: Int) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = read(fd, &buffer, count)
        return got > 0 ? Array(buffer.prefix(got)) : []
    }

    /// Starts the warm server for the script's folder, detached, when the front is there and no server
    /// answers. Called by a hook after its own work, so the event is never behind it.
    package static func startServerIfNeeded(script: String, environment: [String: String]) {
        guard serverAllowed(environment: environment) else { return }
        let folder = FileSystem.parentDirectory(of: script)
        // Only for a script whose #! line names the front (a long path keeps hookctl on that line).
        let line = "#!" + folder + "/" + fileName + " "
        guard firstBytes(script, count: 128).starts(with: Array(line.utf8)),
              access(folder + "/" + fileName, X_OK) == 0,
              HookServer.socketAddress(HookServer.socketPath(folder: folder)) != nil,
              !HookServer.isRunning(folder: folder) else { return }
        // LD_BIND_NOW: every symbol bound once in the server, none lazily in each worker. (Workers take the
        // front's environment, so nothing they start sees it.)
        var serverEnvironment = environment
        serverEnvironment["LD_BIND_NOW"] = "1"
        try? Subprocess.spawnDetached(executable: currentExecutablePath(), arguments: [HookServer.marker, folder], environment: serverEnvironment)
    }
}
