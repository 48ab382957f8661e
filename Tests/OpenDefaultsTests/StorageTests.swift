import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList
import PlatformIO
import Synchronization

@Suite("Persistent domains in one process", .timeLimit(.minutes(10)))
struct StorageTests {
    @Test("a write is in memory at once and on disk after synchronize, as a 0600 binary plist")
    func writeAndSynchronize() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let domain = store.domain("com.example.app")
        domain.set("Ada", forKey: "name")
        #expect(domain.value(forKey: "name") == "Ada")
        try domain.synchronize()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sandbox.path("com.example.app")))
        #expect(bytes.prefix(8) == Data("bplist00".utf8))
        #expect(try sandbox.fileValue("com.example.app") == ["name": "Ada"])
        let mode = try FileManager.default.attributesOfItem(atPath: sandbox.path("com.example.app"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("writes are flushed within the flush delay without synchronize, a burst as one write")
    func coalescedFlush() throws {
        let sandbox = try Sandbox()
        let domain = sandbox.makeStore().domain("com.example.burst")
        let file = sandbox.path("com.example.burst")
        // Every write replaces the file (a rename onto it): count the renames.
        let events = FolderEvents()
        defer { events.close() }
        let watch = try #require(events.addWatch(sandbox.userDirectory))
        let name = URL(fileURLWithPath: file).lastPathComponent
        let clock = ContinuousClock()
        let started = clock.now
        for i in 0..<1000 { domain.set(PropertyList(i), forKey: "k\(i)") }
        let took = clock.now - started
        #expect(eventually { (try? sandbox.fileValue("com.example.burst"))?.dictionaryValue?.count == 1000 })
        let writes = events.next(timeoutMilliseconds: 0).filter { $0.watch == watch && $0.name == name && $0.flags.contains(.movedIn) }.count
        // The first set schedules one flush 20 ms later; sets after it wait for the
        // next. 1,000 sets are one write, or one per 20 ms they took — never one each.
        let windows = Int((took / .milliseconds(20)).rounded(.up))
        #expect(writes >= 1 && writes <= max(windows, 1) + 1, "\(writes) writes for 1,000 sets made in \(took)")
    }

    @Test("a process that exits normally flushes its pending changes")
    func flushAtExit() throws {
        let sandbox = try Sandbox()
        let r = try run(helperPath, ["write", "com.example.exit", "k", "50"], environment: sandbox.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try sandbox.fileValue("com.example.exit").dictionaryValue?.count == 50)
    }

    @Test("a file kept as XML or old-style text is written back in its format")
    func keepsFormat() throws {
        let sandbox = try Sandbox()
        try Data(#"<?xml version="1.0"?><plist><dict><key>a</key><string>1</string></dict></plist>"#.utf8)
            .write(to: URL(fileURLWithPath: sandbox.path("com.example.xml")))
        try Data("{ a = 1; }".utf8).write(to: URL(fileURLWithPath: sandbox.path("com.example.text")))
        let store = sandbox.makeStore()
        for name in ["com.example.xml", "com.example.text"] {
            let d = store.domain(name)
            #expect(d.value(forKey: "a") == "1")
            d.set(2, forKey: "b")
            try d.synchronize()
        }
        let xml = try String(contentsOfFile: sandbox.path("com.example.xml"), encoding: .utf8)
        #expect(xml.hasPrefix("<?xml"))
        #expect(xml.contains("<integer>2</integer>"))
        let text = try String(contentsOfFile: sandbox.path("com.example.text"), encoding: .utf8)
        #expect(text.hasPrefix("{"))
        #expect(try sandbox.fileValue("com.example.text") == ["a": "1", "b": 2])
    }

    @Test("a symlinked domain file is written through to its target; the link stays")
    func symlinks() throws {
        let sandbox = try Sandbox()
        let dotfiles = sandbox.root.appendingPathComponent("dotfiles")
        try FileManager.default.createDirectory(at: dotfiles, withIntermediateDirectories: true)
        let target = dotfiles.appendingPathComponent("app.plist")
        try PropertyList.dictionary(["a": 1]).data(as: .xml).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: sandbox.path("com.example.link"), withDestinationPath: target.path)
        let d = sandbox.makeStore().domain("com.example.link")
        #expect(d.value(forKey: "a") == 1)
        d.set(2, forKey: "b")
        try d.synchronize()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: sandbox.path("com.example.link")) == target.path)
        #expect(try PropertyList(decoding: Data(contentsOf: target)) == ["a": 1, "b": 2])
    }

    @Test("replacing and removing the whole domain")
    func wholeDomain() throws {
        let sandbox = try Sandbox()
        let d = sandbox.makeStore().domain("com.example.whole")
        d.set(1, forKey: "old")
        try d.synchronize()
        d.replaceAll(with: ["new": 2])
        try d.synchronize()
        #expect(try sandbox.fileValue("com.example.whole") == ["new": 2])
        d.replaceAll(with: nil)
        try d.synchronize()
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("com.example.whole")))
        #expect(d.entries.isEmpty)
    }

    @Test("writes, whole replacements and flushes racing, with another store writing the file, leave memory equal to the file")
    func racingWritesReplacementsAndFlushes() async throws {
        let sandbox = try Sandbox()
        let d = sandbox.makeStore().domain("com.example.race")
        // A second store stands for another process: its writes make flushes re-read the file.
        let other = sandbox.makeStore().domain("com.example.race")
        for round in 0..<20 {
            // On threads of their own: four blocking loops must not hold the test run's pool.
            try await racingOffThePool([
                { for i in 0..<300 { d.set(PropertyList(round * 1000 + i), forKey: "k\(i % 17)") } },
                { for i in 0..<20 { d.replaceAll(with: ["replaced": PropertyList(round * 100 + i)]) } },
                { for _ in 0..<10 { try d.synchronize() } },
                {
                    for i in 0..<5 {
                        other.set(PropertyList(i), forKey: "other\(i)")
                        try other.synchronize()
                    }
                },
            ])
            try d.synchronize()
            #expect(try sandbox.fileValue("com.example.race") == .dictionary(d.entries), "round \(round)")
            #expect(d.entryCount.load(ordering: .acquiring) == d.entries.count, "the count kept beside the entries")
            for (key, value) in d.entries { #expect(d.value(forKey: key.string) == value) }
        }
    }

    @Test("this process's changes are reported with old and new values")
    func localChangeEvents() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let recorder = ChangeRecorder(store)
        let d = store.domain("com.example.events")
        d.set(1, forKey: "a")
        d.set(2, forKey: "a")
        d.set(nil, forKey: "a")
        let changes = recorder.all.compactMap { $0.changes["a"] }
        #expect(changes == [.init(old: nil, new: 1), .init(old: 1, new: 2), .init(old: 2, new: nil)])
        #expect(recorder.all.allSatisfy { $0.origin == .thisProcess && $0.domain == "com.example.events" })
    }

    @Test("persistentDomainNames lists the files of a scope")
    func domainNames() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        store.domain("com.b").set(1, forKey: "x")
        store.domain("NSGlobalDomain").set(1, forKey: "x")
        store.domain("com.host", scope: .currentUserCurrentHost).set(1, forKey: "x")
        try store.flushAll()
        #expect(store.persistentDomainNames(scope: .currentUser) == ["NSGlobalDomain", "com.b"])
        #expect(store.persistentDomainNames(scope: .currentUserCurrentHost) == ["com.host"])
    }
}

