// swift-tools-version: 6.1
// Benchmarks for OpenDefaults, each compared in the same run with Foundation's
// implementation on the same machine. Run from this folder:
//   swift package benchmark
import PackageDescription

let package = Package(
    name: "Benchmarks",
    dependencies: [
        .package(name: "OpenDefaults", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        // The load generator's raw HTTP/1.1 watchers.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The bare HTTP floor of commits (http-floor), on the server's own stack.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The floor of the fleet figure (fleet-floor): the agent's HTTP client.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "PropertyListBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropertyList", package: "OpenDefaults"),
                "CHeapSize",
                "MixedDocument",
            ],
            path: "Benchmarks/PropertyListBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DefaultsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "OpenDefaults", package: "OpenDefaults"),
                .product(name: "ConfigurationProfiles", package: "OpenDefaults"),
                .product(name: "PropertyList", package: "OpenDefaults"),
            ],
            path: "Benchmarks/DefaultsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DropInBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "OpenDefaults", package: "OpenDefaults"),
                .product(name: "OpenDefaultsFoundation", package: "OpenDefaults"),
                .product(name: "OpenDefaultsConfiguration", package: "OpenDefaults"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "PropertyList", package: "OpenDefaults"),
            ],
            path: "Benchmarks/DropInBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "UbiquityBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "OpenDefaults", package: "OpenDefaults"),
                .product(name: "OpenDefaultsUbiquity", package: "OpenDefaults"),
                .product(name: "OpenDefaultsUbiquityHTTP", package: "OpenDefaults"),
                .product(name: "PropertyList", package: "OpenDefaults"),
            ],
            path: "Benchmarks/UbiquityBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // 10,000 machines watching one server: a load generator of our own.
        .executableTarget(
            name: "ubiquity-load",
            dependencies: [
                .product(name: "OpenDefaultsUbiquity", package: "OpenDefaults"),
                .product(name: "OpenDefaultsUbiquityHTTP", package: "OpenDefaults"),
                .product(name: "PropertyList", package: "OpenDefaults"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/ubiquity-load"),
        // Sandboxes, helper programs, spawning: shared by the benchmark executables.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "OpenDefaults", package: "OpenDefaults")],
            path: "Sources/BenchmarkSupport"),
        // The sync server's HTTP floor: a commit route that reads the body and answers.
        .executableTarget(
            name: "http-floor",
            dependencies: [
                "FloorServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/http-floor"),
        // The floors' servers: a Hummingbird application on a loopback port that prints its URL.
        .target(
            name: "FloorServer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Sources/FloorServer"),
        // The floor of issue 41's fleet figure: its stack and its file work, without OpenDefaults.
        .executableTarget(
            name: "fleet-floor",
            dependencies: [
                "FloorServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/fleet-floor"),
        // A durable set in a loop, for profiling it.
        .executableTarget(
            name: "defaults-set-loop",
            dependencies: ["BenchmarkSupport", .product(name: "OpenDefaults", package: "OpenDefaults"),
                           .product(name: "PropertyList", package: "OpenDefaults")],
            path: "Sources/defaults-set-loop"),
        // The mixed property list of the property-list figures, and a program that writes it.
        .target(
            name: "MixedDocument",
            dependencies: [.product(name: "PropertyList", package: "OpenDefaults")],
            path: "Sources/MixedDocument"),
        .executableTarget(name: "plist-mixed", dependencies: ["MixedDocument"], path: "Sources/plist-mixed"),
        // The library's reader and writer of each format on the mixed document (MB/s, medians).
        .executableTarget(name: "plist-formats", dependencies: ["MixedDocument"], path: "Sources/plist-formats"),
        // The heap's size (glibc's mallinfo2, which Swift's Glibc module does not export).
        .target(name: "CHeapSize", path: "Sources/CHeapSize"),
        // Programs started by the cold-start and visibility benchmarks.
        .executableTarget(name: "empty-program", path: "Sources/empty-program"),
        .executableTarget(
            name: "opendefaults-read-key",
            dependencies: [.product(name: "OpenDefaults", package: "OpenDefaults")],
            path: "Sources/opendefaults-read-key"),
        .executableTarget(
            name: "opendefaults-peek-key",
            dependencies: [.product(name: "OpenDefaults", package: "OpenDefaults")],
            path: "Sources/opendefaults-peek-key"),
        .executableTarget(name: "foundation-read-key", path: "Sources/foundation-read-key"),
        .executableTarget(
            name: "visibility-peer",
            dependencies: [.product(name: "OpenDefaults", package: "OpenDefaults")],
            path: "Sources/visibility-peer"),
    ]
)
