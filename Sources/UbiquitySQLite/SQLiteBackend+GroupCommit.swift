import NIOCore
import PropertyList
import SharedTables
import SQLiteNIO
import UbiquityBackend

// A group commit on SQLite: the commits that came while the last transaction ran, applied in one
// transaction with one fsync. The group is read in one statement (its tokens, the heads of the
// stores not yet known, the current entries of every key it changes), decided in memory store by
// store (`StoreDecision`, as on PostgreSQL), and written in a few more (new stores' rows, every
// entry, the commit log, every head). A commit used to make three statements of its own, and
// each was a trip to sqlite-nio's thread pool and back: two thread wake-ups (issue 42). Now the
// statements are a group's, and the writer's task follows them on the writer's thread
// (`InlineTaskExecutor`).
extension SQLiteBackend {
    /// One group commit: every job applied in one transaction, one COMMIT (one fsync) for all.
    /// A job's refusal writes nothing, so it needs no savepoint; when the group *fails* (the
    /// database's error) it is rolled back, and its jobs are then run again one transaction each,
    /// so only the failing one is answered with the failure.
    static func run(_ jobs: [Job], on db: SQLiteConnection, state: WriterState, quota: AccountQuota?) async {
        let ordered = CommitGroup.ordered(jobs)
        let outcomes: [CommitOutcome]
        do {
            outcomes = try await applyTogether(ordered, on: db, state: state, quota: quota)
        } catch {
            _ = try? await db.query("ROLLBACK", [])
            state.heads.removeAll()
            guard ordered.count > 1 else {
                ordered[0].done.resume(returning: .failure(BackendError(status: 503, "the commit failed: \(error)")))
                return
            }
            for job in ordered { await run([job], on: db, state: state, quota: quota) }
            return
        }
        for (job, outcome) in zip(ordered, outcomes) { job.done.resume(returning: .success(outcome)) }
    }

    /// BEGIN, the group read, decided and written, COMMIT; the outcomes in the order of `jobs`
    /// (``CommitGroup/ordered(_:)``). Throws (leaving the transaction for the caller to roll
    /// back) when the database fails.
    static func applyTogether(_ jobs: [Job], on db: SQLiteConnection, state: WriterState, quota: AccountQuota?) async throws -> [CommitOutcome] {
        let stores = CommitGroup.stores(of: jobs)
        _ = try await db.query("BEGIN IMMEDIATE", [])
        // The tokens are still their accounts', in the transaction that applies the commits:
        // a revocation or an account's deletion committed before it wins.
        let read = try await readGroup(tokens: CommitGroup.tokens(of: jobs),
                                       stores: stores.filter { state.heads[CommitGroup.storeKey($0.account, $0.store)] == nil },
                                       keys: CommitGroup.keys(of: jobs, stores), on: db)
        // The heads come from what was read or from the writer's cache: looked up in each, not
        // merged into one dictionary (a copy of the whole cache, an entry a store, each group); nor
        // held in a local, which would make the cache's update after COMMIT copy it.
        func decide(usage: [String: AccountUsage]?) -> [StoreDecision] {
            // A store without a row is at revision 0: its row is made by its first commit that writes.
            StoreDecision.decide(jobs, stores: stores, head: { read.heads[$1] ?? state.heads[$1] ?? .unwritten }, current: read.current,
                                 validTokens: read.validTokens, quota: quota, usage: usage)
        }
        // Decided without the accounts' usage first; read only when a commit grows an account
        // under a quota (exact: this connection is the only writer, in its transaction).
        var decisions = decide(usage: nil)
        if quota != nil, decisions.contains(where: \.needsQuota) {
            decisions = decide(usage: try await readUsage(Set(stores.map(\.account)), on: db))
        }
        try await write(&decisions, on: db)
        _ = try await db.query("COMMIT", [])
        for d in decisions where d.writes { state.heads[d.storeKey] = d.after }
        if state.heads.count > 100_000 { state.heads.removeAll() }
        return decisions.flatMap(\.outcomes)
    }

    // MARK: Reading the group

