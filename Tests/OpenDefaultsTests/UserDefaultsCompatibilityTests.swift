import PlatformIO
import SharedTables
import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import OpenDefaultsFoundation
import PropertyList
import Synchronization

let probePath = productsDirectory.appendingPathComponent("userdefaults-probe").path

@Suite("UserDefaults' behaviour: values read back as Foundation reads them", .timeLimit(.minutes(10)))
struct UserDefaultsBehaviourTests {
    @Test("a number read as a string is its text; a boolean is \"1\" or \"0\"; a Float keeps its single precision")
    func numbersAsStrings() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set(true, forKey: "yes")
        d.set(false, forKey: "no")
        d.set(42, forKey: "int")
        d.set(3.0, forKey: "whole")
        d.set(12.34, forKey: "double")
        d.set(12.34 as Float, forKey: "float")
        #expect(d.string(forKey: "yes") == "1")
        #expect(d.string(forKey: "no") == "0")
        #expect(d.string(forKey: "int") == "42")
        #expect(d.string(forKey: "whole") == "3.0")
        #expect(d.string(forKey: "double") == "12.34")
        #expect(d.string(forKey: "float") == "12.34")
        #expect(d.double(forKey: "float") == Double(12.34 as Float))
        #expect(d.float(forKey: "float") == 12.34 as Float)
        #expect(d.integer(forKey: "float") == 12)
        // object(forKey:) gives a stored Float back as a Float (corelibs does), a double as a Double.
        #expect(d.object(forKey: "float") as? Float == 12.34 as Float)
        #expect("\(d.object(forKey: "float")!)" == "12.34")
        #expect(d.object(forKey: "double") as? Double == 12.34)
        #expect(d.object(forKey: "whole") as? Double == 3.0)
        d.set(Double(12.34 as Float) + 1e-9, forKey: "near")
        #expect(d.object(forKey: "near") as? Double == Double(12.34 as Float) + 1e-9)
        d.set(0.1, forKey: "tenth")
        #expect(d.object(forKey: "tenth") as? Double == 0.1)
    }

    @Test("a string read as a boolean follows NSString.boolValue", arguments: [
        ("YES", true), ("yes", true), ("true", true), ("tx", true), ("Y", true), ("12", true), ("-0009", true), ("  7", true),
        ("NO", false), ("no", false), ("false", false), ("0", false), ("0.5", false), ("", false), ("hello", false), ("+0", false),
    ])
    func stringsAsBooleans(text: String, expected: Bool) throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set(text, forKey: "k")
        #expect(d.bool(forKey: "k") == expected)
    }

    @Test("a real out of Int's range (or NaN) reads as Int.min, as Foundation on Linux")
    func realsOutOfRange() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set(1e20, forKey: "big")
        d.set(-1e20, forKey: "small")
        d.set(Double.nan, forKey: "nan")
        d.set(-2.7, forKey: "negative")
        #expect(d.integer(forKey: "big") == .min)
        #expect(d.integer(forKey: "small") == .min)
        #expect(d.integer(forKey: "nan") == .min)
        #expect(d.integer(forKey: "negative") == -2)
    }

    @Test("Foundation's objects are stored as their property-list values")
    func foundationObjects() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set(NSNumber(value: true), forKey: "bool")
        d.set(NSNumber(value: 2.5 as Float), forKey: "float")
        d.set(NSNumber(value: UInt64.max), forKey: "unsigned")
        d.set(NSNumber(value: -3), forKey: "int")
        d.set("hi" as NSString, forKey: "string")
        d.set(NSData(bytes: [1, 2] as [UInt8], length: 2), forKey: "data")
        d.set(NSDate(timeIntervalSinceReferenceDate: 5), forKey: "date")
        d.set(NSURL(fileURLWithPath: "/srv/file"), forKey: "url")
        d.set(NSArray(array: [NSNumber(value: true), "a" as NSString]), forKey: "array")
        d.set(NSDictionary(dictionary: ["n": NSNumber(value: 1.5)]), forKey: "dict")
        #expect(d.propertyList(forKey: "bool") == .boolean(true))
        #expect(d.propertyList(forKey: "float") == .real(2.5))
        #expect(d.propertyList(forKey: "unsigned") == PropertyList(UInt64.max))
        #expect(d.propertyList(forKey: "int") == -3)
        #expect(d.propertyList(forKey: "string") == "hi")
        #expect(d.propertyList(forKey: "data") == .data(Data([1, 2])))
        #expect(d.propertyList(forKey: "date") == .date(Date(timeIntervalSinceReferenceDate: 5)))
        #expect(d.propertyList(forKey: "url") == "/srv/file")
        #expect(d.propertyList(forKey: "array") == [.boolean(true), "a"])
        #expect(d.propertyList(forKey: "dict") == ["n": .real(1.5)])
    }

    @Test("key-value coding spellings: value(forKey:) is object(forKey:), setValue(_:forKey:) is set(_:forKey:)")
    func keyValueCoding() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.setValue(11, forKey: "Volume")
        #expect(d.value(forKey: "Volume") as? Int == 11)
        d.setValue(nil, forKey: "Volume")
        #expect(d.value(forKey: "Volume") == nil)
        d.set(nil, forKey: "Volume")
        #expect(Defaults.globalDomain == "NSGlobalDomain")
        #expect(Defaults.argumentDomain == "NSArgumentDomain")
        #expect(Defaults.registrationDomain == "NSRegistrationDomain")
    }
}

