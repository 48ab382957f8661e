import Foundation
import OpenDefaultsUbiquity
import PropertyList
import SQLiteNIO
import Testing
import TestSupport
@testable import UbiquityServer
import UbiquityBackend
@testable import UbiquitySQLite

@Suite("ubiquity serve on SQLite: a database made by an earlier server", .offThePool, .exclusive(.servers), .timeLimit(.minutes(10)))
struct MigrationTests {
    /// `integer 10` as a binary property list, as the server stores values.
    static let ten: [UInt8] = PropertyList.integer(10).encodedBinary

    @Test("schema 1 (no commit-log trigger) is migrated in place: its data kept, its commit log continued without a gap")
    func schemaOne() async throws {
        let folder = try TemporaryFolder("schema1")
        let hash = UbiquityService.hash(token: "old-token")
        // What a schema-1 server left: an account, a store at revision 2, its entries and its two log rows.
        let db = try await SQLiteConnection.open(storage: .file(path: folder.path + "/ubiquity.sqlite"))
        try await SQLiteBackend.migrate(db, upTo: 1)
        #expect(try await db.query("PRAGMA user_version", []).first?.column("user_version")?.integer == 1)
        _ = try await db.query("INSERT INTO accounts(id, name, token_hash, created) VALUES ('acc1', 'alice', ?, 0)", [.blob(.init(bytes: hash))])
        _ = try await db.query("INSERT INTO stores(account, store, revision, key_count, total_bytes) VALUES ('acc1', 'com.example.old', 2, 2, ?)",
                               [.integer(2 * Self.ten.count)])
        for (key, revision) in [("a", 1), ("b", 2)] {
            _ = try await db.query("INSERT INTO entries(account, store, key, revision, value, size) VALUES ('acc1', 'com.example.old', ?, ?, ?, ?)",
                                   [.text(key), .integer(revision), .blob(.init(bytes: Self.ten)), .integer(Self.ten.count)])
            _ = try await db.query("INSERT INTO commits(account, store, revision, keys) VALUES ('acc1', 'com.example.old', ?, 1)", [.integer(revision)])
        }
        try await db.close()

        let backend = try await SQLiteBackend.open(directory: folder.path)
        #expect(try await backend.account(tokenHash: hash)?.name == "alice")
        let before = try await backend.changes(account: "acc1", store: "com.example.old", after: 0)
        #expect(before.revision == 2 && before.entries.map(\.key) == ["a", "b"])
        // A commit after the migration: revision 3, logged by the new trigger.
        let outcome = try await backend.commit(account: "acc1", store: "com.example.old",
                                               changes: [CheckedChange(key: "c", base: 0, bytes: Self.ten)])
        #expect(outcome.response.revision == 3 && outcome.response.refusal == nil)
        #expect(try await backend.check() == [])
        try await backend.close()
        let after = try await SQLiteConnection.open(storage: .file(path: folder.path + "/ubiquity.sqlite"))
        #expect(try await after.query("PRAGMA user_version", []).first?.column("user_version")?.integer == SQLiteBackend.schemaVersion)
        #expect(try await after.query("SELECT revision FROM commits ORDER BY revision", []).map { $0.column("revision")?.integer } == [1, 2, 3])
        try await after.close()
    }

    /// What `account_usage` holds for `account`, and what a scan of its stores finds.
    static func usage(_ folder: String, _ account: String) async throws -> (kept: [Int?], scanned: [Int?]) {
        let db = try await SQLiteConnection.open(storage: .file(path: folder + "/ubiquity.sqlite"))
        let kept: SQLiteRow?, scanned: SQLiteRow?
        do {
            kept = try await db.query("SELECT stores, bytes FROM account_usage WHERE account = ?", [.text(account)]).first
            scanned = try await db.query("""
                SELECT count(*) FILTER (WHERE \(AccountQuota.countedStoreSQL)) AS stores, coalesce(sum(total_bytes), 0) AS bytes
                FROM stores WHERE account = ? AND revision > 0
                """, [.text(account)]).first
        } catch {
            try? await db.close()
            throw error
        }
        try await db.close()
        return ([kept?.column("stores")?.integer, kept?.column("bytes")?.integer],
                [scanned?.column("stores")?.integer, scanned?.column("bytes")?.integer])
    }

