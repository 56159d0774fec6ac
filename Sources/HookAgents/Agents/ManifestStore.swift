/// Finds the data setup works from (agent manifests in `hooks/`, files in `templates/`): the share
/// folder installed next to the binary, the source tree when running from a build directory, the
/// user's own manifests in the config directory, and the copies built into the binary as a fallback.
package struct Resources: Sendable {
    package var environment: [String: String]
    package var paths: Paths
    /// The running binary, symlinks resolved.
    package var executable: String = Resources.currentExecutable()
    /// Set by a run that asks for one agent's manifests more than once (a hook): the first answer per
    /// agent is kept for the rest of the run, so the files are read once.
    package var memo: ManifestMemo?

    package static func currentExecutable() -> String {
        let path = FileSystem.resolveSymlinks("/proc/self/exe")
        return path == "/proc/self/exe" ? currentExecutablePath() : path
    }

    /// Folders holding `hooks/` and `templates/`, most preferred first: `HOOKCTL_SHARE_DIR`,
    /// `<bin>/../share/hookctl`, then the source tree the binary was built in.
    package var shareDirectories: [String] {
        var result: [String] = []
        if let explicit = environment["HOOKCTL_SHARE_DIR"], explicit.hasPrefix("/") { result.append(explicit) }
        let binDirectory = FileSystem.parentDirectory(of: executable)
        result.append(FileSystem.parentDirectory(of: binDirectory) + "/share/hookctl")
        // A build tree: .build/<triple>/debug/hookctl → the package root holds Package.swift and hooks/.
        var directory = binDirectory
        for _ in 0..<5 {
            directory = FileSystem.parentDirectory(of: directory)
            if FileSystem.exists(directory + "/Package.swift"), FileSystem.isDirectory(directory + "/hooks") {
                result.append(directory)
                break
            }
            if directory == "/" { break }
        }
        return result.filter { FileSystem.isDirectory($0) }
    }

    /// Where users drop their own manifests.
    package var userManifestDirectory: String { paths.configDirectory + "/agents" }

    /// A file of `templates/`, from the first share directory that has it, else the built-in copy.
    package func template(_ name: String) throws -> String {
        for directory in shareDirectories {
            if let text = try FileSystem.readString(directory + "/templates/" + name) { return text }
        }
        guard let text = BuiltinResources.templates[name] else {
            throw SetupError.missingResource("templates/\(name)")
        }
        return text
    }

    /// One message from `templates/messages.json`, or `fallback`.
    package func message(_ key: String, fallback: String) -> String {
        guard let text = try? template("messages.json"), let messages = try? JSON.parse(text) else { return fallback }
        return messages[key]?.stringValue ?? fallback
    }

    /// Whether a manifest's text can be the one of `agent`: it has `"agent": "<agent>"` (any spacing
    /// around the colon). A byte scan that spares parsing the other manifests; the parsed `agent` decides.
    /// (A name written with JSON escapes is not found: manifests spell agent names plainly.)
    package static func mayDescribe(_ text: String, agent: String) -> Bool {
        var text = text
        let key = Array("\"agent\"".utf8)
        let value = Array("\"\(agent)\"".utf8)
        return text.withUTF8 { bytes in
            var index = 0
            while index + key.count <= bytes.count {
                guard bytes[index] == key[0], bytes[index..<(index + key.count)].elementsEqual(key) else {
                    index += 1
                    continue
                }
                var after = index + key.count
                func skipSpace() { while after < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[after]) { after += 1 } }
                skipSpace()
                if after < bytes.count, bytes[after] == UInt8(ascii: ":") {
                    after += 1
                    skipSpace()
                    if after + value.count <= bytes.count, bytes[after..<(after + value.count)].elementsEqual(value) { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// Every agent manifest, by agent name, later sources overriding earlier ones:
    /// built-in, then share/source folders (least preferred first), then the user's own.
    /// `only`: read just the manifests that can describe this agent (their text says `"agent": "NAME"`), for
    /// commands that need one agent's facts on a fast path.
    ///
    /// With `only`, a share folder's manifest is read by its file name, `<agent>.json` (how `hooks/` names
    /// every manifest: `AgentFormatTests` holds it), and that folder is searched file by file only when it
    /// has no such file describing the agent; the user's folder is always searched (its files are named
    /// freely).
    package func manifests(only agent: String? = nil) throws -> [AgentManifest] {
        if let agent, let memo, let known = memo.manifests(agent) { return known }
        let found = try readManifests(only: agent)
        if let agent, let memo { memo.keep(found, for: agent) }
        return found
    }

    private func readManifests(only agent: String?) throws -> [AgentManifest] {
        func wanted(_ text: String) -> Bool { agent.map { Self.mayDescribe(text, agent: $0) } ?? true }
        var byName: [String: AgentManifest] = [:]
        var order: [String] = []
        func add(_ manifest: AgentManifest) {
            if byName[manifest.agent] == nil { order.append(manifest.agent) }
            byName[manifest.agent] = manifest
        }
        // (text, its manifest): compared by equality, not hashed (hashing a manifest's text cost a hook 70 k
        // instructions a lookup; equal texts compare by memcmp and the list holds one or ten).
        var parsedTexts: [(text: String, manifest: AgentManifest)] = []
        // The built-in copies are keyed by their file names too: one agent's is `<agent>.json`.
        let builtIn: [(String, String)]
        if let agent, let text = BuiltinResources.manifests[agent + ".json"], wanted(text) {
            builtIn = [(agent + ".json", text)]
        } else {
            builtIn = BuiltinResources.manifests.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) }
        }
        for (name, text) in builtIn where wanted(text) {
            let manifest = try AgentManifest(json: try JSON.parse(text), source: "built-in \(name)")
            parsedTexts.append((text, manifest))
            add(manifest)
        }
        var directories = shareDirectories.reversed().map { $0 + "/hooks" }
        directories.append(userManifestDirectory)
        for directory in directories {
            // (file name, its text when already read)
            let files: [(String, String?)]
            if let agent, directory != userManifestDirectory,
               let text = try FileSystem.readString(directory + "/" + agent + ".json"), wanted(text) {
                files = [(agent + ".json", text)]
            } else {
                files = try FileSystem.list(directory).map { ($0, nil) }
            }
            for (name, read) in files where name.hasSuffix(".json") {
                let path = directory + "/" + name
                guard let text = try read ?? FileSystem.readString(path), wanted(text) else { continue }
                // An installed copy of a built-in manifest (share/hookctl/hooks) is the same text: parsed once.
                if let known = parsedTexts.first(where: { $0.text == text }) {
                    add(known.manifest)
                    continue
                }
                let json: JSONValue
                do { json = try JSON.parse(text) } catch let error as JSONParseError {
                    throw ManifestError(source: "\(path):\(error.line):\(error.column)", message: error.message)
                }
                add(try AgentManifest(json: json, source: path))
            }
        }
        // Built-in agents first in their usual order, then the others by name.
        let preferred = ["claude", "codex", "gemini"]
        let sorted = order.sorted { a, b in
            let ia = preferred.firstIndex(of: a) ?? preferred.count
            let ib = preferred.firstIndex(of: b) ?? preferred.count
            return ia != ib ? ia < ib : a < b
        }
        return sorted.compactMap { byName[$0] }
    }

    package init(
        environment: [String: String],
        paths: Paths,
        executable: String = Resources.currentExecutable(),
        memo: ManifestMemo? = nil
    ) {
        self.environment = environment
        self.paths = paths
        self.executable = executable
        self.memo = memo
    }
}

/// One run's manifests per agent (`Resources.memo`), for one notify run on one thread: no lock (a
/// `Mutex` field makes the class's layout generic, and setting up its metadata cost every hook 0.11 M
/// instructions, the ones that never read a manifest too).
package final class ManifestMemo: @unchecked Sendable {
    private var found: [String: [AgentManifest]] = [:]

    package init() {}

    package func manifests(_ agent: String) -> [AgentManifest]? { found[agent] }
    package func keep(_ manifests: [AgentManifest], for agent: String) { found[agent] = manifests }
}

extension PushPolicy {
    /// The idle reminders the agent's manifest lists (none when it has no manifest or they cannot be read).
    package static func idleReminders(agent: String, resources: Resources) -> [IdleReminder] {
        ((try? resources.manifests(only: agent)) ?? []).first(where: { $0.agent == agent })?.idleReminders ?? []
    }
}
