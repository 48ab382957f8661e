import Foundation
@_spi(Engine) @testable import OpenDefaults
import PlatformIO
import SharedTables
import Synchronization
import PropertyList
import Testing
import TestSupport

/// The file watcher keeps seeing other processes' writes after what used
/// to blind it: a folder that did not exist yet, a folder deleted and made
/// again, an overflowing event queue; and it does not wake an idle process.
@Suite("File watcher", .offThePool, .timeLimit(.minutes(10)))
struct WatcherTests {
    @Test("a domain whose folder does not exist yet is seen once another process creates it")
    func folderCreatedLater() throws {
        let sandbox = try Sandbox()
        try FileManager.default.removeItem(atPath: sandbox.userDirectory)
        let store = sandbox.makeStore()
        let defaults = Defaults(domainName: "com.example.later", store: store, arguments: [])
        #expect(defaults.string(forKey: "k") == nil)
        let r = try run(helperPath, ["write-sync", "com.example.later", "k", "made"], environment: sandbox.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(eventually(timeout: .seconds(2)) { defaults.string(forKey: "k") == "made" })
    }

    @Test("a removal, or a set of the value reads saw, issued after another process's write wins over it however late the watcher is")
    func lateWatcherLosesNoWrite() throws {
        let sandbox = try Sandbox()
        let mine = sandbox.makeStore(), other = sandbox.makeStore()
        let name = "com.example.late"
        let domain = mine.domain(name)
        #expect(domain.entries.isEmpty)   // loaded, so watched
        // A first write of the other process holds this one's file watcher in an observer.
        let held = HeldCall()
        let token = mine.observe { _ in held.call() }
        defer { held.release(); withExtendedLifetime(token) {} }
        try other.domain(name).update { $0["mode"] = 1 }
        #expect(eventually(timeout: .seconds(30)) { held.entered }, "the file watcher never saw the first write")
        #expect(domain.value(forKey: "mode") == 1)

        // The other process writes again; this process has not read it, and then writes.
        try other.domain(name).update { $0["gone"] = 2; $0["mode"] = 2; $0["kept"] = 3 }
        #expect(domain.value(forKey: "gone") == nil && domain.value(forKey: "mode") == 1,
                "the held watcher took the write: the test proves nothing")
        domain.set(nil, forKey: "gone")   // reads saw no such key
        domain.set(1, forKey: "mode")     // reads saw 1 already
        try domain.synchronize()

        let expected: [LiteralString: PropertyList] = ["mode": 1, "kept": 3]
        #expect(domain.entries == expected)
        #expect(sandbox.makeStore().domain(name).entries == expected, "the file lost this process's later writes")
    }

    @Test("a set of the value the file already holds writes nothing")
    func unchangedSetWritesNothing() throws {
        let sandbox = try Sandbox()
        let domain = sandbox.makeStore().domain("com.example.same")
        domain.set(1, forKey: "k")
        try domain.synchronize()
        let before = try FileSignature.lookup(sandbox.path("com.example.same")).get()
        domain.set(1, forKey: "k")
        domain.set(nil, forKey: "absent")
        try domain.synchronize()
        #expect(try FileSignature.lookup(sandbox.path("com.example.same")).get() == before)
        #expect(domain.entries == ["k": 1])
    }

