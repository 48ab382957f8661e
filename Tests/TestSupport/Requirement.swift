public import Foundation
public import Testing

/// Something a test needs from the machine it runs on: root, `../shared`,
/// PostgreSQL, a browser, a program.
///
/// A test that needs it says so with ``Testing/Trait/requires(_:sourceLocation:)``.
/// Where the requirement is missing the test is skipped, with the reason —
/// unless the run requires it (`OPENDEFAULTS_REQUIRE_<NAME>=1`, which
/// `.ci/run` sets for every requirement CI provides): then the test fails,
/// naming what is missing. A skip never hides a suite CI is meant to run.
///
/// ```swift
/// @Test("a managed key wins", .requires(.root))
/// func managedKeyWins() throws { … }
/// ```
public struct Requirement: Sendable, CustomStringConvertible {
    /// The switch's name: `OPENDEFAULTS_REQUIRE_<name>`.
    public let name: String
    /// What is missing, said as "needs …".
    public let description: String
    let check: @Sendable () -> Bool
    let installed: @Sendable () -> Bool

    /// `check` says whether the machine has it, when a test that needs it runs;
    /// `installed`, a cheap first look (asked of every test as the run is
    /// planned, selected or not: it must not start servers or mount), says whether
    /// to name it as missing in a skip's reason (default: `check` itself).
    public init(_ name: String, _ description: String, installed: (@Sendable () -> Bool)? = nil, _ check: @escaping @Sendable () -> Bool) {
        (self.name, self.description, self.check) = (name, description, check)
        self.installed = installed ?? check
    }

    /// The environment variable that makes a missing requirement a failure.
    public var variable: String { "OPENDEFAULTS_REQUIRE_" + name }

    /// Whether this run must not skip the tests that need it.
    public var isRequired: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// Whether the machine has it.
    public var isMet: Bool { check() }

    /// Running as root (owning managed files, switching users, mounting).
    public static let root = Requirement("ROOT", "needs root (run the tests as root, e.g. in a container)") { getuid() == 0 }

    /// Root with `setpriv` to act as another user.
    public static let otherUser = Requirement("ROOT", "needs root and /usr/bin/setpriv (as root: apt-get install util-linux)") {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    /// `../shared` beside the repository (the corpora and the reference).
    public static let shared = Requirement("SHARED", "needs ../shared beside the repository: the project's shared folder (the corpora of property lists, Settings bundles and profiles, and Apple's reference) cloned next to this one") { sharedDirectory != nil }

    /// `python3` on the PATH (the corpus' check.py, plistlib cross-checks).
    public static let python = Requirement("PYTHON", "needs python3 (apt-get install python3)") { pythonPath != nil }

    /// `python3` on the PATH, if any.
    public static let pythonPath: String? = {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// `curl`, for requests no HTTP client library would send.
    public static let curl = program("/usr/bin/curl", "CURL", package: "curl")

    /// Python's `prometheus_client` (PyPI), whose parser checks the metrics' text format.
    public static let prometheusParser = Requirement("PROMETHEUS", "needs python3 with prometheus_client (pip install prometheus-client)") {
        pythonImports("prometheus_client.parser")
    }

    /// Whether python3 is here and imports `module`.
    static func pythonImports(_ module: String) -> Bool {
        guard let python = pythonPath else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", "import " + module]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Debian's Firefox ESR, driven through its built-in Marionette protocol.
    public static let firefox = program("/usr/bin/firefox-esr", "FIREFOX", package: "firefox-esr")

    /// GNOME's settings stack: `dconf` (to compile databases), `gsettings` and the desktop schemas.
    public static let gnomeSettings = Requirement(
        "DCONF", "needs dconf, gsettings and the GNOME desktop schemas (apt-get install dconf-cli libglib2.0-bin gsettings-desktop-schemas)"
    ) {
        ["/usr/bin/dconf", "/usr/bin/gsettings", "/usr/share/glib-2.0/schemas/org.gnome.desktop.background.gschema.xml"]
            .allSatisfy(FileManager.default.fileExists(atPath:))
    }

    /// Headless Chromium, its driver and Selenium (python3): the Settings app's browser tests, and `chrome://policy`.
    public static let chromium = Requirement(
        "BROWSER", "needs Chromium, its driver and Selenium (as root: apt-get install chromium chromium-driver; pip install selenium)"
    ) {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && pythonImports("selenium")
    }

    /// `openssl`, for throw-away certificates.
    public static let openssl = program("/usr/bin/openssl", "OPENSSL", package: "openssl")

    /// A program at an absolute path, from a Debian package.
    public static func program(_ path: String, _ name: String, package: String) -> Requirement {
        Requirement(name, "needs \(path) (apt-get install \(package))") { FileManager.default.isExecutableFile(atPath: path) }
    }

    /// The repository's root, from this file's path.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` beside the repository, when it exists.
    public static let sharedDirectory: URL? = {
        let url = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("corpora").path) ? url : nil
    }()
}

/// A requirement the run requires (`OPENDEFAULTS_REQUIRE_<NAME>=1`) but the machine lacks.
public struct RequirementMissing: Error, CustomStringConvertible {
    public let requirement: Requirement
    public var description: String {
        "\(requirement.variable)=1 but this machine does not meet it: the test \(requirement.description)"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where every requirement is met; where one is missing
    /// the test is skipped, or fails when the run requires it
    /// (`OPENDEFAULTS_REQUIRE_<NAME>=1`). The skip's reason names only what is
    /// missing, and how to get it.
    public static func requires(_ requirements: Requirement..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let absent = requirements.filter { !$0.installed() }
        let comment = absent.isEmpty ? nil : Comment(rawValue: absent.map(\.description).joined(separator: "; "))
        return .enabled(comment, sourceLocation: sourceLocation) {
            for requirement in requirements where !requirement.isMet {
                if requirement.isRequired { throw RequirementMissing(requirement: requirement) }
                return false
            }
            return true
        }
    }
}
