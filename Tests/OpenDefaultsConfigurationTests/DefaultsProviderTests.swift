import Configuration
import ConfigurationTesting
import Foundation
import OpenDefaults
import OpenDefaultsConfiguration
import PropertyList
import Synchronization
import Testing
import TestSupport

/// A throw-away preferences folder (and system root) with a store over it.
final class Sandbox {
    let root: String
    var user: String { root + "/config" }
    var system: String { root + "/system" }
    var layout: PreferencesLayout {
        PreferencesLayout(userDirectory: user, systemDirectory: system + "/usr/local/etc", managedDirectory: system + "/etc/managed-preferences",
            hostIdentifier: "0123456789abcdef0123456789abcdef", userName: "tester")
    }
    let store: DomainStore

    init() throws {
        root = try ScratchFolders.make("opendefaults-config").path
        try FileManager.default.createDirectory(atPath: root + "/config", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/system/etc", withIntermediateDirectories: true)
        store = DomainStore(layout: PreferencesLayout(userDirectory: root + "/config", systemDirectory: root + "/system/usr/local/etc",
            managedDirectory: root + "/system/etc/managed-preferences", hostIdentifier: "0123456789abcdef0123456789abcdef", userName: "tester"))
        store.setErrorHandler { _ in }
    }

    deinit { ScratchFolders.remove(URL(fileURLWithPath: root)) }

    func defaults(_ domain: String = "com.example.server", arguments: [String] = ["server"]) -> Defaults {
        Defaults(domainName: domain, store: store, arguments: arguments)
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = user
        env["OPENDEFAULTS_SYSTEM_ROOT"] = system
        env["USER"] = "tester"
        return env
    }
}

let magic: [UInt8] = [0x6d, 0x61, 0x67, 0x69, 0x63]
let magic2: [UInt8] = [0x6d, 0x61, 0x67, 0x69, 0x63, 0x32]

@Suite("DefaultsProvider: swift-configuration over a defaults search list", .timeLimit(.minutes(10)))
struct DefaultsProviderTests {
    @Test("swift-configuration's own provider compatibility test passes (flat and nested keys)")
    func compatibility() async throws {
        let sandbox = try Sandbox()
        let d = sandbox.defaults()
        // Flat dotted keys for some, a nested dictionary ("other") for the rest.
        d.setPropertyList(.dictionary([
            "string": "Other Hello", "int": 24, "double": .real(2.72), "bool": false, "bytes": .data(Data(magic2)),
            "stringy": ["array": ["Hello", "Swift"]], "inty": ["array": [16, 32]], "doubly": ["array": [.real(0.9), .real(1.8)]],
            "booly": ["array": [false, true, true]], "byteChunky": ["array": [.data(Data(magic)), .data(Data(magic2)), .data(Data(magic))]],
        ]), forKey: "other")
        let flat: [LiteralString: PropertyList] = [
            "string": "Hello", "int": 42, "double": .real(3.14), "bool": true, "bytes": .data(Data(magic)),
            "stringy.array": ["Hello", "World"], "inty.array": [42, 24], "doubly.array": [.real(3.14), .real(2.72)],
            "booly.array": [true, false], "byteChunky.array": [.data(Data(magic)), .data(Data(magic2))],
        ]
        for (k, v) in flat { d.setPropertyList(v, forKey: k.string) }
        try await ProviderCompatTest(provider: DefaultsProvider(defaults: d)).runTest()
    }

    @Test("ConfigReader end to end: the command line beats the domain, which beats registered defaults; nested keys; conversions")
    func reader() throws {
        let sandbox = try Sandbox()
        let d = sandbox.defaults(arguments: ["server", "-http.port", "9090"])
        d.register(defaults: ["http.host": "0.0.0.0", "workers": 2])
        d.set(["port": 8080, "host": "127.0.0.1", "tls": true] as [String: Any], forKey: "http")
        d.set("4", forKey: "workers")
        d.set(["a", "b"], forKey: "peers")
        let config = ConfigReader(provider: DefaultsProvider(defaults: d))
        #expect(config.int(forKey: "http.port") == 9090)         // NSArgumentDomain, a string read as int
        #expect(config.string(forKey: "http.host") == "0.0.0.0")  // a flat key (here registered) wins over the nested one
        #expect(config.bool(forKey: "http.tls") == true)          // nested
        #expect(config.int(forKey: "workers") == 4)               // the domain's string beats the registered 2
        #expect(config.stringArray(forKey: "peers") == ["a", "b"])
        #expect(config.string(forKey: "absent") == nil)
        #expect(config.int(forKey: "http.host", default: 1) == 1)  // not convertible: the default
    }

