/// The per-user file layout (XDG): config, generated data, and state (outbox, event log).
package struct Paths: Sendable, Equatable {
    package var home: String
    package var configDirectory: String
    package var dataDirectory: String
    package var stateDirectory: String
    /// The config file: `--config`, else `HOOKCTL_CONFIG`, else `configDirectory/config.yaml`.
    package var configFile: String
    /// hookctl's runtime folder (ssh control sockets): `$XDG_RUNTIME_DIR/hookctl`, else `/tmp/hookctl-UID`.
    package var runtimeDirectory: String = "/tmp/hookctl-\(getuid())"
}

// Outside the type's body, so that the compiler still writes the memberwise initializer.
extension Paths {
    /// Resolves the layout from an environment, honouring the XDG variables (absolute values only, as the spec says).
    package init(environment: [String: String], configOverride: String? = nil) {
        let home = Paths.homeDirectory(environment: environment)
        func xdg(_ name: String, _ fallback: String) -> String {
            if let value = environment[name], value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        configDirectory = xdg("XDG_CONFIG_HOME", ".config") + "/hookctl"
        dataDirectory = xdg("XDG_DATA_HOME", ".local/share") + "/hookctl"
        stateDirectory = xdg("XDG_STATE_HOME", ".local/state") + "/hookctl"
        self.home = home
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            runtimeDirectory = runtime + "/hookctl"
        } else {
            runtimeDirectory = "/tmp/hookctl-\(getuid())"
        }
        if let override = configOverride, !override.isEmpty {
            configFile = expandPath(override, environment: environment)
        } else if let override = environment["HOOKCTL_CONFIG"], !override.isEmpty {
            configFile = expandPath(override, environment: environment)
        } else {
            configFile = configDirectory + "/config.yaml"
        }
    }

    /// Whether the config file was named (`--config`, `HOOKCTL_CONFIG`) rather than the default: a
    /// named file that does not exist is a mistake to report, not "no config".
    package var configIsNamed: Bool { configFile != configDirectory + "/config.yaml" }

    package var outboxDirectory: String { stateDirectory + "/outbox" }
    package var deadLetterDirectory: String { stateDirectory + "/outbox/dead" }
    package var eventLogFile: String { stateDirectory + "/events.jsonl" }
    /// What `status --hosts` last learned of each host (the tmux segment counts from it).
    package var hostsBoardCache: String { stateDirectory + "/hosts-board.json" }

    package static func homeDirectory(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }
}

/// Expands a leading `~`, `~/`, and `$VAR` / `${VAR}` references in a path from the config.
/// Unknown variables expand to the empty string, as in the shell.
package func expandPath(_ path: String, environment: [String: String]) -> String {
    var result = path
    if result == "~" || result.hasPrefix("~/") {
        result = Paths.homeDirectory(environment: environment) + result.dropFirst()
    }
    guard result.contains("$") else { return result }
    var output = ""
    var index = result.startIndex
    while index < result.endIndex {
        let character = result[index]
        guard character == "$" else {
            output.append(character)
            index = result.index(after: index)
            continue
        }
        var cursor = result.index(after: index)
        var name = ""
        if cursor < result.endIndex, result[cursor] == "{" {
            cursor = result.index(after: cursor)
            while cursor < result.endIndex, result[cursor] != "}" {
                name.append(result[cursor])
                cursor = result.index(after: cursor)
            }
            if cursor < result.endIndex { cursor = result.index(after: cursor) }
        } else {
            while cursor < result.endIndex, result[cursor] == "_" || result[cursor].isLetter || result[cursor].isNumber {
                name.append(result[cursor])
                cursor = result.index(after: cursor)
            }
        }
        if name.isEmpty {
            output.append("$")
            index = result.index(after: index)
        } else {
            output += environment[name] ?? ""
            index = cursor
        }
    }
    return output
}
