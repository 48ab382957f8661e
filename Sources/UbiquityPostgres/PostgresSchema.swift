import Logging
import UbiquityProtocol
import PostgresNIO
import UbiquityBackend

/// The sync server's tables in PostgreSQL, created and migrated by the server.
///
/// Migrations are numbered and run in order, each in the transaction that
/// records it in `ubiquity_schema`. The whole run holds a transaction-level
/// advisory lock, so servers starting at the same moment migrate one after
/// the other: the second finds the work done.
///
/// The limits are constraints as well as checks in the server: a key of 1
/// to 64 bytes of UTF-8 (the database must be UTF-8, checked at start), a
/// value's size its exact byte count and at most 1 MB, a store at most
/// 1,024 keys and 1 MB together.
enum PostgresSchema {
    /// The advisory lock's number (any constant of our own).
    static let migrationLock: Int64 = 0x7562_6971_7569_7479   // "ubiquity"

    /// The migrations in order; the schema's version is their count.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE accounts(id text PRIMARY KEY, name text NOT NULL UNIQUE,
                token_hash bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
                created timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE stores(account text NOT NULL REFERENCES accounts(id), store text NOT NULL,
                revision bigint NOT NULL DEFAULT 0 CHECK (revision >= 0),
                key_count integer NOT NULL DEFAULT 0 CHECK (key_count BETWEEN 0 AND \(UbiquityLimits.maximumKeys)),
                total_bytes integer NOT NULL DEFAULT 0 CHECK (total_bytes BETWEEN 0 AND \(UbiquityLimits.maximumTotalBytes)),
                tombstones integer NOT NULL DEFAULT 0 CHECK (tombstones >= 0),
                horizon bigint NOT NULL DEFAULT 0 CHECK (horizon >= 0),
                PRIMARY KEY(account, store))
            """,
            """
            CREATE TABLE entries(account text NOT NULL, store text NOT NULL,
                key text NOT NULL CHECK (octet_length(key) BETWEEN 1 AND \(UbiquityLimits.maximumKeyBytes)),
                revision bigint NOT NULL CHECK (revision > 0), value bytea,
                size integer NOT NULL CHECK (size BETWEEN 0 AND \(UbiquityLimits.maximumValueBytes)),
                CHECK ((value IS NULL AND size = 0) OR size = octet_length(value)),
                PRIMARY KEY(account, store, key),
                FOREIGN KEY(account, store) REFERENCES stores(account, store))
            """,
            "CREATE INDEX entries_by_revision ON entries(account, store, revision)",
            """
            CREATE TABLE commits(account text NOT NULL, store text NOT NULL, revision bigint NOT NULL,
                keys integer NOT NULL CHECK (keys > 0), PRIMARY KEY(account, store, revision),
                FOREIGN KEY(account, store) REFERENCES stores(account, store))
            """,
        ],
        [
            // Named tokens, one per machine, revocable; the account's first token moves here.
            """
            CREATE TABLE tokens(hash bytea PRIMARY KEY CHECK (octet_length(hash) = 32),
                account text NOT NULL REFERENCES accounts(id), name text NOT NULL,
                created timestamptz NOT NULL DEFAULT now(), last_used timestamptz, UNIQUE(account, name))
            """,
            "INSERT INTO tokens(hash, account, name, created) SELECT token_hash, id, 'default', created FROM accounts",
            "ALTER TABLE accounts DROP COLUMN token_hash",
            "CREATE TABLE ubiquity_settings(name text PRIMARY KEY, value bigint NOT NULL)",
            "INSERT INTO ubiquity_settings(name, value) VALUES ('token_generation', 0)",
        ],
        [
            // A refused commit keeps nothing (rows at revision 0 were left by refused first
            // commits), and the commit log keeps each store's newest rows only.
            "DELETE FROM stores WHERE revision = 0",
            """
            DELETE FROM commits c USING stores s
            WHERE c.account = s.account AND c.store = s.store AND c.revision <= s.revision - \(CommitDecision.keptCommits)
            """,
        ],
        [
            // The commit log's rows are checked against their store by the statements that
            // write them, not by a foreign key (proposal 0012, "The commit log without a foreign
            // key"): the group write inserts them only for the stores whose rows it holds
            // locked, the locked path only after it locked them, and a store's rows go only
            // with their store, under the same locks (`deleteAccount`; a store at revision 0
            // has none). The key's trigger cost each commit a `SELECT … FOR KEY SHARE` of a row
            // the statement already held. `ubiquity check` counts log rows of no store.
            "ALTER TABLE commits DROP CONSTRAINT IF EXISTS commits_account_store_fkey",
        ],
        [
            // Each commit's log row names the keys it changed (NULL in rows logged before),
            // and a reader a few commits behind finds its changes through them, by key
            // (`PostgresBackend.changes`); a reader further behind reads its store's entries.
            // So entries need no index by revision, and rewriting an entry changes no indexed
            // column: PostgreSQL updates it in place on its page (a heap-only update) instead
            // of adding a row to both its indexes (proposal 0019, "PostgreSQL: entries
            // without an index by revision").
            "ALTER TABLE commits ADD COLUMN changed text[] CHECK (changed IS NULL OR cardinality(changed) = keys)",
            "DROP INDEX IF EXISTS entries_by_revision",
        ],
    ]

    static var version: Int { migrations.count }

    /// Brings the database to ``version``; refuses a database newer than this server or not in UTF-8.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { db in
            let encoding = try await db.query("SHOW server_encoding", logger: logger).collect().first?.decode(String.self) ?? ""
            guard encoding == "UTF8" else {
                throw BackendError(status: 500, "the database's encoding is \(encoding); the sync server needs UTF8 (keys are limited in bytes of UTF-8)")
            }
            try await db.query("BEGIN", logger: logger)
            do {
                try await db.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                try await db.query("CREATE TABLE IF NOT EXISTS ubiquity_schema(version integer NOT NULL)", logger: logger)
                let current = try await db.query("SELECT max(version) FROM ubiquity_schema", logger: logger)
                    .collect().first?.decode(Int?.self) ?? nil
                let from = current ?? 0
                guard from <= version else {
                    throw BackendError(status: 500, "the database's schema is version \(from), newer than this server's \(version); use a newer ubiquity")
                }
                for (index, statements) in migrations.enumerated() where index + 1 > from {
                    for statement in statements {
                        try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await db.query("INSERT INTO ubiquity_schema(version) VALUES (\(index + 1))", logger: logger)
                }
                try await db.query("COMMIT", logger: logger)
            } catch {
                _ = try? await db.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
