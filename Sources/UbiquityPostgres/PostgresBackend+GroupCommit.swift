import Logging
import NIOCore
import UbiquityProtocol
import PropertyList
import PostgresNIO
import UbiquityBackend
import CoreMetrics

// A group commit (proposal 0012): the commits a writer took, applied together.
//
// First without locks, in two statements: the stores' heads and the
// commits' current entries read in one, the commits decided, and everything
// written in one more that locks each store's row only if its revision is
// still the one read (a single statement is its own transaction: one WAL
// flush, nothing half-written). A store whose revision moved meanwhile
// (another server committed to it) is left out of that statement, and its
// commits go through the locked path: BEGIN, every store's row locked in
// order, its entries read after the locks, the same decisions and the same
// write, COMMIT. With one server per store at a time, the first path is the
// only one taken: two round trips and a flush instead of five. Those two
// statements are prepared (`GroupReadStatement`, `GroupWriteStatement`):
// each connection parses and plans them once. When the writer knows every
// store and key of a group from its own reads and writes (`KeptStores`), the
// read is skipped: what writes is written under the same revision check, and
// what would not write goes to the locked path.
extension PostgresBackend {
    /// A writer's group commits on one connection: `first`, then each group `next` gives
    /// it, until `next` gives none or a group fails. Commits a group cannot apply are tried
    /// alone. Returns the group still held (for the caller to let go), or nil when `next`
    /// let the last one go. The sweeper cancels a group that has not read the database
    /// within ``deadline``.
    static func run(_ first: Run, client: PostgresClient, logger: Logger, quota: AccountQuota?, kept: KeptStores,
                    next: @Sendable (Run) -> Run?) async -> Run? {
        DatabaseMetrics.operations.increment()
        defer { DatabaseMetrics.operations.decrement() }
        let asked = ContinuousClock.now
        do {
            return try await client.withConnection { db in
                DatabaseMetrics.waited(since: asked)
                var run = first
                while await group(run, on: db, logger: logger, quota: quota, kept: kept) {
                    guard let following = next(run) else { return nil }
                    run = following
                }
                return run
            }
        } catch {
            // No connection: commits not yet answered fail now (none was applied).
            for job in first.jobs { job.ticket.abandon(.failure(unavailable(error))) }
            return first
        }
    }

    /// One group commit. False when the connection failed, or the sweeper gave up on the
    /// group before it read the database: every commit is answered either way.
    static func group(_ run: Run, on db: PostgresConnection, logger: Logger, quota: AccountQuota?, kept: KeptStores) async -> Bool {
        // A fixed order of stores: two servers' groups lock rows in the same order (no deadlock).
        let ordered = CommitGroup.ordered(run.jobs)
        let state: GroupState
        do {
            // What this server knows of every store and key of the group, or else a read.
            if let known = kept.groupState(for: ordered) { state = known } else { state = try await read(ordered, on: db, logger: logger, kept: kept) }
            guard run.begin() else { throw CancellationError() }
        } catch {
            // The read failed, or the sweeper gave up on the group (none was applied): commits not yet answered fail now.
            for job in ordered { job.ticket.abandon(.failure(unavailable(error))) }
            return false
        }
        // From here on the writer answers every claimed commit itself.
        let claimed = ordered.filter { $0.ticket.claim() }
        do {
            let rest = try await commitUnlocked(claimed, state: state, on: db, logger: logger, quota: quota, kept: kept)
            if !rest.isEmpty { try await commitLocked(rest, on: db, logger: logger, quota: quota, kept: kept) }
            return true
        } catch {
            // The connection failed: what is not answered yet is answered now.
            for job in claimed { job.finish(.failure(unavailable(error))) }
            return false
        }
    }

    /// What a group's decisions start from: the stores' heads and the current entries of the commits' keys.
    struct GroupState {
        var heads: [String: StoreHead] = [:]
        var current: [String: [LiteralString: CurrentEntry]] = [:]
        /// The commits' tokens still valid (``CommitGroup/tokenKey(_:_:)``), as the locked path reads them;
        /// nil in the unlocked path, whose write statement checks the writing commits' tokens itself.
        var validTokens: Set<[UInt8]>? = nil
        /// Made from what this server kept (``KeptStores``), not read: only writes are taken from it.
        var isKept = false
    }

