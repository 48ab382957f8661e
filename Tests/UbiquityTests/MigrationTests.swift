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