@Suite("Bad files: a clear error, nothing lost", .timeLimit(.minutes(10)))
struct BadFileTests {
    @Test("an unparseable file is moved aside, reported, and the domain starts empty", arguments: [
        ("garbage", Data("this is { not a plist".utf8)),
        ("empty", Data()),
        ("truncated", Data("bplist00\u{D1}\u{01}\u{02}".utf8)),
        ("wrong root", Data("<plist><array/></plist>".utf8)),
    ])
    func corrupt(name: String, contents: Data) throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("com.example.bad")
        try contents.write(to: URL(fileURLWithPath: path))
        let store = sandbox.makeStore()
        let d = store.domain("com.example.bad")
        #expect(d.entries.isEmpty)
        guard case .corrupt(let moved)? = d.lastError?.kind, let moved else {
            Issue.record("expected a corrupt-file error, got \(String(describing: d.lastError))")
            return
        }
        #expect(moved.hasPrefix(path + ".corrupt-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == contents)
        #expect(d.lastError!.description.contains(path))
        // The domain works again, without touching the kept copy.
        d.set(1, forKey: "fresh")
        try d.synchronize()
        #expect(try sandbox.fileValue("com.example.bad") == ["fresh": 1])
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == contents)
    }

    @Test("a directory in the way: reads are empty, writes fail clearly, nothing is moved")
    func directoryInTheWay() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("com.example.dir")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path + "/inside"))
        let d = sandbox.makeStore().domain("com.example.dir")
        #expect(d.entries.isEmpty)
        #expect(d.lastError?.kind == .unreadable)
        d.set(1, forKey: "a")
        #expect(throws: StorageError.self) { try d.synchronize() }
        #expect(d.value(forKey: "a") == 1)  // kept in memory
        #expect(try String(contentsOfFile: path + "/inside", encoding: .utf8) == "keep")
    }

    @Test("an unwritable location: the error names the path, memory keeps the value")
    func unwritable() throws {
        let sandbox = try Sandbox()
        // The user folder is a regular file: nothing can be created inside it.
        let blocker = sandbox.root.appendingPathComponent("blocked")
        try Data("x".utf8).write(to: blocker)
        var layout = sandbox.layout
        layout.userDirectory = blocker.path
        let store = DomainStore(layout: layout)
        store.setErrorHandler { _ in }
        let d = store.domain("com.example.nowrite")
        d.set("v", forKey: "k")
        do {
            try d.synchronize()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unwritable)
            #expect(error.description.contains(blocker.path))
        }
        #expect(d.value(forKey: "k") == "v")
        #expect(try String(contentsOf: blocker, encoding: .utf8) == "x")
    }
}