    /// The heads and entries of the group's stores, without locks (one statement, one snapshot).
    static func read(_ jobs: [Job], on db: PostgresConnection, logger: Logger, kept: KeptStores) async throws -> GroupState {
        let stores = CommitGroup.stores(of: jobs)
        let keys = CommitGroup.keys(of: jobs, stores)
        let rows = try await db.execute(GroupReadStatement(storeAccounts: stores.map(\.account), storeNames: stores.map(\.store),
                                                           keyAccounts: keys.a, keyStores: keys.s, keys: keys.k), logger: logger)
        var state = GroupState()
        for try await (kind, account, store, revision, count, total, tombstones, horizon, key, size, value) in rows {
            if kind == "h" {
                state.heads[CommitGroup.storeKey(account, store)] = StoreHead(revision: revision, count: Int(count), total: Int(total),
                                                              tombstones: Int(tombstones), horizon: horizon)
            } else if let key, let size {
                state.current[CommitGroup.storeKey(account, store), default: [:]][key] = CurrentEntry(revision: revision, size: Int(size), value: value)
            }
        }
        kept.learn(state, for: jobs)
        return state
    }

    /// Writes the stores' decisions in one statement: entries, heads, the
    /// commit log and a `NOTIFY` per store, for the stores whose revision is
    /// still the one their decisions started from (each such row locked, in
    /// the group's order, until the statement's transaction ends). Returns
    /// the stores written ("account/store").
    static func write(_ decisions: [StoreDecision], on db: PostgresConnection, logger: Logger) async throws -> Set<String> {
        let statement = GroupWriteStatement(decisions, channel: channel)
        guard !statement.isEmpty else { return [] }
        let rows = try await db.execute(statement, logger: logger)
        var done: Set<String> = []
        for try await (account, store, _) in rows { done.insert(CommitGroup.storeKey(account, store)) }
        return done
    }

    /// The unlocked path: decides the claimed commits on `state` and writes
    /// them where their stores did not move. Answers the commits it decided;
    /// returns the ones left for the locked path (stores that moved, new
    /// stores, stores to prune). Nothing is applied when it throws (one statement).
    static func commitUnlocked(_ jobs: [Job], state: GroupState, on db: PostgresConnection, logger: Logger, quota: AccountQuota?,
                               kept: KeptStores) async throws -> [Job] {
        var rest: [Job] = []
        var decisions: [StoreDecision] = []
        for store in CommitGroup.stores(of: jobs) {
            let storeKey = CommitGroup.storeKey(store.account, store.store)
            guard let head = state.heads[storeKey] else { rest += jobs[store.jobs]; continue }
            let decision = StoreDecision(jobs, store.jobs, account: store.account, store: store.store, head: head,
                                         current: state.current[storeKey] ?? [:], validTokens: state.validTokens, quota: quota, others: nil)
            if decision.needsPruning || decision.needsQuota { rest += jobs[store.jobs]; continue }
            // On kept knowledge only what writes is taken: the write checks it. A conflict or a
            // refusal would be answered without a check, on what may be another server's past.
            if state.isKept && !(decision.writes && decision.outcomes.allSatisfy(\.isWhollyApplied)) { rest += jobs[store.jobs]; continue }
            decisions.append(decision)
        }
        kept.willWrite(decisions)
        let written: Set<String>
        do { written = try await write(decisions, on: db, logger: logger) } catch {
            // Whether the statement committed is not known.
            for decision in decisions { kept.forget(decision.storeKey) }
            throw error
        }
        for decision in decisions {
            // A store whose commits write nothing (conflicts, refusals) is answered on what was read:
            // that state was the store's at the moment of the read.
            if decision.writes && !written.contains(decision.storeKey) {
                // Another server moved it: the locked path reads it again.
                kept.forget(decision.storeKey)
                rest += jobs[decision.jobs]
            } else {
                if decision.writes { kept.wrote(decision) }
                for (job, outcome) in zip(jobs[decision.jobs], decision.outcomes) { job.finish(.success(outcome)) }
            }
        }
        return rest
    }

