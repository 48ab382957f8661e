import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// A defaults object in a sandbox, with its own store and command line.
func makeDefaults(_ sandbox: Sandbox, domain: String = "com.example.app", arguments: [String] = ["app"]) -> (Defaults, DomainStore) {
    let store = sandbox.makeStore()
    return (Defaults(domainName: domain, store: store, arguments: arguments), store)
}

@Suite("Defaults: the search list", .timeLimit(.minutes(10)), .serialized)
struct SearchListTests {
    @Test("arguments beat the application domain, which beats the global domain, which beats registration")
    func order() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox, arguments: ["app", "-Color", "red"])
        d.register(["Color": "registered", "Size": "registered", "Shape": "registered", "Only": "registered"])
        store.domain("NSGlobalDomain").set("global", forKey: "Color")
        store.domain("NSGlobalDomain").set("global", forKey: "Size")
        store.domain("NSGlobalDomain").set("global", forKey: "Shape")
        d.set("app", forKey: "Color")
        d.set("app", forKey: "Size")
        #expect(d.string(forKey: "Color") == "red")
        #expect(d.string(forKey: "Size") == "app")
        #expect(d.string(forKey: "Shape") == "global")
        #expect(d.string(forKey: "Only") == "registered")
        #expect(d.string(forKey: "Missing") == nil)
        d.removeObject(forKey: "Size")
        #expect(d.string(forKey: "Size") == "global")
    }

    @Test("the registration domain is shared by the defaults objects over one store, and only by them")
    func registrationPerStore() throws {
        let sandbox = try Sandbox(), other = try Sandbox()
        let (d, store) = makeDefaults(sandbox)
        let suite = Defaults(domainName: "com.example.suite", store: store, arguments: [])
        let (stranger, _) = makeDefaults(other)
        d.register(["Registered": "here"])
        #expect(suite.string(forKey: "Registered") == "here", "another defaults object over the same store sees it")
        #expect(stranger.string(forKey: "Registered") == nil, "a defaults object over another store does not")
        #expect(Defaults.standard.string(forKey: "Registered") == nil, "nor does the process's standard object")
        stranger.setVolatileDomainValues(["Registered": "there"], forName: "NSRegistrationDomain")
        #expect(d.string(forKey: "Registered") == "here" && stranger.string(forKey: "Registered") == "there")
    }

    @Test("current-user levels come before any-user levels; this host before any host")
    func cfPreferencesOrder() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox)
        store.domain("com.example.app", scope: .anyUser).set("any-user app", forKey: "K")
        store.domain("NSGlobalDomain", scope: .currentUser).set("current-user global", forKey: "K")
        #expect(d.string(forKey: "K") == "current-user global")
        store.domain("com.example.app", scope: .currentUserCurrentHost).set("by-host", forKey: "K")
        store.domain("com.example.app", scope: .currentUser).set("any host", forKey: "K")
        #expect(d.string(forKey: "K") == "by-host")
    }

    @Test("suites come after the application domain and before the global domain")
    func suites() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox)
        store.domain("group.shared").set("suite", forKey: "A")
        store.domain("group.shared").set("suite", forKey: "B")
        store.domain("NSGlobalDomain").set("global", forKey: "A")
        #expect(d.string(forKey: "A") == "global")
        d.addSuite(named: "group.shared")
        #expect(d.suites == ["group.shared"])
        #expect(d.string(forKey: "A") == "suite")
        d.set("app", forKey: "B")
        #expect(d.string(forKey: "B") == "app")
        d.removeSuite(named: "group.shared")
        #expect(d.string(forKey: "A") == "global")
    }

    @Test("the argument domain parses old-style values and keeps other text as strings")
    func argumentDomain() {
        let args = ArgumentDomain.parse(["app", "-A", "(1, 2)", "-B", "{a = 1;}", "-C", "<dead beef>", "-D", "hello world", "-E", "\"quoted\"", "-F", "<plist><integer>3</integer></plist>", "lonely", "--", "-G", "x"])
        #expect(args["A"] == ["1", "2"])
        #expect(args["B"] == ["a": "1"])
        #expect(args["C"] == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        #expect(args["D"] == "hello world")
        #expect(args["E"] == "quoted")
        #expect(args["F"] == 3)
        #expect(args["G"] == nil)
    }

    @Test("language domains and AppleLanguages")
    func languages() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        #expect(d.stringArray(forKey: "AppleLanguages")?.isEmpty == false)
        #expect(d.string(forKey: "AppleLocale") != nil)
        #expect(Languages.tag("fr_FR.UTF-8@euro") == "fr-FR")
        #expect(Languages.tag("C") == "en")
        let lang = d.stringArray(forKey: "AppleLanguages")![0]
        d.setVolatileDomain(["Greeting": "bonjour"] as [String: Any], forName: lang)
        #expect(d.string(forKey: "Greeting") == "bonjour")
    }

    @Test("volatile and persistent domain management")
    func domains() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox, arguments: ["app", "-X", "1"])
        #expect(d.volatileDomainNames.starts(with: ["NSArgumentDomain", "NSRegistrationDomain"]))
        #expect(d.volatileDomain(forName: "NSArgumentDomain")["X"] as? String == "1")
        d.setVolatileDomain(["V": 1], forName: "Scratch")
        #expect(d.volatileDomainNames.contains("Scratch"))
        d.removeVolatileDomain(forName: "Scratch")
        #expect(!d.volatileDomainNames.contains("Scratch"))
        #expect(d.persistentDomain(forName: "com.other") == nil)
        d.setPersistentDomain(["P": "x"], forName: "com.other")
        #expect(d.persistentDomain(forName: "com.other")?["P"] as? String == "x")
        #expect(d.synchronize())
        #expect(d.persistentDomainNames().contains("com.other"))
        d.removePersistentDomain(forName: "com.other")
        #expect(d.persistentDomain(forName: "com.other") == nil)
        #expect(d.synchronize())
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("com.other")))
    }

    @Test("dictionaryRepresentation is the union, earlier domains winning")
    func dictionaryRepresentation() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox, arguments: ["app", "-A", "arg"])
        store.domain("NSGlobalDomain").set("global", forKey: "G")
        d.set("app", forKey: "A")
        let all = d.dictionaryRepresentation()
        #expect(all["A"] as? String == "arg")
        #expect(all["G"] as? String == "global")
        #expect(all["AppleLanguages"] != nil)
    }
}

