/// What `deploy` puts on a host: the running hookctl binary and its data (the agent manifests and
/// the templates), each file with its place under the prefix (`bin/hookctl`,
/// `share/hookctl/hooks/claude.json`), its mode and its SHA-256, as `install.sh` lays them out.
package struct DeployBundle: Sendable {
    package struct File: Sendable {
        package var path: String
        package var mode: String
        package var bytes: [UInt8]
        package var digest: String
    }

    package var files: [File]
    package var requirements: ELFRequirements

    /// The shared libraries every host needs: the binary's own links, and libcurl (loaded with dlopen
    /// on first use, see CCurl), each with the Debian/Ubuntu packages that provide it, newest name
    /// first. cmark-gfm is linked in (Package.swift), so no host needs it.
    package var libraries: [(soname: String, packages: [String])] {
        let known: [String: [String]] = [
            "libyaml-0.so.2": ["libyaml-0-2"], "libstdc++.so.6": ["libstdc++6"], "libgcc_s.so.1": ["libgcc-s1"],
            "libcurl.so.4": ["libcurl4t64", "libcurl4"],
        ]
        let loaded = ["libcurl.so.4"]
        let linked = requirements.neededLibraries.filter { !$0.hasPrefix("libc.so") && !$0.hasPrefix("libm.so") && !$0.hasPrefix("ld-linux") }
        return (linked + loaded).map { ($0, known[$0] ?? []) }
    }

    /// The tag `ldconfig -p` gives libraries of the binary's machine.
    package var ldconfigTag: String {
        switch requirements.machine {
        case "x86_64": return "libc6,x86-64"
        case "aarch64": return "libc6,AArch64"
        default: return "libc6"
        }
    }

    /// A bundle of given files (`path`, `mode`, bytes) for a binary with the given requirements.
    package init(files: [(String, String, [UInt8])], requirements: ELFRequirements) {
        self.requirements = requirements
        self.files = files.map { File(path: $0.0, mode: $0.1, bytes: $0.2, digest: SHA256.hex($0.2) ?? "") }
    }

    /// Reads the running binary and the data it uses (its share folder, else the built-in copies).
    package init(resources: Resources) throws {
        guard let binary = try FileSystem.read(resources.executable, limit: 512 << 20) else {
            throw DeployError.bundle("cannot read the running binary \(resources.executable)")
        }
        guard let requirements = ELFRequirements(bytes: binary) else {
            throw DeployError.bundle("\(resources.executable) is not a 64-bit ELF binary")
        }
        if let runtime = requirements.neededLibraries.first(where: { $0.hasPrefix("libswift") || $0.hasPrefix("libFoundation") }) {
            throw DeployError.bundle("\(resources.executable) needs the Swift runtime (\(runtime)), which other hosts do not have: "
                + "deploy from a release build (./install.sh, or the package) instead of a debug build")
        }
        self.requirements = requirements
        var files: [(String, String, [UInt8])] = [("bin/hookctl", "755", binary)]
        var data: [String: [UInt8]] = [:]
        for (name, text) in BuiltinResources.manifests { data["hooks/" + name] = Array(text.utf8) }
        for (name, text) in BuiltinResources.templates { data["templates/" + name] = Array(text.utf8) }
        // The installed share folder wins over the built-in copies, as it does for setup.
        if let share = resources.shareDirectories.first(where: { FileSystem.isDirectory($0 + "/hooks") }) {
            for name in try FileSystem.list(share + "/hooks") where name.hasSuffix(".json") || name == "README.md" {
                if let bytes = try FileSystem.read(share + "/hooks/" + name) { data["hooks/" + name] = bytes }
            }
            for name in BuiltinResources.templates.keys {
                if let bytes = try FileSystem.read(share + "/templates/" + name) { data["templates/" + name] = bytes }
            }
        }
        for (name, bytes) in data.sorted(by: { $0.key < $1.key }) { files.append(("share/hookctl/" + name, "644", bytes)) }
        self.files = try files.map { path, mode, bytes in
            guard let digest = SHA256.hex(bytes) else { throw DeployError.bundle("libcrypto.so.3 (OpenSSL 3) is needed to compare files with the hosts") }
            return File(path: path, mode: mode, bytes: bytes, digest: digest)
        }
    }

    /// The files as the apply script reads them: per file a `MODE SIZE PATH` line, then its bytes.
    package var encoded: [UInt8] {
        var output: [UInt8] = []
        for file in files {
            output += Array("\(file.mode) \(file.bytes.count) \(file.path)\n".utf8)
            output += file.bytes
        }
        return output
    }

    /// True when a host's `path → SHA-256` list is exactly this bundle.
    package func matches(_ digests: [String: String]) -> Bool {
        digests.count == files.count && files.allSatisfy { digests[$0.path] == $0.digest }
    }
}
