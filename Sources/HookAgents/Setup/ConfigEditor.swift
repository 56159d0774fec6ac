/// Adds or replaces the `relay` sink in the YAML config by editing its text, so comments, the
/// user's other sinks and settings stay byte-identical.
///
/// The text is parsed with libyaml first (a config that does not parse is refused with its line and
/// column); an existing relay item's `url` scalar is replaced in place by its byte offsets; a missing
/// relay item is added at the end of the block-style `sinks:` list by lines. The result is parsed again
/// and must read back the new URL, so a layout it does not understand is refused, never guessed at.
package enum ConfigEditor {
    /// The config with a relay sink for `url`; `url` nil keeps whatever sinks there are (the built-in
    /// default: a new config has `sinks: []`).
    package static func apply(existing: String?, url: String?, template: String, path: String) throws -> String {
        var text = existing ?? template
        if existing == nil || Text.trimmed(existing!).isEmpty { text = template }
        let root = try parse(text, path: path)
        guard let url else {
            try checkReadable(text, path: path)
            return text
        }
        let result: String
        if let urlNode = relayItem(in: root)?["url"], urlNode.kind == .scalar {
            var bytes = Array(text.utf8)
            bytes.replaceSubrange(urlNode.startOffset..<urlNode.endOffset, with: Array(JSON.quote(url).utf8))
            result = String(decoding: bytes, as: UTF8.self)
        } else {
            result = try setRelay(in: text, url: url, path: path)
        }
        guard relayItem(in: try parse(result, path: path))?["url"]?.value == url else {
            throw SetupError.configLayout(path: path, reason: "setup could not place the relay sink in this layout")
        }
        try checkReadable(result, path: path)
        return result
    }

    /// The config setup leaves must be one notify can read: a mistake already in the user's config
    /// (an unknown key, a typo in a type) is reported and nothing is written.
    package static func checkReadable(_ text: String, path: String) throws {
        do {
            try SinkRegistry.checkStructure(config: try Config.parse(text, path: path, environment: [:]))
        } catch let error as ConfigError {
            var refused = error
            refused.message += "; the config was left untouched: fix it (hookctl doctor shows it) and run setup again"
            throw refused
        }
    }

    package static func parse(_ text: String, path: String) throws -> YAMLNode? {
        do {
            let root = try YAML.parse(text)
            if let root, !root.isNull, root.kind != .mapping {
                throw SetupError.configLayout(path: path, reason: "the top level is not a mapping of settings")
            }
            return root
        } catch let error as YAMLError {
            throw ConfigError(file: path, line: error.line, column: error.column,
                              message: "invalid YAML: \(error.message); the config was left untouched")
        }
    }

    /// The `sinks` item named `relay`.
    package static func relayItem(in root: YAMLNode?) -> YAMLNode? {
        guard let sinks = root?["sinks"], sinks.kind == .sequence else { return nil }
        return sinks.items.first { $0.kind == .mapping && $0["name"]?.value == "relay" }
    }

    package static func itemLines(url: String, indent: String) -> [String] {
        ["\(indent)- name: relay", "\(indent)  type: relay", "\(indent)  url: \(JSON.quote(url))"]
    }

    package static func setRelay(in text: String, url: String, path: String) throws -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let endsWithNewline = text.hasSuffix("\n")
        if endsWithNewline { lines.removeLast() }
        func finish(_ lines: [String]) -> String { lines.joined(separator: "\n") + "\n" }

        guard let sinksIndex = lines.firstIndex(where: { $0.hasPrefix("sinks:") }) else {
            // No sinks at all: append the list.
            return finish(lines + ["sinks:"] + itemLines(url: url, indent: "  "))
        }
        let afterKey = lines[sinksIndex].dropFirst("sinks:".count)
        let inline = stripComment(String(afterKey)).trimmingSpaces()
        if inline == "[]" {
            lines.replaceSubrange(sinksIndex...sinksIndex, with: ["sinks:"] + itemLines(url: url, indent: "  "))
            return finish(lines)
        }
        guard inline.isEmpty else {
            throw SetupError.configLayout(path: path, reason: "'sinks:' is written in flow style; setup edits block-style lists only")
        }
        // The block under `sinks:`: every following line that is blank, a comment, or indented.
        var end = sinksIndex + 1
        var itemIndent: String?
        var items: [Int] = []
        while end < lines.count {
            let line = lines[end]
            let trimmed = line.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { end += 1; continue }
            let indent = String(line.prefix { $0 == " " })
            // YAML allows list items at the key's own indentation (`sinks:\n- name: x`).
            if indent.isEmpty && !trimmed.hasPrefix("- ") && trimmed != "-" { break }
            if trimmed.hasPrefix("- ") || trimmed == "-" {
                if itemIndent == nil { itemIndent = indent }
                if indent == itemIndent { items.append(end) }
            }
            end += 1
        }
        // Trailing blank and comment lines belong to what follows.
        var blockEnd = end
        while blockEnd > sinksIndex + 1, lines[blockEnd - 1].trimmingSpaces().isEmpty || lines[blockEnd - 1].trimmingSpaces().hasPrefix("#") {
            blockEnd -= 1
        }
        let indent = itemIndent ?? "  "
        for (position, start) in items.enumerated() {
            let stop = position + 1 < items.count ? items[position + 1] : blockEnd
            guard let name = itemValue("name", lines: lines, range: start..<stop, indent: indent), name == "relay" else { continue }
            if let urlLine = (start..<stop).first(where: { keyOf(lines[$0], indent: indent) == "url" }) {
                let line = lines[urlLine]
                let keyStart = line.firstRange(of: "url:")!.lowerBound
                let comment = commentOf(String(line[line.firstRange(of: "url:")!.upperBound...]))
                lines[urlLine] = String(line[..<keyStart]) + "url: " + JSON.quote(url) + (comment.map { "  " + $0 } ?? "")
            } else {
                lines.insert("\(indent)  url: \(JSON.quote(url))", at: stop)
            }
            return finish(lines)
        }
        lines.insert(contentsOf: itemLines(url: url, indent: indent), at: blockEnd)
        return finish(lines)
    }

    /// The key of a line inside a list item (`- name: x` or `  name: x`), nil for other lines.
    package static func keyOf(_ line: String, indent: String) -> String? {
        guard line.hasPrefix(indent) else { return nil }
        var rest = Substring(line.dropFirst(indent.count))
        if rest.hasPrefix("- ") { rest = rest.dropFirst(2) }
        rest = rest.drop { $0 == " " }
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let key = rest[..<colon]
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else { return nil }
        return String(key)
    }

    /// The scalar value of `key` in a list item, quotes removed.
    package static func itemValue(_ key: String, lines: [String], range: Range<Int>, indent: String) -> String? {
        for index in range where keyOf(lines[index], indent: indent) == key {
            let line = lines[index]
            guard let colon = line.firstRange(of: key + ":") else { continue }
            var value = stripComment(String(line[colon.upperBound...])).trimmingSpaces()
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }

    /// The value without a trailing ` # comment` (outside quotes).
    package static func stripComment(_ value: String) -> String {
        guard let comment = commentStart(value) else { return value }
        return String(value[..<comment])
    }

    package static func commentOf(_ value: String) -> String? {
        guard let start = commentStart(value) else { return nil }
        return String(value[start...])
    }

    package static func commentStart(_ value: String) -> String.Index? {
        var quote: Character?
        var previous: Character = " "
        for index in value.indices {
            let character = value[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", previous == " " || previous == "\t" {
                return index
            }
            previous = character
        }
        return nil
    }

    /// The relay URL currently in the config, if any (for summaries, redacted by the caller). Read with
    /// libyaml, like everything else in the config: block and flow style alike.
    package static func relayURL(in text: String?) -> String? {
        guard let text, let root = try? YAML.parse(text), let url = relayItem(in: root)?["url"], url.kind == .scalar,
              !url.value.isEmpty else { return nil }
        return url.value
    }
}