@Suite("One conversion: a value that is not a property list changes nothing, wherever it is handed over", .timeLimit(.minutes(10)))
struct ConversionTests {
    struct Opaque {}

    func setUp() throws -> (Sandbox, Defaults, DomainStore, ErrorRecorder) {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        return (sandbox, d, store, errors)
    }

    @Test("set: the old value stays; the error names the key path and the type")
    func set() throws {
        let (_, d, _, errors) = try setUp()
        d.set("old", forKey: "k")
        d.set(["a": ["b": Opaque()]] as [String: Any], forKey: "k")
        #expect(d.string(forKey: "k") == "old")
        #expect(errors.all.count == 1)
        #expect(errors.all.first?.reason.contains("'k.a.b'") == true)
        #expect(errors.all.first?.reason.contains("Opaque") == true)
        #expect(throws: StorageError.self) { try d.setOrThrow(Opaque(), forKey: "k") }
    }

    @Test("register(defaults:): nothing is registered")
    func register() throws {
        let (_, d, _, errors) = try setUp()
        d.register(defaults: ["good": 1, "bad": Opaque()])
        #expect(d.propertyList(forKey: "good") == nil)
        #expect(errors.all.count == 1)
        #expect(errors.all.first?.reason.contains("'bad'") == true)
    }

    @Test("setVolatileDomain: the domain is not set")
    func volatile() throws {
        let (_, d, _, errors) = try setUp()
        d.setVolatileDomain(["good": 1], forName: "Scratch")
        d.setVolatileDomain(["good": 2, "bad": [Opaque()]], forName: "Scratch")
        #expect(d.volatileDomainValues(forName: "Scratch") == ["good": 1])
        #expect(errors.all.count == 1)
        #expect(errors.all.first?.reason.contains("'bad.0'") == true)
    }

    @Test("setPersistentDomain: the domain and its file are unchanged")
    func persistent() throws {
        let (sandbox, d, _, errors) = try setUp()
        d.setPersistentDomain(["good": 1], forName: "com.example.other")
        #expect(d.synchronize())
        d.setPersistentDomain(["good": 2, "bad": Opaque()], forName: "com.example.other")
        #expect(d.synchronize())
        #expect(d.persistentDomainValues(forName: "com.example.other") == ["good": 1])
        #expect(try sandbox.fileValue("com.example.other") == ["good": 1])
        #expect(errors.all.count == 1)
        #expect(errors.all.first?.path == sandbox.path("com.example.other"))
    }
}

@Suite("One suite list per application, shared by its defaults objects and CFPreferences", .timeLimit(.minutes(10)))
struct SharedSuiteTests {
    @Test("a suite added through one object, or CFPreferences, is in every object's search list")
    func shared() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let a = Defaults(domainName: "com.example.app", store: store, arguments: [])
        let b = Defaults(domainName: "com.example.app", store: store, arguments: [])
        store.domain("group.one").set(.string("one"), forKey: "S")
        store.domain("group.two").set(.string("two"), forKey: "T")
        a.addSuite(named: "group.one")
        #expect(b.suites == ["group.one"])
        #expect(b.string(forKey: "S") == "one")
        CFPreferences.withStore(store) {
            CFPreferences.addSuitePreferences(toApp: "com.example.app", suite: "group.two")
            #expect(CFPreferences.copyAppValue(forKey: "S", applicationID: "com.example.app") == "one")
        }
        #expect(a.string(forKey: "T") == "two")
        #expect(b.suites == ["group.one", "group.two"])
        b.removeSuite(named: "group.one")
        #expect(a.string(forKey: "S") == nil)
        CFPreferences.withStore(store) {
            #expect(CFPreferences.copyAppValue(forKey: "S", applicationID: "com.example.app") == nil)
        }
        // Another application keeps its own list.
        let other = Defaults(domainName: "com.example.other", store: store, arguments: [])
        #expect(other.suites.isEmpty)
    }
}

