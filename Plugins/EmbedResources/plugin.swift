import Foundation
import PackagePlugin

/// Builds `BuiltinResources.swift` from `hooks/*.json` and `templates/*` at build time, so the
/// binary carries the agent manifests and templates (a bare `hookctl` works without its share
/// folder) and the repository holds each of them once.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let hooks = root.appending(path: "hooks")
        let templates = root.appending(path: "templates")
        let inputs = try files(in: hooks).filter { $0.pathExtension == "json" } + files(in: templates)
        let output = context.pluginWorkDirectoryURL.appending(path: "BuiltinResources.swift")
        return [.buildCommand(
            displayName: "Embedding hooks/ and templates/ into BuiltinResources.swift",
            executable: try context.tool(named: "embed-resources").url,
            arguments: [hooks.path, templates.path, output.path],
            inputFiles: inputs,
            outputFiles: [output])]
    }

    private func files(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
            .map { directory.appending(path: $0) }
    }
}
