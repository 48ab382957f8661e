import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// A small tmpfs, mounted for the test (needs root, as in CI).
final class SmallFileSystem {
    let path: String
    let mounted: Bool

    init(kilobytes: Int) {
        // Removed again at exit, if a flush scheduled before the test ended writes into it anew.
        path = (try? ScratchFolders.make("opendefaults-fs").path)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("opendefaults-fs-\(UUID().uuidString)").path
        mounted = (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]).status) == 0
    }

    /// Remounts read-only; retried while the kernel answers EBUSY (a file
    /// open for writing on it, such as a background flush's temporary file).
    func remountReadOnly() -> Bool {
        for _ in 0..<100 {
            if (try? run("/bin/mount", ["-o", "remount,ro", path]).status) == 0 { return true }
            usleep(50_000)
        }
        return false
    }

    deinit {
        if mounted { _ = try? run("/bin/umount", ["-l", path]) }
        try? FileManager.default.removeItem(atPath: path)
    }

    static let available: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
        return SmallFileSystem(kilobytes: 16).mounted
    }()

    /// Root that can mount a small tmpfs (`OPENDEFAULTS_REQUIRE_ROOT` covers it).
    static let requirement = Requirement("ROOT", "needs root and /bin/mount able to mount a tmpfs (run the tests as root)",
                                         installed: { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }) { available }
}

@Suite("A full or read-only disk: the value stays in memory, the error is reported, the old file is intact", .offThePool, .timeLimit(.minutes(10)),
       .requires(SmallFileSystem.requirement))
struct FullDiskTests {
    func store(in fs: SmallFileSystem) -> (DomainStore, ErrorRecorder) {
        let layout = PreferencesLayout(userDirectory: fs.path, systemDirectory: fs.path + "/sys",
                                       managedDirectory: fs.path + "/managed", hostIdentifier: "host", userName: "tester")
        let store = DomainStore(layout: layout)
        let errors = ErrorRecorder()
        store.setErrorHandler { errors.add($0) }
        return (store, errors)
    }

    @Test func diskFull() throws {
        let fs = SmallFileSystem(kilobytes: 64)
        try #require(fs.mounted)
        let (store, errors) = store(in: fs)
        let domain = store.domain("com.example.full")
        domain.set(["name": "Ada", "count": 1])
        try domain.synchronize()
        let path = store.layout.path(for: "com.example.full", scope: .currentUser)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        domain.set(.data(Data(count: 200 * 1024)), forKey: "big")  // more than the file system holds
        #expect(throws: StorageError.self) { try domain.synchronize() }
        #expect(domain.value(forKey: "big")?.dataValue?.count == 200 * 1024, "the value stays in memory")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the old file is intact")
        #expect(domain.lastError != nil)
        // No temporary file is left behind to fill the disk further.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fs.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")

        // Room again: the next flush writes everything.
        domain.set(nil, forKey: "big")
        domain.set("Lovelace", forKey: "surname")
        try domain.synchronize()
        let after = try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(after == ["name": "Ada", "count": 1, "surname": "Lovelace"])
        _ = errors
    }

    @Test func readOnlyFileSystem() throws {
        let fs = SmallFileSystem(kilobytes: 64)
        try #require(fs.mounted)
        let (store, errors) = store(in: fs)
        let domain = store.domain("com.example.ro")
        domain.set("before", forKey: "k")
        try domain.synchronize()
        let path = store.layout.path(for: "com.example.ro", scope: .currentUser)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(fs.remountReadOnly())

        domain.set("after", forKey: "k")
        let error = #expect(throws: StorageError.self) { try domain.synchronize() }
        #expect(error?.description.contains(fs.path) == true, "the error names the path: \(String(describing: error))")
        #expect(domain.value(forKey: "k") == "after")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // The scheduled flush (no synchronize) also fails, and reports through the handler:
        // a report that comes after the failed synchronize's own.
        let reported = errors.all.count
        domain.set("again", forKey: "k")
        #expect(eventually { errors.all.count > reported }, "the scheduled flush's failure was never reported")
        #expect(errors.all.dropFirst(reported).contains { $0.description.contains(fs.path) })
    }

    @Test("no room for a journal: the write lands in memory, the error names the journal, the flush still writes")
    func noRoomForAJournal() throws {
        let fs = SmallFileSystem(kilobytes: 128)  // less than a journal's first 256 KiB
        try #require(fs.mounted)
        let (store, errors) = store(in: fs)
        let domain = store.domain("com.example.nojournal")
        domain.set("Ada", forKey: "name")
        #expect(domain.value(forKey: "name") == "Ada")
        let reported = errors.all.first { $0.path.contains(".journals") }
        #expect(reported?.kind == .unwritable, "\(errors.all)")
        #expect(reported?.reason.contains("kept in memory") == true, "\(String(describing: reported))")
        // Reported once, not per write.
        domain.set("Grace", forKey: "name")
        #expect(errors.all.filter { $0.path.contains(".journals") }.count == 1)
        try domain.synchronize()
        let path = store.layout.path(for: "com.example.nojournal", scope: .currentUser)
        #expect(try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: path))) == ["name": "Grace"])
        // Nothing half-made is left in the journal folder.
        let folder = DomainJournal.folder(forDomainFile: path)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    @Test("a journal that cannot grow: the writes land in memory and the error is reported")
    func journalCannotGrow() throws {
        let fs = SmallFileSystem(kilobytes: 400)  // room for the first 256 KiB, not for 512
        try #require(fs.mounted)
        let (store, errors) = store(in: fs)
        let domain = store.domain("com.example.grow")
        let chunk = String(repeating: "x", count: 10_000)
        var values: [LiteralString: PropertyList?] = [:]
        for i in 0..<30 { values["k\(i)"] = .string(chunk) }  // 300 KB in one batch
        domain.set(values)
        #expect(domain.value(forKey: "k29") == .string(chunk))
        #expect(domain.entries.count == 30)
        #expect(errors.all.contains { $0.path.contains(".journals") && $0.reason.contains("cannot grow") }, "\(errors.all)")
        // Removing the batch and writing one key: the flush writes just that.
        domain.set(values.mapValues { _ in nil })
        domain.set("small", forKey: "after")
        try domain.synchronize()
        let path = store.layout.path(for: "com.example.grow", scope: .currentUser)
        #expect(try PropertyList(decoding: Data(contentsOf: URL(fileURLWithPath: path))) == ["after": "small"])
    }
}
