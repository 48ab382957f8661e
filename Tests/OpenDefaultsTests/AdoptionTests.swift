import Foundation
import PropertyList
import Testing
import TestSupport

/// The migration guide's promise: one import and one line
/// (`typealias UserDefaults = OpenUserDefaults`) move code written for
/// Foundation's `UserDefaults` to OpenDefaults, suites included. The guide's
/// program (`Examples/OneLineAdoption/main.swift`, compiled by `swift build`)
/// is run in a throw-away home and what it wrote is read back from the disk.
@Suite("Adopting OpenDefaults in one line: the migration guide's program", .offThePool, .timeLimit(.minutes(10)))
struct AdoptionTests {
    @Test("UserDefaults.standard and UserDefaults(suiteName:) both reach the disk, and didChangeNotification is posted once per set")
    func oneLine() throws {
        let home = try ScratchFolders.make("opendefaults-adopt")
        defer { ScratchFolders.remove(home) }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.path + "/config"
        env["OPENDEFAULTS_SYSTEM_ROOT"] = home.path + "/system"
        let program = productsDirectory.appendingPathComponent("one-line-adoption").path
        let r = try run(program, [], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Volume=11 Theme=dark SharedFlag=true\nposts=4\nstandard-is-open=true\n", "\(r.stdout)")
        // The application's domain (named for the program) and the suite, on disk.
        let standard = try PropertyList.decode(Data(contentsOf: home.appendingPathComponent("config/one-line-adoption.plist"))).value
        #expect(standard["Volume"] == .integer(11))
        #expect(standard["Theme"] == .string("dark"))
        #expect(standard["Recent"] == .array([.string("a"), .string("b")]))
        let suite = try PropertyList.decode(Data(contentsOf: home.appendingPathComponent("config/group.com.example.shared.plist"))).value
        #expect(suite["SharedFlag"] == .boolean(true))
        #expect(suite["Stats"] == .dictionary(["count": .integer(3)]))
        // The registration domain stays in memory, as Foundation keeps it.
        #expect(standard["Volume"] != nil && standard.dictionaryValue?.count == 4)
    }

    @Test("the guide's two lines are the program's first lines")
    func documentedLines() throws {
        let source = try String(contentsOf: repositoryRoot.appendingPathComponent("Examples/OneLineAdoption/main.swift"), encoding: .utf8)
        #expect(source.contains("import OpenDefaultsFoundation\ntypealias UserDefaults = OpenUserDefaults\n"))
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/OpenDefaults/OpenDefaults.docc/MigratingFromUserDefaults.md"), encoding: .utf8)
        #expect(guide.contains("import OpenDefaultsFoundation\ntypealias UserDefaults = OpenUserDefaults\n"))
    }

    @Test("a one-file app that uses the libraries with traits: [] fetches no other package and builds", .timeLimit(.minutes(10)))
    func libraryAloneFetchesNothing() async throws {
        let app = try ScratchFolders.make("opendefaults-app")
        defer { ScratchFolders.remove(app) }
        try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/app"), withIntermediateDirectories: true)
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "app",
                dependencies: [.package(path: "\(repositoryRoot.path)", traits: [])],
                targets: [.executableTarget(name: "app", dependencies: [
                    .product(name: "OpenDefaults", package: "\(repositoryRoot.lastPathComponent)"),
                    .product(name: "OpenDefaultsFoundation", package: "\(repositoryRoot.lastPathComponent)"),
                ])]
            )

            """
        try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data("""
            import OpenDefaultsFoundation
            typealias UserDefaults = OpenUserDefaults
            UserDefaults.standard.set(7, forKey: "Answer")
            print(UserDefaults.standard.integer(forKey: "Answer"))

            """.utf8).write(to: app.appendingPathComponent("Sources/app/main.swift"))
        var env = ProcessInfo.processInfo.environment
        // SwiftPM's caches and the app's preferences stay in the folder (nothing in the developer's HOME).
        env["HOME"] = app.path
        env["XDG_CONFIG_HOME"] = app.path + "/config"
        env["XDG_CACHE_HOME"] = app.path + "/cache"
        env["OPENDEFAULTS_SYSTEM_ROOT"] = app.path + "/system"
        // SwiftPM's and the compiler's temporary folders and lock files too.
        try FileManager.default.createDirectory(atPath: app.path + "/tmp", withIntermediateDirectories: true)
        env["TMPDIR"] = app.path + "/tmp"
        // A minute or more on a loaded machine: on a thread of its own, not one of the cooperative
        // pool's two (holding one that long stalled the async suites running beside it).
        let build = try await offThePool { try run("/usr/bin/env", ["swift", "build", "--package-path", app.path], environment: env) }
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        // Nothing fetched: no checkout at all (with the default traits: 28 packages, 193 MB).
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: app.path + "/.build/checkouts")) ?? []
        #expect(checkouts.isEmpty, "\(checkouts)")
        let ran = try run(app.path + "/.build/debug/app", [], environment: env)
        #expect(ran.status == 0 && ran.stdout == "7\n", "\(ran.stdout)\(ran.stderr)")
    }
}
