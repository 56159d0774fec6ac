/// One file setup or uninstall wants to change: its bytes before and after, and how to write it.
package struct FileChange: Sendable {
    package enum Status: String, Sendable { case created, updated, removed, unchanged }

    /// The path as the user knows it (a symlink is written through, not replaced).
    package var path: String
    package var before: String?
    /// nil: the file is removed.
    package var after: String?
    /// Mode for a new file (an existing file keeps its mode).
    package var mode: mode_t = 0o600
    /// Keep `<path>.hookctl-backup` with the previous content before replacing it.
    package var backup: Bool = false
    /// Redact URLs and tokens when showing this file (the config).
    package var secret: Bool = false
    /// On removal, also remove the folder it is in if that leaves it empty (setup created both).
    package var removeEmptyDirectory = false

    package var status: Status {
        if before == after { return .unchanged }
        if after == nil { return .removed }
        return before == nil ? .created : .updated
    }

    package static let backupSuffix = ".hookctl-backup"

    /// Writes the change: atomic replacement through symlinks, a backup of the previous content first.
    package func apply() throws {
        switch status {
        case .unchanged: return
        case .removed:
            // A link's target is what holds the content; the link itself goes too.
            let target = FileSystem.resolveSymlinks(path)
            if backup, let before { try FileSystem.writeAtomically(path + FileChange.backupSuffix, text: before, mode: currentMode(target) ?? 0o600) }
            unlink(target)
            if target != path { unlink(path) }
            if removeEmptyDirectory { rmdir(FileSystem.parentDirectory(of: path)) }
        case .created, .updated:
            let target = FileSystem.resolveSymlinks(path)
            let directory = FileSystem.parentDirectory(of: target)
            if !FileSystem.isDirectory(directory) { try FileSystem.makeDirectories(directory, mode: 0o700) }
            // A file that holds a secret (the config with the notify URL) is always written 0600, and so is its backup.
            if backup, let before {
                try FileSystem.writeAtomically(path + FileChange.backupSuffix, text: before, mode: secret ? 0o600 : currentMode(target) ?? 0o600)
            }
            try FileSystem.writeAtomically(path, text: after ?? "", mode: secret ? 0o600 : before == nil ? mode : nil)
        }
    }

    package func currentMode(_ path: String) -> mode_t? {
        FileSystem.status(path).map { $0.st_mode & 0o7777 }
    }

    /// The unified diff, with secrets redacted for the config.
    package func diff() -> String {
        let text = LineDiff.unified(old: before, new: after, path: path)
        return secret ? FileChange.redactSecrets(text) : text
    }

    /// Replaces the values of `url:`/`token:`/`secret:`-like YAML keys with their redacted forms.
    package static func redactSecrets(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let lower = line.lowercased()
            for key in ["url:", "token:", "secret:", "password:", "webhook:"] {
                guard let range = lower.firstRange(of: key) else { continue }
                let offset = lower.distance(from: lower.startIndex, to: range.upperBound)
                let split = line.index(line.startIndex, offsetBy: offset)
                var value = String(line[split...]).trimmingSpaces()
                if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                    value = String(value.dropFirst().dropLast())
                }
                if value.isEmpty { return String(line) }
                let shown = value.contains("://") ? Text.redactURL(value) : Text.redactSecret(value)
                return String(line[..<split]) + " \"" + shown + "\""
            }
            return String(line)
        }.joined(separator: "\n")
    }
}