@Suite("Managed (forced) preferences", .timeLimit(.minutes(10)))
struct ManagedTests {
    func writeManaged(_ sandbox: Sandbox, _ relative: String, _ value: PropertyList, mode: Int = 0o644) throws {
        let path = sandbox.layout.managedDirectory + "/" + relative
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try value.data(as: .xml).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test("root-owned managed files force values; the user's file wins over everyone's", .requires(.root))
    func forced() throws {
        let sandbox = try Sandbox()
        try writeManaged(sandbox, "com.example.app.plist", ["A": 1, "B": 1])
        try writeManaged(sandbox, "users/tester/com.example.app.plist", ["B": 2])
        let m = sandbox.makeStore().managedDomain("com.example.app")
        #expect(m.entries == ["A": 1, "B": 2])
    }

    @Test("new any-user files are 0644 and current-user files 0600; a rewrite keeps the file's owner, group and mode", .requires(.root))
    func modesAndOwners() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let everyone = store.domain("com.example.shared", scope: .anyUser)
        everyone.set("v1", forKey: "k")
        try everyone.synchronize()
        let mine = store.domain("com.example.mine")
        mine.set("v1", forKey: "k")
        try mine.synchronize()
        func status(_ path: String) throws -> stat {
            var st = stat()
            try #require(lstat(path, &st) == 0, "\(path): \(String(cString: strerror(errno)))")
            return st
        }
        let shared = sandbox.path("com.example.shared", scope: .anyUser)
        #expect(try status(shared).st_mode & 0o777 == 0o644)
        #expect(try status(sandbox.path("com.example.mine")).st_mode & 0o777 == 0o600)
        // An administrator hands the file to another owner and group, with another mode: a rewrite keeps them.
        #expect(chown(shared, 65534, 65534) == 0 && chmod(shared, 0o640) == 0)
        everyone.set("v2", forKey: "k")
        try everyone.synchronize()
        let after = try status(shared)
        #expect(after.st_uid == 65534 && after.st_gid == 65534 && after.st_mode & 0o777 == 0o640,
                "owner \(after.st_uid):\(after.st_gid), mode \(String(after.st_mode & 0o777, radix: 8))")
        #expect(try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: shared)))["k"] == "v2")
    }

    @Test("a managed file writable by others is ignored and reported", .requires(.root))
    func forgedIgnored() throws {
        let sandbox = try Sandbox()
        try writeManaged(sandbox, "com.example.app.plist", ["A": 1], mode: 0o666)
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        #expect(store.managedDomain("com.example.app").entries.isEmpty)
        #expect(errors.all.contains { $0.description.contains("is writable by group or others") })
    }
}

final class ErrorRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [StorageError] = []
    func add(_ e: StorageError) { lock.lock(); errors.append(e); lock.unlock() }
    var all: [StorageError] { lock.lock(); defer { lock.unlock() }; return errors }
}

@Suite("Reading one key without loading the domain", .timeLimit(.minutes(10)))
struct PeekTests {
    @Test func aKeyIsReadFromTheFileWithoutLoadingTheDomain() throws {
        let sandbox = try Sandbox()
        let writer = sandbox.makeStore()
        let domain = writer.domain("com.example.peek")
        domain.set(["k1": "one", "k2": 2])
        try domain.synchronize()
        let reader = sandbox.makeStore()
        #expect(reader.value(forKey: "k1", inDomain: "com.example.peek") == "one")
        #expect(reader.value(forKey: "k2", inDomain: "com.example.peek") == 2)
        #expect(reader.value(forKey: "none", inDomain: "com.example.peek") == nil)
        #expect(reader.value(forKey: "k1", inDomain: "com.example.absent") == nil)
        #expect(reader.loadedDomains.isEmpty)
        #expect(reader.value(forKey: "k1", inDomainAtPath: sandbox.path("com.example.peek")) == "one")
        // A loaded domain answers from memory, unsaved changes included.
        let loaded = reader.domain("com.example.peek")
        loaded.set("changed", forKey: "k1")
        #expect(reader.value(forKey: "k1", inDomain: "com.example.peek") == "changed")
    }

    @Test func aCorruptFileFallsBackToTheFullLoadWhichReportsIt() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("com.example.corrupt")
        try Data("bplist00 this is not a property list at all, not at all, no".utf8).write(to: URL(fileURLWithPath: path))
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        #expect(store.value(forKey: "k", inDomain: "com.example.corrupt") == nil)
        #expect(errors.all.contains { $0.path == path })
        // The full load moved the corrupt file aside (and a domain no longer
        // used is not kept: the store caches domains weakly).
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFifoInPlaceOfTheFileIsReportedNotWaitedOn() throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("com.example.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        let store = DomainStore(layout: sandbox.layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        #expect(store.value(forKey: "k", inDomain: "com.example.fifo") == nil)
        #expect(errors.all.contains { $0.path == path && $0.reason.contains("not a regular file") })
    }
}