    @Test("schema 5's stores are counted into each account's usage by the migration, and the triggers keep it as commits make, grow and empty stores, and as an account goes")
    func accountUsage() async throws {
        let folder = try TemporaryFolder("schema5")
        let db = try await SQLiteConnection.open(storage: .file(path: folder.path + "/ubiquity.sqlite"))
        try await SQLiteBackend.migrate(db, upTo: 5)
        _ = try await db.query("INSERT INTO accounts(id, name, token_hash, created) VALUES ('acc1', 'alice', randomblob(32), 0)", [])
        // Two stores that count, a fleet machine's status store (its bytes count, the store does not), one at revision 0.
        for (store, revision, bytes) in [("com.example.a", 3, 40), ("com.example.b", 1, 7), ("fleet.status.m1", 2, 100), ("com.example.none", 0, 0)] {
            _ = try await db.query("INSERT INTO stores(account, store, revision, key_count, total_bytes) VALUES ('acc1', ?, ?, 0, ?)",
                                   [.text(store), .integer(revision), .integer(bytes)])
        }
        try await db.close()
        let backend = try await SQLiteBackend.open(directory: folder.path, quota: AccountQuota(maximumStores: 4, maximumBytes: 10_000))
        var usage = try await Self.usage(folder.path, "acc1")
        #expect(usage.kept == [2, 147] && usage.kept == usage.scanned, "\(usage)")
        try await backend.close()

        // A fresh database: commits through the writer, under a quota (each one that grows the account reads the usage).
        let fresh = try TemporaryFolder("usage")
        let live = try await SQLiteBackend.open(directory: fresh.path, quota: AccountQuota(maximumStores: 3, maximumBytes: 10_000))
        let id = try await live.createAccount(name: "bob", tokenName: "default", tokenHash: UbiquityService.hash(token: "bob-token")).id
        let value = PropertyList.data(Data(count: 1_000)).encodedBinary
        func commit(_ store: String, _ key: String, base: Int64 = 0, _ bytes: [UInt8]?) async throws -> CommitOutcome {
            try await live.commit(account: id, store: store, changes: [CheckedChange(key: key, base: base, bytes: bytes)], tokenHash: nil)
        }
        for store in ["com.example.x", "com.example.y", "fleet.status.m1", "fleet.status.m2"] {
            #expect(try await commit(store, "k", value).response.refusal == nil)
        }
        usage = try await Self.usage(fresh.path, id)
        #expect(usage.kept == [2, 4 * value.count] && usage.kept == usage.scanned, "\(usage)")
        // Grown, then emptied (the store keeps its revision, so it still counts), then a store past the quota.
        let grown = try await commit("com.example.x", "more", value)
        #expect(grown.response.refusal == nil)
        let emptied = try await commit("com.example.y", "k", base: 1, nil)
        #expect(emptied.response.refusal == nil)
        #expect(try await commit("com.example.z", "k", value).response.refusal == nil)
        let refused = try await commit("com.example.w", "k", value)
        #expect(refused.response.refusal?.hasPrefix("quota \"stores\"") == true, "\(refused.response.refusal ?? "nil")")
        usage = try await Self.usage(fresh.path, id)
        #expect(usage.kept == [3, 5 * value.count] && usage.kept == usage.scanned, "\(usage)")
        #expect(try await live.check() == [])
        // A row that says otherwise than the stores is found by check().
        let other = try await SQLiteConnection.open(storage: .file(path: fresh.path + "/ubiquity.sqlite"))
        _ = try await other.query("UPDATE account_usage SET bytes = bytes + 1 WHERE account = ?", [.text(id)])
        #expect(try await live.check() == ["account \(id): usage kept as 3 stores / \(5 * value.count + 1) bytes, found 3 / \(5 * value.count)"])
        _ = try await other.query("UPDATE account_usage SET bytes = bytes - 1 WHERE account = ?", [.text(id)])
        try await other.close()
        #expect(try await live.check() == [])
        try await live.deleteAccount(name: "bob")
        usage = try await Self.usage(fresh.path, id)
        #expect(usage.kept == [nil, nil] && usage.scanned == [0, 0], "\(usage)")
        #expect(try await live.check() == [])
        try await live.close()
    }

    @Test("a database of a newer schema is refused, and left as it was")
    func newerSchemaRefused() async throws {
        let folder = try TemporaryFolder("schema3")
        let db = try await SQLiteConnection.open(storage: .file(path: folder.path + "/ubiquity.sqlite"))
        try await SQLiteBackend.migrate(db)
        _ = try await db.query("PRAGMA user_version = \(SQLiteBackend.schemaVersion + 1)", [])
        try await db.close()
        await #expect {
            _ = try await SQLiteBackend.open(directory: folder.path)
        } throws: { error in
            "\(error)".contains("newer than this server")
        }
        let again = try await SQLiteConnection.open(storage: .file(path: folder.path + "/ubiquity.sqlite"))
        #expect(try await again.query("PRAGMA user_version", []).first?.column("user_version")?.integer == SQLiteBackend.schemaVersion + 1)
        try await again.close()
    }
}
