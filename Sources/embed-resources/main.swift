// embed-resources HOOKS_DIR TEMPLATES_DIR OUTPUT: writes the Swift file that carries hooks/*.json and
// templates/* in the binary. Run by the EmbedResources build plugin; not installed.
import FoundationEssentials
import Glibc

func fail(_ message: String, code: Int32) -> Never {
    let line = Array(("embed-resources: " + message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    fail("usage: embed-resources HOOKS_DIR TEMPLATES_DIR OUTPUT", code: 64)
}

/// The files of a folder, by name, each as text; hidden files are left out.
func texts(in directory: String, suffix: String?) throws -> [(name: String, text: String)] {
    try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { !$0.hasPrefix(".") && (suffix.map($0.hasSuffix) ?? true) }
        .sorted()
        .map { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                  let text = String(data: data, encoding: .utf8) else {
                fail(directory + "/" + name + ": not readable as UTF-8 text", code: 65)
            }
            return (name, text)
        }
}

/// A raw string literal that holds `text` exactly: as many `#` as it takes so that no `"` followed
/// by them occurs inside.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"" + hashes) || text.contains(hashes + "\"") { hashes += "#" }
    return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

func dictionary(_ name: String, _ entries: [(name: String, text: String)]) -> String {
    var out = "    package static let \(name): [String: String] = [\n"
    for entry in entries {
        out += "        \"\(entry.name)\": " + literal(entry.text) + ",\n"
    }
    return out + "    ]\n"
}

/// The `caller_env` names of the manifests, sorted: every hook needs them (to tell a borrowed hook from
/// the agent's own), and parsing the manifests for them cost each hook 0.4-0.7 M instructions.
/// A test holds this list equal to what AgentManifest reads from the same manifests.
func callerVariables(_ manifests: [(name: String, text: String)]) throws -> [String] {
    struct CallerKeys: Decodable { var caller_env: [String]? }
    var names: Set<String> = []
    for manifest in manifests {
        do {
            names.formUnion(try JSONDecoder().decode(CallerKeys.self, from: Data(manifest.text.utf8)).caller_env ?? [])
        } catch {
            fail(manifest.name + ": not a manifest: \(error)", code: 65)
        }
    }
    return names.sorted()
}

/// A Swift string literal (manifest names and kinds are plain text; quotes and backslashes escaped).
func quoted(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
}

/// The manifests' display names and event kinds as functions of switches (no dictionary is built at
/// run time: building them cost each hook 0.22 M instructions). A test holds them equal to what
/// AgentManifest reads from the same manifests.
func hookFacts(_ manifests: [(name: String, text: String)]) throws -> String {
    struct Event: Decodable {
        var name: String
        var kind: String
        var matcher: String?
        var detail: String?
        var kinds: [String: String]?
        var quiet: Bool?
    }
    struct Notify: Decodable { var event: String?; var kind: String }
    struct Manifest: Decodable {
        var agent: String
        var display_name: String?
        var events: [Event]?
        var notify: Notify?
        var one_push_per_turn: Bool?
    }
    let kinds: Set<String> = ["needs_input", "done", "failed", "started", "working", "ended", "test", "info", "notice"]
    /// `needs_input` → `.needsInput`.
    func kind(_ text: String, _ file: String) -> String {
        guard kinds.contains(text) else { fail(file + ": '\(text)' is not an event kind", code: 65) }
        let parts = text.split(separator: "_")
        return "." + parts[0] + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
    var parsed: [(file: String, manifest: Manifest, events: [Event])] = []
    for file in manifests {
        let manifest: Manifest
        do { manifest = try JSONDecoder().decode(Manifest.self, from: Data(file.text.utf8)) } catch {
            fail(file.name + ": not a manifest: \(error)", code: 65)
        }
        var events = manifest.events ?? []
        if let notify = manifest.notify { events.append(Event(name: notify.event ?? "agent-turn-complete", kind: notify.kind)) }
        parsed.append((file.name, manifest, events))
    }
    func agentSwitch(_ returns: String, _ name: String, _ parameters: String, _ body: (String, Manifest, [Event]) -> String?,
                     fallback: String) -> String {
        var out = "    package static func \(name)(\(parameters)) -> \(returns) {\n        switch agent {\n"
        for entry in parsed {
            if let text = body(entry.file, entry.manifest, entry.events) {
                out += "        case \(quoted(entry.manifest.agent)):\n" + text
            }
        }
        return out + "        default: return \(fallback)\n        }\n    }\n"
    }
    var out = "    package static let hookFactAgents: [String] = [" + parsed.map { quoted($0.manifest.agent) }.joined(separator: ", ") + "]\n"
    out += agentSwitch("String?", "displayName", "_ agent: String", { _, manifest, _ in
        "            return " + quoted(manifest.display_name ?? (manifest.agent.prefix(1).uppercased() + manifest.agent.dropFirst())) + "\n"
    }, fallback: "nil")
    out += agentSwitch("Bool", "onePushPerTurn", "_ agent: String", { _, manifest, _ in
        manifest.one_push_per_turn == true ? "            return true\n" : nil
    }, fallback: "false")
    out += agentSwitch("[String]", "eventNames", "_ agent: String", { _, _, events in
        "            return [" + events.map { quoted($0.name) }.joined(separator: ", ") + "]\n"
    }, fallback: "[]")
    out += agentSwitch("HookFacts.EventFact?", "eventFact", "_ agent: String, _ event: String", { file, _, events in
        var text = "            switch event {\n"
        for event in events {
            var fields = ["kind: " + kind(event.kind, file)]
            if let matcher = event.matcher { fields.append("matcher: " + quoted(matcher)) }
            if let detail = event.detail { fields.append("detail: " + quoted(detail)) }
            if event.quiet == true { fields.append("quiet: true") }
            text += "            case \(quoted(event.name)): return HookFacts.EventFact(" + fields.joined(separator: ", ") + ")\n"
        }
        return text + "            default: return nil\n            }\n"
    }, fallback: "nil")
    out += agentSwitch("EventKind?", "refinedKind", "_ agent: String, _ event: String, _ value: String", { file, _, events in
        let refining = events.filter { !($0.kinds ?? [:]).isEmpty }
        guard !refining.isEmpty else { return nil }
        var text = "            switch event {\n"
        for event in refining {
            text += "            case \(quoted(event.name)):\n                switch value {\n"
            for (value, refined) in (event.kinds ?? [:]).sorted(by: { $0.key < $1.key }) {
                text += "                case \(quoted(value)): return \(kind(refined, file))\n"
            }
            text += "                default: return nil\n                }\n"
        }
        return text + "            default: return nil\n            }\n"
    }, fallback: "nil")
    out += agentSwitch("[String]", "refinedValues", "_ agent: String, _ event: String", { _, _, events in
        let refining = events.filter { !($0.kinds ?? [:]).isEmpty }
        guard !refining.isEmpty else { return nil }
        var text = "            switch event {\n"
        for event in refining {
            text += "            case \(quoted(event.name)): return [" + (event.kinds ?? [:]).keys.sorted().map(quoted).joined(separator: ", ") + "]\n"
        }
        return text + "            default: return []\n            }\n"
    }, fallback: "[]")
    return out
}

do {
    let manifests = try texts(in: arguments[1], suffix: ".json")
    let callers = try callerVariables(manifests).map { "\"\($0)\"" }.joined(separator: ", ")
    let source = "// Generated at build time by the EmbedResources plugin from hooks/ and templates/.\n"
        + "/// The agent manifests and templates built into the binary, used when no share folder is found.\n"
        + "package enum BuiltinResources {\n"
        + dictionary("manifests", manifests)
        + "\n"
        + dictionary("templates", try texts(in: arguments[2], suffix: nil))
        + "\n    /// Every `caller_env` name the manifests above give (see `HookCaller`).\n"
        + "    package static let callerVariables: Set<String> = [\(callers)]\n"
        + "\n    // Every manifest's display name and event kinds (see `HookFacts`).\n"
        + (try hookFacts(manifests))
        + "}\n"
    let data = Data(source.utf8)
    if FileManager.default.contents(atPath: arguments[3]) != data {
        try data.write(to: URL(fileURLWithPath: arguments[3]), options: .atomic)
    }
} catch {
    fail("\(error)", code: 74)
}