@Suite("Defaults: reading and writing", .timeLimit(.minutes(10)), .serialized)
struct ReadWriteTests {
    @Test("Apple's coercions for the typed getters")
    func coercions() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set("42abc", forKey: "s")
        d.set(3.9, forKey: "r")
        d.set(Int.max, forKey: "big")
        d.set("YES", forKey: "yes")
        d.set("no", forKey: "no")
        d.set(7, forKey: "n")
        d.set(["a", "b"], forKey: "strings")
        d.set(["a", 1] as [Any], forKey: "mixed")
        #expect(d.integer(forKey: "s") == 42)
        #expect(d.integer(forKey: "r") == 3)
        #expect(d.integer(forKey: "big") == Int.max)
        #expect(d.double(forKey: "n") == 7)
        #expect(d.float(forKey: "r") == 3.9 as Float)
        #expect(d.bool(forKey: "yes"))
        #expect(!d.bool(forKey: "no"))
        #expect(d.bool(forKey: "n"))
        #expect(d.string(forKey: "n") == "7")
        #expect(d.stringArray(forKey: "strings") == ["a", "b"])
        #expect(d.stringArray(forKey: "mixed") == nil)
        #expect(d.array(forKey: "mixed")?.count == 2)
        #expect(d.integer(forKey: "missing") == 0)
        #expect(!d.bool(forKey: "missing"))
        #expect(d.data(forKey: "s") == nil)
    }

    @Test("set(nil) removes; a value that is not a property list is refused and the old value stays")
    func nilAndInvalid() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        d.set("kept", forKey: "k")
        d.set(nil as Any?, forKey: "gone")
        d.set("x", forKey: "gone")
        d.set(nil as Any?, forKey: "gone")
        #expect(d.object(forKey: "gone") == nil)
        struct Opaque {}
        d.set(Opaque(), forKey: "k")
        #expect(d.string(forKey: "k") == "kept")
        #expect(errors.all.contains { $0.description.contains("'k'") && $0.description.contains("Opaque") })
        #expect(throws: StorageError.self) { try d.setOrThrow(["a": Opaque()] as [String: Any], forKey: "k") }
    }

    @Test("Int.max and Int.min survive a round trip through disk")
    func extremes() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set(Int.max, forKey: "max")
        d.set(Int.min, forKey: "min")
        #expect(d.synchronize())
        let (fresh, _) = makeDefaults(sandbox)
        #expect(fresh.integer(forKey: "max") == Int.max)
        #expect(fresh.integer(forKey: "min") == Int.min)
    }

    @Test("URLs: file URLs as paths with ~, other URLs as macOS's keyed archive")
    func urls() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        let web = URL(string: "https://example.com/a/b?c=1")!
        d.set(web, forKey: "web")
        #expect(d.url(forKey: "web") == web)
        guard case .data(let archive)? = d.propertyList(forKey: "web") else { Issue.record("expected data"); return }
        let plist = try PropertyList(decoding: archive)
        #expect(plist["$archiver"] == "NSKeyedArchiver")
        #expect(plist["$objects"]?[2] == "https://example.com/a/b?c=1")
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        d.set(URL(fileURLWithPath: home + "/Documents/x.txt"), forKey: "file")
        #expect(d.string(forKey: "file") == "~/Documents/x.txt")
        #expect(d.url(forKey: "file")?.path == home + "/Documents/x.txt")
        d.set("/tmp/plain", forKey: "path")
        #expect(d.url(forKey: "path") == URL(fileURLWithPath: "/tmp/plain"))
    }

    @Test("a keyed-archive URL with a base URL is read relative to it")
    func relativeArchive() throws {
        // NS.base pointing at another NSURL object, as macOS archives a relative URL.
        let archive: PropertyList = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null",
                ["NS.base": .uid(3), "NS.relative": .uid(2), "$class": .uid(5)],
                "b/c",
                ["NS.base": .uid(0), "NS.relative": .uid(4), "$class": .uid(5)],
                "https://example.com/a/",
                ["$classname": "NSURL", "$classes": ["NSURL", "NSObject"]],
            ],
        ]
        let url = try #require(URLArchive.decode(try archive.data(as: .binary)))
        #expect(url.absoluteString == "https://example.com/a/b/c")
        #expect(URLArchive.decode(Data("not a plist".utf8)) == nil)
    }

    @Test("persisted values are read by a new process-wide store")
    func persistence() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set("v", forKey: "k")
        #expect(d.synchronize())
        let r = try run(helperPath, ["get", "com.example.app", "k"], environment: sandbox.environment)
        #expect(r.stdout == "v\n")
    }
}

