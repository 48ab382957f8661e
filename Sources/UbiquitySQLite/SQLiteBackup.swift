import Logging
import PlatformIO
import UbiquityBackend
import SQLiteNIO

/// Online backups of a server's SQLite database, and restoring one.
///
/// A backup is `VACUUM INTO` on a connection of its own: one read
/// transaction, so the copy is the database as of one commit while the
/// server goes on serving and writing (WAL readers never block the writer).
/// It is written in a private folder (0700, an unpredictable name) beside its
/// destination, so no other user can open it from its first byte, checked
/// (`PRAGMA integrity_check`), made 0600, flushed and linked into place: it
/// holds token hashes and every account's values. An existing destination (a
/// file, a link) is never overwritten or followed; a failure leaves nothing.
///
/// A restore refuses a folder a server is using, and a file that is not a
/// sound database of this schema or an older one; the database it replaces
/// is moved aside (never deleted) under a name with the time.
package enum SQLiteBackup {
    package struct Summary: Sendable, CustomStringConvertible {
        package var stores: Int
        package var commits: Int
        package var bytes: Int64

        /// "3 stores (41 commits)".
        package var description: String {
            "\(stores) store\(stores == 1 ? "" : "s") (\(commits) commit\(commits == 1 ? "" : "s"))"
        }
    }

    /// Copies the database in `directory` to `destination` (a file that must not exist).
    package static func backup(directory: String, to destination: String) async throws -> Summary {
        let source = SQLiteBackend.databasePath(in: directory)
        guard FileStatus.exists(source) else { throw BackendError(status: 500, "there is no database in \(directory) (no ubiquity.sqlite)") }
        if FileStatus.exists(destination) || (try? FileStatus.of(destination, followingLinks: false)) != nil {
            throw BackendError(status: 500, "\(destination) exists: a backup never replaces a file")
        }
        // Made in a folder of its own that only this user can enter (0700, an unpredictable
        // name): SQLite creates the copy with the umask's mode, but no other user can open it
        // there, and nothing planted (a link for a predictable name) is followed.
        let folder: String
        do { folder = try FileIO.makePrivateDirectory(beside: destination) } catch {
            throw BackendError(status: 500, "cannot make a private folder for the backup beside \(destination): \(error)")
        }
        defer { try? FileIO.removeTree(folder) }
        let partial = folder + "/backup.sqlite"
        let logger = Logger(label: "ubiquity.backup")
        let db = try await SQLiteConnection.open(storage: .file(path: source), logger: logger)
        do {
            _ = try await db.query("PRAGMA busy_timeout=5000", [])
            _ = try await db.query("VACUUM INTO ?", [.text(partial)])
            try? await db.close()
        } catch {
            try? await db.close()
            throw BackendError(status: 500, "the backup of \(source) failed: \(error)")
        }
        try FileIO.restrictToOwner(partial, creating: false)
        let summary = try await verify(partial)
        FileIO.syncFileSystem(containing: partial)
        // Placed under its name only if nothing has it (a file, or a link planted meanwhile).
        do { try FileIO.placeWithoutReplacing(partial, at: destination) } catch {
            throw BackendError(status: 500, error.isAlreadyThere ? "\(destination) appeared meanwhile: not replaced" : "cannot put the backup at \(destination): \(error)")
        }
        FileIO.syncDirectory(FileIO.parentDirectory(of: destination))
        return summary
    }

    /// Checks that `path` is a sound database of a schema this server reads; what it holds.
    package static func verify(_ path: String) async throws -> Summary {
        let logger = Logger(label: "ubiquity.backup")
        let db: SQLiteConnection
        do { db = try await SQLiteConnection.open(storage: .file(path: path), logger: logger) } catch {
            throw BackendError(status: 500, "\(path) cannot be opened as an SQLite database: \(error)")
        }
        do {
            let problems = try await db.query("PRAGMA integrity_check(20)", []).compactMap { $0.column("integrity_check")?.string }
            guard problems == ["ok"] else {
                throw BackendError(status: 500, "\(path) is damaged (SQLite's integrity_check: \(problems.prefix(3).joined(separator: "; ")))")
            }
            let version = try await db.query("PRAGMA user_version", []).first?.column("user_version")?.integer ?? 0
            guard (1...SQLiteBackend.schemaVersion).contains(version) else {
                throw BackendError(status: 500, "\(path) is not a ubiquity database this server reads (schema \(version); this server's is \(SQLiteBackend.schemaVersion))")
            }
            // Exactly the tables, indexes and trigger the server makes for that version: a trigger or
            // view added to a backup would run inside the restored server (a fixed token, dropped commits).
            let unexpected = try await schemaDifferences(db, version: version)
            guard unexpected.isEmpty else {
                throw BackendError(status: 500, "\(path) is not a database this server made: its schema differs from version \(version)'s (\(unexpected.prefix(3).joined(separator: "; ")))")
            }
            let stores = try await db.query("SELECT count(*) AS n FROM stores", []).first?.column("n")?.integer ?? 0
            let commits = try await db.query("SELECT coalesce(sum(revision), 0) AS n FROM stores", []).first?.column("n")?.integer ?? 0
            try? await db.close()
            let size = (try? FileStatus.of(path).size) ?? 0
            return Summary(stores: stores, commits: commits, bytes: size)
        } catch {
            try? await db.close()
            if error is BackendError { throw error }
            throw BackendError(status: 500, "\(path) is not a ubiquity database: \(error)")
        }
    }

    /// What in `db`'s schema is not exactly what the server makes at `version`
    /// (every table, index, trigger and view, with its SQL text), named; empty when the same.
    static func schemaDifferences(_ db: SQLiteConnection, version: Int) async throws -> [String] {
        func objects(_ c: SQLiteConnection) async throws -> [String: String] {
            var found: [String: String] = [:]
            for row in try await c.query("SELECT type, name, sql FROM sqlite_master", []) {
                let type = row.column("type")?.string ?? "?", name = row.column("name")?.string ?? "?"
                found[type + " " + TerminalText.safe(name)] = row.column("sql")?.string ?? ""
            }
            return found
        }
        let reference = try await SQLiteConnection.open(storage: .memory, logger: Logger(label: "ubiquity.backup"))
        let expected: [String: String]
        do {
            try await SQLiteBackend.migrate(reference, upTo: version)
            expected = try await objects(reference)
            try? await reference.close()
        } catch {
            try? await reference.close()
            throw error
        }
        let actual = try await objects(db)
        var differences: [String] = []
        for (name, sql) in actual.sorted(by: { $0.key < $1.key }) {
            if let want = expected[name] {
                if want != sql { differences.append("\(name) is defined differently") }
            } else {
                differences.append("an unexpected \(name)")
            }
        }
        for name in expected.keys.sorted() where actual[name] == nil { differences.append("\(name) is missing") }
        return differences
    }

    /// Puts the database `backup` in place in `directory`; returns where the replaced one was moved (if any).
    package static func restore(from backup: String, into directory: String) async throws -> (summary: Summary, keptAside: String?) {
        try FileIO.makeDirectories(directory, mode: 0o700)
        // The server's lock: held while a server uses the folder.
        let fd: PlatformIO.FileDescriptor
        do { fd = try PlatformIO.FileDescriptor.open(directory + "/serve.lock", [.readWrite, .create, .noFollow]) } catch {
            throw BackendError(status: 500, "cannot open \(error)")
        }
        defer { fd.close() }
        guard fd.tryLock(exclusive: true) else {
            throw BackendError(status: 500, "a server is using \(directory) (serve.lock is held): stop it before restoring")
        }
        let summary = try await verify(backup)
        let target = SQLiteBackend.databasePath(in: directory)
        let incoming = target + ".restoring-\(Environment.processID)"
        do {
            try FileIO.copy(backup, to: incoming, mode: 0o600)
            // Root restoring into the service user's folder: the database is the folder owner's
            // (0600 either way), or the service could not open it.
            try FileIO.giveToOwner(of: directory, incoming)
        } catch {
            try? FileIO.remove(incoming)
            throw BackendError(status: 500, "cannot copy \(backup) into \(directory): \(error)")
        }
        var keptAside: String? = nil
        if FileStatus.exists(target) {
            let aside = target + ".before-restore-" + Environment.utcTimestamp()
            for suffix in ["", "-wal", "-shm"] where FileStatus.exists(target + suffix) {
                do { try FileIO.rename(target + suffix, to: aside + suffix) } catch {
                    try? FileIO.remove(incoming)
                    throw BackendError(status: 500, "cannot move the current database aside: \(error); nothing was restored")
                }
            }
            keptAside = aside
        }
        try FileIO.rename(incoming, to: target)
        FileIO.syncDirectory(directory)
        return (summary, keptAside)
    }
}