@Suite("CFPreferences: every function, Apple's semantics", .timeLimit(.minutes(10)))
struct CFPreferencesTests {
    @Test("GetAppBooleanValue: booleans, numbers and true/YES/false/NO strings are valid; anything else is not", arguments: [
        (PropertyList.boolean(true), true, true), (.boolean(false), false, true), (.integer(3), true, true), (.integer(0), false, true),
        (.real(0.5), true, true), (.string("YES"), true, true), (.string("true"), true, true), (.string("No"), false, true),
        (.string("FALSE"), false, true), (.string("1"), false, false), (.string("y"), false, false), (.date(Date()), false, false),
    ])
    func boolean(value: PropertyList, expected: Bool, valid: Bool) throws {
        let sandbox = try Sandbox()
        CFPreferences.withStore(sandbox.makeStore()) {
            CFPreferences.setAppValue(value, forKey: "k", applicationID: "com.example.cf")
            var isValid = !valid
            #expect(CFPreferences.getAppBooleanValue(forKey: "k", applicationID: "com.example.cf", keyExistsAndHasValidFormat: &isValid) == expected)
            #expect(isValid == valid)
        }
    }

    @Test("GetAppIntegerValue: numbers and whole-integer strings are valid; booleans are not", arguments: [
        (PropertyList.integer(42), 42, true), (.real(3.9), 3, true), (.real(-3.9), -3, true), (.string("17"), 17, true),
        (.string(" -8 "), -8, true), (.string("+5"), 5, true), (.string("12abc"), 0, false), (.string("99999999999"), 0, false),
        (.boolean(true), 0, false), (.data(Data()), 0, false),
    ])
    func integer(value: PropertyList, expected: Int, valid: Bool) throws {
        let sandbox = try Sandbox()
        CFPreferences.withStore(sandbox.makeStore()) {
            CFPreferences.setAppValue(value, forKey: "k", applicationID: "com.example.cf")
            var isValid = !valid
            #expect(CFPreferences.getAppIntegerValue(forKey: "k", applicationID: "com.example.cf", keyExistsAndHasValidFormat: &isValid) == expected)
            #expect(isValid == valid)
        }
    }

    @Test("an absent key is not valid, and the flag may be left out")
    func absent() throws {
        let sandbox = try Sandbox()
        CFPreferences.withStore(sandbox.makeStore()) {
            var valid = true
            #expect(CFPreferences.getAppBooleanValue(forKey: "none", applicationID: "com.example.cf", keyExistsAndHasValidFormat: &valid) == false)
            #expect(!valid)
            valid = true
            #expect(CFPreferences.getAppIntegerValue(forKey: "none", applicationID: "com.example.cf", keyExistsAndHasValidFormat: &valid) == 0)
            #expect(!valid)
            #expect(CFPreferences.getAppIntegerValue(forKey: "none", applicationID: "com.example.cf") == 0)
        }
    }

    @Test("CopyApplicationList names the domains with a file in the scope; Apple's constant names are accepted")
    func applicationList() throws {
        let sandbox = try Sandbox()
        CFPreferences.withStore(sandbox.makeStore()) {
            CFPreferences.setAppValue(1, forKey: "a", applicationID: "com.example.one")
            CFPreferences.setValue(2, forKey: "b", applicationID: "kCFPreferencesAnyApplication", user: CFPreferences.currentUser, host: CFPreferences.anyHost)
            CFPreferences.setValue(3, forKey: "c", applicationID: "com.example.host", user: CFPreferences.currentUser, host: CFPreferences.currentHost)
            #expect(CFPreferences.synchronize(applicationID: "com.example.one", user: .current, host: .any))
            #expect(CFPreferences.synchronize(applicationID: CFPreferences.anyApplication, user: .current, host: .any))
            #expect(CFPreferences.synchronize(applicationID: "com.example.host", user: .current, host: .current))
            #expect(CFPreferences.copyApplicationList(user: .current, host: .any) == ["NSGlobalDomain", "com.example.one"])
            #expect(CFPreferences.copyApplicationList(user: .current, host: .current) == ["com.example.host"])
            #expect(CFPreferences.copyAppValue(forKey: "b", applicationID: "com.example.one") == 2)
        }
    }

