import Logging
import NIOCore
import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PostgresNIO
import UbiquityServer

/// The sync server's data in PostgreSQL: any number of `ubiquity serve
/// --postgres` processes share one database.
///
/// - **Commits** are serialised per store by the store's row (an upsert that
///   locks it), then decided by ``CommitDecision`` exactly as on SQLite, and
///   written in one statement that also `NOTIFY`s the other servers. Like
///   the SQLite backend, commits that arrive together go to the database
///   together: each of ``writers`` tasks takes every waiting commit of its
///   share of the free stores and applies them in one transaction of five
///   statements whatever the number of stores (their rows locked in a fixed
///   order, so two servers never deadlock), one WAL flush for all.
/// - **Wake-ups**: one connection per server `LISTEN`s on `ubiquity`; a
///   notification only wakes the watchers of a store (they read the
///   database). A lost listener is re-established, then every watcher reads
///   again, so nothing said while it was away is missed.
/// - **An unreachable database** fails requests within ``deadline`` (the
///   service answers 503; clients retry with backoff); the pool reconnects
///   by itself.
package final class PostgresBackend: UbiquityBackend {
    /// The pool, and the task that runs it. Replaced by a fresh one when the
    /// database comes back after being unreachable: postgres-nio's pool backs
    /// off up to a minute between attempts, and clients must converge within
    /// a second of the database's return.
    let pool: Lock<Pool>
    struct Pool: Sendable {
        var client: PostgresClient
        var task: Task<Void, Never>
    }
    let poolSize: Int
    /// The current pool's client.
    var client: PostgresClient { pool.withLock { $0.client } }
    let location: PostgresLocation
    let logger: Logger
    /// Commits waiting, and how many writers are at work (at most ``writers``).
    let work = Lock(Work())
    struct Work {
        var jobs: [Job] = []
        var busy = 0
        /// Stores in a transaction of this server: their next commits wait and go together.
        var busyStores: Set<String> = []
    }
    let listenerTask = Lock<Task<Void, Never>?>(nil)
    /// Writers at work, answered and let go when the pool is replaced (their
    /// connections died with the database, and a query on a dead connection
    /// was seen to wait until the pool closed).
    let runs = Lock<[ObjectIdentifier: Run]>([:])
    final class Run: Sendable {
        let jobs: [Job]
        let released = Flag()
        let task = Lock<Task<Void, Never>?>(nil)
        init(_ jobs: [Job]) { self.jobs = jobs }
    }

    let closed = Lock(false)

    /// Connections of the pool (commits and reads); the listener has one more of its own.
    package static let defaultPoolSize = 12
    /// Writers at work at once, each with one connection during its group commit.
    /// Two: a group commit's statements do not grow with its stores, so a few
    /// large groups beat many small ones, each waiting for its own WAL flush
    /// (8 stores, 64 clients: 1 writer 4,889–5,215 writes/s in its best runs,
    /// 2 writers 4,082–4,783, 3 writers 3,398–3,958, 4 writers 3,377–3,500);
    /// and with one writer, a writer waiting on a connection that died with the
    /// database held up every commit of the instance (the crash test missed
    /// its recovery window twice in full test runs), so two.
    package static let writers = 2
    /// How long a request waits for the database before the server answers 503.
    package static let deadline: Duration = .seconds(5)
    /// The channel of wake-ups.
    static let channel = "ubiquity"

    struct Job: Sendable {
        var account: String
        var store: String
        var changes: [CheckedChange]
        let ticket: Ticket
        var storeKey: String { account + "/" + store }

        /// Answers the commit's request (once).
        func finish(_ result: Result<CommitOutcome, any Error>) { ticket.answer(result) }
    }

    /// A flag set once, shared between tasks.
    final class Flag: Sendable {
        let value = Lock(false)
        func set() { value.withLock { $0 = true } }
        /// Sets the flag; true for the caller that set it first.
        func setOnce() -> Bool { value.withLock { v -> Bool in defer { v = true }; return !v } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// A commit's fate: a writer claims it inside its transaction, or its
    /// deadline abandons it first (then it is never applied: the client was
    /// told 503, and a write it believes failed must not appear later).
    final class Ticket: Sendable {
        enum Phase { case waiting, claimed, answered }
        let phase = Lock(Phase.waiting)
        let continuation: CheckedContinuation<Result<CommitOutcome, any Error>, Never>
        init(_ continuation: CheckedContinuation<Result<CommitOutcome, any Error>, Never>) { self.continuation = continuation }
        /// True when the commit was still waiting: the writer may apply it.
        func claim() -> Bool { phase.withLock { p in guard p == .waiting else { return false }; p = .claimed; return true } }
        /// Answers a commit still waiting (it will not be applied); false when a writer had claimed it or it was answered.
        @discardableResult
        func abandon(_ result: Result<CommitOutcome, any Error>) -> Bool {
            let mine = phase.withLock { p -> Bool in guard p == .waiting else { return false }; p = .answered; return true }
            if mine { continuation.resume(returning: result) }
            return mine
        }
        /// Answers the commit unless it was answered already.
        func answer(_ result: Result<CommitOutcome, any Error>) {
            let mine = phase.withLock { p -> Bool in guard p != .answered else { return false }; p = .answered; return true }
            if mine { continuation.resume(returning: result) }
        }
    }

    /// Connects (creating and migrating the schema when needed).
    package static func open(_ location: PostgresLocation, poolSize: Int = defaultPoolSize) async throws -> PostgresBackend {
        var logger = Logger(label: "ubiquity.postgres")
        logger.logLevel = .critical
        let backend = PostgresBackend(pool: makePool(location, poolSize: poolSize, logger: logger), poolSize: poolSize, location: location, logger: logger)
        do {
            try await backend.withDeadline(.seconds(10)) { [client = backend.client, logger] in
                try await PostgresSchema.migrate(client, logger: logger)
            }
        } catch {
            try? await backend.close()
            throw BackendError(status: 500, "cannot use the database \(location): \(Self.describe(error))")
        }
        return backend
    }

    static func makePool(_ location: PostgresLocation, poolSize: Int, logger: Logger) -> Pool {
        let client = PostgresClient(configuration: location.clientConfiguration(maximumConnections: poolSize), backgroundLogger: logger)
        return Pool(client: client, task: Task { await client.run() })
    }

    /// A new pool for what follows; the old one is closed at once, so that
    /// requests waiting on it for a connection fail now (when the database is
    /// found down) or go to the new pool (when it is back: the old pool's
    /// connections died with it, and its backoff would delay recovery).
    func renewPool() {
        let old = pool.withLock { p -> Pool in
            defer { p = Self.makePool(location, poolSize: poolSize, logger: logger) }
            return p
        }
        old.task.cancel()
        for run in runs.withLock({ Array($0.values) }) {
            for job in run.jobs {
                job.finish(.failure(BackendError(status: 503, "the connection to the database was lost; the commit may not have been applied")))
            }
            release(run)
            run.task.withLock { $0 }?.cancel()
        }
    }

    /// A writer's commits are answered: its stores and its place are free again (once).
    func release(_ run: Run) {
        guard run.released.setOnce() else { return }
        _ = runs.withLock { $0.removeValue(forKey: ObjectIdentifier(run)) }
        work.withLock { w in
            w.busy -= 1
            for job in run.jobs { w.busyStores.remove(job.storeKey) }
        }
        dispatch()
    }

    private init(pool: Pool, poolSize: Int, location: PostgresLocation, logger: Logger) {
        self.pool = Lock(pool)
        self.poolSize = poolSize
        self.location = location
        self.logger = logger
    }

    /// Starts writers for the waiting commits while fewer than ``writers`` are at work.
    /// A writer takes every commit waiting for its share of the stores no other
    /// writer of this server holds (the free stores spread over the idle
    /// writers), so a store has at most one transaction here at a time, the
    /// commits that arrive meanwhile go to the database together, and
    /// different stores' groups run on different connections at once (each
    /// store costs its group three statements, one after another).
    func dispatch() {
        while true {
            let jobs = work.withLock { w -> [Job]? in
                guard w.busy < Self.writers, !w.jobs.isEmpty else { return nil }
                var freeStores: [String] = []
                var seen: Set<String> = []
                for job in w.jobs where !w.busyStores.contains(job.storeKey) {
                    if seen.insert(job.storeKey).inserted { freeStores.append(job.storeKey) }
                }
                guard !freeStores.isEmpty else { return nil }
                let idle = Self.writers - w.busy
                let share = Set(freeStores.prefix((freeStores.count + idle - 1) / idle))
                var taken: [Job] = [], waiting: [Job] = []
                for job in w.jobs {
                    if share.contains(job.storeKey) { taken.append(job) } else { waiting.append(job) }
                }
                w.busyStores.formUnion(share)
                w.jobs = waiting
                w.busy += 1
                return taken
            }
            guard let jobs else { return }
            let run = Run(jobs)
            runs.withLock { $0[ObjectIdentifier(run)] = run }
            let task = Task { [client, logger] in
                await Self.run(jobs, client: client, logger: logger)
                self.release(run)
            }
            run.task.withLock { $0 = task }
        }
    }

    package func close() async throws {
        guard closed.withLock({ c -> Bool in defer { c = true }; return !c }) else { return }
        // Commits under way finish first.
        while work.withLock({ $0.busy > 0 || !$0.jobs.isEmpty }) { try? await Task.sleep(for: .milliseconds(10)) }
        listenerTask.withLock { $0 }?.cancel()
        pool.withLock { $0 }.task.cancel()
    }

    // MARK: Deadlines

    /// Whether the listener's last attempt to connect failed: the database is
    /// down, and requests fail after ``deadlineWhileDown`` rather than ``deadline``.
    let reachable = Lock(true)
    /// How long a request waits while the database is known to be down.
    package static let deadlineWhileDown: Duration = .milliseconds(300)

    /// How long a request may wait for the database now.
    var currentDeadline: Duration { reachable.withLock { $0 } ? Self.deadline : Self.deadlineWhileDown }

    /// Runs `body`, failing with a 503 after `limit` (the work itself is then
    /// abandoned to finish or fail on its own: a query in flight cannot be
    /// recalled).
    @discardableResult
    func withDeadline<T: Sendable>(_ given: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = given ?? currentDeadline
        let once = Once<Result<T, any Error>>()
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            once.set { c.resume(with: $0) }
            let work = Task {
                do { once.finish(.success(try await body())) } catch { once.finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.finish(.failure(BackendError(status: 503, "the database is unavailable: no answer within \(limit)"))) { work.cancel() }
            }
        }
    }

    /// Resumes a continuation once, from whichever side finishes first.
    final class Once<Value: Sendable>: Sendable {
        struct State {
            var resume: (@Sendable (Value) -> Void)?
            var done = false
        }
        let state = Lock(State())
        func set(_ resume: @escaping @Sendable (Value) -> Void) { state.withLock { $0.resume = resume } }
        @discardableResult
        func finish(_ value: Value) -> Bool {
            let r = state.withLock { s -> (@Sendable (Value) -> Void)? in
                guard !s.done else { return nil }
                s.done = true
                return s.resume
            }
            r?(value)
            return r != nil
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] { return message }
            return "\(e.code)"
        }
        return "\(error)"
    }

    static func unavailable(_ error: any Error) -> BackendError {
        if let e = error as? BackendError { return e }
        return BackendError(status: 503, "the database is unavailable: \(describe(error))")
    }

    // MARK: Accounts

    package func createAccount(name: String, tokenHash: [UInt8]) async throws -> UbiquityAccountInfo {
        let id = randomHex(bytes: 12)
        let hash = ByteBuffer(bytes: tokenHash)
        do {
            try await withDeadline { [client, logger] in
                try await client.query("INSERT INTO accounts(id, name, token_hash) VALUES (\(id), \(name), \(hash))", logger: logger)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw BackendError(status: 409, "an account named \"\(name)\" exists already")
        } catch {
            throw Self.unavailable(error)
        }
        return UbiquityAccountInfo(name: name, id: id)
    }

    package func account(tokenHash: [UInt8]) async throws -> UbiquityAccountInfo? {
        let hash = ByteBuffer(bytes: tokenHash)
        do {
            return try await withDeadline { [client, logger] in
                let rows = try await client.query("SELECT id, name FROM accounts WHERE token_hash = \(hash)", logger: logger)
                for try await (id, name) in rows.decode((String, String).self) { return UbiquityAccountInfo(name: name, id: id) }
                return nil
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    // MARK: Reading

    package func changes(account: String, store: String, after: Int64) async throws -> UbiquityChangesResponse {
        do {
            return try await withDeadline { [client, logger] in
                // One statement: one snapshot for the head and the entries. A client
                // older than the horizon (or ahead of the store) gets the whole store.
                let rows = try await client.query("""
                    SELECT s.revision, s.horizon, e.key, e.revision, e.value
                    FROM stores s LEFT JOIN LATERAL (
                        SELECT key, revision, value FROM entries
                        WHERE account = s.account AND store = s.store AND revision > \(after)
                          AND NOT (\(after) < s.horizon OR \(after) > s.revision)
                        UNION ALL
                        SELECT key, revision, value FROM entries
                        WHERE account = s.account AND store = s.store AND value IS NOT NULL
                          AND (\(after) < s.horizon OR \(after) > s.revision)
                    ) e ON true
                    WHERE s.account = \(account) AND s.store = \(store)
                    """, logger: logger)
                var revision: Int64? = nil
                var horizon: Int64 = 0
                var entries: [UbiquityWireEntry] = []
                for try await (head, h, key, rev, value) in rows.decode((Int64, Int64, String?, Int64?, ByteBuffer?).self) {
                    revision = head
                    horizon = h
                    if let key, let rev {
                        entries.append(UbiquityWireEntry(key: key, revision: rev, value: value.map { Base64.encode($0.readableBytesView) }))
                    }
                }
                guard let revision else { return UbiquityChangesResponse(revision: 0, complete: after > 0, entries: []) }
                entries.sort { $0.revision < $1.revision }
                return UbiquityChangesResponse(revision: revision, complete: after < horizon || after > revision, entries: entries)
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    // MARK: Committing

    package func commit(account: String, store: String, changes: [CheckedChange]) async throws -> CommitOutcome {
        if closed.withLock({ $0 }) { throw BackendError(status: 503, "the server is stopping") }
        let limit = currentDeadline
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<CommitOutcome, any Error>, Never>) in
            let ticket = Ticket(c)
            self.work.withLock { $0.jobs.append(Job(account: account, store: store, changes: changes, ticket: ticket)) }
            self.dispatch()
            Task {
                try? await Task.sleep(for: limit)
                ticket.abandon(.failure(BackendError(status: 503, "the database is unavailable: no answer within \(limit); the commit was not applied")))
            }
        }
        return try result.get()
    }

    /// One group commit on one connection; when a group fails, its commits are tried alone.
    static func run(_ jobs: [Job], client: PostgresClient, logger: Logger) async {
        // A fixed order of stores: two servers' groups lock rows in the same order (no deadlock).
        let ordered = jobs.enumerated().sorted { a, b in
            (a.element.account, a.element.store, a.offset) < (b.element.account, b.element.store, b.offset)
        }.map(\.element)
        // A writer that gets no connection before its commits' deadline gives up
        // with them (the pool may be waiting out a backoff): the lease is cancelled.
        let began = Flag()
        let work = Task {
            try await client.withConnection { db in
                try await db.query("BEGIN", logger: logger)
                began.set()
                // From here on the writer answers every claimed commit itself.
                let claimed = ordered.filter { $0.ticket.claim() }
                do {
                    let outcomes = try await apply(claimed, on: db, logger: logger)
                    try await db.query("COMMIT", logger: logger)
                    for (job, outcome) in zip(claimed, outcomes) { job.finish(.success(outcome)) }
                } catch {
                    _ = try? await db.query("ROLLBACK", logger: logger)
                    if claimed.count == 1 {
                        claimed[0].finish(.failure(unavailable(error)))
                    } else {
                        for job in claimed { await alone(job, on: db, logger: logger) }
                    }
                }
            }
        }
        let watchdog = Task {
            try? await Task.sleep(for: deadline)
            if !began.isSet { work.cancel() }
        }
        defer { watchdog.cancel() }
        do {
            try await work.value
        } catch {
            // No connection, or BEGIN failed: commits not yet answered fail now (none was applied).
            for job in ordered { job.ticket.abandon(.failure(unavailable(error))) }
        }
    }

    /// One claimed commit in a transaction of its own (after its group failed).
    static func alone(_ job: Job, on db: PostgresConnection, logger: Logger) async {
        do {
            try await db.query("BEGIN", logger: logger)
            do {
                let outcome = try await apply([job], on: db, logger: logger)
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

    /// Applies commits, in order, inside the group's transaction (`jobs` sorted
    /// by store): every store's row locked in one statement (in that order),
    /// the current entries of all their keys read in one, each commit decided
    /// on top of the one before it in its store (each its own revision), and
    /// everything written in one more — three statements for the group, not
    /// three per store.
    static func apply(_ jobs: [Job], on db: PostgresConnection, logger: Logger) async throws -> [CommitOutcome] {
        // The stores, in the jobs' order, each with its jobs.
        var stores: [(account: String, store: String, jobs: Range<Int>)] = []
        var start = 0
        while start < jobs.count {
            var end = start + 1
            while end < jobs.count, jobs[end].storeKey == jobs[start].storeKey { end += 1 }
            stores.append((jobs[start].account, jobs[start].store, start..<end))
            start = end
        }
        // The stores' rows, created when new and locked until the transaction ends, in the group's order.
        let headRows = try await db.query("""
            INSERT INTO stores(account, store)
            SELECT a, s FROM unnest(\(stores.map(\.account))::text[], \(stores.map(\.store))::text[]) WITH ORDINALITY AS t(a, s, o) ORDER BY o
            ON CONFLICT (account, store) DO UPDATE SET revision = stores.revision
            RETURNING account, store, revision, key_count, total_bytes, tombstones, horizon
            """, logger: logger)
        var heads: [String: StoreHead] = [:]
        for try await (account, store, revision, count, total, tombstones, horizon) in headRows.decode((String, String, Int64, Int32, Int32, Int32, Int64).self) {
            heads[account + "/" + store] = StoreHead(revision: revision, count: Int(count), total: Int(total), tombstones: Int(tombstones), horizon: horizon)
        }
        // Read after the locks: READ COMMITTED gives this statement a snapshot that includes the last writers' commits.
        var qa: [String] = [], qs: [String] = [], qk: [String] = []
        for store in stores {
            for key in Set(jobs[store.jobs].flatMap { $0.changes.map(\.key) }) {
                qa.append(store.account)
                qs.append(store.store)
                qk.append(key)
            }
        }
        var current: [String: [String: CurrentEntry]] = [:]
        let rows = try await db.query("""
            SELECT e.account, e.store, e.key, e.revision, e.size, e.value
            FROM unnest(\(qa)::text[], \(qs)::text[], \(qk)::text[]) AS q(a, s, k)
            JOIN entries e ON e.account = q.a AND e.store = q.s AND e.key = q.k
            """, logger: logger)
        for try await (account, store, key, revision, size, value) in rows.decode((String, String, String, Int64, Int32, ByteBuffer?).self) {
            current[account + "/" + store, default: [:]][key] = CurrentEntry(revision: revision, size: Int(size), value: value)
        }
        // Each store's commits decided in order; what they write gathered for one statement.
        var outcomes: [CommitOutcome] = []
        var entries = (a: [String](), s: [String](), k: [String](), r: [Int64](), v: [ByteBuffer](), d: [Bool](), z: [Int32]())
        var headsOut = (a: [String](), s: [String](), r: [Int64](), c: [Int32](), t: [Int32](), tb: [Int32]())
        var logs = (a: [String](), s: [String](), r: [Int64](), n: [Int32]())
        var hints: [String] = []
        var pruning: [(account: String, store: String, head: StoreHead)] = []
        for store in stores {
            let a = store.account, s = store.store, storeKey = a + "/" + s
            guard var head = heads[storeKey] else { throw BackendError(status: 500, "the row of store \(storeKey) is missing") }
            var here = current[storeKey] ?? [:]
            var written: [String: (revision: Int64, bytes: [UInt8]?, size: Int)] = [:]
            var logged = false
            for job in jobs[store.jobs] {
                let decision = CommitDecision(changes: job.changes, head: head, current: here)
                outcomes.append(decision.outcome(for: job.changes, head: head, current: here))
                guard decision.writes else { continue }
                head = decision.next
                for change in decision.applied {
                    here[change.key] = CurrentEntry(revision: head.revision, size: change.size, value: change.bytes.map { ByteBuffer(bytes: $0) })
                    written[change.key] = (head.revision, change.bytes, change.size)
                }
                logs.a.append(a); logs.s.append(s); logs.r.append(head.revision); logs.n.append(Int32(decision.applied.count))
                logged = true
            }
            guard logged else { continue }
            for (key, w) in written {
                entries.a.append(a); entries.s.append(s); entries.k.append(key); entries.r.append(w.revision)
                entries.v.append(ByteBuffer(bytes: w.bytes ?? [])); entries.d.append(w.bytes == nil); entries.z.append(Int32(w.size))
            }
            headsOut.a.append(a); headsOut.s.append(s); headsOut.r.append(head.revision)
            headsOut.c.append(Int32(head.count)); headsOut.t.append(Int32(head.total)); headsOut.tb.append(Int32(head.tombstones))
            hints.append("\(a) \(s) \(head.revision)")
            if head.tombstones > CommitDecision.keptRemovals + CommitDecision.pruneSlack { pruning.append((a, s, head)) }
        }
        guard !hints.isEmpty else { return outcomes }
        // Entries, the stores' heads, the commits' records and the wake-ups in one statement.
        try await db.query("""
            WITH written AS (
                INSERT INTO entries(account, store, key, revision, value, size)
                SELECT a, s, k, r, CASE WHEN d THEN NULL ELSE v END, z
                FROM unnest(\(entries.a)::text[], \(entries.s)::text[], \(entries.k)::text[], \(entries.r)::bigint[],
                            \(entries.v)::bytea[], \(entries.d)::bool[], \(entries.z)::int[]) AS t(a, s, k, r, v, d, z)
                ON CONFLICT (account, store, key) DO UPDATE SET revision = excluded.revision, value = excluded.value, size = excluded.size
                RETURNING 1
            ), head AS (
                UPDATE stores SET revision = h.r, key_count = h.c, total_bytes = h.t, tombstones = h.tb
                FROM unnest(\(headsOut.a)::text[], \(headsOut.s)::text[], \(headsOut.r)::bigint[], \(headsOut.c)::int[],
                            \(headsOut.t)::int[], \(headsOut.tb)::int[]) AS h(a, s, r, c, t, tb)
                WHERE stores.account = h.a AND stores.store = h.s RETURNING 1
            ), logged AS (
                INSERT INTO commits(account, store, revision, keys)
                SELECT a, s, r, n FROM unnest(\(logs.a)::text[], \(logs.s)::text[], \(logs.r)::bigint[], \(logs.n)::int[]) AS l(a, s, r, n)
                RETURNING 1
            )
            SELECT (SELECT array_agg(pg_notify(\(channel), h)::text) FROM unnest(\(hints)::text[]) AS n(h)),
                (SELECT count(*) FROM written), (SELECT count(*) FROM head), (SELECT count(*) FROM logged)
            """, logger: logger)
        // Old removals are forgotten where a store keeps too many; a client older than the horizon gets the whole store.
        for (a, s, head) in pruning {
            let cutRows = try await db.query("""
                SELECT revision FROM entries WHERE account = \(a) AND store = \(s) AND value IS NULL
                ORDER BY revision DESC LIMIT 1 OFFSET \(CommitDecision.keptRemovals)
                """, logger: logger)
            var cut: Int64? = nil
            for try await r in cutRows.decode(Int64.self) { cut = r }
            if let cut {
                try await db.query("DELETE FROM entries WHERE account = \(a) AND store = \(s) AND value IS NULL AND revision <= \(cut)", logger: logger)
                var left = 0
                for try await n in try await db.query("SELECT count(*) FROM entries WHERE account = \(a) AND store = \(s) AND value IS NULL", logger: logger).decode(Int64.self) {
                    left = Int(n)
                }
                let horizon = max(head.horizon, cut)
                try await db.query("UPDATE stores SET tombstones = \(Int32(left)), horizon = \(horizon) WHERE account = \(a) AND store = \(s)", logger: logger)
            }
        }
        return outcomes
    }

    // MARK: Wake-ups

    package func deliverWakeups(to handler: @escaping @Sendable (Wakeup) -> Void) {
        let location = self.location, logger = self.logger
        let task = Task { [self] in
            var delay = Duration.milliseconds(50)
            var id = 1
            while !Task.isCancelled {
                do {
                    let configuration = try location.connectionConfiguration()
                    let connection: PostgresConnection
                    do {
                        connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
                    } catch {
                        // Just found down: a fresh pool fails what waits on the old one now (503s at once, not after the deadline).
                        if self.reachable.withLock({ r -> Bool in defer { r = false }; return r }) { self.renewPool() }
                        throw error
                    }
                    // Back after being unreachable: a fresh pool, without the old one's backoff.
                    if self.reachable.withLock({ r -> Bool in defer { r = true }; return !r }) { self.renewPool() }
                    id += 1
                    do {
                        try await connection.listen(on: Self.channel) { notifications in
                            // Listening again: whatever was said while no one listened is read now.
                            handler(.everything)
                            delay = .milliseconds(50)
                            for try await notification in notifications {
                                handler(Self.wakeup(notification.payload))
                            }
                        }
                    } catch {}
                    try? await connection.close()
                } catch {}
                if Task.isCancelled { break }
                handler(.everything)
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .milliseconds(400))
            }
        }
        listenerTask.withLock { $0 = task }
    }

    /// A notification's payload read as a hint; anything unexpected wakes every store.
    static func wakeup(_ payload: String) -> Wakeup {
        let parts = payload.split(separator: " ")
        guard parts.count == 3, let revision = Int64(parts[2]), revision > 0,
              UbiquitousKeyValueStore.isValidStoreIdentifier(String(parts[1]))
        else { return .everything }
        return .store(account: String(parts[0]), store: String(parts[1]), revision: revision)
    }

    // MARK: Checking

    package func check() async throws -> [String] {
        try await withDeadline(.seconds(600)) { [client, logger] in
            var problems: [String] = []
            let rows = try await client.query("""
                SELECT s.account, s.store, s.revision, s.key_count, s.total_bytes,
                    (SELECT count(*) FROM commits c WHERE c.account = s.account AND c.store = s.store),
                    (SELECT coalesce(min(revision), 0) FROM commits c WHERE c.account = s.account AND c.store = s.store),
                    (SELECT coalesce(max(revision), 0) FROM commits c WHERE c.account = s.account AND c.store = s.store),
                    (SELECT count(*) FROM entries e WHERE e.account = s.account AND e.store = s.store AND e.value IS NOT NULL),
                    (SELECT coalesce(sum(size), 0) FROM entries e WHERE e.account = s.account AND e.store = s.store AND e.value IS NOT NULL),
                    (SELECT coalesce(max(revision), 0) FROM entries e WHERE e.account = s.account AND e.store = s.store)
                FROM stores s
                """, logger: logger)
            for try await (a, s, revision, keyCount, totalBytes, n, lo, hi, live, bytes, top) in rows.decode(
                (String, String, Int64, Int32, Int32, Int64, Int64, Int64, Int64, Int64, Int64).self) {
                if n != revision || (n > 0 && (lo != 1 || hi != revision)) {
                    problems.append("\(a)/\(s): revision \(revision) but \(n) commits from \(lo) to \(hi)")
                }
                if live != Int64(keyCount) || bytes != Int64(totalBytes) {
                    problems.append("\(a)/\(s): recorded \(keyCount) keys / \(totalBytes) bytes, found \(live) / \(bytes)")
                }
                if top > revision { problems.append("\(a)/\(s): an entry at revision \(top) beyond the store's \(revision)") }
            }
            return problems
        }
    }
}
