// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "OpenDefaults",
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "OpenDefaults", targets: ["OpenDefaults"]),
        .library(name: "OpenDefaultsFoundation", targets: ["OpenDefaultsFoundation"]),
        .library(name: "OpenDefaultsConfiguration", targets: ["OpenDefaultsConfiguration"]),
        .executable(name: "plutil", targets: ["plutil"]),
        .executable(name: "defaults", targets: ["defaults"]),
        .library(name: "SettingsBundle", targets: ["SettingsBundle"]),
        .executable(name: "settings", targets: ["settings"]),
        .library(name: "OpenDefaultsUbiquity", targets: ["OpenDefaultsUbiquity"]),
        .library(name: "OpenDefaultsUbiquityHTTP", targets: ["OpenDefaultsUbiquityHTTP"]),
        .executable(name: "ubiquity", targets: ["ubiquity"]),
        .library(name: "ConfigurationProfiles", targets: ["ConfigurationProfiles"]),
        .executable(name: "profiles", targets: ["profiles"]),
    ],
    // The libraries need the toolchain alone; what the tools, the servers and two libraries need is
    // behind a trait, all on by default. An app that uses only the core libraries depends on this
    // package with `traits: []` and fetches no other package (README, "Using the libraries").
    traits: [
        .trait(name: "Tools", description: "The tools and servers (defaults, plutil, settings, profiles, ubiquity) and the tests: swift-argument-parser, Hummingbird, SwiftNIO, SQLite, PostgreSQL, swift-log, swift-metrics, swift-certificates …"),
        .trait(name: "Configuration", description: "OpenDefaultsConfiguration: swift-configuration."),
        .trait(name: "UbiquityHTTP", description: "OpenDefaultsUbiquityHTTP: AsyncHTTPClient, SwiftNIO, NIOSSL."),
        .default(enabledTraits: ["Tools", "Configuration", "UbiquityHTTP"]),
    ],
    dependencies: [
        // Only the `settings` tool and its web app use these; the libraries need the toolchain alone.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Only for the `settings` server's connection handler (both already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // HTTP field and status types of the one Hummingbird adapter (already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Only OpenDefaultsConfiguration uses it (no traits: FoundationEssentials alone).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        // The `ubiquity` sync server's embedded database (SQLite vendored: no system library).
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        // The sync client's HTTP (OpenDefaultsUbiquityHTTP and the `ubiquity` tool only).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Token hashing and TLS of the sync server (both already in the graph through the HTTP client).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The sync server's PostgreSQL backend (the `ubiquity` executable only; no library links it).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The sync server's logs, metrics (exported for Prometheus) and spans (the `ubiquity` executable only).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Configuration profiles' CMS signatures (the `profiles` executable only; no library links it).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // The sync server's shutdown order (already in the graph through Hummingbird).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The typed value, every format's reader and writer, Codable. Toolchain only.
        .target(name: "PropertyList", dependencies: ["PlatformIO"]),
        // Persistent domains (storage, coherence, managed preferences) and the defaults API.
        .target(name: "OpenDefaults", dependencies: ["PropertyList", "PlatformIO", "SharedTables"]),
        // Foundation's edge: `Defaults.didChangeNotification` through NotificationCenter,
        // OpenUserDefaults, Foundation's objects as property-list values.
        .target(name: "OpenDefaultsFoundation", dependencies: ["OpenDefaults", "PropertyList", "OpenDefaultsUbiquity", "PlatformIO", "SharedTables"]),
        // A swift-configuration provider over a defaults search list.
        .target(
            name: "OpenDefaultsConfiguration",
            dependencies: ["OpenDefaults", "PropertyList", "PlatformIO", "SharedTables", .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"]))]
        ),
        // Every system call of the libraries and tools (no Foundation): files, locks, mappings, folder
        // events, the process's environment. A port to another system touches this module alone.
        .target(name: "PlatformIO"),
        // The tables shared between threads (locks, observer lists and registries, weak tables, the
        // attachment slot): no system call, as swift-nio keeps NIOConcurrencyHelpers apart.
        .target(name: "SharedTables"),
        // macOS `plutil` on Linux.
        .executableTarget(name: "plutil", dependencies: ["PropertyList", "PlatformIO"]),
        // What the argument-parser tools share: "did you mean …?" for a mistyped command, macOS's
        // one-dash long options (`profiles install -path`).
        .target(name: "CommandLineSupport", dependencies: ["Spelling", "PlatformIO", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))]),
        // "Did you mean …?": the word nearest to a typo (tools' verbs and flags, profiles' payload keys). Toolchain only.
        .target(name: "Spelling"),
        // The `defaults write` value grammar (-string, -int, -array …), shared by `defaults` and `ubiquity`.
        .target(name: "ValueGrammar", dependencies: ["OpenDefaults", "PropertyList", "Spelling"]),
        // macOS `defaults` on Linux, over OpenDefaults.
        .executableTarget(name: "defaults", dependencies: ["OpenDefaults", "PropertyList", "PlatformIO", "SharedTables", "ValueGrammar", "ConfigurationProfiles", "Spelling"]),
        // The sync protocol both sides agree on: wire messages, limits, key and store-name rules.
        .target(name: "UbiquityProtocol", dependencies: ["PropertyList"]),
        // NSUbiquitousKeyValueStore: the local-first store and its sync engine (transport is a seam). Toolchain only.
        .target(name: "OpenDefaultsUbiquity", dependencies: ["OpenDefaults", "PropertyList", "PlatformIO", "SharedTables", "UbiquityProtocol"]),
        // The sync protocol's client over HTTP (AsyncHTTPClient).
        .target(
            name: "OpenDefaultsUbiquityHTTP",
            dependencies: [
                "OpenDefaultsUbiquity", "PlatformIO",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["UbiquityHTTP"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["UbiquityHTTP"])),
                .product(name: "NIOFoundationCompat", package: "swift-nio", condition: .when(traits: ["UbiquityHTTP"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["UbiquityHTTP"])),
            ]
        ),
        // The seam between the sync server and its databases: the backend protocol, the commit
        // rules every backend applies (CommitDecision), the records. No database, no server framework.
        .target(
            name: "UbiquityBackend",
            dependencies: [
                "UbiquityProtocol", "PropertyList", "PlatformIO", "SharedTables",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The sync server's embedded database: SQLite (vendored by sqlite-nio), backups and restores.
        .target(
            name: "UbiquitySQLite",
            dependencies: [
                "UbiquityBackend", "UbiquityProtocol", "PropertyList", "PlatformIO", "SharedTables",
                .product(name: "SQLiteNIO", package: "sqlite-nio", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The sync server: protocol routes over Hummingbird, change fan-out; any backend (it knows no database).
        .target(
            name: "UbiquityServer",
            dependencies: [
                "UbiquityBackend", "UbiquityProtocol", "PropertyList", "PlatformIO", "SharedTables", "HTTPGuards", "HTTPMessages",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Tools"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The one request and response both servers' applications speak (no server framework):
        // the Settings app and the sync service are tested in-process with them.
        .target(name: "HTTPMessages", dependencies: ["PropertyList", "SharedTables"]),
        // What every HTTP server here needs against hostile clients: a connection cap that sheds
        // idle unauthenticated connections first, bodies with a deadline of their own, a TLS
        // certificate and key checked at start; and the one Hummingbird adapter of HTTPMessages'
        // request and response.
        .target(
            name: "HTTPGuards",
            dependencies: [
                "HTTPMessages", "PlatformIO", "SharedTables",
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Tools"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The sync server's backend on PostgreSQL: several instances, one database, LISTEN/NOTIFY wake-ups.
        .target(
            name: "UbiquityPostgres",
            dependencies: [
                "UbiquityBackend", "UbiquityProtocol", "PropertyList", "PlatformIO", "SharedTables",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Tools"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Tools"])),
            ]
        ),
        // `ubiquity agent`'s executor: Swift's jobs on threads that sleep until there is work, not
        // on libdispatch's pool, which wakes every second (proposal 0020). C: it must be in place
        // before the async main starts.
        .target(name: "AgentExecutor"),
        // `ubiquity serve|account|login|logout|get|set|remove|list|watch|sync`.
        .executableTarget(
            name: "ubiquity",
            dependencies: [
                "OpenDefaultsUbiquity", "OpenDefaultsUbiquityHTTP", "UbiquityServer", "UbiquityBackend", "UbiquitySQLite", "UbiquityPostgres", "ValueGrammar", "CommandLineSupport",
                "OpenDefaults", "PropertyList", "PlatformIO", "UbiquityFleet", "UbiquityProtocol", "ConfigurationProfiles", "SharedTables", "AgentExecutor", "HTTPGuards",
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Tools"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Tools"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
            ]
        ),
        .testTarget(
            name: "UbiquityTests",
            dependencies: ["TestSupport", "OpenDefaultsUbiquity", "OpenDefaultsUbiquityHTTP", "OpenDefaults", "PropertyList", "UbiquityServer", "UbiquityBackend", "UbiquitySQLite", "UbiquityPostgres", "HTTPMessages", "HTTPGuards", "LookalikeStrings", "PlatformIO", "SharedTables", "UbiquityProtocol", "UbiquityFleet",
                           .product(name: "SQLiteNIO", package: "sqlite-nio", condition: .when(traits: ["Tools"])),
                           .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Tools"])),
                           .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Tools"])),
                           .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tools"])),
                           .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tools"])),
                           .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Tools"]))],
            exclude: ["Scripts"]
        ),
        // Configuration profiles (.mobileconfig): their managed preferences (Forced, Set-Once, custom payloads).
        .target(name: "ConfigurationProfiles", dependencies: ["OpenDefaults", "PropertyList", "PlatformIO", "SharedTables", "Spelling"]),
        // A profile's CMS signature checked against trusted roots (swift-certificates); for the `profiles` tool.
        .target(
            name: "ProfileSignatures",
            dependencies: [
                "ConfigurationProfiles", "OpenDefaults", "PlatformIO",
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Tools"])), .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["Tools"])),
            ]
        ),
        // A fleet's declarations (proposal 0018): signed by the organisation, checked against the pinned
        // certificate, applied through ProfileStore; the agent's files. For `ubiquity agent` and `policy`.
        .target(
            name: "UbiquityFleet",
            dependencies: [
                "ConfigurationProfiles", "ProfileSignatures", "OpenDefaults", "PropertyList", "PlatformIO", "SharedTables", "UbiquityProtocol",
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["Tools"])), .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Tools"])),
            ]
        ),
        // `profiles`: install, remove, list, show, validate, status, apply.
        .executableTarget(
            name: "profiles",
            dependencies: [
                "ConfigurationProfiles", "ProfileSignatures", "OpenDefaults", "PropertyList", "PlatformIO", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ]
        ),
        .testTarget(
            name: "ConfigurationProfilesTests",
            dependencies: ["TestSupport", "ConfigurationProfiles", "OpenDefaults", "PropertyList"],
            // The scripts that ask Chromium and Firefox which policies they obey.
            exclude: ["Scripts"]
        ),
        // Settings bundles: panes, specifiers, string tables, validation, registration.
        .target(name: "SettingsBundle", dependencies: ["OpenDefaults", "PropertyList", "PlatformIO"]),
        // The Settings app as HTML pages and form handling (no server code; testable alone).
        .target(name: "SettingsWeb", dependencies: ["SettingsBundle", "OpenDefaults", "PropertyList", "PlatformIO", "SharedTables", "ConfigurationProfiles", "HTTPMessages"]),
        // `settings validate|defaults|install|serve`: the Settings app in the browser.
        .executableTarget(
            name: "settings",
            dependencies: [
                "SettingsBundle", "SettingsWeb", "PropertyList", "PlatformIO", "HTTPGuards", "HTTPMessages", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Tools"])),
            ]
        ),
        .testTarget(
            name: "SettingsBundleTests",
            dependencies: ["TestSupport", "SettingsBundle", "SettingsWeb", "OpenDefaults", "PropertyList", "ConfigurationProfiles", "HTTPMessages"]
        ),
        // Test helper: prints a file's value as the conformance corpus' canonical JSON.
        .executableTarget(name: "plist-canonical", dependencies: ["PropertyList", "PlatformIO"]),
        // Test support: seeded property lists whose strings look alike but differ
        // in their scalars (NFC/NFD, singletons, Hangul, combining-mark order).
        .target(name: "LookalikeStrings", dependencies: ["PropertyList", "TestSupport"], path: "Tests/LookalikeStrings"),
        // Test support: what a test needs from the machine (root, ../shared, …: skipped
        // with the reason, or failed when the run requires it) and a replayable generator.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["TestSupport", "PropertyList", "LookalikeStrings"],
            exclude: ["FuzzRegressions"]
        ),
        // Test helper: a separate process that reads and writes domains, for multi-process tests.
        .executableTarget(name: "defaults-test-helper", dependencies: ["OpenDefaults", "PropertyList", "PlatformIO"]),
        .testTarget(
            name: "DefaultsToolTests",
            dependencies: ["TestSupport", "PropertyList", "LookalikeStrings"]
        ),
        // The migration guide's program: UserDefaults code moved to OpenDefaults by one import and one line.
        .executableTarget(name: "one-line-adoption", dependencies: ["OpenDefaultsFoundation"], path: "Examples/OneLineAdoption"),
        // Test helper: the same UserDefaults code over Foundation's class and OpenUserDefaults.
        .executableTarget(name: "userdefaults-probe", dependencies: ["OpenDefaults", "OpenDefaultsFoundation", "PropertyList"]),
        // Real-world UserDefaults snippets that must compile with `typealias UserDefaults = Defaults`.
        .testTarget(
            name: "SourceCompatibilityTests",
            dependencies: ["OpenDefaults", "OpenDefaultsFoundation"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        .testTarget(
            name: "OpenDefaultsTests",
            dependencies: ["TestSupport", "OpenDefaults", "OpenDefaultsFoundation", "PropertyList", "PlatformIO", "SharedTables", "LookalikeStrings"]
        ),
        .testTarget(
            name: "OpenDefaultsConfigurationTests",
            dependencies: ["TestSupport", 
                "OpenDefaultsConfiguration", "OpenDefaults", "PropertyList",
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Tools"])),
                .product(name: "ConfigurationTesting", package: "swift-configuration", condition: .when(traits: ["Tools"])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Import discipline on every target, as swift-configuration's package has it: an import is
// internal unless written `public import`/`package import`, a member is visible only through a
// module the file imports, and an existential is written `any P`.
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("ExistentialAny"),
    ]
}

// CI's ThreadSanitizer stage (.ci/run) runs OpenDefaultsTests alone: with OPENDEFAULTS_TSAN_SUBSET
// set, the package holds only that suite, the programs its tests start, and what they depend on,
// so the sanitized build compiles no server, database driver or TLS library it would not run.
if Context.environment["OPENDEFAULTS_TSAN_SUBSET"] != nil {
    var kept: Set<String> = []
    var todo = ["OpenDefaultsTests", "defaults-test-helper", "userdefaults-probe", "one-line-adoption", "defaults"]
    while let name = todo.popLast() {
        guard kept.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): todo.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
}