    @Test("SetMultiple applies removals after sets, as Core Foundation")
    func setMultipleRemovalWins() throws {
        let sandbox = try Sandbox()
        CFPreferences.withStore(sandbox.makeStore()) {
            CFPreferences.setMultiple(["A": 1, "B": 2], removing: ["B"], applicationID: "com.example.cf", user: .current, host: .any)
            #expect(CFPreferences.copyMultiple(nil, applicationID: "com.example.cf", user: .current, host: .any) == ["A": 1])
        }
    }
}

@Suite("DefaultsController: editors commit or discard", .timeLimit(.minutes(10)))
struct DefaultsEditingTests {
    final class Field: DefaultsEditor {
        let controller: DefaultsController
        let key: String
        let text: Lock<String?>
        init(_ controller: DefaultsController, key: String, text: String?) {
            self.controller = controller
            self.key = key
            self.text = Lock(text)
        }
        func commitEditing() -> Bool {
            guard let t = text.withLock({ $0 }), !t.isEmpty else { return false }
            controller.values[key] = .string(t)
            return true
        }
        func discardEditing() { text.withLock { $0 = nil } }
    }

    @Test("commitEditing hands every editor's edit over; one that refuses stays registered and makes it false")
    func commit() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        let controller = DefaultsController(defaults: d)
        let name = Field(controller, key: "Name", text: "Ada")
        let empty = Field(controller, key: "City", text: "")
        controller.objectDidBeginEditing(name)
        controller.objectDidBeginEditing(empty)
        #expect(d.string(forKey: "Name") == nil)
        #expect(!controller.commitEditing())
        #expect(d.string(forKey: "Name") == "Ada")
        #expect(d.string(forKey: "City") == nil)
        empty.text.withLock { $0 = "Paris" }
        #expect(controller.commitEditing())
        #expect(d.string(forKey: "City") == "Paris")
        #expect(controller.commitEditing())  // nothing left
    }

    @Test("discardEditing drops every editor's edit; nothing reaches the defaults")
    func discard() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        let controller = DefaultsController(defaults: d)
        let name = Field(controller, key: "Name", text: "Ada")
        controller.objectDidBeginEditing(name)
        controller.discardEditing()
        #expect(name.text.withLock { $0 } == nil)
        #expect(controller.commitEditing())
        #expect(d.string(forKey: "Name") == nil)
    }
}

