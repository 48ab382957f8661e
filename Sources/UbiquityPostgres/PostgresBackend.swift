import Logging
import NIOCore
import NIOPosix
package import UbiquityProtocol
import PropertyList
import PlatformIO
import SharedTables
import PostgresNIO
package import UbiquityBackend
import CoreMetrics
import Synchronization

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
    let poolSize: Int
    /// What an account may hold across its stores (nil: no quota).
    let quota: AccountQuota?
    /// The current pool's client.
    var client: PostgresClient { pool.withLock { $0.client } }
    let location: PostgresLocation
    /// Which of ``PostgresLocation/endpoints`` is the primary the pool uses now.
    let current = Lock<Int>(0)
    let logger: Logger
    /// Commits waiting, and the writers at work (at most ``writers``).
    let work = Lock(Work())
    let listenerTask = Lock<Task<Void, Never>?>(nil)

    let closed = Lock(false)
    /// What this server knows of the stores it committed to (a group so known is not read first).
    let kept = KeptStores()

    /// Connections of the pool (commits and reads); the listener has one more of its own.
    package static let defaultPoolSize = 12
    /// Writers at work at once, each with one connection while it has groups to commit.
    /// One normally: a group's statements do not grow with its stores, so one
    /// large group beats several small ones, each with its own statements and
    /// WAL flush (8 stores, 64 clients, session 12: one writer 5,317–7,206
    /// writes/s, two at once 5,355–6,035 with PostgreSQL's CPU per write
    /// 70–94 µs against 119–131). A second one starts only when the first has
    /// been at work for ``slowGroup`` (a writer waiting on a connection that
    /// died with the database must not hold up every other store's commits).
    package static let writers = 2
    /// How long a group may take before a second writer takes the other stores' commits.
    package static let slowGroup: Duration = .milliseconds(100)
    /// How long a request waits for the database before the server answers 503.
    package static let deadline: Duration = .seconds(5)
    /// The channel of wake-ups.
    static let channel = "ubiquity"

    /// Connects (creating and migrating the schema when needed).
    package static func open(_ location: PostgresLocation, poolSize: Int = defaultPoolSize, quota: AccountQuota? = nil) async throws -> PostgresBackend {
        var logger = Logger(label: "ubiquity.postgres")
        logger.logLevel = .critical
        // Among several servers, the primary (the others are standbys in recovery, read-only).
        var primary = 0
        if location.endpoints.count > 1 {
            do {
                let (connection, index) = try await connectPrimary(location, preferred: 0, id: 0, on: databaseLoop, logger: logger)
                try? await connection.close()
                primary = index
            } catch {
                throw BackendError(status: 500, "cannot use the database \(location): \(Self.describe(error))")
            }
        }
        let backend = PostgresBackend(pool: makePool(location.pointing(at: primary), poolSize: poolSize, logger: logger), poolSize: poolSize,
                                      location: location, logger: logger, quota: quota)
        backend.current.withLock { $0 = primary }
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

    /// The pool's thread, and the writers' executor on it.
    static let databaseLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
    static let databaseExecutor = EventLoopTaskExecutor(databaseLoop)

    static func makePool(_ location: PostgresLocation, poolSize: Int, logger: Logger) -> Pool {
        let client = PostgresClient(configuration: location.clientConfiguration(maximumConnections: poolSize),
                                    eventLoopGroup: databaseLoop, backgroundLogger: logger)
        return Pool(client: client, task: Task { await client.run() })
    }

    /// A connection to the primary among the location's servers, trying `preferred` first; with
    /// one server, that server. A standby (`pg_is_in_recovery()`) is passed over; when no
    /// server answers as a primary, the last error (or "no primary") is thrown. The connection
    /// runs on `loop`.
    static func connectPrimary(_ location: PostgresLocation, preferred: Int, id: Int, on loop: any EventLoop,
                               logger: Logger) async throws -> (PostgresConnection, Int) {
        let count = location.endpoints.count
        var lastError: (any Error)? = nil
        for step in 0..<count {
            let index = (preferred + step) % count
            do {
                let connection = try await PostgresConnection.connect(
                    on: loop, configuration: try location.pointing(at: index).connectionConfiguration(), id: id, logger: logger)
                if count == 1 { return (connection, index) }
                var inRecovery = true
                do {
                    for try await recovering in try await connection.query("SELECT pg_is_in_recovery()", logger: logger).decode(Bool.self) {
                        inRecovery = recovering
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                if !inRecovery { return (connection, index) }
                try? await connection.close()
                lastError = BackendError(status: 503, "no primary among the \(count) servers (\(location.pointing(at: index).endpointDescription) is a standby)")
            } catch {
                lastError = error
            }
        }
        throw lastError ?? BackendError(status: 503, "no primary among the \(count) servers")
    }

    /// A new pool for what follows; the old one is closed at once, so that
    /// requests waiting on it for a connection fail now (when the database is
    /// found down) or go to the new pool (when it is back: the old pool's
    /// connections died with it, and its backoff would delay recovery).
    func renewPool() {
        let old = pool.withLock { p -> Pool in
            defer { p = Self.makePool(location.pointing(at: current.withLock { $0 }), poolSize: poolSize, logger: logger) }
            return p
        }
        old.task.cancel()
        for run in work.withLock({ Array($0.runs.values) }) {
            for job in run.jobs {
                job.finish(.failure(BackendError(status: 503, "the connection to the database was lost; the commit may not have been applied")))
            }
            release(run)
            run.task.withLock { $0 }?.cancel()
        }
    }

    /// A writer's commits are answered: its stores and its place are free again (once).
    func release(_ run: Run) {
        let mine = work.withLock { w -> Bool in
            defer { w._checkInvariantsAfterChange() }
            return w.letGo(run)
        }
        if mine { dispatch() }
    }

    private init(pool: Pool, poolSize: Int, location: PostgresLocation, logger: Logger, quota: AccountQuota?) {
        self.quota = quota
        self.pool = Lock(pool)
        self.poolSize = poolSize
        self.location = location
        self.logger = logger
    }

    /// Starts a writer for the waiting commits when none is at work (or the
    /// one at work is slow: ``slowGroup``). A writer takes every commit
    /// waiting for a store no other writer of this server holds, so a store
    /// has at most one transaction here at a time, the commits that arrive
    /// meanwhile go to the database together, and a group is as large as it
    /// can be (its statements do not grow with its stores). A writer keeps its
    /// task and its connection for the next group while commits wait
    /// (``next(after:)``).
    func dispatch() {
        while true {
            let now = ContinuousClock.now
            let run = work.withLock { w -> Run? in
                guard w.runs.values.allSatisfy({ now - $0.started >= Self.slowGroup }) else { return nil }
                defer { w._checkInvariantsAfterChange() }
                return w.take(now: now, task: TaskSlot())
            }
            guard let run else { return }
            let task = Task(executorPreference: Self.databaseExecutor) { [client, logger, quota, kept] in
                if let held = await Self.run(run, client: client, logger: logger, quota: quota, kept: kept, next: { self.next(after: $0) }) {
                    self.release(held)
                } else {
                    // Its last group was let go by `next(after:)`: commits that came since start a writer.
                    self.dispatch()
                }
            }
            run.task.withLock { $0 = task }
        }
    }

    /// Lets a writer's answered group go and gives it the next one, on the same task and
    /// connection: the commits waiting for stores no other writer holds. Nil (the group let
    /// go all the same) when none wait, when the writer's task was cancelled (the pool was
    /// renewed, or the sweeper gave up on it), or when the group was let go already
    /// (``renewPool()``).
    ///
    /// A new task and a connection from the pool for each group cost about an eighth of a
    /// group's time (8 stores, 64 writers: 130 µs to lease, 220 µs from one group's end to
    /// the next one's start, in a cycle of 2.7 ms).
    func next(after run: Run) -> Run? {
        let cancelled = Task.isCancelled
        let now = ContinuousClock.now
        return work.withLock { w -> Run? in
            defer { w._checkInvariantsAfterChange() }
            guard w.letGo(run), !cancelled else { return nil }
            return w.take(now: now, task: run.task)
        }
    }

    package func close() async throws {
        guard closed.withLock({ c -> Bool in defer { c = true }; return !c }) else { return }
        // Commits under way finish first.
        while work.withLock({ !$0.runs.isEmpty || !$0.jobs.isEmpty }) { try? await Task.sleep(for: .milliseconds(10)) }
        listenerTask.withLock { $0 }?.cancel()
        pool.withLock { $0 }.task.cancel()
    }

    // MARK: Deadlines

    /// Whether the listener's last attempt to connect failed: the database is
    /// down, and requests fail after ``deadlineWhileDown`` rather than ``deadline``.
    let reachable = Lock(true)
    /// Whether the listener is listening now (``hearsOtherServers``).
    let listening = Lock(false)
    package var hearsOtherServers: Bool { listening.withLock { $0 } }
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
                DatabaseMetrics.operations.increment()
                defer { DatabaseMetrics.operations.decrement() }
                do { once.finish(.success(try await body())) } catch { once.finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.finish(.failure(BackendError(status: 503, "the database is unavailable: no answer within \(limit)"))) { work.cancel() }
            }
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

    package func createAccount(name: String, tokenName: String, tokenHash: [UInt8]) async throws -> UbiquityAccountInfo {
        let id = randomHex(bytes: 12)
        try await transaction { db, logger in
            do {
                try await db.query("INSERT INTO accounts(id, name) VALUES (\(id), \(name))", logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw BackendError(status: 409, "an account named \"\(name)\" exists already")
            }
            try await Self.insertToken(db, logger: logger, accountID: id, tokenName: tokenName, tokenHash: tokenHash)
        }
        return UbiquityAccountInfo(name: name, id: id)
    }

    package func account(tokenHash: [UInt8]) async throws -> UbiquityAccountInfo? {
        let hash = ByteBuffer(bytes: tokenHash)
        do {
            return try await withDeadline { [client, logger] in
                let rows = try await client.query("SELECT a.id, a.name, t.name FROM tokens t JOIN accounts a ON a.id = t.account WHERE t.hash = \(hash)", logger: logger)
                for try await (id, name, token) in rows.decode((String, String, String).self) { return UbiquityAccountInfo(name: name, id: id, token: token) }
                return nil
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    // MARK: Tokens

    /// Runs `body` in one transaction; a ``BackendError`` it throws comes out as it is.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        do {
            return try await withDeadline { [client, logger] in
                let asked = ContinuousClock.now
                return try await client.withTransaction(logger: logger) { db in
                    DatabaseMetrics.waited(since: asked)
                    return try await body(db, logger)
                }
            }
        } catch let error as PostgresTransactionError {
            throw Self.unavailable(error.closureError ?? error.rollbackError ?? error)
        } catch {
            throw Self.unavailable(error)
        }
    }

    static func insertToken(_ db: PostgresConnection, logger: Logger, accountID: String, tokenName: String, tokenHash: [UInt8]) async throws {
        let hash = ByteBuffer(bytes: tokenHash)
        let inserted = try await db.query("""
            INSERT INTO tokens(hash, account, name) VALUES (\(hash), \(accountID), \(tokenName))
            ON CONFLICT DO NOTHING RETURNING name
            """, logger: logger).collect()
        guard !inserted.isEmpty else {
            throw BackendError(status: 409, "the account has a token named \"\(tokenName)\" already (rotate it, or revoke it first)")
        }
    }

    static func accountID(_ db: PostgresConnection, logger: Logger, name: String) async throws -> String {
        for try await id in try await db.query("SELECT id FROM accounts WHERE name = \(name)", logger: logger).decode(String.self) { return id }
        throw BackendError(status: 404, "no account named \"\(name)\"")
    }

    /// Moves the token generation and tells every server at once (delivered when the transaction commits).
    static func bumpTokenGeneration(_ db: PostgresConnection, logger: Logger) async throws {
        try await db.query("UPDATE ubiquity_settings SET value = value + 1 WHERE name = 'token_generation'", logger: logger)
        try await db.query("SELECT pg_notify(\(channel), 'tokens')", logger: logger)
    }

    /// Token changes arrive as notifications; the generation is read every 5 s only in case one was lost
    /// (reading it every 250 ms from every server cost the database a connection's work each time).
    package var tokenCheckInterval: Duration { .seconds(5) }

    package func addToken(account name: String, tokenName: String, tokenHash: [UInt8]) async throws {
        try await transaction { db, logger in
            let id = try await Self.accountID(db, logger: logger, name: name)
            try await Self.insertToken(db, logger: logger, accountID: id, tokenName: tokenName, tokenHash: tokenHash)
        }
    }

    package func replaceToken(account name: String, tokenName: String, tokenHash: [UInt8]) async throws {
        try await transaction { db, logger in
            let id = try await Self.accountID(db, logger: logger, name: name)
            let removed = try await db.query("DELETE FROM tokens WHERE account = \(id) AND name = \(tokenName) RETURNING name", logger: logger).collect()
            guard !removed.isEmpty else { throw BackendError(status: 404, "the account \"\(name)\" has no token named \"\(tokenName)\"") }
            try await Self.insertToken(db, logger: logger, accountID: id, tokenName: tokenName, tokenHash: tokenHash)
            try await Self.bumpTokenGeneration(db, logger: logger)
        }
    }

    package func revokeTokens(account name: String, tokenName: String?) async throws -> Int {
        try await transaction { db, logger in
            let id = try await Self.accountID(db, logger: logger, name: name)
            let removed = if let tokenName {
                try await db.query("DELETE FROM tokens WHERE account = \(id) AND name = \(tokenName) RETURNING name", logger: logger).collect()
            } else {
                try await db.query("DELETE FROM tokens WHERE account = \(id) RETURNING name", logger: logger).collect()
            }
            guard !removed.isEmpty else {
                throw BackendError(status: 404, tokenName.map { "the account \"\(name)\" has no token named \"\($0)\"" } ?? "the account \"\(name)\" has no tokens")
            }
            try await Self.bumpTokenGeneration(db, logger: logger)
            return removed.count
        }
    }

    package func tokens(account name: String) async throws -> [TokenSummary] {
        try await transaction { db, logger in
            let id = try await Self.accountID(db, logger: logger, name: name)
            var result: [TokenSummary] = []
            let rows = try await db.query("""
                SELECT name, extract(epoch FROM created)::bigint, extract(epoch FROM last_used)::bigint
                FROM tokens WHERE account = \(id) ORDER BY name
                """, logger: logger)
            for try await (tokenName, created, lastUsed) in rows.decode((String, Int64, Int64?).self) {
                result.append(TokenSummary(name: tokenName, created: created, lastUsed: lastUsed))
            }
            return result
        }
    }

    package func accounts() async throws -> [AccountSummary] {
        try await transaction { db, logger in
            var result: [AccountSummary] = []
            let rows = try await db.query("""
                SELECT a.id, a.name,
                    (SELECT count(*) FROM tokens t WHERE t.account = a.id),
                    (SELECT count(*) FROM stores s WHERE s.account = a.id),
                    (SELECT coalesce(sum(total_bytes), 0) FROM stores s WHERE s.account = a.id)::bigint
                FROM accounts a ORDER BY a.name
                """, logger: logger)
            for try await (id, name, tokens, stores, bytes) in rows.decode((String, String, Int64, Int64, Int64).self) {
                result.append(AccountSummary(name: name, id: id, tokens: Int(tokens), stores: Int(stores), bytes: Int(bytes)))
            }
            return result
        }
    }

    package func deleteAccount(name: String) async throws {
        try await transaction { db, logger in
            // The account's row first, as a commit checking the quota locks it, then its stores' rows.
            var found: String? = nil
            for try await id in try await db.query("SELECT id FROM accounts WHERE name = \(name) FOR UPDATE", logger: logger).decode(String.self) { found = id }
            guard let id = found else { throw BackendError(status: 404, "no account named \"\(name)\"") }
            // Every store's row locked next (in one order), as commits lock them.
            try await db.query("SELECT 1 FROM stores WHERE account = \(id) ORDER BY store FOR UPDATE", logger: logger)
            try await db.query("DELETE FROM entries WHERE account = \(id)", logger: logger)
            try await db.query("DELETE FROM commits WHERE account = \(id)", logger: logger)
            try await db.query("DELETE FROM stores WHERE account = \(id)", logger: logger)
            try await db.query("DELETE FROM tokens WHERE account = \(id)", logger: logger)
            try await db.query("DELETE FROM accounts WHERE id = \(id)", logger: logger)
            try await Self.bumpTokenGeneration(db, logger: logger)
        }
    }

    package func tokenGeneration() async throws -> Int64 {
        do {
            return try await withDeadline { [client, logger] in
                let rows = try await client.query("SELECT value FROM ubiquity_settings WHERE name = 'token_generation'", logger: logger)
                for try await value in rows.decode(Int64.self) { return value }
                return 0
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    package func recordUse(tokenHash: [UInt8]) async throws {
        let hash = ByteBuffer(bytes: tokenHash)
        do {
            try await withDeadline { [client, logger] in
                try await client.query("UPDATE tokens SET last_used = now() WHERE hash = \(hash)", logger: logger)
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    // MARK: Reading

    package func changes(account: String, store: String, after: Int64) async throws -> UbiquityChangesResponse {
        do {
            return try await withDeadline { [client, logger] in
                // One statement, one snapshot: the head and the entries after `after`
                // (ChangesStatement says how they are found).
                let rows = try await client.execute(ChangesStatement(account: account, store: store, after: after), logger: logger)
                var revision: Int64? = nil
                var horizon: Int64 = 0
                var entries: [UbiquityWireEntry] = []
                for try await (head, h, key, rev, value) in rows {
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

    package func commit(account: String, store: String, changes: [CheckedChange], tokenHash: [UInt8]?) async throws -> CommitOutcome {
        if closed.withLock({ $0 }) { throw BackendError(status: 503, "the server is stopping") }
        let limit = currentDeadline
        let result = await withUnsafeContinuation { (c: UnsafeContinuation<Result<CommitOutcome, any Error>, Never>) in
            let ticket = Ticket(c, limit: limit)
            let startSweeping = self.work.withLock { w -> Bool in
                w.jobs.append(Job(account: account, store: store, changes: changes, tokenHash: tokenHash, ticket: ticket))
                defer { w.sweeping = true; w._checkInvariantsAfterChange() }
                return !w.sweeping
            }
            if startSweeping { self.sweep() }
            self.dispatch()
        }
        return try result.get()
    }

    /// How often the sweeper looks for commits past their deadline.
    static let sweepInterval: Duration = .milliseconds(20)

    /// Every ``sweepInterval`` while commits are waiting or under way (it
    /// stops when none are): abandons the commits nobody applied within their
    /// deadline (answered 503, never applied later), cancels a group that has
    /// not reached the database within ``deadline`` (the pool may be waiting
    /// out a backoff), and starts a second writer beside a slow one
    /// (``dispatch()``). One task for all of them: a timer per commit (a task
    /// sleeping out its 5 seconds) cost the server a fifth of its CPU per write.
    func sweep() {
        Task {
            while true {
                try? await Task.sleep(for: Self.sweepInterval)
                let now = ContinuousClock.now
                let found = work.withLock { w -> (overdue: [Ticket], runs: [Run])? in
                    guard !w.jobs.isEmpty || !w.runs.isEmpty else {
                        w.sweeping = false
                        return nil
                    }
                    var overdue: [Ticket] = []
                    w.jobs.removeAll { job in
                        guard job.ticket.deadline <= now else { return false }
                        overdue.append(job.ticket)
                        return true
                    }
                    return (overdue, Array(w.runs.values))
                }
                guard let found else { return }
                var overdue = found.overdue
                for run in found.runs {
                    // Commits a writer took but has not claimed yet (its connection or first read is slow).
                    overdue += run.jobs.lazy.map(\.ticket).filter { $0.deadline <= now }
                    if now - run.started >= Self.deadline, run.abandon() { run.task.withLock { $0 }?.cancel() }
                }
                for ticket in overdue {
                    ticket.abandon(.failure(BackendError(status: 503, "the database is unavailable: no answer within \(ticket.limit); the commit was not applied",
                                                         code: .notApplied)))
                }
                // A writer slow for ``slowGroup`` lets a second one take the other stores' commits.
                dispatch()
            }
        }
    }

    // MARK: Wake-ups

    package func deliverWakeups(to serverHandler: @escaping @Sendable (Wakeup) -> Void) {
        let location = self.location, logger = self.logger
        // What another server wrote is no longer what this one kept of it.
        let handler: @Sendable (Wakeup) -> Void = { [kept] wakeup in
            kept.heard(wakeup)
            serverHandler(wakeup)
        }
        // The listening connection and the task reading it share one event loop: a
        // notification reaches the handler on the thread that read it (on the global
        // executor, each one woke a thread of its own: 3,600 a second at 10,000 commits).
        // Not the writers' loop, which the next group waits for.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let task = Task(executorPreference: EventLoopTaskExecutor(loop)) { [self] in
            var delay = Duration.milliseconds(50)
            var id = 1
            while !Task.isCancelled {
                do {
                    let connection: PostgresConnection
                    let index: Int
                    do {
                        (connection, index) = try await Self.connectPrimary(location, preferred: self.current.withLock { $0 }, id: id, on: loop, logger: logger)
                    } catch {
                        // Just found down: a fresh pool fails what waits on the old one now (503s at once, not after the deadline).
                        if self.reachable.withLock({ r -> Bool in defer { r = false }; return r }) { self.renewPool() }
                        DatabaseMetrics.reachable.record(0)
                        throw error
                    }
                    // Another server is the primary now (a standby promoted): the pool follows it.
                    let moved = self.current.withLock { c -> Bool in defer { c = index }; return c != index }
                    if moved { DatabaseMetrics.failovers.increment() }
                    DatabaseMetrics.reachable.record(1)
                    // Back after being unreachable, or moved: a fresh pool, without the old one's backoff.
                    if self.reachable.withLock({ r -> Bool in defer { r = true }; return !r }) || moved { self.renewPool() }
                    id += 1
                    do {
                        try await connection.listen(on: Self.channel) { notifications in
                            // Listening again: whatever was said while no one listened is read now.
                            handler(.everything)
                            self.listening.withLock { $0 = true }
                            delay = .milliseconds(50)
                            for try await notification in notifications {
                                handler(Self.wakeup(notification.payload))
                            }
                        }
                    } catch {}
                    self.listening.withLock { $0 = false }
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
        if payload == "tokens" { return .tokens }
        let parts = payload.split(separator: " ")
        guard parts.count == 3, let revision = Int64(parts[2]), revision > 0,
              UbiquityLimits.isValidStoreIdentifier(String(parts[1]))
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
                if !CommitDecision.isKeptLog(count: n, lowest: lo, highest: hi, revision: revision) {
                    problems.append("\(a)/\(s): revision \(revision) but \(n) commits from \(lo) to \(hi)")
                }
                if live != Int64(keyCount) || bytes != Int64(totalBytes) {
                    problems.append("\(a)/\(s): recorded \(keyCount) keys / \(totalBytes) bytes, found \(live) / \(bytes)")
                }
                if top > revision { problems.append("\(a)/\(s): an entry at revision \(top) beyond the store's \(revision)") }
            }
            // Rows that belong to nothing (foreign keys forbid them, except the commit log's,
            // which the statements writing it keep to locked stores: schema 4; counted all the same).
            let orphans = try await client.query("""
                SELECT (SELECT count(*) FROM stores s WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account)),
                       (SELECT count(*) FROM entries e WHERE NOT EXISTS (SELECT 1 FROM stores s WHERE s.account = e.account AND s.store = e.store)),
                       (SELECT count(*) FROM commits c WHERE NOT EXISTS (SELECT 1 FROM stores s WHERE s.account = c.account AND s.store = c.store)),
                       (SELECT count(*) FROM tokens t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.account)),
                       (SELECT count(*) FROM stores WHERE revision = 0)
                """, logger: logger)
            for try await (a, b, c, d, e) in orphans.decode((Int64, Int64, Int64, Int64, Int64).self) {
                for (n, what) in [(a, "stores of no account"), (b, "entries of no store"), (c, "commits of no store"),
                                  (d, "tokens of no account"), (e, "stores never written (revision 0)")] where n > 0 {
                    problems.append("\(n) \(what)")
                }
            }
            // A reader finds its changes through the keys the log names (schema 5): an entry
            // whose commit's row names keys but not its own would never reach such a reader.
            let unnamed = try await client.query("""
                SELECT e.account, e.store, e.key, e.revision FROM entries e
                JOIN commits c ON c.account = e.account AND c.store = e.store AND c.revision = e.revision
                WHERE c.changed IS NOT NULL AND NOT (e.key = ANY (c.changed))
                LIMIT 20
                """, logger: logger)
            for try await (a, s, key, revision) in unnamed.decode((String, String, String, Int64).self) {
                problems.append("\(a)/\(s): key \(key.debugDescription) at revision \(revision) is not among the keys its commit's log row names")
            }
            return problems
        }
    }
}