    /// The locked path, in a transaction of its own; when it fails, its commits are tried alone.
    static func commitLocked(_ jobs: [Job], on db: PostgresConnection, logger: Logger, quota: AccountQuota?, kept: KeptStores) async throws {
        // What this path writes (a prune among it) is learned again by the next read.
        for store in CommitGroup.stores(of: jobs) { kept.forget(CommitGroup.storeKey(store.account, store.store)) }
        try await db.query("BEGIN", logger: logger)
        do {
            let outcomes = try await apply(jobs, on: db, logger: logger, quota: quota)
            try await db.query("COMMIT", logger: logger)
            for (job, outcome) in zip(jobs, outcomes) { job.finish(.success(outcome)) }
        } catch {
            _ = try? await db.query("ROLLBACK", logger: logger)
            if jobs.count == 1 {
                jobs[0].finish(.failure(unavailable(error)))
            } else {
                for job in jobs { await alone(job, on: db, logger: logger, quota: quota) }
            }
        }
    }

    /// One claimed commit in a transaction of its own (after its group failed).
    static func alone(_ job: Job, on db: PostgresConnection, logger: Logger, quota: AccountQuota?) async {
        do {
            try await db.query("BEGIN", logger: logger)
            do {
                let outcome = try await apply([job], on: db, logger: logger, quota: quota)
                try await db.query("COMMIT", logger: logger)
                job.finish(.success(outcome[0]))
            } catch {
                _ = try? await db.query("ROLLBACK", logger: logger)
                throw error
            }
        } catch {
            job.finish(.failure(unavailable(error)))
        }
    }

    /// Applies commits, in order, inside the caller's transaction (`jobs`
    /// sorted by store): every store's row locked in one statement (in that
    /// order), the current entries of all their keys read after the locks in
    /// one, each store's commits decided, everything written in one more.
    static func apply(_ jobs: [Job], on db: PostgresConnection, logger: Logger, quota: AccountQuota?) async throws -> [CommitOutcome] {
        let stores = CommitGroup.stores(of: jobs)
        // With a quota: the accounts' rows locked first (in order; NO KEY UPDATE leaves new stores'
        // foreign-key checks free), so that two servers' commits growing one account take turns,
        // then what each account's stores hold, read under that lock.
        var usage: [String: AccountUsage] = [:]
        if quota != nil {
            let accounts = Array(Set(stores.map(\.account))).sorted()
            try await db.query("SELECT id FROM accounts WHERE id = ANY(\(accounts)::text[]) ORDER BY id FOR NO KEY UPDATE", logger: logger)
            let rows = try await db.query("""
                SELECT account, count(*) FILTER (WHERE \(unescaped: AccountQuota.countedStoreSQL)), coalesce(sum(total_bytes), 0)::bigint FROM stores
                WHERE account = ANY(\(accounts)::text[]) AND revision > 0 GROUP BY account
                """, logger: logger)
            for try await (account, n, bytes) in rows.decode((String, Int64, Int64).self) {
                usage[account] = AccountUsage(stores: Int(n), bytes: Int(bytes))
            }
        }
        // The stores' rows, created when new and locked until the transaction ends, in the group's order.
        let headRows = try await db.query("""
            INSERT INTO stores(account, store)
            SELECT a, s FROM unnest(\(stores.map(\.account))::text[], \(stores.map(\.store))::text[]) WITH ORDINALITY AS t(a, s, o)
            WHERE EXISTS (SELECT 1 FROM accounts WHERE id = a) ORDER BY o
            ON CONFLICT (account, store) DO UPDATE SET revision = stores.revision
            RETURNING account, store, revision, key_count, total_bytes, tombstones, horizon
            """, logger: logger)
        var state = GroupState(validTokens: [])
        for try await (account, store, revision, count, total, tombstones, horizon) in headRows.decode((String, String, Int64, Int32, Int32, Int32, Int64).self) {
            state.heads[CommitGroup.storeKey(account, store)] = StoreHead(revision: revision, count: Int(count), total: Int(total), tombstones: Int(tombstones), horizon: horizon)
        }
        // The commits' tokens as this transaction sees them once the stores' rows are locked
        // (a revocation committed before this point is seen; one committed later is ordered after us).
        let tokens = CommitGroup.tokens(of: jobs)
        let tokenRows = try await db.query("""
            SELECT t.account, t.hash FROM unnest(\(tokens.a)::text[], \(tokens.h.map { ByteBuffer(bytes: $0) })::bytea[]) AS q(a, h)
            JOIN tokens t ON t.hash = q.h AND t.account = q.a
            """, logger: logger)
        for try await (account, hash) in tokenRows.decode((String, ByteBuffer).self) {
            state.validTokens?.insert(CommitGroup.tokenKey(account, Array(hash.readableBytesView)))
        }
        // Read after the locks: READ COMMITTED gives this statement a snapshot that includes the last writers' commits.
        let keys = CommitGroup.keys(of: jobs, stores)
        let rows = try await db.query("""
            SELECT e.account, e.store, e.key, e.revision, e.size, e.value
            FROM unnest(\(keys.a)::text[], \(keys.s)::text[], \(keys.k)::text[]) AS q(a, s, k)
            JOIN entries e ON e.account = q.a AND e.store = q.s AND e.key = q.k
            """, logger: logger)
        for try await (account, store, key, revision, size, value) in rows.decode((String, String, String, Int64, Int32, ByteBuffer?).self) {
            state.current[CommitGroup.storeKey(account, store), default: [:]][key] = CurrentEntry(revision: revision, size: Int(size), value: value)
        }
        let decisions = try StoreDecision.decide(jobs, stores: stores, head: { store, storeKey in
            if let head = state.heads[storeKey] { return head }
            // No row: the account was deleted (its tokens with it), so each commit is answered as revoked.
            let accountGone = jobs[store.jobs].allSatisfy { job in job.tokenHash.map { state.validTokens?.contains(CommitGroup.tokenKey(job.account, $0)) == false } ?? false }
            guard accountGone else { throw BackendError(status: 500, "the row of store \(storeKey) is missing") }
            return .unwritten
        }, current: state.current, validTokens: state.validTokens, quota: quota, usage: quota == nil ? nil : usage)
        // The rows are locked: every store that writes is written.
        let written = try await write(decisions, on: db, logger: logger)
        // A new store whose commits wrote nothing (refused by a quota, or conflicts) leaves no row:
        // a refused commit keeps nothing on the server.
        let unwritten = decisions.filter { !$0.writes && $0.before.revision == 0 }
        if !unwritten.isEmpty {
            try await db.query("""
                DELETE FROM stores WHERE revision = 0 AND (account, store) IN
                    (SELECT a, s FROM unnest(\(unwritten.map(\.account))::text[], \(unwritten.map(\.store))::text[]) AS q(a, s))
                """, logger: logger)
        }
        for d in decisions where d.writes && !written.contains(d.storeKey) {
            throw BackendError(status: 500, "the store \(d.account)/\(d.store) changed while its row was locked")
        }
        for d in decisions where d.writes && d.needsPruning {
            try await prune(account: d.account, store: d.store, head: d.after, on: db, logger: logger)
        }
        return decisions.flatMap(\.outcomes)
    }

