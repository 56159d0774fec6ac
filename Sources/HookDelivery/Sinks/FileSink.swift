/// Appends each event as one JSON line to a file. Appends hold an flock, so concurrent hooks never interleave.
package struct FileSink: Sink, SinkType {
    package static let type = "file"
    package static let keys = SinkKeys.names(of: type)

    package let name: String
    package let settings: SinkSettings
    package let path: String
    package let mode: mode_t

    package var secrets: [String] { [] }

    package static func make(_ config: SinkConfig) throws -> any Sink {
        guard let path = try config.path("path"), !path.isEmpty else { throw config.error(nil, "'path' is required") }
        var mode: mode_t = 0o600
        if let text = try config.string("mode") {
            guard let value = mode_t(text, radix: 8), value <= 0o777 else {
                throw config.error(config.node["mode"], "'mode' must be an octal file mode such as 0600")
            }
            mode = value
        }
        var settings = try SinkSettings(config: config)
        // A log file wants every kind unless told otherwise.
        if !config.has("kinds") { settings.kinds = Set(EventKind.allCases) }
        return FileSink(name: config.name, settings: settings, path: path, mode: mode)
    }

    package func delivery(for event: Event, attempt: Int) throws -> Delivery {
        let line = Array((JSON.serialize(Self.record(event, settings: settings)) + "\n").utf8)
        let path = self.path, mode = self.mode
        return .local { deadline in
            do {
                try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path))
                try FileSystem.appendLocked(path, bytes: line, mode: mode, deadline: deadline)
                return .delivered
            } catch let error as SystemError {
                switch error {
                case .timedOut: return .retry(after: nil, reason: "\(path) stayed locked by another process")
                case .io(_, _, let code) where code == ENOSPC || code == EAGAIN || code == EINTR || code == EDQUOT:
                    return .retry(after: nil, reason: error.description)
                default: return .failed(reason: error.description)
                }
            } catch {
                return .failed(reason: "\(error)")
            }
        }
    }

    /// The event JSON with this sink's title and message applied.
    package static func record(_ event: Event, settings: SinkSettings) -> JSONValue {
        guard case .object(var object) = event.json else { return event.json }
        object["title"] = .string(settings.title(for: event))
        object["message"] = .string(settings.message(for: event))
        return .object(object)
    }

    package func preview(for event: Event) -> String {
        "append to \(path):\n" + JSON.serialize(Self.record(event, settings: settings))
    }
}