    @Test("a folder deleted and made again is watched again")
    func folderReplaced() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let defaults = Defaults(domainName: "com.example.replaced", store: store, arguments: [])
        #expect(try run(helperPath, ["write-sync", "com.example.replaced", "k", "one"], environment: sandbox.environment).status == 0)
        #expect(eventually(timeout: .seconds(2)) { defaults.string(forKey: "k") == "one" })
        try FileManager.default.removeItem(atPath: sandbox.userDirectory)
        #expect(eventually(timeout: .seconds(2)) { defaults.string(forKey: "k") == nil })
        try FileManager.default.createDirectory(atPath: sandbox.userDirectory, withIntermediateDirectories: true)
        #expect(try run(helperPath, ["write-sync", "com.example.replaced", "k", "two"], environment: sandbox.environment).status == 0)
        #expect(eventually(timeout: .seconds(2)) { defaults.string(forKey: "k") == "two" })
        // And renamed away and replaced by another folder.
        try FileManager.default.moveItem(atPath: sandbox.userDirectory, toPath: sandbox.userDirectory + ".old")
        try FileManager.default.createDirectory(atPath: sandbox.userDirectory, withIntermediateDirectories: true)
        #expect(try run(helperPath, ["write-sync", "com.example.replaced", "k", "three"], environment: sandbox.environment).status == 0)
        #expect(eventually(timeout: .seconds(2)) { defaults.string(forKey: "k") == "three" })
    }

    @Test("an overflowed event queue re-reads every watched file")
    func overflow() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let a = store.domain("com.example.a"), b = store.domain("com.example.b")
        let overflow = FolderEvents.Event(watch: -1, name: "", flags: .overflow)
        let targets = store.watcher.targets(for: [overflow])
        #expect(targets.contains { $0 === a } && targets.contains { $0 === b })
    }

    @Test("the kernel's event records read as events: an overflow, and a named file closed after writing")
    func parsesKernelRecords() {
        // struct inotify_event: wd, mask, cookie, len, then len bytes of NUL-padded name.
        var bytes: [UInt8] = []
        func record(_ wd: Int32, _ mask: UInt32, _ name: String) {
            withUnsafeBytes(of: wd) { bytes += $0 }
            withUnsafeBytes(of: mask) { bytes += $0 }
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
            let padded = name.isEmpty ? [] : Array(name.utf8) + [UInt8](repeating: 0, count: 16 - name.utf8.count % 16)
            withUnsafeBytes(of: UInt32(padded.count)) { bytes += $0 }
            bytes += padded
        }
        record(-1, UInt32(IN_Q_OVERFLOW), "")
        record(3, UInt32(IN_CLOSE_WRITE), "com.example.a.plist")
        let events = FolderEvents.parse(bytes, count: bytes.count)
        #expect(events == [
            FolderEvents.Event(watch: -1, name: "", flags: .overflow),
            FolderEvents.Event(watch: 3, name: "com.example.a.plist", flags: .closedAfterWriting),
        ])
        // A record cut short is not read past the bytes given.
        #expect(FolderEvents.parse(bytes, count: 20).count == 1)
    }

    @Test("thousands of events at once overflow the kernel's queue and do not blind the watcher", .requires(.root))
    func burst() throws {
        let sandbox = try Sandbox()
        // The kernel's queue, 16,384 events by default, is drained faster than a test makes
        // events: the watcher is made while the limit is 64 (it applies when a queue is made;
        // restored at once), so the burst below overflows it for certain.
        let limitFile = "/proc/sys/fs/inotify/max_queued_events"
        let limit = try String(contentsOfFile: limitFile, encoding: .utf8)
        try "64\n".write(toFile: limitFile, atomically: false, encoding: .utf8)
        let store = sandbox.makeStore()
        let defaults = Defaults(domainName: "com.example.burst", store: store, arguments: [])
        _ = defaults.string(forKey: "k")
        let watching = eventually(timeout: .seconds(10)) { store.watcher.watches.withLock { !$0.folders.isEmpty } }
        try limit.write(toFile: limitFile, atomically: false, encoding: .utf8)
        try #require(watching, "the watcher did not start")
        // 10,000 events in the watched folder.
        for i in 0..<5_000 {
            let path = sandbox.userDirectory + "/noise-\(i)"
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(eventually(timeout: .seconds(20)) { store.watcher.overflows.load(ordering: .relaxed) > 0 }, "the queue never overflowed")
        #expect(try run(helperPath, ["write-sync", "com.example.burst", "k", "after"], environment: sandbox.environment).status == 0)
        // Delivery, not its speed (measured elsewhere): under ThreadSanitizer
        // the watcher takes seconds to drain 20,000 events.
        #expect(eventually(timeout: .seconds(20)) { defaults.string(forKey: "k") == "after" })
    }

    #if OPENDEFAULTS_TSAN
    /// ThreadSanitizer's runtime wakes an instrumented helper by itself.
    static let measuresWakeUps = false
    #else
    static let measuresWakeUps = true
    #endif

    @Test("an idle process that watches domains is not woken", .enabled(if: measuresWakeUps, "ThreadSanitizer's own thread wakes the helper"))
    func idleProcessSleeps() throws {
        let sandbox = try Sandbox()
        let p = try startProcess(helperPath, ["observe", "com.example.idle", "k"], environment: sandbox.environment)
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        Thread.sleep(forTimeInterval: 0.5)
        func switches() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/task")) ?? []
            var total = 0
            for t in tasks {
                let status = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/task/\(t)/status", encoding: .utf8)) ?? ""
                for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                    total += Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
                }
            }
            return total
        }
        let before = switches()
        Thread.sleep(forTimeInterval: 2)
        let woken = switches() - before
        // The helper's main thread sleeps a second at a time (2–3 wake-ups);
        // a watcher polling every 25 ms would add 80.
        #expect(woken < 15, "the idle process woke \(woken) times in 2 s")
    }
}
