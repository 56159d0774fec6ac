/// `aider-yaml`: aider's `~/.aider.conf.yml`, where `notifications: true` makes aider run
/// `notifications-command` (with `sh -c`, synchronously, no payload) each time it waits for input.
///
/// Edited like the hookctl config: the text is parsed with libyaml, the two scalars are replaced in
/// place by their byte offsets or appended as lines, and the result is parsed again and must read back
/// what was meant; a layout it does not understand is refused. Uninstall gives back the exact bytes
/// when nothing else changed since setup, else puts the user's previous values back.
package struct AiderInstaller: AgentInstaller {
    package var manifest: AgentManifest
    package var context: InstallerContext

    package static let enableKey = "notifications"
    package static let commandKey = "notifications-command"

    package var path: String { manifest.settings.resolve(environment: context.environment) }
    package var previousFile: String { context.state.directory + "/\(manifest.agent)-previous.json" }

    /// aider waits for the command to finish: it runs in the background with every stream closed, so
    /// aider shows its prompt at once; `</dev/null` also keeps hookctl off the terminal.
    package var command: String {
        let event = manifest.events.first?.name
        let run = "\(Shell.quote(context.layout.scriptPath)) \(Shell.quoteIfNeeded(manifest.agent))"
            + (event.map { " --event " + Shell.quoteIfNeeded($0) } ?? "")
            + " </dev/null >/dev/null 2>&1 &"
        return manifest.commandGate ? "[ -n \"${\(context.layout.gate):-}\" ] || exit 0; \(run)" : run
    }

    package func install() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        let before = try FileSystem.readString(path)
        let text = before ?? ""
        let root = try AiderInstaller.parse(text, path: path)
        let current = root?[AiderInstaller.commandKey]
        plan.hadEntries = current.map { HookLayout.isHookctlCommand($0.value) } ?? false
        let edits = try desiredEdits(root: root)
        let after = try AiderInstaller.apply(edits, to: text, path: path)
        guard let check = try AiderInstaller.parse(after, path: path),
              AiderInstaller.isTrue(check[AiderInstaller.enableKey]?.value ?? ""),
              check[AiderInstaller.commandKey]?.value == command else {
            throw AiderInstaller.layout(path, "setup could not place its settings in this layout")
        }
        let hadEntries = plan.hadEntries
        let change = plan.install(path: path, before: before, after: after, context: context)
        if change.status != .unchanged, !hadEntries {
            // The user's own values, to put back when the file changed again after setup.
            var previous = JSONObject()
            if let enabled = root?[AiderInstaller.enableKey] { previous["notifications"] = .string(AiderInstaller.source(enabled, in: text)) }
            if let current { previous["command"] = .string(AiderInstaller.source(current, in: text)) }
            plan.state.append(FileChange(path: previousFile, before: (try? FileSystem.readString(previousFile)) ?? nil,
                                         after: JSON.serialize(.object(previous)) + "\n", mode: 0o600))
        }
        return plan
    }

    package func uninstall() throws -> AgentFilePlan {
        var plan = AgentFilePlan()
        guard let before = try FileSystem.readString(path) else { return plan }
        let root = try AiderInstaller.parse(before, path: path)
        guard let current = root?[AiderInstaller.commandKey], current.kind == .scalar,
              HookLayout.isHookctlCommand(current.value) else { return plan }
        plan.hadEntries = true
        let original = context.state.original(for: path)
        var after: String?
        // Nothing else changed since setup: the exact bytes (or no file) come back.
        if let original, (try? install(intoOriginal: original.content)) == before {
            after = original.existed ? original.content : nil
        } else {
            let previous = ((try? FileSystem.readString(previousFile)) ?? nil).flatMap { try? JSON.parse($0) }
            var edits: [(range: Range<Int>?, text: String)] = []
            if let command = previous?["command"]?.stringValue {
                edits.append((current.startOffset..<current.endOffset, command))
            } else {
                edits.append((AiderInstaller.lineRange(of: current, in: before), ""))
            }
            if let enabled = root?[AiderInstaller.enableKey], enabled.kind == .scalar, previous != nil {
                if let value = previous?["notifications"]?.stringValue {
                    if value != AiderInstaller.source(enabled, in: before) { edits.append((enabled.startOffset..<enabled.endOffset, value)) }
                } else if AiderInstaller.isTrue(enabled.value) {
                    edits.append((AiderInstaller.lineRange(of: enabled, in: before), ""))
                }
            }
            after = try AiderInstaller.apply(edits, to: before, path: path)
            if let check = try AiderInstaller.parse(after!, path: path), check[AiderInstaller.commandKey].map({ HookLayout.isHookctlCommand($0.value) }) == true {
                throw AiderInstaller.layout(path, "uninstall could not take its command out of this layout")
            }
        }
        plan.uninstall(path: path, before: before, after: after, restored: after == original?.content, context: context)
        plan.state.append(context.state.removal(of: previousFile))
        return plan
    }

    /// What setup would have written over the original text (for the exact-bytes check).
    package func install(intoOriginal content: String?) throws -> String? {
        let text = content ?? ""
        return try AiderInstaller.apply(try desiredEdits(root: try AiderInstaller.parse(text, path: path)), to: text, path: path)
    }

    /// `notifications` set to true and `notifications-command` to hookctl's, in place or appended.
    package func desiredEdits(root: YAMLNode?) throws -> [(range: Range<Int>?, text: String)] {
        var edits: [(range: Range<Int>?, text: String)] = []
        if let enabled = root?[AiderInstaller.enableKey] {
            guard enabled.kind == .scalar else { throw AiderInstaller.layout(path, "'notifications' is not a plain value") }
            if !AiderInstaller.isTrue(enabled.value) { edits.append((enabled.startOffset..<enabled.endOffset, "true")) }
        } else {
            edits.append((nil, "\(AiderInstaller.enableKey): true"))
        }
        if let current = root?[AiderInstaller.commandKey] {
            guard current.kind == .scalar else { throw AiderInstaller.layout(path, "'notifications-command' is not a plain value") }
            if current.value != command { edits.append((current.startOffset..<current.endOffset, JSON.quote(command))) }
        } else {
            edits.append((nil, "\(AiderInstaller.commandKey): \(JSON.quote(command))"))
        }
        return edits
    }

    // MARK: text

    package static func parse(_ text: String, path: String) throws -> YAMLNode? {
        let root: YAMLNode?
        do { root = try YAML.parse(text) } catch let error as YAMLError {
            throw SetupError.malformedSettings(path: path, line: error.line, column: error.column, reason: "invalid YAML: \(error.message)")
        }
        if let root, !root.isNull, root.kind != .mapping {
            throw SetupError.unsupportedSettings(path: path, reason: "the top level is not a mapping of settings")
        }
        return root.flatMap { $0.isNull ? nil : $0 }
    }

    package static func layout(_ path: String, _ reason: String) -> SetupError {
        .unsupportedSettings(path: path, reason: reason)
    }

    /// YAML 1.1 booleans as aider's loader reads them.
    package static func isTrue(_ value: String) -> Bool { ["true", "yes", "on", "y"].contains(value.lowercased()) }

    /// A scalar's exact text in the file (quotes included).
    package static func source(_ node: YAMLNode, in text: String) -> String {
        let bytes = Array(text.utf8)
        return String(decoding: bytes[node.startOffset..<min(node.endOffset, bytes.count)], as: UTF8.self)
    }

    /// The whole line(s) of a top-level `key: value` whose value is `node`, newline included.
    package static func lineRange(of node: YAMLNode, in text: String) -> Range<Int> {
        let bytes = Array(text.utf8)
        var start = node.startOffset
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var end = node.endOffset
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        if end < bytes.count { end += 1 }
        return start..<end
    }

    /// Byte-range replacements (from the end, so offsets stay valid), then appended lines.
    package static func apply(_ edits: [(range: Range<Int>?, text: String)], to text: String, path: String) throws -> String {
        var bytes = Array(text.utf8)
        for edit in edits.compactMap({ edit in edit.range.map { ($0, edit.text) } }).sorted(by: { $0.0.lowerBound > $1.0.lowerBound }) {
            var replacement = Array(edit.1.utf8)
            // A block scalar (`>-`, `|`) ends after its line break: the new plain value keeps one.
            if !replacement.isEmpty, edit.0.upperBound > edit.0.lowerBound, bytes[edit.0.upperBound - 1] == UInt8(ascii: "\n") {
                replacement.append(UInt8(ascii: "\n"))
            }
            bytes.replaceSubrange(edit.0, with: replacement)
        }
        let appended = edits.filter { $0.range == nil }.map(\.text)
        if !appended.isEmpty {
            if Text.trimmed(String(decoding: bytes, as: UTF8.self)).hasPrefix("{") {
                throw layout(path, "the settings are written in flow style ({…}); setup edits block-style files only")
            }
            if !bytes.isEmpty, bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
            for line in appended { bytes += Array((line + "\n").utf8) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
