import Foundation
import OpenDefaults
import Testing

@Suite("UserDefaults code compiles against Defaults with a typealias, and runs", .timeLimit(.minutes(10)))
struct SourceCompatibilityTests {
    @Test("the snippets run against a throw-away store and read back what they wrote")
    func snippets() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opendefaults-compat-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = DomainStore(layout: PreferencesLayout(userDirectory: folder.path, systemDirectory: folder.path + "/system",
            managedDirectory: folder.path + "/managed", hostIdentifier: "0123456789abcdef", userName: "tester"))
        store.setErrorHandler { _ in }
        let defaults: UserDefaults = Defaults(domainName: "com.example.compat", store: store, arguments: [])
        settingValues(defaults)
        // The registration domain is the process's (other tests register too), but only this snippet
        // registers "CompatName": all nine answers are compared.
        let domains = workingWithDomains(defaults)
        #expect(domains == ["1", "3", "1", "0", "0", "Guest", "false", "false", "true"])
        let seen = gettingValues(defaults)
        #expect(seen.prefix(2) == ["Ada", "Ada"])
        #expect(seen.contains("800"))
        #expect(seen.contains("/tmp/file"))
        #expect(defaults.object(forKey: "Removed") == nil)
        #expect(defaults.object(forKey: "Boxed") as? Bool == true)
        #expect(defaults.integer(forKey: "Big") == 1 << 40)
        // appLaunch() is compiled, not run (it uses the real standard object).
        let launch: () -> [Any] = appLaunch
        _ = launch
    }
}
