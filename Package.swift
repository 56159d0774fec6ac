// swift-tools-version:6.0
import PackageDescription

/// This package's folder: the linker's search path below needs it absolute.
let packageDirectory = String(#filePath.dropLast("/Package.swift".count))

/// Type metadata through accessor functions instead of demangling a mangled name on first use: every
/// generic type a run touches ([OptionSpec], Optional<Event>…) costs the runtime about half as much to set
/// up (--version 1.21 M instructions to 0.99 M, a hook's notify 2.50 M to 2.09 M; the binary 30 KB larger).
let layerSettings: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

let package = Package(
    name: "hookctl",
    products: [
        .executable(name: "hookctl", targets: ["hookctl"]),
    ],
    targets: [
        // Headers only: libcurl, OpenSSL and zlib are loaded with dlopen on first use (see the shims).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CCMark",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),
        // The layers, each a target that may use only those before it (docs/design.md draws the picture):
        // support (system, files, JSON, YAML, tmux, HTTP, ssh) → core (events, the event log, the board) →
        // delivery (config, outbox, sender, sinks, answer tokens) → agents (hooks, setup, answers, board
        // views, hosts, deploy, notify) → the command line. The compiler refuses an upward reference.
        .target(
            name: "HookSupport",
            dependencies: ["CCurl", "CYAML", "CCrypto", "CZlib"],
            exclude: ["README.md"],
            swiftSettings: layerSettings
        ),
        .target(
            name: "HookCore",
            dependencies: ["HookSupport"],
            exclude: ["README.md"],
            swiftSettings: layerSettings,
            plugins: ["EmbedResources"]
        ),
        .target(
            name: "HookDelivery",
            dependencies: ["HookCore", "CCMark", "CCrypto", "CZlib"],
            exclude: ["README.md"],
            swiftSettings: layerSettings,
            // cmark-gfm's static archives, linked in: hosts need no cmark-gfm and no hook loads it.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libcmark-gfm-extensions.a", "-Xlinker", "-l:libcmark-gfm.a"])]
        ),
        .target(
            name: "HookAgents",
            dependencies: ["HookDelivery"],
            exclude: ["README.md"],
            swiftSettings: layerSettings
        ),
        .target(
            name: "HookCLI",
            dependencies: ["HookAgents"],
            exclude: ["README.md"],
            swiftSettings: layerSettings
        ),
        // hooks/*.json and templates/* are built into the binary from the files themselves.
        .executableTarget(
            name: "embed-resources",
            path: "Sources/embed-resources"
        ),
        .plugin(
            name: "EmbedResources",
            capability: .buildTool(),
            dependencies: ["embed-resources"]
        ),
        .executableTarget(
            name: "hookctl",
            dependencies: ["HookCLI"],
            swiftSettings: layerSettings,
            // libstdc++ linked in (see link/static-libstdc++/libstdc++.so): a start without its symbol binding;
            // only `main` exported (link/hookctl.exports: no library symbol in the dynamic table).
            linkerSettings: [.unsafeFlags(["-L", packageDirectory + "/link/static-libstdc++",
                                           "-Xlinker", "--version-script=" + packageDirectory + "/link/hookctl.exports"])]
        ),
        // Helpers both test targets use.
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "HookKitTests",
            dependencies: ["HookCLI", "TestSupport"],
            // The golden views are read and rewritten in place through #filePath, not as bundle resources.
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["HookCLI", "TestSupport"]
        ),
        // The real Claude Code and aider (scripts/install-real-agents.sh) driven in tmux: timed apart with
        // `swift test --skip-build --filter RealAgentTests`.
        .testTarget(
            name: "RealAgentTests",
            dependencies: ["HookCLI", "TestSupport"]
        ),
    ]
)
