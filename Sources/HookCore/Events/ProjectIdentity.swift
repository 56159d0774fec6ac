/// Which project an agent works in, for titles a phone user can tell apart: the git repository's name
/// and branch when the working directory is inside one, else the directory's own name.
///
/// Read from `.git` directly (a few small files, no `git` process): a `.git` directory, a `.git` file
/// pointing elsewhere (a linked worktree or a submodule), and `HEAD` for the branch.
package struct ProjectIdentity: Sendable, Equatable {
    /// The repository's name (a linked worktree reports its main repository), or the directory's name.
    package var name: String
    /// The checked-out branch, or the first 7 hex digits of a detached HEAD; nil outside git.
    package var branch: String? = nil
    /// Whether `name` came from a git repository.
    package var isRepository: Bool = false

    /// How many parent directories are searched for `.git` (a deep tree must not cost the hook path).
    package static let searchDepth = 40

    /// The identity of `directory` (absolute); nil for an empty path.
    package static func of(directory: String) -> ProjectIdentity? {
        let start = normalized(directory)
        guard start.hasPrefix("/") else {
            let name = FileSystem.fileName(of: start)
            return name.isEmpty ? nil : ProjectIdentity(name: name)
        }
        var current = start
        for _ in 0..<searchDepth {
            if let found = repository(at: current) { return found }
            if current == "/" { break }
            current = FileSystem.parentDirectory(of: current)
        }
        let name = FileSystem.fileName(of: start)
        return name.isEmpty ? nil : ProjectIdentity(name: name)
    }

    /// The repository whose work tree is `directory`, when it holds a `.git` directory or file.
    package static func repository(at directory: String) -> ProjectIdentity? {
        let dotGit = (directory == "/" ? "" : directory) + "/.git"
        // One stat per directory walked: most have no `.git` at all.
        guard let info = FileSystem.status(dotGit) else { return nil }
        if info.st_mode & S_IFMT == S_IFDIR {
            return ProjectIdentity(name: nameOf(directory), branch: branch(gitDirectory: dotGit), isRepository: true)
        }
        // A `.git` file: `gitdir: <path>`, relative to the work tree when not absolute.
        guard let bytes = readSmallFile(dotGit) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("gitdir:") else { return nil }
        var target = Text.trimmed(String(text.dropFirst("gitdir:".count)))
        if let newline = target.firstIndex(of: "\n") { target = String(target[..<newline]) }
        guard !target.isEmpty else { return nil }
        if !target.hasPrefix("/") { target = normalized(directory + "/" + target) }
        let branch = branch(gitDirectory: target)
        // A linked worktree's git directory is `<main>/.git/worktrees/<id>`: its project is the main repository.
        // A submodule's is `<super>/.git/modules/<path>`: its project is the submodule's own directory.
        let parts = target.split(separator: "/").map(String.init)
        if parts.count >= 3, parts[parts.count - 2] == "worktrees", parts[parts.count - 3] == ".git" {
            let main = "/" + parts.dropLast(3).joined(separator: "/")
            return ProjectIdentity(name: nameOf(main), branch: branch, isRepository: true)
        }
        if parts.count >= 3, parts[parts.count - 2] == "worktrees", parts[parts.count - 3].hasSuffix(".git") {
            // A bare repository's worktree: `<name>.git/worktrees/<id>`.
            return ProjectIdentity(name: String(parts[parts.count - 3].dropLast(4)), branch: branch, isRepository: true)
        }
        return ProjectIdentity(name: nameOf(directory), branch: branch, isRepository: true)
    }

    /// The branch `HEAD` names (`ref: refs/heads/x` → `x`), or a detached HEAD's short hash.
    package static func branch(gitDirectory: String) -> String? {
        guard let bytes = readSmallFile(gitDirectory + "/HEAD") else { return nil }
        let head = Text.trimmed(String(decoding: bytes, as: UTF8.self))
        if head.hasPrefix("ref:") {
            let ref = Text.trimmed(String(head.dropFirst(4)))
            let prefix = "refs/heads/"
            let name = ref.hasPrefix(prefix) ? String(ref.dropFirst(prefix.count)) : ref
            return name.isEmpty ? nil : name
        }
        let hex = head.prefix(while: { $0.isHexDigit })
        return hex.count >= 7 ? String(hex.prefix(7)) : nil
    }

    /// A regular file's bytes (at most 4 KiB); nil for anything else. A FIFO named `.git` in the agent's
    /// directory must not hang the hook, so nothing but a regular file is opened.
    package static func readSmallFile(_ path: String) -> [UInt8]? {
        guard let info = FileSystem.status(path), info.st_mode & S_IFMT == S_IFREG, info.st_size <= 4096 else { return nil }
        return (try? FileSystem.read(path, limit: 4096)) ?? nil
    }

    package static func nameOf(_ directory: String) -> String {
        let name = FileSystem.fileName(of: directory)
        return name.isEmpty ? directory : name
    }

    /// `/a/./b/../c/` → `/a/c`, without touching the file system (symbolic links are kept as written).
    package static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        // Cut at "/" bytes, which never occur inside another character's UTF-8 (splitting the String walks its Characters).
        for part in path.utf8.split(separator: UInt8(ascii: "/")).map(Substring.init) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        // Joined by hand: `joined(separator:)` and `+=` of a substring run generic here (their first call costs a hook 0.16 M instructions).
        var output = path.hasPrefix("/") ? "/" : ""
        for (index, part) in parts.enumerated() {
            if index > 0 { output += "/" }
            output += String(part)
        }
        return output
    }

    package init(
        name: String,
        branch: String? = nil,
        isRepository: Bool = false
    ) {
        self.name = name
        self.branch = branch
        self.isRepository = isRepository
    }
}