@Suite("OpenUserDefaults: Foundation's UserDefaults over OpenDefaults", .timeLimit(.minutes(10)), .serialized)
struct OpenUserDefaultsTests {
    /// The probe's environment: a fresh home, nothing else of this machine's preferences.
    func environment(home: String) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["XDG_CONFIG_HOME"] = nil
        env["OPENDEFAULTS_SYSTEM_ROOT"] = home + "/system"
        return env
    }

    func probe(_ arguments: [String], home: String) throws -> ProcessResult {
        let r = try run(probePath, arguments, environment: environment(home: home))
        #expect(r.status == 0, "userdefaults-probe \(arguments): \(r.stderr)")
        return r
    }

    /// Lines of the probe's output, without the keys where corelibs is known
    /// to differ from Apple's Foundation (and OpenDefaults follows Apple).
    func comparable(_ output: String) -> [String] {
        // corelibs: a stored Int.max reads as nil/0/false through every typed
        // getter (its NSNumber unboxing picks UInt64); Apple's and ours read Int.max.
        output.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("intMax ") }
    }

    @Test("every typed getter answers as corelibs' UserDefaults, for every kind of value, in the process and after a restart")
    func sideBySide() throws {
        let sandbox = try Sandbox()
        let foundationHome = sandbox.root.appendingPathComponent("foundation").path
        let openHome = sandbox.root.appendingPathComponent("open").path
        for home in [foundationHome, openHome] { try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true) }

        let written = (try probe(["write", "foundation"], home: foundationHome).stdout, try probe(["write", "open"], home: openHome).stdout)
        #expect(comparable(written.0).count == comparable(written.1).count)
        for (f, o) in zip(comparable(written.0), comparable(written.1)) { #expect(o == f) }
        #expect(written.1.contains("intMax object=9223372036854775807 | string=9223372036854775807 | integer=9223372036854775807"))
        #expect(written.0.contains("objectAsFloat=12.34 |") && written.1.contains("objectAsFloat=12.34 |"))

        // After a restart, from the file each wrote. corelibs loses a Float's
        // single precision on disk; macOS (and OpenDefaults) still read "12.34".
        let reread = (try probe(["read", "foundation"], home: foundationHome).stdout, try probe(["read", "open"], home: openHome).stdout)
        let rf = comparable(reread.0).filter { !$0.hasPrefix("float ") }, ro = comparable(reread.1).filter { !$0.hasPrefix("float ") }
        #expect(rf.count == ro.count)
        for (f, o) in zip(rf, ro) { #expect(o == f) }
        #expect(reread.1.contains("float object=12.34000015258789 | string=12.34 |"))
    }

    @Test("the same files: corelibs reads what OpenUserDefaults wrote, and the other way round")
    func sameFiles() throws {
        let sandbox = try Sandbox()
        let home = sandbox.root.appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let ours = try probe(["write", "open"], home: home).stdout
        let theirs = try probe(["read", "foundation"], home: home).stdout
        let skip: (String) -> Bool = { $0.hasPrefix("float ") }
        let a = comparable(ours).filter { !skip($0) }, b = comparable(theirs).filter { !skip($0) }
        #expect(!a.isEmpty && a.count == b.count)
        for (o, f) in zip(a, b) { #expect(f == o) }

        let home2 = sandbox.root.appendingPathComponent("shared2").path
        try FileManager.default.createDirectory(atPath: home2, withIntermediateDirectories: true)
        let theirs2 = try probe(["write", "foundation"], home: home2).stdout
        let ours2 = try probe(["read", "open"], home: home2).stdout
        let c = comparable(theirs2).filter { !skip($0) }, e = comparable(ours2).filter { !skip($0) }
        #expect(!c.isEmpty && c.count == e.count)
        for (f, o) in zip(c, e) { #expect(o == f) }
    }

    @Test("standard, Defaults(), DefaultsController.shared and OpenUserDefaults.standard follow resetStandardUserDefaults()")
    func standard() throws {
        let sandbox = try Sandbox()
        let r = try probe(["standard"], home: sandbox.root.path)
        #expect(r.stdout == "ok\n")
    }

    @Test("didChangeNotification is posted once per change, synchronously, on the thread that made it, as Foundation posts it")
    func notificationPerChange() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox, domain: "com.example.burst-notify")
        let wrapper = OpenUserDefaults(defaults: d)
        let seen = Lock<[(value: Int, thread: ObjectIdentifier)]>([])
        let observer = NotificationCenter.default.addObserver(forName: Defaults.didChangeNotification, object: wrapper, queue: nil) { _ in
            seen.withLock { $0.append((d.integer(forKey: "n"), ObjectIdentifier(Thread.current))) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let me = ObjectIdentifier(Thread.current)
        // Each set has posted before it returns, on this thread, with its value in place.
        for i in 1...500 {
            d.set(i, forKey: "n")
            #expect(seen.withLock { $0.count } == i, "after set \(i): \(seen.withLock { $0.count }) posts")
        }
        let posts = seen.withLock { $0 }
        #expect(posts.map(\.value) == Array(1...500))
        #expect(posts.allSatisfy { $0.thread == me })
        // Nothing arrives later from another thread (the flush writes what was posted already).
        try d.synchronizeOrThrow()
        #expect(seen.withLock { $0.count } == 500)
    }

    @Test("setPersistentDomain and removePersistentDomain post didChangeNotification once per call, with the receiver, for any domain", .offThePool)
    func persistentDomainEditsPostOnce() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let wrapper = OpenUserDefaults(defaults: Defaults(domainName: "com.example.edits", store: store, arguments: []))
        let posts = Lock<Int>(0)
        let wanted = ObjectIdentifier(wrapper)
        let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) { n in
            if let o = n.object as AnyObject?, ObjectIdentifier(o) == wanted { posts.withLock { $0 += 1 } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        /// Runs `edit` and counts the posts it made (one before it returns, and none later).
        func count(_ edit: () -> Void) -> Int {
            posts.withLock { $0 = 0 }
            edit()
            let first = posts.withLock { $0 }
            Thread.sleep(forTimeInterval: 0.1)
            #expect(first == 1, "posted \(first) times before returning")
            return posts.withLock { $0 }
        }
        // A domain outside the search list: corelibs posts; so do we.
        #expect(count { wrapper.setPersistentDomain(["a": 1], forName: "com.example.elsewhere") } == 1)
        #expect(count { wrapper.removePersistentDomain(forName: "com.example.elsewhere") } == 1)
        // Its own domain (in the search list): one post, not one more from the change itself.
        #expect(count { wrapper.setPersistentDomain(["a": 1, "b": 2], forName: "com.example.edits") } == 1)
        #expect(wrapper.integer(forKey: "b") == 2)
        #expect(count { wrapper.removePersistentDomain(forName: "com.example.edits") } == 1)
        #expect(wrapper.object(forKey: "b") == nil)
        // Ordinary sets still post through the coalescing window.
        #expect(count { wrapper.set(3, forKey: "c") } == 1)
    }

    @Test("another process's write posts didChangeNotification with the OpenUserDefaults object")
    func notification() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let wrapper = OpenUserDefaults(defaults: Defaults(domainName: "com.example.app", store: store, arguments: []))
        let legacy: UserDefaults = wrapper
        let posted = Lock<[String]>([])
        let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: wrapper, queue: nil) { n in
            posted.withLock { $0.append(String(describing: type(of: n.object!))) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let r = try run(helperPath, ["write-sync", "com.example.app", "Volume", "11"], environment: sandbox.environment)
        #expect(r.status == 0)
        #expect(eventually { legacy.string(forKey: "Volume") == "11" })
        #expect(eventually { !posted.withLock { $0 }.isEmpty })
        #expect(posted.withLock { $0 }.allSatisfy { $0 == "OpenUserDefaults" })
    }
}

/// Issue 39: the observers of every defaults object live with their store (`DefaultsContext`), as
/// its registrations do: a test's or a tool's store never tells the process's observers, nor the reverse.
@Suite("observers of every defaults object, per store", .timeLimit(.minutes(5)))
struct InstanceObserverTests {
    @Test("observeAllInstances(over:) hears every defaults object over its store, and nothing of another store")
    func perStore() throws {
        let one = try Sandbox(), two = try Sandbox()
        let (a, storeA) = makeDefaults(one, domain: "com.example.one")
        let (b, storeB) = makeDefaults(two, domain: "com.example.two")
        let suite = Defaults(domainName: "com.example.one-suite", store: storeA, arguments: [])
        let heardA = Recorder<String>(), heardB = Recorder<String>()
        let tokenA = Defaults.observeAllInstances(over: storeA) { heardA.add($0.domainName) }
        let tokenB = Defaults.observeAllInstances(over: storeB) { heardB.add($0.domainName) }
        a.set(1, forKey: "k")
        suite.set(2, forKey: "k")
        b.set(3, forKey: "k")
        #expect(heardA.all == ["com.example.one", "com.example.one-suite"])
        #expect(heardB.all == ["com.example.two"])
        tokenA.cancel()
        a.set(4, forKey: "k")
        #expect(heardA.all.count == 2, "a cancelled observation hears nothing more")
        _ = tokenB
    }

    @Test("didChangeNotification: posted for the process's store, and for another store once an OpenUserDefaults wraps one of its objects")
    func notificationPerStore() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox, domain: "com.example.unwrapped")
        let posted = Recorder<String>()
        let observer = NotificationCenter.default.addObserver(forName: Defaults.didChangeNotification, object: nil, queue: nil) { n in
            if let o = n.object as? Defaults, o.domainName.hasPrefix("com.example.unwrapped") { posted.add(o.domainName) }
            if let o = n.object as? OpenUserDefaults, o.defaults.domainName.hasPrefix("com.example.unwrapped") { posted.add("wrapped " + o.defaults.domainName) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        d.set(1, forKey: "k")
        #expect(posted.all.isEmpty, "a sandbox's store posts nothing into the process's notification center by itself: \(posted.all)")
        let wrapper = OpenUserDefaults(defaults: Defaults(domainName: "com.example.unwrapped.suite", store: store, arguments: []))
        d.set(2, forKey: "k")
        wrapper.set(3, forKey: "k")
        #expect(posted.all == ["com.example.unwrapped", "wrapped com.example.unwrapped.suite"], "\(posted.all)")
    }
}
