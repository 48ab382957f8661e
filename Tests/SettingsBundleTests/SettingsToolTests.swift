import Foundation
import PropertyList
import Testing
import TestSupport

/// The `settings` executable, black box.
@Suite("settings tool", .offThePool, .timeLimit(.minutes(10)))
struct SettingsToolTests {
    static let example = repositoryRoot.appendingPathComponent("Examples/AppSettings/Settings.bundle").path

    func settings(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let r = try runProcess(productsDirectory.appendingPathComponent("settings").path, arguments, environment: env)
        return (r.status, r.stdout, r.stderr)
    }

    @Test func validateACleanBundle() throws {
        let r = try settings(["validate", Self.example])
        #expect(r.status == 0)
        #expect(r.out == "\(Self.example): OK (2 panes, 6 defaults)\n")
    }

    @Test func validateReportsEachProblemAndFails() throws {
        let dir = try TemporaryDirectory()
        try dir.write("Root.plist", .dictionary(["PreferenceSpecifiers": [
            ["Type": "PSSliderSpecifier", "Key": "s", "DefaultValue": 20, "MinimumValue": 1, "MaximumValue": 10],
            ["Type": "PSChildPaneSpecifier", "File": "Gone"],
        ]]))
        let r = try settings(["validate", dir.path])
        #expect(r.status == 1)
        #expect(r.out.contains("\(dir.path)/Root.plist[0] key 's': warning: DefaultValue 20 is outside [MinimumValue, MaximumValue] = [1.0, 10.0]\n"))
        #expect(r.out.contains("\(dir.path)/Gone.plist: error: missing child pane (no such file), referenced from Root.plist\n"))
        #expect(r.out.hasSuffix(": 1 error, 1 warning, 0 notes\n"))
        let missing = try settings(["validate", dir.path + "/nope"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("no such bundle"))
    }

    @Test func defaultsPrintsAnXMLPropertyList() throws {
        let r = try settings(["defaults", Self.example])
        #expect(r.status == 0)
        let value = try PropertyList(decoding: Array(r.out.utf8), format: .xml)
        #expect(value["protocol"] == "SMTP")
        #expect(value["warpfactor"] == 5)
        #expect(value["warp"] == "Engaged")
        #expect(value.dictionaryValue?.count == 6)
    }

    @Test func installCopiesIntoTheDataHome() throws {
        let dir = try TemporaryDirectory()
        let r = try settings(["install", Self.example, "--domain", "com.example.AppSettings"], environment: ["XDG_DATA_HOME": dir.path])
        #expect(r.status == 0, "\(r.err)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/settings-bundles/com.example.AppSettings/Settings.bundle/More.plist"))
        let bad = try settings(["install", Self.example, "--domain", "not/a domain"], environment: ["XDG_DATA_HOME": dir.path])
        #expect(bad.status == 1 && bad.err.contains("not a valid application domain name"))
    }

    @Test("serve on a port in use says so in words, exit 1; a usage error exits 64, as the man page says")
    func busyPortAndUsage() throws {
        // A port held by a listening socket of this process.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        #expect(bound == 0 && listen(fd, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let r = try settings(["serve", "--port", String(port), "--bundle", Self.example, "--domain", "com.example.AppSettings"])
        #expect(r.status == 1)
        #expect(r.err == "settings: cannot listen on 127.0.0.1:\(port): the address is in use (try another port with --port)\n", "\(r.err)")
        let usage = try settings(["serve", "--bogus"])
        #expect(usage.status == 64 && usage.err.hasPrefix("Error: Unknown option '--bogus'"), "\(usage.err)")
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("Packaging/man/settings.1"), encoding: .utf8)
        #expect(page.contains("A usage error (an unknown option, a missing or invalid argument) exits 64"))
    }
}
