import Foundation
@_spi(Engine) import OpenDefaults
@testable import OpenDefaultsUbiquity
import PropertyList
import Testing
import TestSupport

/// One machine, two processes on one store (`ubiquity set` and `ubiquity
/// watch`): the watching process must not take the setting process's own
/// write, coming back from the server, for news from another machine.
@Suite("ubiquity: processes of one machine share their store")
struct LocalReplicaCoherenceTests {
    @Test("a download bringing back a write another process of this machine made is no ServerChange, however late the file watcher is")
    func ownMachinesWriteIsNoNews() async throws {
        let folder = try TemporaryFolder("coherence")
        let watching = DomainStore(layout: .current), setting = DomainStore(layout: .current)
        let watcherSide = LocalReplica(folder: folder.path, storeIdentifier: "com.example.s", domainStore: watching)
        let setterSide = LocalReplica(folder: folder.path, storeIdentifier: "com.example.s", domainStore: setting)
        let held = HeldCall()
        let token = watching.observe { _ in held.call() }
        defer { held.release(); withExtendedLifetime(token) {} }

        // A first write holds the watching process's file watcher in its observer.
        try setterSide.write(.string("1"), forKey: "warmup")
        try setterSide.synchronize()
        #expect(await settle(30) { held.entered }, "the watching process's file watcher never saw the first write")

        // The setting process writes, makes it durable and (as the server would) it comes back.
        try setterSide.write(.string("dark"), forKey: "theme")
        try setterSide.synchronize()
        #expect(watcherSide.value(forKey: "theme") == nil, "the held watcher took the write: the test proves nothing")
        let echo = UbiquityChangesResponse(revision: 2, complete: false, entries: [
            UbiquityWireEntry(key: "theme", revision: 2, value: UbiquityWireValue.encode(.string("dark"))),
        ])
        let changed = try watcherSide.apply(changes: echo, initial: false)
        #expect(changed == [], "the machine's own write was reported as the server's change")
        #expect(watcherSide.value(forKey: "theme") == .string("dark"))
        // The size book follows the other process's writes (both keys are counted).
        watcherSide._checkInvariants()
        #expect(watcherSide.keys.sorted() == ["theme", "warmup"])

        // A value that is news still is.
        let news = UbiquityChangesResponse(revision: 3, complete: false, entries: [
            UbiquityWireEntry(key: "theme", revision: 3, value: UbiquityWireValue.encode(.string("light"))),
        ])
        #expect(try watcherSide.apply(changes: news, initial: false) == ["theme"])
    }
}
