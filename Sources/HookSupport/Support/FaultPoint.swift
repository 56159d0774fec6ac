/// Test-only fault injection for the crash tests: with `HOOKCTL_FAULT=<step>` in the environment the
/// process kills itself (SIGKILL, like an agent's hook timeout) when it reaches that step, so every
/// step of the notify pipeline can be interrupted deterministically. `HOOKCTL_FAULT=short-write`
/// makes appends write half their bytes and fail, like a full disk. Unset, each check is one compare.
package enum FaultPoint {
    package static let armed: String? = getenv("HOOKCTL_FAULT").map { String(cString: $0) }

    /// Dies here when this step is the armed one.
    package static func reach(_ step: String) {
        guard let armed, armed == step else { return }
        kill(getpid(), SIGKILL)
    }

    /// With `short-write` armed: writes half of `bytes` to `fd` and fails like a full disk (ENOSPC).
    package static func shortWrite(_ fd: FileDescriptor, bytes: [UInt8]) throws(Errno) {
        guard armed == "short-write" else { return }
        try fd.writeAll(Array(bytes.prefix(bytes.count / 2)))
        throw Errno(ENOSPC, .write)
    }
}
