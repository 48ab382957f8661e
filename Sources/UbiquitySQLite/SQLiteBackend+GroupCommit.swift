import NIOCore
import NIOPosix
import PropertyList
import SharedTables
import UbiquityBackend

// A group commit on SQLite: the commits that came while the last transaction ran, applied in one
// transaction with one fsync. The group is read (its tokens, the heads of the stores not yet
// known, the current entries of every key it changes), decided in memory store by store
// (`StoreDecision`, as on PostgreSQL), and written (new stores' rows, every entry, the commit
// log, every head). The whole group is one trip to the writer's thread: its statements are the
// writer's own connection's (`SQLiteHandle`), each prepared once, a row at a time. A group used to
// be a handful of statements written for its shape (`UNION ALL`s, `VALUES` lists): SQLite parsed
// and planned each one again, and each was a trip through sqlite-nio's thread pool (issue 42).
extension SQLiteBackend {
    /// One group commit on the writer's thread; every job is answered (a failure when the
    /// writer's thread has stopped).
    static func run(_ jobs: [Job], on db: SQLiteHandle, pool: NIOThreadPool, state: WriterState, quota: AccountQuota?) async {
        do {
            try await pool.runIfActive { run(jobs, on: db, state: state, quota: quota) }
        } catch {
            for job in jobs { job.done.resume(returning: .failure(BackendError(status: 503, "the server is stopping: \(error)"))) }
        }
    }

    /// One group commit: every job applied in one transaction, one COMMIT (one fsync) for all.
    /// A job's refusal writes nothing, so it needs no savepoint; when the group *fails* (the
    /// database's error) it is rolled back, and its jobs are then run again one transaction each,
    /// so only the failing one is answered with the failure. On the writer's thread.
    static func run(_ jobs: [Job], on db: SQLiteHandle, state: WriterState, quota: AccountQuota?) {
        let ordered = CommitGroup.ordered(jobs)
        let outcomes: [CommitOutcome]
        do {
            outcomes = try applyTogether(ordered, on: db, state: state, quota: quota)
        } catch {
            try? db.execute("ROLLBACK")
            state.heads.removeAll()
            guard ordered.count > 1 else {
                ordered[0].done.resume(returning: .failure(BackendError(status: 503, "the commit failed: \(error)")))
                return
            }
            for job in ordered { run([job], on: db, state: state, quota: quota) }
            return
        }
        for (job, outcome) in zip(ordered, outcomes) { job.done.resume(returning: .success(outcome)) }
    }

    /// BEGIN, the group read, decided and written, COMMIT; the outcomes in the order of `jobs`
    /// (``CommitGroup/ordered(_:)``). Throws (leaving the transaction for the caller to roll
    /// back) when the database fails.
    static func applyTogether(_ jobs: [Job], on db: SQLiteHandle, state: WriterState, quota: AccountQuota?) throws(SQLiteFailure) -> [CommitOutcome] {
        let stores = CommitGroup.stores(of: jobs)
        try db.execute("BEGIN IMMEDIATE")
        // The tokens are still their accounts', in the transaction that applies the commits:
        // a revocation or an account's deletion committed before it wins.
        let read = try readGroup(tokens: CommitGroup.tokens(of: jobs),
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
            decisions = decide(usage: try readUsage(Set(stores.map(\.account)), on: db))
        }
        try write(&decisions, on: db)
        try db.execute("COMMIT")
        for d in decisions where d.writes { state.heads[d.storeKey] = d.after }
        if state.heads.count > 100_000 { state.heads.removeAll() }
        return decisions.flatMap(\.outcomes)
    }

    // MARK: Reading the group

