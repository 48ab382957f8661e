#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import NIOCore
import NIOPosix
import PlatformIO
import SharedTables
package import UbiquityBackend
package import UbiquityProtocol
import PropertyList
import SQLiteNIO
import Synchronization

/// The sync server's data in one SQLite database (`<data>/ubiquity.sqlite`,
/// WAL, `synchronous=FULL`: a commit is acknowledged only once it is durable).
///
/// Writes go through one connection in **group commits**: the commits that
/// arrive while one transaction runs are applied together in the next (see
/// ``run(_:on:state:)`` for failures), and one fsync acknowledges them all.
/// Reads use their own connections (WAL readers never wait for the writer).
package final class SQLiteBackend: UbiquityBackend {
    let path: String
    /// The group commits' connection, its statements prepared once (``SQLiteHandle``).
    let writer: SQLiteHandle
    /// The writer's thread: each group commit runs there whole.
    let writerPool: NIOThreadPool
    let readers: [SQLiteConnection]
    let readerGates: [AsyncGate]
    /// Small writes outside the commits (a token's last use): never on the
    /// writer (its group commits' transactions) nor on a reader (a write would
    /// wait for the writer's lock and hold up the reads behind it).
    let bookkeeper: SQLiteConnection
    /// One user of ``bookkeeper`` at a time (a transaction, a last use).
    let bookkeeperGate = AsyncGate()
    let nextReader = Lock<Int>(0)
    /// The commits waiting for the next group commit.
    let queue = JobQueue<Job>()
    let wake: AsyncStream<Void>.Continuation
    let writerTask = Lock<Task<Void, Never>?>(nil)

    struct Job: CommitJob, Sendable {
        var account: String
        var store: String
        var changes: [CheckedChange]
        /// The token that sent it, checked in the transaction (nil: a tool acting as the account).
        var tokenHash: [UInt8]?
        var done: CheckedContinuation<Result<CommitOutcome, any Error>, Never>
    }

    /// A writing connection's settings, the busy timeout first (a tool opening the database of a
    /// busy server waits for its writes). Journal mode WAL is the database's own, set once.
    static let writerSettings = ["PRAGMA busy_timeout=5000", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON"]

    /// The schema's version (`PRAGMA user_version`); migrations run in order up to it.
    static let schemaVersion = 6

    /// What each account holds, counted from its stores (account, stores, bytes): how schema 6
    /// fills `account_usage`, and what `check()` compares the kept rows with.
    static let usageByAccountSQL = """
        SELECT account, count(*) FILTER (WHERE \(AccountQuota.countedStoreSQL)) AS stores, coalesce(sum(total_bytes), 0) AS bytes
        FROM stores WHERE revision > 0 GROUP BY account
        """

    /// Opens (creating when needed) the database in `directory`. A server
    /// opens it `exclusive`ly (`<directory>/serve.lock`): its writer caches
    /// what it wrote, so a second server on the same folder is refused.
    /// The database file of the data folder `directory`.
    package static func databasePath(in directory: String) -> String { directory + "/ubiquity.sqlite" }

    package static func open(directory: String, exclusive: Bool = false, quota: AccountQuota? = nil) async throws -> SQLiteBackend {
        try FileIO.makeDirectories(directory, mode: 0o700)
        if exclusive {
            let fd: PlatformIO.FileDescriptor
            do { fd = try PlatformIO.FileDescriptor.open(directory + "/serve.lock", [.readWrite, .create, .noFollow]) } catch {
                throw BackendError(status: 500, "cannot open \(error)")
            }
            guard fd.tryLock(exclusive: true) else {
                fd.close()
                throw BackendError(status: 500, "another `ubiquity serve` uses \(directory) (\(directory)/serve.lock is locked)")
            }
            // Held until the process ends.
        }
        let path = databasePath(in: directory)
        // The database holds token hashes and every account's values: 0600
        // whatever the folder's mode (SQLite gives its WAL and shared-memory
        // files the database's mode; those already there are restricted too).
        do {
            try FileIO.restrictToOwner(path, creating: true)
            for suffix in ["-wal", "-shm", "-journal"] { try FileIO.restrictToOwner(path + suffix, creating: false) }
        } catch {
            throw BackendError(status: 500, "cannot make \(path) private to its owner: \(error)")
        }
        let logger = Logger(label: "ubiquity.sqlite")
        // The group commits run on a thread of their own (``SQLiteHandle``); the database is
        // set up first through sqlite-nio, on that thread.
        let writerPool = NIOThreadPool(numberOfThreads: 1)
        writerPool.start()
        let writer: SQLiteConnection
        do {
            writer = try await SQLiteConnection.open(storage: .file(path: path), threadPool: writerPool, logger: logger,
                                                     on: MultiThreadedEventLoopGroup.singleton.any())
        } catch {
            try? await writerPool.shutdownGracefully()
            throw error
        }
        var readers: [SQLiteConnection] = []
        var bookkeeper: SQLiteConnection? = nil
        let handle: SQLiteHandle
        do {
            // The busy timeout first: a tool opening the database of a busy server waits for its writes.
            for pragma in [writerSettings[0], "PRAGMA journal_mode=WAL"] + writerSettings.dropFirst() {
                _ = try await writer.query(pragma, [])
            }
            // A database whose pages are damaged would be served silently
            // (answers missing keys): checked before anything is served.
            let problems = try await writer.query("PRAGMA quick_check(20)", []).compactMap { $0.column("quick_check")?.string }
            if problems != ["ok"] {
                throw BackendError(status: 500, "the database \(path) is damaged (SQLite's quick_check: "
                    + problems.prefix(3).joined(separator: "; ") + "); it is not served: restore it from a backup")
            }
            try await migrate(writer)
            handle = try SQLiteHandle(path: path, settings: writerSettings)
            try await writer.close()
            for _ in 0..<2 {
                let r = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                readers.append(r)
                _ = try await r.query("PRAGMA busy_timeout=5000", [])
            }
            let b = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            bookkeeper = b
            _ = try await b.query("PRAGMA busy_timeout=5000", [])
        } catch {
            // A database that cannot be used (a newer schema, a broken file) leaves no connection open.
            for connection in [writer] + readers + (bookkeeper.map { [$0] } ?? []) { try? await connection.close() }
            try? await writerPool.shutdownGracefully()
            let text = "\(error)"
            if text.contains("corrupt") || text.contains("malformed") || text.contains("not a database") {
                throw BackendError(status: 500, "the database \(path) is damaged (SQLite: \(text)); it is not served: restore it from a backup")
            }
            throw error
        }
        return SQLiteBackend(path: path, writer: handle, writerPool: writerPool, readers: readers, bookkeeper: bookkeeper!, quota: quota)
    }

    private init(path: String, writer: SQLiteHandle, writerPool: NIOThreadPool, readers: [SQLiteConnection], bookkeeper: SQLiteConnection,
                 quota: AccountQuota?) {
        self.path = path
        self.writer = writer
        self.writerPool = writerPool
        self.readers = readers
        self.bookkeeper = bookkeeper
        self.readerGates = readers.map { _ in AsyncGate() }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = continuation
        let state = WriterState()
        let task = Task(executorPreference: InlineTaskExecutor()) { [writer, writerPool, queue] in
            for await _ in stream {
                while true {
                    let jobs = queue.takeAll()
                    if jobs.isEmpty { break }
                    await Self.run(jobs, on: writer, pool: writerPool, state: state, quota: quota)
                }
            }
        }
        writerTask.withLock { $0 = task }
    }

    /// Versioned migrations, each in one transaction (a second server starting at once waits on the lock).
    /// `target` below ``schemaVersion`` makes an older server's database (the migration tests).
    static func migrate(_ db: SQLiteConnection, upTo target: Int = schemaVersion) async throws {
        _ = try await db.query("BEGIN IMMEDIATE", [])
        do {
            let version = try await db.query("PRAGMA user_version", []).first?.column("user_version")?.integer ?? 0
            if version < 1, target >= 1 {
                for statement in [
                    """
                    CREATE TABLE accounts(id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                        token_hash BLOB NOT NULL UNIQUE, created INTEGER NOT NULL)
                    """,
                    """
                    CREATE TABLE stores(account TEXT NOT NULL REFERENCES accounts(id), store TEXT NOT NULL,
                        revision INTEGER NOT NULL DEFAULT 0,
                        key_count INTEGER NOT NULL DEFAULT 0 CHECK (key_count BETWEEN 0 AND \(UbiquityLimits.maximumKeys)),
                        total_bytes INTEGER NOT NULL DEFAULT 0 CHECK (total_bytes BETWEEN 0 AND \(UbiquityLimits.maximumTotalBytes)),
                        tombstones INTEGER NOT NULL DEFAULT 0, horizon INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY(account, store))
                    """,
                    """
                    CREATE TABLE entries(account TEXT NOT NULL, store TEXT NOT NULL,
                        key TEXT NOT NULL CHECK (length(CAST(key AS BLOB)) BETWEEN 1 AND \(UbiquityLimits.maximumKeyBytes)),
                        revision INTEGER NOT NULL, value BLOB,
                        size INTEGER NOT NULL CHECK (size BETWEEN 0 AND \(UbiquityLimits.maximumValueBytes)),
                        PRIMARY KEY(account, store, key))
                    """,
                    "CREATE INDEX entries_by_revision ON entries(account, store, revision)",
                    """
                    CREATE TABLE commits(account TEXT NOT NULL, store TEXT NOT NULL, revision INTEGER NOT NULL,
                        keys INTEGER NOT NULL, PRIMARY KEY(account, store, revision))
                    """,
                    "PRAGMA user_version = 1",
                ] {
                    _ = try await db.query(statement, [])
                }
            }
            if version < 2, target >= 2 {
                // A commit's log row is written by the database when the store's revision moves.
                for statement in [
                    "ALTER TABLE stores ADD COLUMN last_keys INTEGER NOT NULL DEFAULT 0",
                    """
                    CREATE TRIGGER stores_commit AFTER UPDATE OF revision ON stores
                    WHEN NEW.revision <> OLD.revision
                    BEGIN
                        INSERT INTO commits(account, store, revision, keys) VALUES(NEW.account, NEW.store, NEW.revision, NEW.last_keys);
                    END
                    """,
                    "PRAGMA user_version = 2",
                ] {
                    _ = try await db.query(statement, [])
                }
            }
            if version < 3, target >= 3 {
                // Named tokens, one per machine, revocable; the account's first token moves here.
                for statement in [
                    """
                    CREATE TABLE tokens(hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
                        account TEXT NOT NULL REFERENCES accounts(id), name TEXT NOT NULL,
                        created INTEGER NOT NULL, last_used INTEGER, UNIQUE(account, name))
                    """,
                    "INSERT INTO tokens(hash, account, name, created) SELECT token_hash, id, 'default', created FROM accounts",
                    // The column predates named tokens: it keeps its constraint but no token's hash.
                    "UPDATE accounts SET token_hash = randomblob(32)",
                    "CREATE TABLE settings(name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
                    "INSERT INTO settings(name, value) VALUES('token_generation', 0)",
                    "PRAGMA user_version = 3",
                ] {
                    _ = try await db.query(statement, [])
                }
            }
            if version < 4, target >= 4 {
                // Orphans made impossible: entries and the commit log belong to a store's row
                // (foreign keys, enforced on the writer), and the log keeps the newest
                // `keptCommits` rows of each store (pruned when the revision reaches a multiple
                // of `commitLogSlack`: a delete at every commit cost the hot path). Rows no store owns (left by a commit racing
                // an account's deletion) and store rows at revision 0 (left by refused commits)
                // are gone: no account can read them.
                for statement in [
                    "DROP TRIGGER stores_commit",
                    "DELETE FROM stores WHERE revision = 0 OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = stores.account)",
                    """
                    CREATE TABLE entries_v4(account TEXT NOT NULL, store TEXT NOT NULL,
                        key TEXT NOT NULL CHECK (length(CAST(key AS BLOB)) BETWEEN 1 AND \(UbiquityLimits.maximumKeyBytes)),
                        revision INTEGER NOT NULL, value BLOB,
                        size INTEGER NOT NULL CHECK (size BETWEEN 0 AND \(UbiquityLimits.maximumValueBytes)),
                        PRIMARY KEY(account, store, key),
                        FOREIGN KEY(account, store) REFERENCES stores(account, store))
                    """,
                    """
                    INSERT INTO entries_v4 SELECT e.account, e.store, e.key, e.revision, e.value, e.size FROM entries e
                    WHERE EXISTS (SELECT 1 FROM stores s WHERE s.account = e.account AND s.store = e.store)
                    """,
                    "DROP TABLE entries",
                    "ALTER TABLE entries_v4 RENAME TO entries",
                    "CREATE INDEX entries_by_revision ON entries(account, store, revision)",
                    """
                    CREATE TABLE commits_v4(account TEXT NOT NULL, store TEXT NOT NULL, revision INTEGER NOT NULL,
                        keys INTEGER NOT NULL, PRIMARY KEY(account, store, revision),
                        FOREIGN KEY(account, store) REFERENCES stores(account, store))
                    """,
                    """
                    INSERT INTO commits_v4 SELECT c.account, c.store, c.revision, c.keys FROM commits c
                    WHERE EXISTS (SELECT 1 FROM stores s WHERE s.account = c.account AND s.store = c.store)
                      AND c.revision > (SELECT s.revision FROM stores s WHERE s.account = c.account AND s.store = c.store) - \(CommitDecision.keptCommits)
                    """,
                    "DROP TABLE commits",
                    "ALTER TABLE commits_v4 RENAME TO commits",
                    """
                    CREATE TRIGGER stores_commit AFTER UPDATE OF revision ON stores
                    WHEN NEW.revision <> OLD.revision
                    BEGIN
                        INSERT INTO commits(account, store, revision, keys) VALUES(NEW.account, NEW.store, NEW.revision, NEW.last_keys);
                        DELETE FROM commits WHERE NEW.revision % \(CommitDecision.commitLogSlack) = 0
                            AND account = NEW.account AND store = NEW.store AND revision <= NEW.revision - \(CommitDecision.keptCommits);
                    END
                    """,
                    "PRAGMA user_version = 4",
                ] {
                    _ = try await db.query(statement, [])
                }
            }
            if version < 5, target >= 5 {
                // A group commit moves a store's head by several revisions in one update, which
                // can pass a multiple of `commitLogSlack` without landing on it: the log is pruned
                // when the head passes one (one commit at a time, that is when it lands on one).
                for statement in [
                    "DROP TRIGGER stores_commit",
                    """
                    CREATE TRIGGER stores_commit AFTER UPDATE OF revision ON stores
                    WHEN NEW.revision <> OLD.revision
                    BEGIN
                        INSERT INTO commits(account, store, revision, keys) VALUES(NEW.account, NEW.store, NEW.revision, NEW.last_keys);
                        DELETE FROM commits WHERE NEW.revision / \(CommitDecision.commitLogSlack) <> OLD.revision / \(CommitDecision.commitLogSlack)
                            AND account = NEW.account AND store = NEW.store AND revision <= NEW.revision - \(CommitDecision.keptCommits);
                    END
                    """,
                    "PRAGMA user_version = 5",
                ] {
                    _ = try await db.query(statement, [])
                }
            }
            if version < 6, target >= 6 {
                // What each account holds (the stores that count toward the quota, the bytes of
                // every store with a revision), kept by triggers on `stores`: a commit that grows
                // an account under a quota reads one row, not every store of the account (a
                // fleet's organisation has a status store a machine: 10,000 rows were 2.3 ms a
                // group). Every writer's change to `stores` is counted, in its own transaction.
                let counted = { (column: String) in "(\(AccountQuota.countedStoreSQL(column: column)))" }
                let upsert = "ON CONFLICT(account) DO UPDATE SET stores = stores + excluded.stores, bytes = bytes + excluded.bytes"
                for statement in [
                    "CREATE TABLE account_usage(account TEXT PRIMARY KEY, stores INTEGER NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID",
                    "INSERT INTO account_usage(account, stores, bytes) \(usageByAccountSQL)",
                    """
                    CREATE TRIGGER stores_usage_insert AFTER INSERT ON stores WHEN NEW.revision > 0
                    BEGIN
                        INSERT INTO account_usage(account, stores, bytes) VALUES(NEW.account, \(counted("NEW.store")), NEW.total_bytes) \(upsert);
                    END
                    """,
                    """
                    CREATE TRIGGER stores_usage_update AFTER UPDATE OF revision, total_bytes ON stores
                    WHEN (NEW.revision > 0) <> (OLD.revision > 0) OR NEW.total_bytes <> OLD.total_bytes
                    BEGIN
                        INSERT INTO account_usage(account, stores, bytes) VALUES(NEW.account,
                            ((NEW.revision > 0) - (OLD.revision > 0)) * \(counted("NEW.store")),
                            (CASE WHEN NEW.revision > 0 THEN NEW.total_bytes ELSE 0 END) - (CASE WHEN OLD.revision > 0 THEN OLD.total_bytes ELSE 0 END))
                            \(upsert);
                    END
                    """,
                    """
                    CREATE TRIGGER stores_usage_delete AFTER DELETE ON stores WHEN OLD.revision > 0
                    BEGIN
                        UPDATE account_usage SET stores = stores - \(counted("OLD.store")), bytes = bytes - OLD.total_bytes WHERE account = OLD.account;
                    END
                    """,
                    """
                    CREATE TRIGGER accounts_usage_delete AFTER DELETE ON accounts
                    BEGIN
                        DELETE FROM account_usage WHERE account = OLD.id;
                    END
                    """,
                    "PRAGMA user_version = 6",
                ] {
                    _ = try await db.query(statement, [])
                }
            }
            if version > schemaVersion {
                throw BackendError(status: 500, "the database's schema (version \(version)) is newer than this server's (\(schemaVersion))")
            }
            _ = try await db.query("COMMIT", [])
        } catch {
            _ = try? await db.query("ROLLBACK", [])
            throw error
        }
    }

    let closed = Lock(false)

    /// Closes the connections (once; later calls do nothing).
    package func close() async throws {
        guard closed.withLock({ c -> Bool in defer { c = true }; return !c }) else { return }
        wake.finish()
        let task = writerTask.withLock { $0 }
        await task?.value
        try await writerPool.runIfActive { [writer] in writer.close() }
        try await writerPool.shutdownGracefully()
        for r in readers { try await r.close() }
        try await bookkeeper.close()
    }

    // MARK: Accounts

    package func createAccount(name: String, tokenName: String, tokenHash: [UInt8]) async throws -> UbiquityAccountInfo {
        let id = randomHex(bytes: 12)
        try await transaction { db in
            do {
                _ = try await db.query(
                    "INSERT INTO accounts(id, name, token_hash, created) VALUES(?, ?, randomblob(32), strftime('%s','now'))",
                    [.text(id), .text(name)])
            } catch let error as SQLiteError where "\(error.reason)".hasPrefix("constraint") {
                throw BackendError(status: 409, "an account named \"\(name)\" exists already")
            }
            try await Self.insertToken(db, accountID: id, tokenName: tokenName, tokenHash: tokenHash)
        }
        return UbiquityAccountInfo(name: name, id: id)
    }

    package func account(tokenHash: [UInt8]) async throws -> UbiquityAccountInfo? {
        let rows = try await read { db in
            try await db.query("SELECT a.id, a.name, t.name AS token FROM tokens t JOIN accounts a ON a.id = t.account WHERE t.hash = ?",
                               [.blob(ByteBuffer(bytes: tokenHash))])
        }
        guard let row = rows.first, let id = row.column("id")?.string, let name = row.column("name")?.string else { return nil }
        return UbiquityAccountInfo(name: name, id: id, token: row.column("token")?.string)
    }

    // MARK: Tokens (run by `ubiquity account`, and by a server enrolling a machine)

    /// Runs `body` in one immediate transaction on the bookkeeping connection, one at a time.
    /// Never on the writer: in a server its group commits run there, and a transaction begun
    /// between two of them would take them in, or leave the write lock held.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        try await bookkeeperGate.run { [bookkeeper] in
            _ = try await bookkeeper.query("BEGIN IMMEDIATE", [])
            do {
                let result = try await body(bookkeeper)
                _ = try await bookkeeper.query("COMMIT", [])
                return result
            } catch {
                _ = try? await bookkeeper.query("ROLLBACK", [])
                throw error
            }
        }
    }

    static func insertToken(_ db: SQLiteConnection, accountID: String, tokenName: String, tokenHash: [UInt8]) async throws {
        do {
            _ = try await db.query("INSERT INTO tokens(hash, account, name, created) VALUES(?, ?, ?, strftime('%s','now'))",
                                   [.blob(ByteBuffer(bytes: tokenHash)), .text(accountID), .text(tokenName)])
        } catch let error as SQLiteError where "\(error.reason)".hasPrefix("constraint") {
            throw BackendError(status: 409, "the account has a token named \"\(tokenName)\" already (rotate it, or revoke it first)")
        }
    }

    /// The id of the account named `name`, or 404.
    static func accountID(_ db: SQLiteConnection, name: String) async throws -> String {
        guard let id = try await db.query("SELECT id FROM accounts WHERE name = ?", [.text(name)]).first?.column("id")?.string else {
            throw BackendError(status: 404, "no account named \"\(name)\"")
        }
        return id
    }

    static func bumpTokenGeneration(_ db: SQLiteConnection) async throws {
        _ = try await db.query("UPDATE settings SET value = value + 1 WHERE name = 'token_generation'", [])
    }

    package func addToken(account name: String, tokenName: String, tokenHash: [UInt8]) async throws {
        try await transaction { db in
            let id = try await Self.accountID(db, name: name)
            try await Self.insertToken(db, accountID: id, tokenName: tokenName, tokenHash: tokenHash)
        }
    }

    package func replaceToken(account name: String, tokenName: String, tokenHash: [UInt8]) async throws {
        try await transaction { db in
            let id = try await Self.accountID(db, name: name)
            _ = try await db.query("DELETE FROM tokens WHERE account = ? AND name = ?", [.text(id), .text(tokenName)])
            guard try await db.query("SELECT changes() AS n", []).first?.column("n")?.integer == 1 else {
                throw BackendError(status: 404, "the account \"\(name)\" has no token named \"\(tokenName)\"")
            }
            try await Self.insertToken(db, accountID: id, tokenName: tokenName, tokenHash: tokenHash)
            try await Self.bumpTokenGeneration(db)
        }
    }

    package func revokeTokens(account name: String, tokenName: String?) async throws -> Int {
        try await transaction { db in
            let id = try await Self.accountID(db, name: name)
            if let tokenName {
                _ = try await db.query("DELETE FROM tokens WHERE account = ? AND name = ?", [.text(id), .text(tokenName)])
            } else {
                _ = try await db.query("DELETE FROM tokens WHERE account = ?", [.text(id)])
            }
            let n = try await db.query("SELECT changes() AS n", []).first?.column("n")?.integer ?? 0
            guard n > 0 else {
                throw BackendError(status: 404, tokenName.map { "the account \"\(name)\" has no token named \"\($0)\"" } ?? "the account \"\(name)\" has no tokens")
            }
            try await Self.bumpTokenGeneration(db)
            return n
        }
    }

    package func tokens(account name: String) async throws -> [TokenSummary] {
        try await transaction { db in
            let id = try await Self.accountID(db, name: name)
            return try await db.query("SELECT name, created, last_used FROM tokens WHERE account = ? ORDER BY name", [.text(id)]).map { row in
                TokenSummary(name: row.column("name")?.string ?? "", created: Int64(row.column("created")?.integer ?? 0),
                             lastUsed: row.column("last_used")?.integer.map(Int64.init))
            }
        }
    }

    package func accounts() async throws -> [AccountSummary] {
        try await read { db in
            try await db.query("""
                SELECT a.id, a.name,
                    (SELECT count(*) FROM tokens t WHERE t.account = a.id) AS tokens,
                    (SELECT count(*) FROM stores s WHERE s.account = a.id) AS stores,
                    (SELECT coalesce(sum(total_bytes), 0) FROM stores s WHERE s.account = a.id) AS bytes
                FROM accounts a ORDER BY a.name
                """, []).map { row in
                AccountSummary(name: row.column("name")?.string ?? "", id: row.column("id")?.string ?? "",
                               tokens: row.column("tokens")?.integer ?? 0, stores: row.column("stores")?.integer ?? 0,
                               bytes: row.column("bytes")?.integer ?? 0)
            }
        }
    }

    package func deleteAccount(name: String) async throws {
        try await transaction { db in
            let id = try await Self.accountID(db, name: name)
            for table in ["entries", "commits", "stores", "tokens"] {
                _ = try await db.query("DELETE FROM \(table) WHERE account = ?", [.text(id)])
            }
            _ = try await db.query("DELETE FROM accounts WHERE id = ?", [.text(id)])
            try await Self.bumpTokenGeneration(db)
        }
    }

    package func tokenGeneration() async throws -> Int64 {
        let rows = try await read { db in try await db.query("SELECT value FROM settings WHERE name = 'token_generation'", []) }
        return Int64(rows.first?.column("value")?.integer ?? 0)
    }

    package func recordUse(tokenHash: [UInt8]) async throws {
        try await bookkeeperGate.run { [bookkeeper] in
            _ = try await bookkeeper.query("UPDATE tokens SET last_used = strftime('%s','now') WHERE hash = ?", [.blob(ByteBuffer(bytes: tokenHash))])
        }
    }

    // MARK: Reading

    func read<T: Sendable>(_ body: @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        let i = nextReader.withLock { n -> Int in n = (n + 1) % readers.count; return n }
        let db = readers[i]
        return try await readerGates[i].run { try await body(db) }
    }

    package func changes(account: String, store: String, after: Int64) async throws -> UbiquityChangesResponse {
        try await read { db in
            _ = try await db.query("BEGIN", [])
            do {
            let head = try await db.query("SELECT revision, horizon FROM stores WHERE account = ? AND store = ?",
                                          [.text(account), .text(store)])
            guard let h = head.first else {
                _ = try await db.query("COMMIT", [])
                return UbiquityChangesResponse(revision: 0, complete: after > 0, entries: [])
            }
            let revision = Int64(h.column("revision")?.integer ?? 0)
            let horizon = Int64(h.column("horizon")?.integer ?? 0)
            let complete = after < horizon || after > revision
            let rows = complete
                ? try await db.query("SELECT key, revision, value FROM entries WHERE account = ? AND store = ? AND value IS NOT NULL ORDER BY revision",
                                     [.text(account), .text(store)])
                : try await db.query("SELECT key, revision, value FROM entries WHERE account = ? AND store = ? AND revision > ? ORDER BY revision",
                                     [.text(account), .text(store), .integer(Int(after))])
            _ = try await db.query("COMMIT", [])
            return UbiquityChangesResponse(revision: revision, complete: complete, entries: rows.map(Self.entry))
            } catch {
                _ = try? await db.query("ROLLBACK", [])
                throw error
            }
        }
    }

    static func entry(_ row: SQLiteRow) -> UbiquityWireEntry {
        let key = row.column("key")?.string ?? ""
        let revision = Int64(row.column("revision")?.integer ?? 0)
        var value: String? = nil
        if let blob = row.column("value")?.blob {
            value = Base64.encode(blob.readableBytesView)
        }
        return UbiquityWireEntry(key: key, revision: revision, value: value)
    }

    // MARK: Committing

    package func commit(account: String, store: String, changes: [CheckedChange], tokenHash: [UInt8]?) async throws -> CommitOutcome {
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<CommitOutcome, any Error>, Never>) in
            queue.append(Job(account: account, store: store, changes: changes, tokenHash: tokenHash, done: c))
            wake.yield()
        }
        return try result.get()
    }

    /// What only the writer task touches: the heads of the stores it has written.
    final class WriterState: @unchecked Sendable {
        var heads: [String: StoreHead] = [:]
    }

    // MARK: Checking

    package func check() async throws -> [String] {
        try await read { db in
            var problems: [String] = []
            let stores = try await db.query("SELECT account, store, revision, key_count, total_bytes FROM stores", [])
            for row in stores {
                let a = row.column("account")?.string ?? "", s = row.column("store")?.string ?? ""
                let revision = row.column("revision")?.integer ?? 0
                let commits = try await db.query(
                    "SELECT count(*) AS n, coalesce(min(revision), 0) AS lo, coalesce(max(revision), 0) AS hi FROM commits WHERE account = ? AND store = ?",
                    [.text(a), .text(s)]).first
                let n = commits?.column("n")?.integer ?? 0, lo = commits?.column("lo")?.integer ?? 0, hi = commits?.column("hi")?.integer ?? 0
                if !CommitDecision.isKeptLog(count: Int64(n), lowest: Int64(lo), highest: Int64(hi), revision: Int64(revision)) {
                    problems.append("\(a)/\(s): revision \(revision) but \(n) commits from \(lo) to \(hi)")
                }
                let live = try await db.query(
                    "SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes, coalesce(max(revision), 0) AS top FROM entries WHERE account = ? AND store = ? AND value IS NOT NULL",
                    [.text(a), .text(s)]).first
                if live?.column("n")?.integer != row.column("key_count")?.integer || live?.column("bytes")?.integer != row.column("total_bytes")?.integer {
                    problems.append("\(a)/\(s): recorded \(row.column("key_count")?.integer ?? -1) keys / \(row.column("total_bytes")?.integer ?? -1) bytes, found \(live?.column("n")?.integer ?? -1) / \(live?.column("bytes")?.integer ?? -1)")
                }
                if let top = live?.column("top")?.integer, top > revision { problems.append("\(a)/\(s): an entry at revision \(top) beyond the store's \(revision)") }
            }
            // What the triggers keep of each account against what its stores hold.
            let usage = try await db.query("""
                SELECT a.id AS account, coalesce(u.stores, 0) AS kept_stores, coalesce(u.bytes, 0) AS kept_bytes,
                    coalesce(s.stores, 0) AS stores, coalesce(s.bytes, 0) AS bytes
                FROM accounts a LEFT JOIN account_usage u ON u.account = a.id
                LEFT JOIN (\(Self.usageByAccountSQL)) s ON s.account = a.id
                """, [])
            for row in usage {
                let kept = (row.column("kept_stores")?.integer ?? -1, row.column("kept_bytes")?.integer ?? -1)
                let found = (row.column("stores")?.integer ?? -1, row.column("bytes")?.integer ?? -1)
                if kept != found {
                    problems.append("account \(row.column("account")?.string ?? ""): usage kept as \(kept.0) stores / \(kept.1) bytes, found \(found.0) / \(found.1)")
                }
            }
            problems += try await Self.orphans(db)
            return problems
        }
    }

    /// Rows that belong to nothing: a store of no account, entries or commits of no
    /// store, tokens of no account (the schema forbids them; an older one did not).
    static func orphans(_ db: SQLiteConnection) async throws -> [String] {
        var problems: [String] = []
        for (what, query) in [
            ("stores of no account", "SELECT count(*) AS n FROM stores s WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account)"),
            ("entries of no store", "SELECT count(*) AS n FROM entries e WHERE NOT EXISTS (SELECT 1 FROM stores s WHERE s.account = e.account AND s.store = e.store)"),
            ("commits of no store", "SELECT count(*) AS n FROM commits c WHERE NOT EXISTS (SELECT 1 FROM stores s WHERE s.account = c.account AND s.store = c.store)"),
            ("tokens of no account", "SELECT count(*) AS n FROM tokens t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.account)"),
            ("stores never written (revision 0)", "SELECT count(*) AS n FROM stores WHERE revision = 0"),
        ] {
            let n = try await db.query(query, []).first?.column("n")?.integer ?? 0
            if n > 0 { problems.append("\(n) \(what)") }
        }
        return problems
    }
}
