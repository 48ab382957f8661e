// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "OpenDefaults",
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "PropertyListBridging", targets: ["PropertyListBridging"]),
        .executable(name: "plutil", targets: ["plutil"]),
    ],
    targets: [
        // The typed value, every format's reader and writer, Codable. Toolchain only.
        .target(name: "PropertyList"),
        // Conversion to and from Foundation's bridged values (`Any`, `NSNumber`…): the edge.
        .target(name: "PropertyListBridging", dependencies: ["PropertyList"]),
        // File and standard-stream I/O over POSIX, shared by the command-line tools.
        .target(name: "ToolSupport"),
        // macOS `plutil` on Linux.
        .executableTarget(name: "plutil", dependencies: ["PropertyList", "ToolSupport"]),
        // Test helper: prints a file's value as the conformance corpus' canonical JSON.
        .executableTarget(name: "plist-canonical", dependencies: ["PropertyList", "ToolSupport"]),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "PropertyListBridging"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
