/// `hosts add` / `hosts remove` edit the config's `hosts:` list by lines, as setup edits `sinks:`:
/// comments and everything else stay byte-identical, and the result is parsed again and must hold
/// exactly the hosts asked for (a layout the editor does not understand is refused, never guessed at).
extension ConfigEditor {
    /// The config with `host` added at the end of `hosts:` (made when there is none).
    package static func addHost(_ host: SSHRunner.Host, to existing: String?, path: String) throws -> String {
        let text = existing.map { $0.isEmpty || $0.hasSuffix("\n") ? $0 : $0 + "\n" } ?? "version: 1\n"
        let before = try Config.parse(text, path: path, environment: [:]).hosts
        if before.contains(where: { $0.name == host.name }) {
            throw ConfigError(file: path, line: 0, column: 0, message: "a host named '\(host.name)' is already in the config ('hookctl hosts remove \(host.name)' first)")
        }
        let root = try parse(text, path: path)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let node = root?.pairs.first { $0.key.value == "hosts" }
        let item: (String) -> [String] = { indent in hostLines(host, indent: indent) }
        if let node, !node.value.isNull, !(node.value.kind == .sequence && node.value.items.isEmpty) {
            guard node.value.kind == .sequence, let first = node.value.items.first, let last = node.value.items.last else {
                throw SetupError.configLayout(path: path, reason: "'hosts' is not a list hookctl can add to")
            }
            let (firstLine, dashIndent) = try dashLine(first, in: text, path: path)
            _ = firstLine
            let (lastLine, _) = try dashLine(last, in: text, path: path)
            var end = lastLine + 1
            while end < lines.count, isInside(lines[end], dashIndent: dashIndent) { end += 1 }
            lines.insert(contentsOf: item(dashIndent), at: end)
        } else if let node {
            // `hosts:` with nothing, or `hosts: []`: the key's line becomes the list.
            let keyLine = node.key.line - 1
            guard keyLine >= 0, keyLine < lines.count, lines[keyLine].hasPrefix("hosts:") else {
                throw SetupError.configLayout(path: path, reason: "'hosts' is not a list hookctl can add to")
            }
            let comment = commentOf(String(lines[keyLine].dropFirst("hosts:".count))).map { " " + $0 } ?? ""
            lines[keyLine] = "hosts:" + comment
            lines.insert(contentsOf: item("  "), at: keyLine + 1)
        } else {
            lines.append("hosts:")
            lines += item("  ")
        }
        let result = lines.joined(separator: "\n") + "\n"
        try check(result, path: path, expect: before + [host])
        return result
    }

    /// The config without the host named `name`.
    package static func removeHost(named name: String, from text: String, path: String) throws -> String {
        let before = try Config.parse(text, path: path, environment: [:]).hosts
        guard before.contains(where: { $0.name == name }) else {
            throw RemoteError.unknownHost(name: name, known: before.map(\.name))
        }
        let root = try parse(text, path: path)
        guard let list = root?["hosts"], list.kind == .sequence,
              let item = list.items.first(where: { $0["name"]?.value == name }) else {
            throw SetupError.configLayout(path: path, reason: "the host '\(name)' is not in a list hookctl can edit")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let hadNewline = lines.last == ""
        if hadNewline { lines.removeLast() }
        let (start, dashIndent) = try dashLine(item, in: text, path: path)
        var end = start + 1
        while end < lines.count, isInside(lines[end], dashIndent: dashIndent) { end += 1 }
        lines.removeSubrange(start..<end)
        if list.items.count == 1, let keyLine = root?.pairs.first(where: { $0.key.value == "hosts" })?.key.line, keyLine - 1 < lines.count,
           lines[keyLine - 1].hasPrefix("hosts:") {
            lines[keyLine - 1] = "hosts: []"
        }
        let result = lines.joined(separator: "\n") + (hadNewline ? "\n" : "")
        try check(result, path: path, expect: before.filter { $0.name != name })
        return result
    }

    /// One host as block YAML, every value a double-quoted (JSON) scalar.
    package static func hostLines(_ host: SSHRunner.Host, indent: String) -> [String] {
        var lines = [indent + "- name: " + JSON.quote(host.name), indent + "  ssh: " + JSON.quote(host.destination)]
        if !host.options.isEmpty {
            lines.append(indent + "  ssh_options: [" + host.options.map(JSON.quote).joined(separator: ", ") + "]")
        }
        return lines
    }

    /// The line (0-based) of a block sequence item's `-`, and the indent before it.
    package static func dashLine(_ item: YAMLNode, in text: String, path: String) throws -> (Int, String) {
        let bytes = Array(text.utf8)
        var start = min(item.startOffset, bytes.count)
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        let head = String(decoding: bytes[start..<min(item.startOffset, bytes.count)], as: UTF8.self)
        let indent = String(head.prefix { $0 == " " })
        guard Text.trimmed(String(head.dropFirst(indent.count))) == "-" else {
            throw SetupError.configLayout(path: path, reason: "'hosts' is written in a style hookctl does not edit (use one '- name: …' item per host)")
        }
        let line = bytes[..<start].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        return (line, indent)
    }

    /// Whether a line after an item's `-` still belongs to it: blank, or indented past the dash.
    package static func isInside(_ line: String, dashIndent: String) -> Bool {
        let indent = line.prefix { $0 == " " }.count
        return Text.trimmed(line).isEmpty ? false : indent > dashIndent.count
    }

    /// The edited text must parse and hold exactly `expect`.
    package static func check(_ text: String, path: String, expect: [SSHRunner.Host]) throws {
        guard (try? Config.parse(text, path: path, environment: [:]).hosts) == expect else {
            throw SetupError.configLayout(path: path, reason: "hookctl could not edit 'hosts' in this layout; edit it by hand")
        }
    }
}
