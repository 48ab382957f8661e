import Foundation
import PlatformIO
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

@Suite("Lifetimes: a store no longer used is released, and loses nothing", .exclusive(.processResources), .timeLimit(.minutes(10)))
struct LifetimeTests {
    /// This process's open descriptors, not counting pipes and sockets: what a
    /// store opens (inotify instances, event descriptors, files) without the
    /// pipes and sockets that suites running beside this one open and close.
    func openDescriptors() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            return !target.hasPrefix("pipe:") && !target.hasPrefix("socket:")
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
        let before = openDescriptors()
        for i in 0..<300 {
            let store = sandbox.makeStore()
            let d = Defaults(domainName: "com.example.many", store: store, arguments: [])
            d.set(i, forKey: "i")
            #expect(d.synchronize())
        }
        #expect(eventually { openDescriptors() <= before + 8 })
        let store = sandbox.makeStore()
        let target = store.domain("com.example.watched")
        // A store made now still gets an inotify instance: the overflow event
        // re-reads its domain (it would be polled, not watched, without one).
        let overflow = FolderEvents.Event(watch: -1, name: "", flags: .overflow)
        #expect(store.watcher.targets(for: [overflow]).contains { $0 === target })
        #expect(try sandbox.fileValue("com.example.many") == ["i": 299])
    }
}
