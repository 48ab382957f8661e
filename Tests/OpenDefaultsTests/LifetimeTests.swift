import Foundation
import PlatformIO
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList
import SharedTables

@Suite("Lifetimes: a store no longer used is released, and loses nothing", .exclusive(.processResources), .timeLimit(.minutes(10)))
struct LifetimeTests {
    /// The descriptors of this process that belong to `sandbox`: files opened
    /// inside it, and inotify instances that watch one of its folders (Linux
    /// lists each instance's watched inodes in `/proc/self/fdinfo`). Suites
    /// running beside this one open their own files and instances; counting
    /// only the sandbox's, their number does not change the answer.
    func descriptors(of sandbox: Sandbox) -> Int {
        let fm = FileManager.default
        let root = sandbox.root.path
        var folders: Set<String> = []
        let enumerator = fm.enumerator(atPath: root)
        var paths = [root]
        while let relative = enumerator?.nextObject() as? String { paths.append(root + "/" + relative) }
        for path in paths {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                folders.insert("ino:" + String(UInt64(info.st_ino), radix: 16) + " ")
            }
        }
        let names = (try? fm.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            guard let target = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            if target.hasPrefix(root + "/") || target == root { return true }
            guard target == "anon_inode:inotify",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + name, encoding: .utf8)
            else { return false }
            return folders.contains { info.contains($0) }
        }.count
    }

    @Test("a released store flushes what was pending and gives back its watcher (inotify instance, thread, descriptors)")
    func releasedStore() throws {
        let sandbox = try Sandbox()
        weak var released: DomainStore?
        do {
            let store = sandbox.makeStore()
            released = store
            let d = Defaults(domainName: "com.example.lifetime", store: store, arguments: [])
            d.set("kept", forKey: "k")  // pending: flushed 20 ms later, or when the store goes
            #expect(d.string(forKey: "k") == "kept")
        }
        #expect(eventually { released == nil })
        #expect(try sandbox.fileValue("com.example.lifetime") == ["k": "kept"])
    }

    @Test("thousands of stores made and dropped one after another do not run out of inotify instances or descriptors", .offThePool)
    func manyStores() throws {
        let sandbox = try Sandbox()
        // The kernel allows 128 inotify instances per user by default: more
        // stores than that, each watching, would fail if none were released.
        var stores: [Weak<DomainStore>] = []
        for i in 0..<300 {
            let store = sandbox.makeStore()
            let d = Defaults(domainName: "com.example.many", store: store, arguments: [])
            d.set(i, forKey: "i")
            #expect(d.synchronize())
            stores.append(Weak(store))
            #expect(descriptors(of: sandbox) >= 1, "a store watches its folders")
        }
        #expect(eventually { stores.allSatisfy { $0.object == nil } })
        #expect(eventually { descriptors(of: sandbox) == 0 })
        let store = sandbox.makeStore()
        let target = store.domain("com.example.watched")
        // A store made now still gets an inotify instance: the overflow event
        // re-reads its domain (it would be polled, not watched, without one).
        let overflow = FolderEvents.Event(watch: -1, name: "", flags: .overflow)
        #expect(store.watcher.targets(for: [overflow]).contains { $0 === target })
        #expect(try sandbox.fileValue("com.example.many") == ["i": 299])
    }
}
