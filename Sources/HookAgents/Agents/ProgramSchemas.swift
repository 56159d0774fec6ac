import Glibc

/// Which of a manifest's events the installed agent knows, for events registered only where the agent
/// has them (`events[].requires_schema`): Codex builds each hook event's input schema into its binary
/// under a name such as `stop-failure.command.input` (0.163.0 holds `stop.command.input` and no
/// `stop-failure` one: docs/agents.md), so the binary is searched for the name. Setup and doctor only:
/// the hook path never reads the binary.
package enum ProgramSchemas {
    /// The manifest with the events the installed program does not know left out; unchanged when no
    /// event requires a schema. When the program is not found, or cannot be read, those events are left
    /// out too: registering an event the agent may not know is what the field exists to avoid.
    package static func registrable(_ manifest: AgentManifest, environment: [String: String]) -> AgentManifest {
        let needles = manifest.events.compactMap(\.requiresSchema)
        guard !needles.isEmpty else { return manifest }
        let found = program(manifest, environment: environment).map { contains($0, needles) } ?? []
        var result = manifest
        result.events = manifest.events.filter { event in event.requiresSchema.map(found.contains) ?? true }
        return result
    }

    /// The events of `manifest` left out for the installed program (for doctor), in manifest order.
    package static func leftOut(_ manifest: AgentManifest, environment: [String: String]) -> [String] {
        let kept = Set(registrable(manifest, environment: environment).events.map(\.name))
        return manifest.events.map(\.name).filter { !kept.contains($0) }
    }

    package static func program(_ manifest: AgentManifest, environment: [String: String]) -> String? {
        manifest.detect.lazy.compactMap { AgentManifest.findProgram($0, environment: environment) }.first
    }

    /// The needles found in the file at `path`, read in 1 MiB blocks (a needle may straddle two).
    package static func contains(_ path: String, _ needles: [String]) -> Set<String> {
        let patterns = needles.map { Array($0.utf8) }.filter { !$0.isEmpty }
        guard let longest = patterns.map(\.count).max(),
              let fd = try? FileDescriptor.open(path, O_RDONLY | O_CLOEXEC, operation: .read) else { return [] }
        defer { fd.close() }
        var found: Set<String> = []
        var carry: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while found.count < patterns.count {
            guard let count = try? fd.read(into: &block), count > 0 else { break }
            let window = carry + block[..<count]
            for (index, pattern) in patterns.enumerated() where !found.contains(needles[index]) {
                if indexOf(pattern, in: window) != nil { found.insert(needles[index]) }
            }
            carry = Array(window.suffix(longest - 1))
        }
        return found
    }

    /// The first index of `pattern` in `bytes`: memchr for its first byte, memcmp for the rest (memmem
    /// is a GNU extension Glibc's module does not export).
    package static func indexOf(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let needleBase = needle.baseAddress else { return nil }
                let last = haystack.count - pattern.count
                var offset = 0
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return nil }
                    let at = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + at, needleBase, pattern.count) == 0 { return at }
                    offset = at + 1
                }
                return nil
            }
        }
    }
}
