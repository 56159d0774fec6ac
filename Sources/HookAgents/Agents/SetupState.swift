/// What setup remembers so uninstall can put things back exactly: each settings file as it was before
/// hookctl first wrote to it, and the `notify` statement Codex had before. Kept under the state directory.
package struct SetupState {
    package var directory: String

    package init(paths: Paths) { directory = paths.stateDirectory + "/setup" }

    package var lockFile: String { directory + "/setup.lock" }
    package var codexPreviousNotifyFile: String { directory + "/codex-previous-notify.json" }

    package func originalFile(for path: String) -> String {
        directory + "/originals/" + path.replacing("%", with: "%25").replacing("/", with: "%2F")
    }

    /// The record of a file's content before hookctl's first write: `existed` false when it did not exist,
    /// `directoryExisted` false when setup also created the folder it is in (older records: assumed true).
    package func original(for path: String) -> (existed: Bool, content: String?, directoryExisted: Bool)? {
        guard let text = (try? FileSystem.readString(originalFile(for: path))) ?? nil,
              let json = try? JSON.parse(text), let existed = json["existed"]?.boolValue else { return nil }
        return (existed, json["content"]?.stringValue, json["directory_existed"]?.boolValue ?? true)
    }

    package func originalRecord(path: String, content: String?) -> FileChange {
        var object = JSONObject()
        object["path"] = .string(path)
        object["existed"] = .bool(content != nil)
        object["directory_existed"] = .bool(FileSystem.isDirectory(FileSystem.parentDirectory(of: path)))
        if let content { object["content"] = .string(content) }
        let file = originalFile(for: path)
        return FileChange(path: file, before: (try? FileSystem.readString(file)) ?? nil,
                          after: JSON.serialize(.object(object)) + "\n", mode: 0o600)
    }

    package func removal(of file: String) -> FileChange {
        FileChange(path: file, before: (try? FileSystem.readString(file)) ?? nil, after: nil)
    }

    /// The Codex `notify` statement (exact text) and argv the user had before setup.
    package func codexPreviousNotify() -> (statement: String, arguments: [String])? {
        guard let text = (try? FileSystem.readString(codexPreviousNotifyFile)) ?? nil,
              let json = try? JSON.parse(text), let statement = json["statement"]?.stringValue,
              let arguments = json["arguments"]?.arrayValue?.compactMap(\.stringValue) else { return nil }
        return (statement, arguments)
    }

    package func codexPreviousNotifyRecord(statement: String, arguments: [String]) -> FileChange {
        var object = JSONObject()
        object["statement"] = .string(statement)
        object["arguments"] = .array(arguments.map { .string($0) })
        return FileChange(path: codexPreviousNotifyFile, before: (try? FileSystem.readString(codexPreviousNotifyFile)) ?? nil,
                          after: JSON.serialize(.object(object)) + "\n", mode: 0o600)
    }
}
