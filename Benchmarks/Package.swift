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
    ],
    targets: [
        .executableTarget(
            name: "PropertyListBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PropertyList", package: "OpenDefaults"),
                "CHeapSize",
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
        // Sandboxes, helper programs, spawning: shared by the benchmark executables.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "OpenDefaults", package: "OpenDefaults")],
            path: "Sources/BenchmarkSupport"),
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
