/// Test-only fault injection for the crash tests: with `HOOKCTL_FAULT=<step>` in the environment the
/// process kills itself (SIGKILL, like an agent's hook timeout) when it reaches that step, so every
/// step of the notify pipeline can be interrupted deterministically. `HOOKCTL_FAULT=short-write`
/// makes appends write half their bytes and fail, like a full disk. Unset, each check is one compare.
enum FaultPoint {
    static let armed: String? = getenv("HOOKCTL_FAULT").map { String(cString: $0) }

    /// Dies here when this step is the armed one.
    static func reach(_ step: String) {
        guard let armed, armed == step else { return }
        kill(getpid(), SIGKILL)
    }

    /// With `short-write` armed: writes half of `bytes` to `fd` and reports a failure (errno ENOSPC).
    static func shortWrite(fd: Int32, bytes: [UInt8]) -> Bool {
        guard armed == "short-write" else { return false }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count / 2) }
        errno = ENOSPC
        return true
    }
}