    /// What a group reads before it is decided: which of its `tokens` are still their accounts'
    /// (``CommitGroup/tokenKey(_:_:)``), the rows of `stores` (a store without one is absent),
    /// and the current entries of `keys` (``CommitGroup/keys(of:_:)``) by store. A statement a
    /// token, a store and a key, each answered by a primary key's index.
    static func readGroup(tokens: (a: [String], h: [[UInt8]]), stores: [(account: String, store: String, jobs: Range<Int>)],
                          keys: (a: [String], s: [String], k: [String]), on db: SQLiteHandle) throws(SQLiteFailure) -> GroupRead {
        var read = GroupRead()
        for i in tokens.a.indices {
            try db.run("SELECT 1 FROM tokens WHERE hash = ? AND account = ?") { (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
                s.bind(1, tokens.h[i])
                s.bind(2, tokens.a[i])
                if try s.step() { read.validTokens.insert(CommitGroup.tokenKey(tokens.a[i], tokens.h[i])) }
            }
        }
        for store in stores {
            try db.run("SELECT revision, key_count, total_bytes, tombstones, horizon FROM stores WHERE account = ? AND store = ?") {
                (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
                s.bind(1, store.account)
                s.bind(2, store.store)
                guard try s.step() else { return }
                read.heads[CommitGroup.storeKey(store.account, store.store)] = StoreHead(
                    revision: s.integer(0), count: Int(s.integer(1)), total: Int(s.integer(2)), tombstones: Int(s.integer(3)), horizon: s.integer(4))
            }
        }
        for i in keys.k.indices {
            try db.run("SELECT revision, size, value FROM entries WHERE account = ? AND store = ? AND key = ?") {
                (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
                s.bind(1, keys.a[i])
                s.bind(2, keys.s[i])
                s.bind(3, keys.k[i])
                guard try s.step() else { return }
                read.current[CommitGroup.storeKey(keys.a[i], keys.s[i]), default: [:]][LiteralString(keys.k[i])] = CurrentEntry(
                    revision: s.integer(0), size: Int(s.integer(1)), value: s.blob(2).map { ByteBuffer(bytes: $0) })
            }
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

    /// What each of `accounts` holds across its stores (those that count toward the quota, and
    /// all bytes): a row each, kept by the schema's triggers (`account_usage`, schema 6); an
    /// account without one holds nothing.
    static func readUsage(_ accounts: Set<String>, on db: SQLiteHandle) throws(SQLiteFailure) -> [String: AccountUsage] {
        var usage: [String: AccountUsage] = [:]
        for account in accounts {
            usage[account] = AccountUsage(stores: 0, bytes: 0)
            try db.run("SELECT stores, bytes FROM account_usage WHERE account = ?") { (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
                s.bind(1, account)
                if try s.step() { usage[account] = AccountUsage(stores: Int(s.integer(0)), bytes: Int(s.integer(1))) }
            }
        }
        return usage
    }

    // MARK: Writing the group

    /// Writes the decisions that write: new stores' rows, every entry, the commit log, every
    /// head; then forgets old removals where a store keeps too many (its `after` then says what
    /// is left).
    static func write(_ decisions: inout [StoreDecision], on db: SQLiteHandle) throws(SQLiteFailure) {
        let writing = decisions.indices.filter { decisions[$0].writes }
        guard !writing.isEmpty else { return }
        for i in writing {
            let d = decisions[i]
            // A store's first write makes its row (refused by the foreign key when the account is gone).
            if d.before.revision == 0 {
                try db.execute("INSERT OR IGNORE INTO stores(account, store) VALUES (?, ?)") { s in
                    s.bind(1, d.account)
                    s.bind(2, d.store)
                }
            }
            // Every key written, at its last revision.
            for (key, w) in d.written {
                try db.execute("""
                    INSERT INTO entries(account, store, key, revision, value, size) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(account, store, key) DO UPDATE SET revision = excluded.revision, value = excluded.value, size = excluded.size
                    """) { s in
                    s.bind(1, d.account)
                    s.bind(2, d.store)
                    s.bind(3, key.string)
                    s.bind(4, w.revision)
                    s.bind(5, w.bytes)
                    s.bind(6, w.size)
                }
            }
            // The commit log: the trigger `stores_commit` writes the row of a store's last revision
            // when its head moves (and prunes the log when the head passes a multiple of its slack);
            // the group's earlier commits of the store are written here.
            for entry in d.log.dropLast() {
                try db.execute("INSERT INTO commits(account, store, revision, keys) VALUES (?, ?, ?, ?)") { s in
                    s.bind(1, d.account)
                    s.bind(2, d.store)
                    s.bind(3, entry.revision)
                    s.bind(4, Int64(entry.keys))
                }
            }
            // The head (its trigger logs the store's last revision).
            try db.execute("""
                UPDATE stores SET revision = ?, key_count = ?, total_bytes = ?, tombstones = ?, horizon = ?, last_keys = ?
                WHERE account = ? AND store = ?
                """) { s in
                s.bind(1, d.after.revision)
                s.bind(2, d.after.count)
                s.bind(3, d.after.total)
                s.bind(4, d.after.tombstones)
                s.bind(5, d.after.horizon)
                s.bind(6, Int64(d.log.last?.keys ?? 0))
                s.bind(7, d.account)
                s.bind(8, d.store)
            }
        }
        for i in writing where decisions[i].prunesRemovals {
            try pruneRemovals(&decisions[i], on: db)
        }
    }

    /// Forgets a store's oldest removals beyond ``CommitDecision/keptRemovals`` (a client older
    /// than the new horizon gets the whole store); `d.after` then says what is left.
    static func pruneRemovals(_ d: inout StoreDecision, on db: SQLiteHandle) throws(SQLiteFailure) {
        let (account, store) = (d.account, d.store)
        func bindStore(_ s: SQLiteHandle.Statement) {
            s.bind(1, account)
            s.bind(2, store)
        }
        let cut: Int64? = try db.run("""
            SELECT revision FROM entries WHERE account = ? AND store = ? AND value IS NULL
            ORDER BY revision DESC LIMIT 1 OFFSET \(CommitDecision.keptRemovals)
            """) { (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
            bindStore(s)
            return try s.step() ? s.integer(0) : nil
        }
        guard let cut else { return }
        try db.execute("DELETE FROM entries WHERE account = ? AND store = ? AND value IS NULL AND revision <= ?") { s in
            bindStore(s)
            s.bind(3, cut)
        }
        d.after.tombstones = try db.run("SELECT count(*) FROM entries WHERE account = ? AND store = ? AND value IS NULL") {
            (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
            bindStore(s)
            return try s.step() ? Int(s.integer(0)) : 0
        }
        d.after.horizon = max(d.after.horizon, cut)
        try db.execute("UPDATE stores SET tombstones = ?, horizon = ? WHERE account = ? AND store = ?") { s in
            s.bind(1, d.after.tombstones)
            s.bind(2, d.after.horizon)
            s.bind(3, account)
            s.bind(4, store)
        }
    }
}
