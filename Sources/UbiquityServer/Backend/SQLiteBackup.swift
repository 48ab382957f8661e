import Logging
import PlatformIO
import SQLiteNIO

/// Online backups of a server's SQLite database, and restoring one.
///
/// A backup is `VACUUM INTO` on a connection of its own: one read
/// transaction, so the copy is the database as of one commit while the
/// server goes on serving and writing (WAL readers never block the writer).
/// It is written beside its destination, checked (`PRAGMA integrity_check`),
/// flushed and renamed into place, 0600: it holds token hashes and every
/// account's values. An existing destination is never overwritten.
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
        let source = directory + "/ubiquity.sqlite"
        guard FileStatus.exists(source) else { throw BackendError(status: 500, "there is no database in \(directory) (no ubiquity.sqlite)") }
        if FileStatus.exists(destination) { throw BackendError(status: 500, "\(destination) exists: a backup never replaces a file") }
        let partial = destination + ".partial-\(Environment.processID)"
        let logger = Logger(label: "ubiquity.backup")
        let db = try await SQLiteConnection.open(storage: .file(path: source), logger: logger)
        do {
            _ = try await db.query("PRAGMA busy_timeout=5000", [])
            _ = try await db.query("VACUUM INTO ?", [.text(partial)])
            try? await db.close()
        } catch {
            try? await db.close()
            try? FileIO.remove(partial)
            throw BackendError(status: 500, "the backup of \(source) failed: \(error)")
        }
        do {
            try FileIO.restrictToOwner(partial, creating: false)
            let summary = try await verify(partial)
            FileIO.syncFileSystem(containing: partial)
            guard !FileStatus.exists(destination) else { throw BackendError(status: 500, "\(destination) appeared meanwhile: not replaced") }
            try FileIO.rename(partial, to: destination)
            FileIO.syncDirectory(FileIO.parentDirectory(of: destination))
            return summary
        } catch {
            try? FileIO.remove(partial)
            throw error
        }
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
            let stores = try await db.query("SELECT count(*) AS n FROM stores", []).first?.column("n")?.integer ?? 0
            let commits = try await db.query("SELECT count(*) AS n FROM commits", []).first?.column("n")?.integer ?? 0
            try? await db.close()
            let size = (try? FileStatus.of(path).size) ?? 0
            return Summary(stores: stores, commits: commits, bytes: size)
        } catch {
            try? await db.close()
            if error is BackendError { throw error }
            throw BackendError(status: 500, "\(path) is not a ubiquity database: \(error)")
        }
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
        let target = directory + "/ubiquity.sqlite"
        let incoming = target + ".restoring-\(Environment.processID)"
        do {
            try FileIO.copy(backup, to: incoming, mode: 0o600)
        } catch {
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