    /// Forgets a store's oldest removals beyond ``CommitDecision/keptRemovals``
    /// (inside the locked path's transaction); a client older than the new
    /// horizon gets the whole store.
    static func prune(account a: String, store s: String, head: StoreHead, on db: PostgresConnection, logger: Logger) async throws {
        // The commit log keeps the newest keptCommits rows.
        try await db.query("""
            DELETE FROM commits WHERE account = \(a) AND store = \(s) AND revision <= \(head.revision - Int64(CommitDecision.keptCommits))
            """, logger: logger)
        let cutRows = try await db.query("""
            SELECT revision FROM entries WHERE account = \(a) AND store = \(s) AND value IS NULL
            ORDER BY revision DESC LIMIT 1 OFFSET \(CommitDecision.keptRemovals)
            """, logger: logger)
        var cut: Int64? = nil
        for try await r in cutRows.decode(Int64.self) { cut = r }
        guard let cut else { return }
        try await db.query("DELETE FROM entries WHERE account = \(a) AND store = \(s) AND value IS NULL AND revision <= \(cut)", logger: logger)
        var left = 0
        for try await n in try await db.query("SELECT count(*) FROM entries WHERE account = \(a) AND store = \(s) AND value IS NULL", logger: logger).decode(Int64.self) {
            left = Int(n)
        }
        let horizon = max(head.horizon, cut)
        try await db.query("UPDATE stores SET tombstones = \(Int32(left)), horizon = \(horizon) WHERE account = \(a) AND store = \(s)", logger: logger)
    }
}
