import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport
import UbiquityProtocol

/// What a reader that has a store at revision `after` is sent: every entry last written after
/// it, whichever way the backend finds them (on PostgreSQL: through the keys the commit log
/// names for a reader a few commits behind, else by reading the store's entries; proposal 0019).
@Suite("ubiquity serve: a reader's changes after any revision", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)),
       .serialized, .reportsSeeds)
struct CatchUpTests {
    /// What the commits applied, as the server answered them.
    struct Model {
        /// Each key's last write.
        var entries: [String: UbiquityWireEntry] = [:]
        /// The keys each writing commit applied, by its revision.
        var applied: [Int64: [String]] = [:]

        mutating func record(_ response: UbiquityCommitResponse) {
            let keys = response.results.filter { $0.status == .applied }.map(\.entry)
            guard !keys.isEmpty else { return }
            applied[response.revision] = keys.map(\.key)
            for entry in keys { entries[entry.key] = entry }
        }
    }

    @Test("after every revision, exactly the entries last written after it: commits alone and together, removals, stale bases, 300 keys at once",
          arguments: Backend.available)
    func everyRevision(backend: Backend) async throws {
        let (server, transports) = try serving(backend, clients: 16)
        let store = "com.example.catchup"
        var random = SeededRandom()
        var model = Model()
        // Commits one at a time: 1–4 of 12 keys, a quarter of the set keys removed, one change in
        // eight on a stale base (a conflict: neither written nor logged).
        for i in 0..<60 {
            var changes: [UbiquityWireChange] = []
            for key in Set((0..<Int.random(in: 1...4, using: &random)).map { _ in "k\(Int.random(in: 0..<12, using: &random))" }) {
                let current = model.entries[key]
                let stale = Int.random(in: 0..<8, using: &random) == 0
                let remove = current?.value != nil && Int.random(in: 0..<4, using: &random) == 0
                changes.append(UbiquityWireChange(key: key, base: (current?.revision ?? 0) + (stale ? 1_000 : 0),
                                                  value: remove ? nil : UbiquityWireValue.encode(.integer(.init(Int64(i))))))
            }
            model.record(try await transports[0].commit(store: store, UbiquityCommitRequest(changes: changes)))
        }
        // One commit of 300 keys: more than a reader just before it finds through the log.
        model.record(try await transports[0].commit(store: store, UbiquityCommitRequest(changes: (0..<300).map {
            UbiquityWireChange(key: "wide\($0)", base: 0, value: UbiquityWireValue.encode(.integer(.init(Int64($0)))))
        })))
        // Commits together (the server groups what arrives at once): 16 writers, each its own
        // keys, 1–3 of them, in four rounds.
        for round in 0..<4 {
            let requests = (0..<16).map { w in
                UbiquityCommitRequest(changes: (0..<(1 + (w + round) % 3)).map { j in
                    let key = "w\(w)-\(j)"
                    return UbiquityWireChange(key: key, base: model.entries[key]?.revision ?? 0, value: UbiquityWireValue.encode(.string("round \(round)")))
                })
            }
            let responses = try await withThrowingTaskGroup(of: UbiquityCommitResponse.self) { group in
                for (w, request) in requests.enumerated() {
                    group.addTask { try await transports[w].commit(store: store, request) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for r in responses { model.record(r) }
        }
        let head = try #require(model.applied.keys.max())
        #expect(model.applied.keys.sorted() == Array(1...head), "every writing commit has its own revision")

        let whole = try await transports[0].changes(store: store, after: 0, wait: nil)
        #expect(whole.revision == head)
        #expect(Dictionary(uniqueKeysWithValues: whole.entries.map { ($0.key, $0) }) == model.entries)
        try await Self.expectEveryRevision(transports[0], store: store, head: head, entries: Set(model.entries.values))
        #expect(try server.check().status == 0)

        guard backend == .postgres, let cluster = PostgresCluster.shared, let url = server.postgres else { return }
        let database = PostgresCluster.databaseName(url)
        // Each log row names the keys its commit applied, unless they are longer than 256 bytes together.
        let rows = try cluster.psql("SELECT revision, array_to_string(changed, ' ') FROM commits WHERE store = '\(store)' ORDER BY revision",
                                    database: database)
        #expect(rows.status == 0, "\(rows.stderr)")
        let logged = Dictionary(uniqueKeysWithValues: rows.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: "|", maxSplits: 1)
            return (Int64(parts[0])!, parts.count > 1 ? parts[1].split(separator: " ").map(String.init).sorted() : [])
        })
        #expect(logged == model.applied.mapValues { keys in keys.reduce(0) { $0 + $1.utf8.count } <= 256 ? keys.sorted() : [] })
        #expect(logged.values.contains([]), "the commit of 300 keys names none")
        // Rows logged before the log named keys (schema 4) have none: the answers stay the same.
        let cleared = try cluster.psql("UPDATE commits SET changed = NULL WHERE store = '\(store)' AND revision % 3 = 0", database: database)
        #expect(cleared.status == 0, "\(cleared.stderr)")
        try await Self.expectEveryRevision(transports[0], store: store, head: head, entries: Set(model.entries.values))
        #expect(try server.check().status == 0)
    }

    @Test("a reader a few commits behind is answered through the log's keys: a row forged to name another key misleads it, and `ubiquity check` finds the row",
          .requires(.postgres))
    func answeredThroughTheLog() async throws {
        let (server, transports) = try serving(.postgres)
        let cluster = try #require(PostgresCluster.shared)
        let database = PostgresCluster.databaseName(try #require(server.postgres))
        let store = "com.example.bylog"
        var head: Int64 = 0
        for key in ["a", "b", "c"] {
            head = try await transports[0].commit(store: store, UbiquityCommitRequest(changes: [
                UbiquityWireChange(key: key, base: 0, value: UbiquityWireValue.encode(.string(key)))])).revision
        }
        #expect(try await transports[0].changes(store: store, after: head - 1, wait: nil).entries.map(\.key) == ["c"])
        #expect(try server.check().status == 0)
        // The newest commit's row names a key that was never written: the reader one behind is
        // sent nothing (a reader of the store's entries would have been sent "c").
        let forged = try cluster.psql("""
            UPDATE commits SET changed = ARRAY['not-written'] WHERE store = '\(store)' AND revision = \(head)
            """, database: database)
        #expect(forged.status == 0, "\(forged.stderr)")
        #expect(try await transports[0].changes(store: store, after: head - 1, wait: nil).entries.isEmpty)
        let check = try server.check()
        #expect(check.status == 1 && check.stderr.contains("key \"c\" at revision \(head) is not among the keys"),
                "\(check.stdout)\(check.stderr)")
    }

    /// For every `after` from 0 to one past `head`: the entries written after it (or, past the
    /// head, the whole store, said to be complete).
    static func expectEveryRevision(_ t: HTTPUbiquityTransport, store: String, head: Int64, entries: Set<UbiquityWireEntry>,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for after in 0...head {
            let r = try await t.changes(store: store, after: after, wait: nil)
            #expect(r.revision == head && !r.complete, "after \(after)", sourceLocation: sourceLocation)
            #expect(Set(r.entries) == entries.filter { $0.revision > after }, "after \(after)", sourceLocation: sourceLocation)
            #expect(r.entries.count == Set(r.entries.map(\.key)).count, "after \(after): a key twice", sourceLocation: sourceLocation)
        }
        let ahead = try await t.changes(store: store, after: head + 1, wait: nil)
        #expect(ahead.complete && Set(ahead.entries) == entries.filter { $0.value != nil }, sourceLocation: sourceLocation)
    }
}
