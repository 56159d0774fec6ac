/// What setup, uninstall, doctor and test can fail with.
package enum SetupError: HookctlError {
    case invalidURL(redacted: String, reason: String)
    case unknownAgent(String, known: [String])
    case malformedSettings(path: String, line: Int, column: Int, reason: String)
    case unsupportedSettings(path: String, reason: String)
    case missingResource(String)
    case configLayout(path: String, reason: String)
    case notifyURLFile(name: String, reason: String)

    package var exitCode: ExitCode {
        switch self {
        case .invalidURL, .unknownAgent: return .usage
        case .notifyURLFile: return .dataError
        case .malformedSettings, .unsupportedSettings: return .dataError
        case .missingResource: return .software
        case .configLayout: return .config
        }
    }

    package var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "the notify URL \(url) is not usable: \(reason). Nothing was written. Paste the URL exactly as the app shows it."
        case .unknownAgent(let name, let known):
            return "unknown agent '\(name)'\(Suggest.hint(for: name, in: known)); known agents: \(known.joined(separator: ", ")) (add your own as a manifest, see hooks/README.md)"
        case .malformedSettings(let path, let line, let column, let reason):
            return "\(path):\(line):\(column): \(reason); the file was left untouched. Fix it (or move it away) and run the command again."
        case .unsupportedSettings(let path, let reason):
            return "\(path): \(reason); the file was left untouched."
        case .missingResource(let name):
            return "\(name) is missing from this installation; reinstall hookctl with ./install.sh"
        case .notifyURLFile(let name, let reason):
            return "cannot read the notify URL from \(name): \(reason). Nothing was written."
        case .configLayout(let path, let reason):
            return "\(path): \(reason); the config was left untouched. Edit the relay sink by hand (see README)."
        }
    }
}
