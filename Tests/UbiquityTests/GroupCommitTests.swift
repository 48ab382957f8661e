import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport
import UbiquityProtocol

/// The commits a server applies together (one transaction, one fsync, on both backends): each
/// decided on top of the ones before it in the group, exactly as if applied one by one.
@Suite("ubiquity serve: commits applied together", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)), .serialized)
struct GroupCommitTests {
    @Test("96 commits at once over 3 stores: each key written once with base 0 applies once, revisions have no gap, the log and counts check",
          arguments: Backend.available)
    func manyAtOnce(backend: Backend) async throws {
        let (server, transports) = try serving(backend, clients: 12)
        let stores = ["com.example.g0", "com.example.g1", "com.example.g2"]
        // Writer i sets key k(i % 8) of store i % 3 with base 0: the first of each pair applies,
        // every later one finds the key written and is a conflict.
        let answers = try await withThrowingTaskGroup(of: (Int, UbiquityCommitResponse).self) { group in
            for i in 0..<96 {
                group.addTask {
                    let r = try await transports[i % transports.count].commit(store: stores[i % 3], UbiquityCommitRequest(changes: [
                        UbiquityWireChange(key: "k\(i % 8)", base: 0, value: UbiquityWireValue.encode(.integer(.init(Int64(i))))),
                        UbiquityWireChange(key: "w\(i)", base: 0, value: UbiquityWireValue.encode(.string("writer \(i)"))),
                    ]))
                    return (i, r)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 96)
        for (s, store) in stores.enumerated() {
            let mine = answers.filter { $0.key % 3 == s }
            // Every commit applies its own key w(i): every one writes, each at its own revision.
            let revisions = mine.values.map(\.revision).sorted()
            #expect(revisions == Array(1...Int64(mine.count)), "\(store): revisions \(revisions)")
            // Of the writers of one key k(j) (base 0), exactly one applied it: the one at the lowest revision.
            for j in 0..<8 {
                let writers = mine.filter { $0.key % 8 == j }
                guard !writers.isEmpty else { continue }
                let applied = writers.filter { $0.value.results.first?.status == .applied }
                #expect(applied.count == 1, "\(store) k\(j): \(applied.count) applied of \(writers.count)")
                #expect(applied.first?.value.revision == writers.values.map(\.revision).min())
            }
            // What a reader gets is what the commits applied, key by key, at the revision that wrote it.
            let read = try await transports[0].changes(store: store, after: 0, wait: nil)
            #expect(read.revision == Int64(mine.count))
            for entry in read.entries {
                if entry.key.hasPrefix("w") {
                    let i = Int(entry.key.dropFirst())!
                    #expect(entry.revision == answers[i]?.revision, "\(store) \(entry.key)")
                } else {
                    let winner = mine.first { $0.key % 8 == Int(entry.key.dropFirst())! && $0.value.results.first?.status == .applied }
                    #expect(entry.revision == winner?.value.revision, "\(store) \(entry.key)")
                }
            }
            // A reader that had revision r gets exactly the keys last written after r.
            let middle = Int64(mine.count / 2)
            let delta = try await transports[0].changes(store: store, after: middle, wait: nil)
            #expect(Set(delta.entries.map(\.key)) == Set(read.entries.filter { $0.revision > middle }.map(\.key)))
        }
        // The commit log has every revision of every store, and the counts are the entries'.
        Self.expectChecked(server)
    }

    @Test("2,200 commits at once to one store: groups that pass a multiple of the log's slack prune it, and the log stays whole and bounded",
          arguments: Backend.available)
    func logPrunedAcrossGroups(backend: Backend) async throws {
        let (server, transports) = try serving(backend, clients: 16)
        let total = 2_200
        let revisions = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for w in 0..<64 {
                group.addTask {
                    // Writer w alone writes key w, each time on its last revision: every commit applies.
                    var mine: [Int64] = []
                    for i in stride(from: w, to: total, by: 64) {
                        let r = try await transports[w % transports.count].commit(store: "com.example.log", UbiquityCommitRequest(changes: [
                            UbiquityWireChange(key: "w\(w)", base: mine.last ?? 0, value: UbiquityWireValue.encode(.integer(.init(Int64(i))))),
                        ]))
                        #expect(r.results.first?.status == .applied, "writer \(w), commit \(i): \(r.results.first?.status.rawValue ?? "no result")")
                        mine.append(r.revision)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let sorted = revisions.sorted()
        #expect(sorted.count == total && sorted.first == 1 && sorted.last == Int64(total) && Set(sorted).count == total,
                "\(sorted.count) revisions from \(sorted.first ?? 0) to \(sorted.last ?? 0), \(Set(sorted).count) distinct")
        // Past 2,048 revisions, a log that was never pruned would hold more than
        // keptCommits + commitLogSlack rows: `ubiquity check` names the store.
        Self.expectChecked(server)
    }

    @Test("two keys that look alike (é composed and decomposed) are two keys to a commit's checks, in one commit and in later ones",
          arguments: Backend.available)
    func lookalikeKeys(backend: Backend) async throws {
        let (server, clients) = try serving(backend, clients: 1)
        let t = clients[0]
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && Array(composed.unicodeScalars) != Array(decomposed.unicodeScalars))
        let first = try await t.commit(store: "com.example.lookalike", UbiquityCommitRequest(changes: [
            UbiquityWireChange(key: composed, base: 0, value: UbiquityWireValue.encode(.string("composed"))),
            UbiquityWireChange(key: decomposed, base: 0, value: UbiquityWireValue.encode(.string("decomposed"))),
        ]))
        #expect(first.results.map(\.status) == [.applied, .applied])
        // Both exist now: a base of 0 is stale for each, and each conflict returns its own entry.
        let second = try await t.commit(store: "com.example.lookalike", UbiquityCommitRequest(changes: [
            UbiquityWireChange(key: decomposed, base: 0, value: UbiquityWireValue.encode(.string("lost update"))),
            UbiquityWireChange(key: composed, base: 0, value: UbiquityWireValue.encode(.string("lost update"))),
        ]))
        #expect(second.results.map(\.status) == [.conflict, .conflict])
        #expect(second.results.map { Array($0.entry.key.unicodeScalars) } == [Array(decomposed.unicodeScalars), Array(composed.unicodeScalars)])
        let read = try await t.changes(store: "com.example.lookalike", after: 0, wait: nil)
        let values = Dictionary(uniqueKeysWithValues: read.entries.map { (Array($0.key.unicodeScalars), $0.value.flatMap(UbiquityWireValue.decode)?.value) })
        #expect(values == [Array(composed.unicodeScalars): .string("composed"), Array(decomposed.unicodeScalars): .string("decomposed")])
        Self.expectChecked(server)
    }

    /// `ubiquity check` finds nothing wrong in the server's database.
    static func expectChecked(_ server: SyncServer, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let check = try server.check()
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)", sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
        }
    }
}
