import Foundation
import OpenDefaultsUbiquity
import OpenDefaultsUbiquityHTTP
import PropertyList
import Testing
import TestSupport

/// `ubiquity backup` while the server serves and writes, `ubiquity restore`, and their refusals.
@Suite("ubiquity backup and restore (SQLite)", .offThePool, .exclusive(.servers), .timeLimit(.minutes(5)))
struct BackupTests {
    @Test("a backup during a write burst holds every write acknowledged before it began; restored, it checks clean and serves")
    func duringBurst() async throws {
        let server = try SyncServer(.sqlite)
        let token = try server.addAccount("alice")
        let t = HTTPUbiquityTransport(account: server.account(token: token))
        let store = "com.example.burst"
        let acknowledged = Locked<[Int]>([])
        /// What went wrong with a commit (a transport error, a refusal): a burst that stalls says why.
        let failures = Locked<[String]>([])
        let stop = Flag()
        let writer = Task {
            var i = 0
            while !stop.isSet {
                i += 1
                do {
                    let r = try await commit(t, store, "k\(i)", base: 0, .integer(.init(Int64(i))))
                    if r.results.first?.status == .applied {
                        acknowledged.mutate { $0.append(i) }
                    } else {
                        failures.mutate { $0.append("k\(i): \(r.results.map(\.status))") }
                    }
                } catch {
                    failures.mutate { $0.append("k\(i): \(error)") }
                }
            }
        }
        #expect(await settle(120) { acknowledged.value.count >= 50 },
                "\(acknowledged.value.count) acknowledged; failures: \(failures.value.prefix(5))")
        let before = acknowledged.value
        let file = server.folder.path + "/backup.sqlite"
        let backup = try await offThePool { try ubiquity(["backup", "--data", server.data, file], environment: server.environment) }
        #expect(backup.status == 0 && backup.stdout.hasPrefix("Backed up 1 store ("), "\(backup.stdout)\(backup.stderr)")
        let during = acknowledged.value.count
        #expect(await settle(30) { acknowledged.value.count >= during + 20 }, "the server kept writing after the backup; failures: \(failures.value.prefix(5))")
        stop.set()
        _ = await writer.value
        print("backup during a burst: \(before.count) writes acknowledged before it, \(acknowledged.value.count) in all")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A backup never replaces a file.
        let again = try await offThePool { try ubiquity(["backup", "--data", server.data, file], environment: server.environment) }
        #expect(again.status == 1 && again.stderr.contains("never replaces"), "\(again.stderr)")
        // A running server's folder is not restored into.
        let busy = try await offThePool { try ubiquity(["restore", "--data", server.data, file], environment: server.environment) }
        #expect(busy.status == 1 && busy.stderr.contains("a server is using"), "\(busy.stderr)")
        // Restored into a new folder: checks clean, and a server on it has every write acknowledged before the backup.
        let restoredData = server.folder.path + "/restored"
        let restored = try await offThePool { try ubiquity(["restore", "--data", restoredData, file], environment: server.environment) }
        #expect(restored.status == 0 && restored.stdout.hasSuffix("check: ok\n"), "\(restored.stdout)\(restored.stderr)")
        server.stop()
        let second = try SyncServer(.sqlite, extraArguments: [])
        second.stop()
        try FileManager.default.removeItem(atPath: second.data)
        try FileManager.default.moveItem(atPath: restoredData, toPath: second.data)
        try second.start(port: 0)
        let t2 = HTTPUbiquityTransport(account: second.account(token: token))
        let answer = try await t2.changes(store: store, after: 0, wait: nil)
        let keys = Set(answer.entries.map(\.key))
        let missing = before.filter { !keys.contains("k\($0)") }
        #expect(missing.isEmpty, "acknowledged before the backup, missing from it: \(missing.prefix(5))")
        // Restoring over an existing database keeps the old one aside.
        second.stop()
        let over = try await offThePool { try ubiquity(["restore", "--data", second.data, file], environment: second.environment) }
        #expect(over.status == 0 && over.stdout.contains("The database it replaced is kept as"), "\(over.stdout)\(over.stderr)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: second.data).filter { $0.hasPrefix("ubiquity.sqlite.before-restore-") }
        #expect(!kept.isEmpty)
    }

    @Test("a file that is not a ubiquity database is refused, and the database in place is not touched")
    func badBackups() throws {
        let server = try SyncServer(.sqlite)
        _ = try server.addAccount("alice")
        server.stop()
        let original = try Data(contentsOf: URL(fileURLWithPath: server.data + "/ubiquity.sqlite"))
        let junk = server.folder.path + "/junk.sqlite"
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: junk))
        let r = try ubiquity(["restore", "--data", server.data, junk], environment: server.environment)
        #expect(r.status == 1 && r.stderr.contains(junk), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: server.data + "/ubiquity.sqlite")) == original)
        let none = try ubiquity(["backup", "--data", server.folder.path + "/empty", server.folder.path + "/x.sqlite"], environment: server.environment)
        #expect(none.status == 1 && none.stderr.contains("there is no database"), "\(none.stderr)")
    }
}
