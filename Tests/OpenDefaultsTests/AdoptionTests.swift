import Foundation
import PropertyList
import Testing
import TestSupport

/// The migration guide's promise: one import and one line
/// (`typealias UserDefaults = OpenUserDefaults`) move code written for
/// Foundation's `UserDefaults` to OpenDefaults, suites included. The guide's
/// program (`Examples/OneLineAdoption/main.swift`, compiled by `swift build`)
/// is run in a throw-away home and what it wrote is read back from the disk.
@Suite("Adopting OpenDefaults in one line: the migration guide's program", .timeLimit(.minutes(2)))
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
}
