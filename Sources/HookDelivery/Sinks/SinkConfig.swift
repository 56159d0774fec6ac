/// One sink's configuration: its name and type, the settings every sink shares, and typed access to
/// the keys of its own type (which the sink type validates).
package struct SinkConfig: Sendable {
    package var name: String
    package var type: String
    package var node: YAMLNode
    package var file: String
    package var environment: [String: String]
    package var defaults: Defaults

    package func error(_ node: YAMLNode?, _ message: String) -> ConfigError {
        ConfigError(file: file, line: node?.line ?? self.node.line, column: node?.column ?? self.node.column,
                    message: "sink '\(name)': \(message)")
    }

    package func has(_ key: String) -> Bool { node[checked(key)] != nil }

    /// `key`, once it is known to be declared in `SinkKeys` for this sink's type (or for every sink): a
    /// sink reads only keys the table declares, so validation, `help sinks` and the man page (all read
    /// from that table) never miss one. Checked in debug builds, where the tests run.
    private func checked(_ key: String) -> String {
        assert(SinkKeys.commonNames.contains(key) || SinkKeys.names(of: type).contains(key),
               "sink type '\(type)' reads '\(key)', which SinkKeys does not declare")
        return key
    }

    package func string(_ key: String) throws -> String? {
        guard let value = node[checked(key)], !value.isNull else { return nil }
        guard value.kind == .scalar else { throw error(value, "'\(key)' must be a text value, not \(value.kindName)") }
        return value.value
    }

    package func requiredString(_ key: String) throws -> String {
        guard let value = try string(key), !value.isEmpty else { throw error(nil, "'\(key)' is required") }
        return value
    }

    package func bool(_ key: String) throws -> Bool? {
        guard let value = node[checked(key)], !value.isNull else { return nil }
        switch value.value.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(value, "'\(key)' must be true or false, got '\(value.value)'")
        }
    }

    package func int(_ key: String) throws -> Int? {
        guard let value = node[checked(key)], !value.isNull else { return nil }
        guard value.kind == .scalar, let number = Int(value.value) else {
            throw error(value, "'\(key)' must be a whole number, got '\(value.value)'")
        }
        return number
    }

    package func duration(_ key: String) throws -> Double? {
        guard let value = node[checked(key)], !value.isNull else { return nil }
        guard value.kind == .scalar, let seconds = DurationText.parse(value.value) else {
            throw error(value, "'\(key)' must be a duration such as 500ms, 10s, 5m or 24h, got '\(value.value)'")
        }
        return seconds
    }

    /// A list of strings; a single scalar counts as a list of one.
    package func stringList(_ key: String) throws -> [String]? {
        guard let value = node[checked(key)], !value.isNull else { return nil }
        if value.kind == .scalar { return [value.value] }
        guard value.kind == .sequence else { throw error(value, "'\(key)' must be a list") }
        return try value.items.map { item in
            guard item.kind == .scalar else { throw error(item, "'\(key)' must be a list of text values") }
            return item.value
        }
    }

    /// A mapping of strings to strings (headers, priority maps).
    package func stringMap(_ key: String) throws -> [(String, String)]? {
        guard let value = node[checked(key)], !value.isNull else { return nil }
        guard value.kind == .mapping else { throw error(value, "'\(key)' must be a mapping") }
        return try value.pairs.map { pair in
            guard pair.value.kind == .scalar else { throw error(pair.value, "'\(key).\(pair.key.value)' must be a text value") }
            return (pair.key.value, pair.value.value)
        }
    }

    /// A path with `~` and `$VAR` expanded.
    package func path(_ key: String) throws -> String? {
        try string(key).map { expandPath($0, environment: environment) }
    }

    /// The three keys that may give the secret `key` (see `secret(_:required:)`), for a sink type's `keys`.
    package static func secretKeys(_ key: String) -> [String] { [key, key + "_env", key + "_file"] }

    /// A secret given inline (`KEY`), by environment variable (`KEY_env`) or by file (`KEY_file`), in that order.
    /// Exactly one may be given. Files are read whole and trimmed.
    package func secret(_ key: String, required: Bool) throws -> String? {
        let given = SinkConfig.secretKeys(key).filter { has($0) }
        if given.count > 1 { throw error(node[given[1]], "give only one of '\(given.joined(separator: "', '"))'") }
        if let inline = try string(key) { return inline }
        if let variable = try string(key + "_env") {
            guard let value = environment[variable], !value.isEmpty else {
                throw error(node[key + "_env"], "the environment variable \(variable) named by '\(key)_env' is not set")
            }
            return value
        }
        if let file = try path(key + "_file") {
            let text: String?
            do { text = try FileSystem.readString(file) } catch { throw self.error(node[key + "_file"], "cannot read \(file): \(error)") }
            guard let text else { throw error(node[key + "_file"], "the file \(file) named by '\(key)_file' does not exist") }
            let trimmed = Text.trimmed(text)
            guard !trimmed.isEmpty else { throw error(node[key + "_file"], "the file \(file) is empty") }
            return trimmed
        }
        if required { throw error(nil, "'\(key)' is required (or '\(key)_env' / '\(key)_file' to keep it out of the config)") }
        return nil
    }

    /// Rejects keys that neither every sink nor this sink's type knows, suggesting the closest known key;
    /// every unknown key at once.
    package func checkKeys(allowed: [String]) throws {
        let known = SinkSettings.commonKeys + allowed
        try ConfigError.throwAll(node.pairs.filter { !known.contains($0.key.value) }.map { pair in
            error(pair.key, "unknown key '\(pair.key.value)' for a \(type) sink" + Suggest.hint(for: pair.key.value, in: known)
                  + " (its keys: hookctl help sinks)")
        })
    }
}