    /// What a group reads before it is decided, in one statement (more only for a very large
    /// group): which of its `tokens` are still their accounts' (``CommitGroup/tokenKey(_:_:)``),
    /// the rows of `stores` (a store without one is absent), and the current entries of `keys`
    /// (``CommitGroup/keys(of:_:)``) by store. A `UNION ALL` of one `SELECT` for the tokens, one
    /// for the stores and one per store for its keys (in one `IN` list: the primary key's index
    /// answers each), each row naming what it is.
    static func readGroup(tokens: (a: [String], h: [[UInt8]]), stores: [(account: String, store: String, jobs: Range<Int>)],
                          keys: (a: [String], s: [String], k: [String]), on db: SQLiteConnection) async throws -> GroupRead {
        // Every SELECT names its columns: a compound's names are its first SELECT's.
        var selects: [(sql: String, binds: [SQLiteData])] = []
        for part in Array(tokens.a.indices).chunked(by: 200) {
            selects.append(("SELECT 't' AS kind, account, NULL AS store, NULL AS key, 0 AS revision, 0 AS size, hash AS value, "
                            + "0 AS key_count, 0 AS total_bytes, 0 AS tombstones, 0 AS horizon FROM tokens WHERE "
                            + part.map { _ in "(hash = ? AND account = ?)" }.joined(separator: " OR "),
                            part.flatMap { [SQLiteData.blob(ByteBuffer(bytes: tokens.h[$0])), .text(tokens.a[$0])] }))
        }
        for part in stores.chunked(by: 200) {
            selects.append(("SELECT 'h' AS kind, account, store, NULL AS key, revision, 0 AS size, NULL AS value, key_count, total_bytes, tombstones, horizon "
                            + "FROM stores WHERE "
                            + part.map { _ in "(account = ? AND store = ?)" }.joined(separator: " OR "),
                            part.flatMap { [SQLiteData.text($0.account), .text($0.store)] }))
        }
        // The keys of one store are next to each other (CommitGroup.keys): one SELECT each run.
        var start = 0
        while start < keys.k.count {
            var end = start + 1
            while end < keys.k.count, end - start < 500, keys.a[end] == keys.a[start], keys.s[end] == keys.s[start] { end += 1 }
            selects.append(("SELECT 'e' AS kind, account, store, key, revision, size, value, 0 AS key_count, 0 AS total_bytes, 0 AS tombstones, "
                            + "0 AS horizon FROM entries WHERE account = ? AND store = ? AND key IN ("
                            + Array(repeating: "?", count: end - start).joined(separator: ", ") + ")",
                            [.text(keys.a[start]), .text(keys.s[start])] + (start..<end).map { .text(keys.k[$0]) }))
            start = end
        }
        var read = GroupRead()
        // At most 100 SELECTs and about 10,000 values a statement (SQLite allows 500 and 32,766).
        var i = 0
        while i < selects.count {
            var j = i + 1, binds = selects[i].binds.count
            while j < selects.count, j - i < 100, binds + selects[j].binds.count <= 10_000 { binds += selects[j].binds.count; j += 1 }
            let rows = try await db.query(selects[i..<j].map(\.sql).joined(separator: " UNION ALL "), selects[i..<j].flatMap(\.binds))
            for row in rows {
                guard let account = row.column("account")?.string else { continue }
                switch row.column("kind")?.string {
                case "t":
                    if let hash = row.column("value")?.blob { read.validTokens.insert(CommitGroup.tokenKey(account, Array(hash.readableBytesView))) }
                case "h":
                    guard let store = row.column("store")?.string else { continue }
                    read.heads[CommitGroup.storeKey(account, store)] = StoreHead(
                        revision: Int64(row.column("revision")?.integer ?? 0), count: row.column("key_count")?.integer ?? 0,
                        total: row.column("total_bytes")?.integer ?? 0, tombstones: row.column("tombstones")?.integer ?? 0,
                        horizon: Int64(row.column("horizon")?.integer ?? 0))
                default:
                    guard let store = row.column("store")?.string, let key = row.column("key")?.string else { continue }
                    read.current[CommitGroup.storeKey(account, store), default: [:]][key] = CurrentEntry(
                        revision: Int64(row.column("revision")?.integer ?? 0), size: row.column("size")?.integer ?? 0, value: row.column("value")?.blob)
                }
            }
            i = j
        }
        return read
    }

    /// What ``readGroup(tokens:stores:keys:on:)`` found.
    struct GroupRead {
        var validTokens: Set<[UInt8]> = []
        /// The stores' rows, by "account/store".
        var heads: [String: StoreHead] = [:]
        /// The keys' current entries, by "account/store".
        var current: [String: [LiteralString: CurrentEntry]] = [:]
    }

    /// What each of `accounts` holds across its stores (those that count toward the quota, and all bytes).
    static func readUsage(_ accounts: Set<String>, on db: SQLiteConnection) async throws -> [String: AccountUsage] {
        var usage: [String: AccountUsage] = [:]
        for part in Array(accounts).chunked(by: 500) {
            let sql = "SELECT account, count(*) FILTER (WHERE \(AccountQuota.countedStoreSQL)) AS n, coalesce(sum(total_bytes), 0) AS b "
                + "FROM stores WHERE account IN (" + part.map { _ in "?" }.joined(separator: ", ") + ") AND revision > 0 GROUP BY account"
            for row in try await db.query(sql, part.map { .text($0) }) {
                guard let account = row.column("account")?.string else { continue }
                usage[account] = AccountUsage(stores: row.column("n")?.integer ?? 0, bytes: row.column("b")?.integer ?? 0)
            }
        }
        return usage
    }

    // MARK: Writing the group