    @Test("a value that cannot be read as the type asked for throws an error naming the key and the value")
    func conversionError() throws {
        let sandbox = try Sandbox()
        let d = sandbox.defaults()
        d.set("eighty", forKey: "port")
        let provider = DefaultsProvider(defaults: d)
        #expect(throws: DefaultsProviderError.self) { try provider.value(forKey: AbsoluteConfigKey(["port"]), type: .int) }
        do {
            _ = try provider.value(forKey: AbsoluteConfigKey(["port"]), type: .int)
        } catch {
            #expect("\(error)".contains("'port'") && "\(error)".contains("eighty"))
        }
    }

    @Test("secrets are marked as secrets")
    func secrets() throws {
        let sandbox = try Sandbox()
        let d = sandbox.defaults()
        d.set(["password": "hunter2"] as [String: Any], forKey: "db")
        let provider = DefaultsProvider(defaults: d, secrets: .specific(["db.password"]))
        #expect(try provider.value(forKey: AbsoluteConfigKey(["db", "password"]), type: .string).value?.isSecret == true)
        d.set("x", forKey: "name")
        #expect(try provider.value(forKey: AbsoluteConfigKey(["name"]), type: .string).value?.isSecret == false)
    }

    @Test("a snapshot does not change when the defaults do")
    func snapshotIsFrozen() throws {
        let sandbox = try Sandbox()
        let d = sandbox.defaults()
        d.set(1, forKey: "n")
        let provider = DefaultsProvider(defaults: d)
        let snapshot = provider.snapshot()
        d.set(2, forKey: "n")
        #expect(try snapshot.value(forKey: AbsoluteConfigKey(["n"]), type: .int).value?.content == .int(1))
        #expect(try provider.snapshot().value(forKey: AbsoluteConfigKey(["n"]), type: .int).value?.content == .int(2))
    }

    @Test("a forced value beats the user's", .requires(.root))
    func forced() throws {
        let sandbox = try Sandbox()
        let managed = sandbox.layout.managedDirectory
        try FileManager.default.createDirectory(atPath: managed, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try PropertyList.dictionary(["http.port": 443]).data(as: .xml).write(to: URL(fileURLWithPath: managed + "/com.example.server.plist"))
        chmod(managed + "/com.example.server.plist", 0o644)
        let d = sandbox.defaults()
        d.set(8080, forKey: "http.port")
        let config = ConfigReader(provider: DefaultsProvider(defaults: d))
        #expect(config.int(forKey: "http.port") == 443)
    }

    @Test("another process's `defaults write` reaches watchValue and watchSnapshot (no polling)")
    func watching() async throws {
        let sandbox = try Sandbox()
        let d = sandbox.defaults()
        d.set(1, forKey: "level")
        #expect(d.synchronize())
        let provider = DefaultsProvider(defaults: d)
        let tool = productsDirectory + "/defaults"
        let latencies = Mutex<[Duration]>([])
        try await provider.watchValue(forKey: AbsoluteConfigKey(["level"]), type: .int) { updates in
            var iterator = updates.makeAsyncIterator()
            #expect(try await iterator.next()?.get().value?.content == .int(1))
            for n in 2...11 {
                let start = ContinuousClock.now
                let written = try runProcess(tool, ["write", "com.example.server", "level", "-int", String(n)], environment: sandbox.environment)
                #expect(written.status == 0, "\(written.stderr)")
                let next = try await iterator.next()?.get().value?.content
                latencies.withLock { $0.append(ContinuousClock.now - start) }
                #expect(next == .int(n))
            }
        }
        let sorted = latencies.withLock { $0 }.sorted()
        print("DefaultsProvider watch latency, a `defaults write` process start included: median \(sorted[sorted.count / 2]), max \(sorted.last!)")
        try await provider.watchSnapshot { updates in
            var iterator = updates.makeAsyncIterator()
            #expect(try await iterator.next()?.value(forKey: AbsoluteConfigKey(["level"]), type: .int).value?.content == .int(11))
            let written = try runProcess(tool, ["write", "com.example.server", "level", "-int", "12"], environment: sandbox.environment)
            #expect(written.status == 0, "\(written.stderr)")
            var latest: ConfigContent? = nil
            while latest != .int(12), let snapshot = try await iterator.next() {
                latest = try snapshot.value(forKey: AbsoluteConfigKey(["level"]), type: .int).value?.content
            }
            #expect(latest == .int(12))
        }
    }
}

/// The folder that holds the built executables (beside the test bundle).
let productsDirectory: String = {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while url.path != "/" {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("defaults").path) { return url.path }
        url.deleteLastPathComponent()
    }
    return FileManager.default.currentDirectoryPath + "/.build/debug"
}()
