import NIOCore
import PropertyList
import SQLiteNIO
import UbiquityBackend

// A group commit on SQLite: the commits that came while the last transaction ran, applied in one
// transaction with one fsync. The group is read in a few statements (its tokens, the heads of the
// stores not yet known, the current entries of every key it changes), decided in memory store by
// store (`StoreDecision`, as on PostgreSQL), and written in a few more (new stores' rows, every
// entry, the commit log, every head). Each statement is a trip to sqlite-nio's thread pool and
// back, two thread wake-ups; a commit used to make three of them on its own (issue 42).
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
        let validTokens = try await readTokens(CommitGroup.tokens(of: jobs), on: db)
        let heads = try await readHeads(stores.filter { state.heads[$0.account + "/" + $0.store] == nil }, on: db)
            .merging(state.heads) { read, _ in read }
        let current = try await readEntries(CommitGroup.keys(of: jobs, stores), on: db)
        func decide(usage: [String: AccountUsage]?) -> [StoreDecision] {
            var usage = usage
            return stores.map { store in
                let storeKey = store.account + "/" + store.store
                // A store without a row is at revision 0: its row is made by its first commit that writes.
                let head = heads[storeKey] ?? StoreHead(revision: 0, count: 0, total: 0, tombstones: 0, horizon: 0)
                let others = usage.map { ($0[store.account] ?? AccountUsage(stores: 0, bytes: 0)).without(head, named: store.store) }
                let decision = StoreDecision(jobs, store.jobs, account: store.account, store: store.store, head: head,
                                             current: current[storeKey] ?? [:], validTokens: validTokens, quota: quota, others: others)
                // The next store of the same account sees this one's new size.
                if let others { usage?[store.account] = others.with(decision.after, named: store.store) }
                return decision
            }
        }
        // Decided without the accounts' usage first; read only when a commit grows an account
        // under a quota (exact: this connection is the only writer, in its transaction).
        var decisions = decide(usage: nil)
        if quota != nil, decisions.contains(where: \.needsQuota) {
            decisions = decide(usage: try await readUsage(Set(stores.map(\.account)), on: db))
        }
        try await write(&decisions, on: db)
        _ = try await db.query("COMMIT", [])
        for d in decisions where d.writes { state.heads[d.account + "/" + d.store] = d.after }
        if state.heads.count > 100_000 { state.heads.removeAll() }
        return decisions.flatMap(\.outcomes)
    }

    // MARK: Reading the group

    /// The tokens among `tokens` that are still their accounts' (``CommitGroup/tokenKey(_:_:)``).
    static func readTokens(_ tokens: (a: [String], h: [[UInt8]]), on db: SQLiteConnection) async throws -> Set<[UInt8]> {
        var valid: Set<[UInt8]> = []
        for part in Array(tokens.a.indices).chunked(by: 200) {
            let sql = "SELECT account, hash FROM tokens WHERE " + part.map { _ in "(hash = ? AND account = ?)" }.joined(separator: " OR ")
            let binds = part.flatMap { [SQLiteData.blob(ByteBuffer(bytes: tokens.h[$0])), .text(tokens.a[$0])] }
            for row in try await db.query(sql, binds) {
                guard let account = row.column("account")?.string, let hash = row.column("hash")?.blob else { continue }
                valid.insert(CommitGroup.tokenKey(account, Array(hash.readableBytesView)))
            }
        }
        return valid
    }

    /// The rows of `stores` ("account/store"); a store without a row is absent.
    static func readHeads(_ stores: [(account: String, store: String, jobs: Range<Int>)], on db: SQLiteConnection) async throws -> [String: StoreHead] {
        var heads: [String: StoreHead] = [:]
        for part in stores.chunked(by: 200) {
            let sql = "SELECT account, store, revision, key_count, total_bytes, tombstones, horizon FROM stores WHERE "
                + part.map { _ in "(account = ? AND store = ?)" }.joined(separator: " OR ")
            for row in try await db.query(sql, part.flatMap { [SQLiteData.text($0.account), .text($0.store)] }) {
                guard let account = row.column("account")?.string, let store = row.column("store")?.string else { continue }
                heads[account + "/" + store] = StoreHead(
                    revision: Int64(row.column("revision")?.integer ?? 0), count: row.column("key_count")?.integer ?? 0,
                    total: row.column("total_bytes")?.integer ?? 0, tombstones: row.column("tombstones")?.integer ?? 0,
                    horizon: Int64(row.column("horizon")?.integer ?? 0))
            }
        }
        return heads
    }

    /// The current entries of `keys` (``CommitGroup/keys(of:_:)``), by store ("account/store").
    /// One statement per few hundred keys: a `UNION ALL` of one `SELECT` per store, each with
    /// its keys in one `IN` list (the primary key's index answers each).
    static func readEntries(_ keys: (a: [String], s: [String], k: [String]), on db: SQLiteConnection) async throws
        -> [String: [LiteralString: CurrentEntry]]
    {
        var current: [String: [LiteralString: CurrentEntry]] = [:]
        for part in Array(keys.k.indices).chunked(by: 500) {
            // The keys of one store are next to each other (CommitGroup.keys): one SELECT each run.
            var selects: [String] = [], binds: [SQLiteData] = []
            var start = part.startIndex
            while start < part.endIndex {
                var end = start + 1
                while end < part.endIndex, keys.a[part[end]] == keys.a[part[start]], keys.s[part[end]] == keys.s[part[start]] { end += 1 }
                selects.append("SELECT account, store, key, revision, size, value FROM entries WHERE account = ? AND store = ? AND key IN ("
                               + Array(repeating: "?", count: end - start).joined(separator: ", ") + ")")
                binds += [.text(keys.a[part[start]]), .text(keys.s[part[start]])] + part[start..<end].map { .text(keys.k[$0]) }
                start = end
            }
            for row in try await db.query(selects.joined(separator: " UNION ALL "), binds) {
                guard let account = row.column("account")?.string, let store = row.column("store")?.string,
                      let key = row.column("key")?.string else { continue }
                current[account + "/" + store, default: [:]][key] = CurrentEntry(
                    revision: Int64(row.column("revision")?.integer ?? 0), size: row.column("size")?.integer ?? 0, value: row.column("value")?.blob)
            }
        }
        return current
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
    /// head; then forgets old removals and old log rows where a store needs it (its `after`
    /// then says what is left).
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
        // when its head moves; the group's earlier commits of the store are written here.
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
        for i in writing where decisions[i].needsPruning {
            try await prune(&decisions[i], on: db)
        }
    }

    /// Forgets a store's oldest removals beyond ``CommitDecision/keptRemovals`` (a client older
    /// than the new horizon gets the whole store), and its commit log beyond
    /// ``CommitDecision/keptCommits`` when the group took its revision past a multiple of
    /// ``CommitDecision/commitLogSlack`` (the trigger prunes only when a head lands on one).
    static func prune(_ d: inout StoreDecision, on db: SQLiteConnection) async throws {
        let a = SQLiteData.text(d.account), s = SQLiteData.text(d.store)
        let slack = Int64(CommitDecision.commitLogSlack)
        if d.after.revision > Int64(CommitDecision.keptCommits), d.after.revision / slack != d.before.revision / slack {
            _ = try await db.query("DELETE FROM commits WHERE account = ? AND store = ? AND revision <= ?",
                                   [a, s, .integer(Int(d.after.revision) - CommitDecision.keptCommits)])
        }
        guard d.after.tombstones > CommitDecision.keptRemovals + CommitDecision.pruneSlack else { return }
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

extension Array {
    /// The array in consecutive pieces of at most `size` elements.
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