    /// Writes the decisions that write: new stores' rows, every entry, the commit log, every
    /// head; then forgets old removals where a store keeps too many (its `after` then says what
    /// is left).
    static func write(_ decisions: inout [StoreDecision], on db: SQLiteConnection) async throws {
        let writing = decisions.indices.filter { decisions[$0].writes }
        guard !writing.isEmpty else { return }
        // A store's first write makes its row (refused by the foreign key when the account is gone).
        let new = writing.filter { decisions[$0].before.revision == 0 }
        for part in new.chunked(by: 400) {
            _ = try await db.query("INSERT OR IGNORE INTO stores(account, store) VALUES " + part.map { _ in "(?, ?)" }.joined(separator: ", "),
                                   part.flatMap { [SQLiteData.text(decisions[$0].account), .text(decisions[$0].store)] })
        }
        // Every key written, at its last revision.
        var rows: [[SQLiteData]] = []
        for i in writing {
            let a = SQLiteData.text(decisions[i].account), s = SQLiteData.text(decisions[i].store)
            for (key, w) in decisions[i].written {
                rows.append([a, s, .text(key.string), .integer(Int(w.revision)), w.bytes.map { .blob(ByteBuffer(bytes: $0)) } ?? .null, .integer(w.size)])
            }
        }
        for part in rows.chunked(by: 1_000) {
            _ = try await db.query("""
                INSERT INTO entries(account, store, key, revision, value, size) VALUES \(part.map { _ in "(?, ?, ?, ?, ?, ?)" }.joined(separator: ", "))
                ON CONFLICT(account, store, key) DO UPDATE SET revision = excluded.revision, value = excluded.value, size = excluded.size
                """, part.flatMap { $0 })
        }
        // The commit log: the trigger `stores_commit` writes the row of a store's last revision
        // when its head moves (and prunes the log when the head passes a multiple of its slack);
        // the group's earlier commits of the store are written here.
        var logRows: [[SQLiteData]] = []
        for i in writing {
            for entry in decisions[i].log.dropLast() {
                logRows.append([.text(decisions[i].account), .text(decisions[i].store), .integer(Int(entry.revision)), .integer(Int(entry.keys))])
            }
        }
        for part in logRows.chunked(by: 1_000) {
            _ = try await db.query("INSERT INTO commits(account, store, revision, keys) VALUES " + part.map { _ in "(?, ?, ?, ?)" }.joined(separator: ", "),
                                   part.flatMap { $0 })
        }
        // Every head in one statement (its trigger logs each store's last revision).
        for part in writing.chunked(by: 200) {
            var binds: [SQLiteData] = []
            for i in part {
                let d = decisions[i]
                binds += [.text(d.account), .text(d.store), .integer(Int(d.after.revision)), .integer(d.after.count), .integer(d.after.total),
                          .integer(d.after.tombstones), .integer(Int(d.after.horizon)), .integer(Int(d.log.last?.keys ?? 0))]
            }
            _ = try await db.query("""
                WITH h(a, s, r, c, t, tb, hz, n) AS (VALUES \(part.map { _ in "(?, ?, ?, ?, ?, ?, ?, ?)" }.joined(separator: ", ")))
                UPDATE stores SET revision = h.r, key_count = h.c, total_bytes = h.t, tombstones = h.tb, horizon = h.hz, last_keys = h.n
                FROM h WHERE stores.account = h.a AND stores.store = h.s
                """, binds)
        }
        for i in writing where decisions[i].prunesRemovals {
            try await pruneRemovals(&decisions[i], on: db)
        }
    }

    /// Forgets a store's oldest removals beyond ``CommitDecision/keptRemovals`` (a client older
    /// than the new horizon gets the whole store); `d.after` then says what is left.
    static func pruneRemovals(_ d: inout StoreDecision, on db: SQLiteConnection) async throws {
        let a = SQLiteData.text(d.account), s = SQLiteData.text(d.store)
        guard let cut = try await db.query("""
            SELECT revision FROM entries WHERE account = ? AND store = ? AND value IS NULL
            ORDER BY revision DESC LIMIT 1 OFFSET \(CommitDecision.keptRemovals)
            """, [a, s]).first?.column("revision")?.integer else { return }
        _ = try await db.query("DELETE FROM entries WHERE account = ? AND store = ? AND value IS NULL AND revision <= ?", [a, s, .integer(cut)])
        let left = try await db.query("SELECT count(*) AS n FROM entries WHERE account = ? AND store = ? AND value IS NULL", [a, s])
        d.after.tombstones = left.first?.column("n")?.integer ?? 0
        d.after.horizon = max(d.after.horizon, Int64(cut))
        _ = try await db.query("UPDATE stores SET tombstones = ?, horizon = ? WHERE account = ? AND store = ?",
                               [.integer(d.after.tombstones), .integer(Int(d.after.horizon)), a, s])
    }
}
