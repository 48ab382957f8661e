import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
@testable import OpenDefaultsFoundation
import PropertyList

/// The examples of `../shared/reference/`, as tests.
@Suite("The reference documents' examples", .timeLimit(.minutes(10)), .serialized)
struct ReferenceExampleTests {
    @Test("CacheDataAggressively with a one-week expiration date (Preferences and Settings Programming Guide)")
    func cacheDataAggressively() throws {
        let sandbox = try Sandbox()
        let (defaults, _) = makeDefaults(sandbox)
        #expect(!defaults.bool(forKey: "CacheDataAggressively"))
        // The user wants to cache files aggressively.
        defaults.set(true, forKey: "CacheDataAggressively")
        let expiration = Date(timeIntervalSinceNow: 3600 * 24 * 7)
        defaults.set(expiration, forKey: "CacheExpirationDate")
        #expect(defaults.bool(forKey: "CacheDataAggressively"))
        #expect(defaults.object(forKey: "CacheExpirationDate") as? Date == expiration)
        #expect(defaults.synchronize())
        // Lazy caching.
        defaults.set(false, forKey: "CacheDataAggressively")
        defaults.removeObject(forKey: "CacheExpirationDate")
        #expect(!defaults.bool(forKey: "CacheDataAggressively"))
        #expect(defaults.object(forKey: "CacheExpirationDate") == nil)
        #expect(defaults.synchronize())
        #expect(try sandbox.fileValue("com.example.app") == ["CacheDataAggressively": false])
    }

    @Test("factory settings with register(defaults:), integer(forKey:) and dictionaryRepresentation (iOS Programming §26.1)")
    func nextItem() throws {
        let sandbox = try Sandbox()
        let (defaults, _) = makeDefaults(sandbox, domain: "com.bignerdranch.Homepwner")
        defaults.register(defaults: ["NextItemValue": 75, "NextItemName": "Coffee Cup"])
        #expect(defaults.integer(forKey: "NextItemValue") == 75)
        #expect(defaults.object(forKey: "NextItemName") as? String == "Coffee Cup")
        defaults.set(100, forKey: "NextItemValue")
        #expect(defaults.integer(forKey: "NextItemValue") == 100)
        #expect((defaults.object(forKey: "NextItemValue") as? Int) == 100)
        let all = defaults.dictionaryRepresentation()
        #expect(all["NextItemValue"] as? Int == 100)          // the application domain
        #expect(all["NextItemName"] as? String == "Coffee Cup")  // the registration domain
        // Restoring factory settings: removing the key shows the registered value again.
        defaults.removeObject(forKey: "NextItemValue")
        #expect(defaults.integer(forKey: "NextItemValue") == 75)
    }

    @Test("the AppSettings keys: username, password, protocol, warp, warpfactor (Beginning iPhone Development ch. 10)")
    func appSettings() throws {
        let sandbox = try Sandbox()
        let (defaults, _) = makeDefaults(sandbox, domain: "com.example.AppSettings")
        defaults.register(defaults: ["protocol": "SMTP", "warp": "Engaged", "warpfactor": 5])
        #expect(defaults.object(forKey: "username") == nil)
        #expect(defaults.string(forKey: "protocol") == "SMTP")
        #expect(defaults.float(forKey: "warpfactor") == 5)
        // The flipside view writes back.
        defaults.set("Disabled", forKey: "warp")
        defaults.set(Float(7.5), forKey: "warpfactor")
        defaults.set("ada", forKey: "username")
        defaults.set("secret", forKey: "password")
        #expect(defaults.string(forKey: "warp") == "Disabled")
        #expect(defaults.float(forKey: "warpfactor") == 7.5)
        #expect(defaults.synchronize())
        let r = try run(helperPath, ["get", "com.example.AppSettings", "username"], environment: sandbox.environment)
        #expect(r.stdout == "ada\n")
    }

    @Test("didChangeNotification is posted for this process's writes and other processes'")
    func didChangeNotification() throws {
        let sandbox = try Sandbox()
        let (defaults, _) = makeDefaults(sandbox, domain: "com.example.notify")
        // The sandbox's store is not the process's: its objects post once an OpenUserDefaults wraps one.
        let wrapper = OpenUserDefaults(defaults: defaults)
        let posted = Recorder<Int>()
        let observer = NotificationCenter.default.addObserver(forName: Defaults.didChangeNotification, object: wrapper, queue: nil) { _ in
            posted.add(1)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        defaults.set(1, forKey: "a")
        #expect(posted.all.count >= 1)
        let before = posted.all.count
        #expect(try run(helperPath, ["write-sync", "com.example.notify", "b", "x"], environment: sandbox.environment).status == 0)
        #expect(eventually { posted.all.count > before })
    }
}

@Suite("Typed keys and CFPreferences", .timeLimit(.minutes(10)), .serialized)
struct TypedKeyTests {
    enum Theme: String, DefaultsValue { case light, dark }
    struct Window: DefaultsCodable, Equatable { var width = 640; var title = "Main" }

