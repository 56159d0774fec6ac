/// One of hookctl's background processes: the sender (`outbox flush --background`), the answer
/// listener (`outbox listen`), the presence watcher (`present-watch`) and the hosts link (`hosts link`).
/// As postfix's daemons each call one `*_server_main`, each of ours goes through this skeleton for what
/// they share: the single-instance lock (all in one folder, `<state>/daemons/<name>.lock`), the detached
/// start with the same test switches for all, and the log lines of why it started and why it stopped.
/// When to go idle and exit stays the daemon's own loop; it hands the skeleton the reason.
package struct Daemon: Sendable {
    /// The lock's and the default log's name.
    package let name: String
    package let paths: Paths
    /// Where its start and stop are written (one line each, the file kept under 256 KiB).
    package let logFile: String

    /// The lock an older release's daemon of this kind held (`flusher.lock` in the state folder…), nil
    /// for none: after an upgrade, while such a daemon still runs and holds it, no new one starts beside it
    /// (two listeners would each act on an answer); once it is free, the file goes.
    package let olderLockFile: String?

    package init(_ name: String, paths: Paths, logFile: String? = nil, olderLock: String? = nil) {
        self.name = name
        self.paths = paths
        self.logFile = logFile ?? Self.folder(paths) + "/" + name + ".log"
        olderLockFile = olderLock.map { paths.stateDirectory + "/" + $0 }
    }

    /// Whether an older release's daemon of this kind still runs (it holds `olderLockFile`); a free one
    /// is removed.
    private func olderInstanceRuns() -> Bool {
        guard let olderLockFile, FileSystem.exists(olderLockFile) else { return false }
        guard let probe = (try? FileLock(path: olderLockFile, wait: false)) ?? nil else { return true }
        unlink(olderLockFile)
        probe.unlock()
        return false
    }

    /// The one folder every daemon's lock is in.
    package static func folder(_ paths: Paths) -> String { paths.stateDirectory + "/daemons" }

    package var lockFile: String { Self.folder(paths) + "/" + name + ".lock" }

    /// Starts `hookctl arguments` detached, unless background processes are off (`HOOKCTL_NO_BACKGROUND=1`,
    /// or one of `offSwitches` set to 1), the caller is a test runner calling in (an `.xctest` bundle cannot
    /// run a hookctl command), or an instance holds the lock. A fault armed for the caller (`HOOKCTL_FAULT`,
    /// tests) is not passed on. True when it started one.
    @discardableResult
    package func start(arguments: [String], environment: [String: String], offSwitches: [String] = []) -> Bool {
        if (["HOOKCTL_NO_BACKGROUND"] + offSwitches).contains(where: { environment[$0] == "1" }) { return false }
        let executable = currentExecutablePath()
        guard !executable.hasSuffix(".xctest") else { return false }
        do {
            try FileSystem.makeDirectories(Self.folder(paths))
            guard !olderInstanceRuns(), let probe = try FileLock(path: lockFile, wait: false) else { return false }
            probe.unlock()
            try Subprocess.spawnDetached(executable: executable, arguments: arguments,
                                         environment: environment.filter { $0.key != "HOOKCTL_FAULT" })
            return true
        } catch {
            return false
        }
    }

    /// The single-instance lock, held until released (or the process ends); nil while another holds it.
    package func lock() -> FileLock? {
        if olderInstanceRuns() { return nil }
        try? FileSystem.makeDirectories(Self.folder(paths))
        return (try? FileLock(path: lockFile, wait: false)) ?? nil
    }

    /// One line of the daemon's log (the older half moved to `<log>.1` past 256 KiB).
    package func log(_ line: String) {
        if let size = FileSystem.status(logFile, followSymlinks: false)?.st_size, size > 256 << 10 { rename(logFile, logFile + ".1") }
        try? FileSystem.makeDirectories(FileSystem.parentDirectory(of: logFile))
        try? FileSystem.appendLocked(logFile, bytes: Array("\(WallClock.iso8601(WallClock.nowEpoch())) [\(getpid())] \(line)\n".utf8))
    }
}
