// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "hookctl",
    products: [
        .executable(name: "hookctl", targets: ["hookctl"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "HookKit",
            dependencies: ["CCurl", "CYAML", "CCrypto"]
        ),
        .executableTarget(
            name: "hookctl",
            dependencies: ["HookKit"]
        ),
        .testTarget(
            name: "HookKitTests",
            dependencies: ["HookKit"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["HookKit"]
        ),
    ]
)
