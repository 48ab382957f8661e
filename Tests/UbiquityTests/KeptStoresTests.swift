import NIOCore
import Synchronization
import Testing
import PropertyList
import UbiquityBackend
@testable import UbiquityPostgres

/// What a PostgreSQL server keeps of the stores it commits to (``KeptStores``): a group is
/// decided without a read only on knowledge true at the store's current revision, as far as this
/// server can tell, and the write statement checks the rest.
@Suite("PostgreSQL: what a server keeps of its stores")
struct KeptStoresTests {
    struct Job: CommitJob {
        var account = "a"
        var store = "s"
        var changes: [CheckedChange]
        var tokenHash: [UInt8]? = nil
    }

    static func job(_ key: String, base: Int64 = 0, _ value: String = "v") -> Job {
        Job(changes: [CheckedChange(key: key, base: base, bytes: Array(value.utf8))])
    }

    static let head = StoreHead(revision: 5, count: 1, total: 1, tombstones: 0, horizon: 0)

    /// A read at revision 5 that asked for `x` and `y` and found `x`.
    static func readAtFive(_ kept: KeptStores) {
        var read = PostgresBackend.GroupState()
        read.heads["a/s"] = head
        read.current["a/s"] = ["x": CurrentEntry(revision: 5, size: 1, value: nil)]
        kept.learn(read, for: [job("x"), job("y")])
        kept._checkInvariants()
    }

    /// The decision of `jobs` on what is kept.
    static func decide(_ kept: KeptStores, _ jobs: [Job]) throws -> StoreDecision {
        let state = try #require(kept.groupState(for: jobs))
        return StoreDecision(jobs, 0..<jobs.count, account: "a", store: "s", head: try #require(state.heads["a/s"]),
                             current: state.current["a/s"] ?? [:], validTokens: nil, quota: nil, others: nil)
    }

    @Test("a group is known only when its store and every key it changes are: present, or read and found absent")
    func knownOnlyWhenEveryKeyIs() throws {
        let kept = KeptStores()
        #expect(kept.groupState(for: [Self.job("x")]) == nil)
        Self.readAtFive(kept)
        let known = try #require(kept.groupState(for: [Self.job("x"), Self.job("y")]))
        #expect(known.isKept && known.heads["a/s"] == Self.head)
        #expect(known.current["a/s"]?["x"]?.revision == 5 && known.current["a/s"]?["y"] == nil)
        #expect(kept.groupState(for: [Self.job("z")]) == nil, "a key never asked for is not known to be absent")
        #expect(kept.groupState(for: [Job(store: "other", changes: [])]) == nil)
    }

    @Test("this server's write moves what is kept to the new revision; its own notification forgets nothing, another server's does")
    func writesAndNotifications() throws {
        let kept = KeptStores()
        Self.readAtFive(kept)
        let decision = try Self.decide(kept, [Self.job("y", base: 0, "new")])
        #expect(decision.writes && decision.after.revision == 6)
        kept.willWrite([decision])
        kept.heard(.store(account: "a", store: "s", revision: 6))   // this write's own, heard before its answer
        kept.wrote(decision)
        kept._checkInvariants()
        let after = try #require(kept.groupState(for: [Self.job("y"), Self.job("x")]))
        #expect(after.heads["a/s"]?.revision == 6 && after.current["a/s"]?["y"]?.revision == 6)
        kept.heard(.store(account: "a", store: "s", revision: 6))   // heard again, late: still this server's
        #expect(kept.groupState(for: [Self.job("y")]) != nil)
        kept.heard(.store(account: "a", store: "s", revision: 7))   // another server's
        #expect(kept.groupState(for: [Self.job("y")]) == nil)
        kept._checkInvariants()
    }

    @Test("a write that did not land as decided (the store moved, or the statement's fate is unknown) forgets the store")
    func writesThatDidNotLand() throws {
        let kept = KeptStores()
        Self.readAtFive(kept)
        let decision = try Self.decide(kept, [Self.job("y")])
        kept.willWrite([decision])
        kept.heard(.store(account: "a", store: "s", revision: 7))   // another server got there first
        kept.wrote(decision)
        #expect(kept.groupState(for: [Self.job("y")]) == nil)
        Self.readAtFive(kept)
        kept.forget("a/s")
        #expect(kept.groupState(for: [Self.job("y")]) == nil)
        Self.readAtFive(kept)
        kept.heard(.everything)
        #expect(kept.groupState(for: [Self.job("y")]) == nil)
        kept._checkInvariants()
    }

    @Test("a read at another revision replaces what was kept; at the same revision it adds to it")
    func readsAgain() throws {
        let kept = KeptStores()
        Self.readAtFive(kept)
        var read = PostgresBackend.GroupState()
        read.heads["a/s"] = Self.head
        kept.learn(read, for: [Self.job("z")])
        #expect(kept.groupState(for: [Self.job("x"), Self.job("y"), Self.job("z")]) != nil)
        read.heads["a/s"] = StoreHead(revision: 9, count: 0, total: 0, tombstones: 0, horizon: 0)
        kept.learn(read, for: [Self.job("z")])
        #expect(kept.groupState(for: [Self.job("x")]) == nil)
        #expect(kept.groupState(for: [Self.job("z")])?.heads["a/s"]?.revision == 9)
        kept._checkInvariants()
    }

    @Test("past its bound in bytes everything kept is forgotten")
    func bounded() throws {
        let kept = KeptStores()
        let large = [UInt8](repeating: 1, count: 1 << 20)
        var held = 0
        for i in 0... {
            var read = PostgresBackend.GroupState()
            let storeKey = "a/s\(i)"
            read.heads[storeKey] = Self.head
            read.current[storeKey] = ["k": CurrentEntry(revision: 5, size: large.count, value: .init(bytes: large))]
            kept.learn(read, for: [Job(store: "s\(i)", changes: [CheckedChange(key: "k", base: 0, bytes: nil)])])
            kept._checkInvariants()
            held += large.count + 1
            if held > KeptStores.maximumBytes {
                #expect(kept.state.withLock { $0.stores.isEmpty && $0.bytes == 0 })
                break
            }
            #expect(kept.state.withLock { $0.stores.count == i + 1 && $0.bytes == held })
        }
    }
}