    @Test("typed keys read their default when absent or mistyped, and store property-list structures")
    func typedKeys() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        let volume = Defaults.Key<Int>("Volume", default: 5)
        let theme = Defaults.Key<Theme>("Theme", default: .light)
        let window = Defaults.Key<Window>("Window", default: Window())
        let nick = Defaults.Key<String?>("Nick", default: nil)
        #expect(d[volume] == 5)
        d[volume] += 1
        #expect(d[volume] == 6)
        d.set("loud", forKey: "Volume")
        #expect(d[volume] == 5)
        d[theme] = .dark
        #expect(d.string(forKey: "Theme") == "dark")
        #expect(d[theme] == .dark)
        d[window] = Window(width: 800, title: "Big")
        #expect(d.propertyList(forKey: "Window") == ["width": 800, "title": "Big"])
        #expect(d[window] == Window(width: 800, title: "Big"))
        d[nick] = "ada"
        #expect(d[nick] == "ada")
        d[nick] = nil
        #expect(d.object(forKey: "Nick") == nil)
    }

    @Test("the Stored property wrapper")
    func propertyWrapper() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        struct Settings {
            @Stored var volume: Int
            init(_ d: Defaults) { _volume = Stored("Volume", default: 3, defaults: d) }
        }
        let s = Settings(d)
        #expect(s.volume == 3)
        s.volume = 9
        #expect(d.integer(forKey: "Volume") == 9)
    }

    @Test("CFPreferences over explicit scopes")
    func cfPreferences() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        try CFPreferences.withStore(store) { () throws in
            CFPreferences.setAppValue("Ada", forKey: "Name", applicationID: "com.example.cf")
            #expect(CFPreferences.appSynchronize("com.example.cf"))
            #expect(CFPreferences.copyAppValue(forKey: "Name", applicationID: "com.example.cf") == "Ada")
            #expect(try sandbox.fileValue("com.example.cf") == ["Name": "Ada"])
            CFPreferences.setValue(1, forKey: "H", applicationID: "com.example.cf", user: .current, host: .current)
            #expect(CFPreferences.copyValue(forKey: "H", applicationID: "com.example.cf", user: .current, host: .current) == 1)
            #expect(CFPreferences.copyValue(forKey: "H", applicationID: "com.example.cf", user: .current, host: .any) == nil)
            #expect(CFPreferences.copyAppValue(forKey: "H", applicationID: "com.example.cf") == 1)
            CFPreferences.setMultiple(["A": 1, "B": 2], removing: ["Name"], applicationID: "com.example.cf", user: .current, host: .any)
            #expect(CFPreferences.copyKeyList(applicationID: "com.example.cf", user: .current, host: .any) == ["A", "B"])
            #expect(CFPreferences.copyMultiple(["A", "Z"], applicationID: "com.example.cf", user: .current, host: .any) == ["A": 1])
            CFPreferences.setValue("suite", forKey: "S", applicationID: "group.cf", user: .current, host: .any)
            #expect(CFPreferences.copyAppValue(forKey: "S", applicationID: "com.example.cf") == nil)
            CFPreferences.addSuitePreferences(toApp: "com.example.cf", suite: "group.cf")
            #expect(CFPreferences.copyAppValue(forKey: "S", applicationID: "com.example.cf") == "suite")
            CFPreferences.removeSuitePreferences(fromApp: "com.example.cf", suite: "group.cf")
            #expect(CFPreferences.copyAppValue(forKey: "S", applicationID: "com.example.cf") == nil)
            #expect(!CFPreferences.appValueIsForced(forKey: "A", applicationID: "com.example.cf"))
            CFPreferences.setValue(1, forKey: "X", applicationID: "com.example.cf", user: .any, host: .any)
            #expect(CFPreferences.synchronize(applicationID: "com.example.cf", user: .any, host: .any))
            #expect(FileManager.default.fileExists(atPath: sandbox.layout.path(for: "com.example.cf", scope: .anyUser)))
        }
    }

    @Test("suite names: nil for the global domain, a suite's own domain otherwise")
    func suiteNames() {
        #expect(Defaults(suiteName: "NSGlobalDomain") == nil)
        #expect(Defaults(suiteName: "bad/name") == nil)
        #expect(Defaults(suiteName: "group.example")?.domainName == "group.example")
    }
}