@Suite("Defaults: forced values", .timeLimit(.minutes(10)), .serialized)
struct ForcedTests {
    @Test("a managed key wins, reports forced, and a write changes only the user's domain", .requires(.root))
    func forced() throws {
        let sandbox = try Sandbox()
        let dir = sandbox.layout.managedDirectory
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try PropertyList.dictionary(["Locked": "admin"]).data(as: .xml).write(to: URL(fileURLWithPath: dir + "/com.example.app.plist"))
        let (d, _) = makeDefaults(sandbox, arguments: ["app", "-Locked", "argument"])
        #expect(d.objectIsForced(forKey: "Locked"))
        #expect(d.objectIsForced(forKey: "Locked", inDomain: "com.example.app"))
        #expect(!d.objectIsForced(forKey: "Free"))
        #expect(d.string(forKey: "Locked") == "admin")
        d.set("user", forKey: "Locked")
        #expect(d.string(forKey: "Locked") == "admin")
        #expect(d.synchronize())
        #expect(try sandbox.fileValue("com.example.app")["Locked"] == "user")
    }
}

@Suite("Defaults: observation", .timeLimit(.minutes(10)), .serialized)
struct ObservationTests {
    @Test("per-key observers see old and new values, from this process and from others")
    func observeKey() throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        let seen = Recorder<(PropertyList?, PropertyList?)>()
        let token = d.observe("Volume") { old, new in seen.add((old, new)) }
        d.set(5, forKey: "Volume")
        d.set(6, forKey: "Volume")
        #expect(seen.all.map { $0.1 } == [5, 6])
        #expect(seen.all.first?.0 == nil)
        // Another process writes the key (after ours is on disk: the later flush wins).
        #expect(d.synchronize())
        let r = try run(helperPath, ["write-sync", "com.example.app", "Volume", "11"], environment: sandbox.environment)
        #expect(r.status == 0)
        #expect(eventually { seen.all.last?.1 == "11" })
        token.cancel()
        d.set(7, forKey: "Volume")
        #expect(seen.all.count == 3)
    }

    @Test("updates(forKey:) is an AsyncSequence of the values")
    func asyncUpdates() async throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        d.set(1, forKey: "n")
        var iterator = d.updates(forKey: "n").makeAsyncIterator()
        #expect(await iterator.next() == .some(1))
        d.set(2, forKey: "n")
        #expect(await iterator.next() == .some(2))
    }

    @Test("many tasks read and write at once without races")
    func concurrency() async throws {
        let sandbox = try Sandbox()
        let (d, _) = makeDefaults(sandbox)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<500 {
                        d.set(i, forKey: "t\(t)")
                        _ = d.integer(forKey: "t\((t + 1) % 8)")
                        _ = d.dictionaryRepresentation().count
                    }
                }
            }
        }
        for t in 0..<8 { #expect(d.integer(forKey: "t\(t)") == 499) }
    }

    @Test("writers racing on one key leave every defaults object agreeing with the domain")
    func racingWritersOnOneKey() async throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox)
        let other = Defaults(domainName: d.domainName, store: store, arguments: [])
        for round in 0..<50 {
            await withTaskGroup(of: Void.self) { group in
                for t in 0..<4 {
                    group.addTask {
                        for i in 0..<200 {
                            (t % 2 == 0 ? d : other).set(PropertyList(Int64(round * 10_000 + t * 1000 + i)), forKey: "shared")
                            if i % 7 == 0 { d.removeObject(forKey: "shared") }
                        }
                    }
                }
            }
            let truth = store.domain(d.domainName).value(forKey: "shared")
            #expect(d.propertyList(forKey: "shared") == truth, "round \(round)")
            #expect(other.propertyList(forKey: "shared") == truth, "round \(round)")
        }
    }

    @Test("a released defaults object is let go by its domains, and a removed suite stops telling it")
    func releasedObjectsDetach() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let own = store.domain("com.example.released")
        let suite = store.domain("group.released")
        weak var released: Defaults?
        weak var releasedList: SearchList?
        let suiteLists = DefaultsContext.of(store).suiteLists
        do {
            let d = Defaults(domainName: "com.example.released", store: store, arguments: [])
            released = d
            releasedList = d.searchList
            #expect(suiteLists.memberCount == 1)
            #expect(own.dependentCount == 1)
            d.addSuite(named: "group.released")
            #expect(suite.dependentCount == 1)
            suite.set("suite", forKey: "S")
            #expect(d.string(forKey: "S") == "suite")
            d.removeSuite(named: "group.released")
            #expect(suite.dependentCount == 0)
            suite.set("changed", forKey: "S")
            #expect(d.string(forKey: "S") == nil)
        }
        #expect(released == nil)
        // The suite lists hold search lists strongly (a weak reference would put every
        // write on the slow reference-counting path): the object's release let its list go.
        #expect(suiteLists.memberCount == 0)
        #expect(releasedList == nil)
        #expect(own.dependentCount == 0)
        #expect(store.domain(PreferencesLayout.globalDomainName).dependentCount == 0)
        own.set("still writable", forKey: "K")
        #expect(own.value(forKey: "K") == "still writable")
    }
}

final class Recorder<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func add(_ t: T) { lock.lock(); items.append(t); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
