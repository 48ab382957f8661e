import VaporCSQLite

/// The group-commit writer's own SQLite connection, through the C API of the SQLite that
/// sqlite-nio builds (`VaporCSQLite`), with its statements prepared once and kept.
///
/// sqlite-nio prepares each query again (SQLite parses and plans it every time: a fifth of the
/// writer's time under 64 writers) and makes each a trip to its thread pool and back, with a
/// continuation to resume. A group commit here is one trip to the writer's thread
/// (``SQLiteBackend/run(_:on:pool:state:quota:)``); inside it, each statement is a few C calls
/// on a statement prepared at its first use (proposal 0019, "SQLite's writer").
///
/// Used on one thread at a time: every use is on the writer's one-thread pool, and ``close()``
/// runs once the writer has stopped.
///
/// ```swift
/// let db = try SQLiteHandle(path: path, settings: SQLiteBackend.writerSettings)
/// try db.execute("DELETE FROM tokens WHERE account = ?") { $0.bind(1, account) }
/// let n = try db.run("SELECT count(*) FROM stores WHERE account = ?") { (s: SQLiteHandle.Statement) throws(SQLiteFailure) in
///     s.bind(1, account)
///     return try s.step() ? s.integer(0) : 0
/// }
/// ```
final class SQLiteHandle: @unchecked Sendable {
    fileprivate var db: OpaquePointer?
    /// The statements prepared so far, by their text: the writer's texts are a fixed few.
    private var statements: [String: OpaquePointer] = [:]
    /// A value that could not be bound, to be thrown by the statement's next step (binding is
    /// not a place to throw from; a statement must never run with a value silently left NULL).
    fileprivate var bindFailure: SQLiteFailure?

    /// Opens the database at `path` (it exists: the server made and migrated it first), with
    /// `settings` (pragmas) run in order.
    init(path: String, settings: [String]) throws(SQLiteFailure) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite_nio_sqlite3_open_v2(path, &db, flags, nil)
        self.db = db
        do throws(SQLiteFailure) {
            guard code == SQLITE_OK, db != nil else { throw SQLiteFailure(db, code) }
            for pragma in settings { try execute(pragma) }
        } catch {
            close()
            throw error
        }
    }

    /// Runs `sql`, a statement that returns no rows, with the values `bind` gives it (none by
    /// default: BEGIN, COMMIT, a pragma).
    func execute(_ sql: String, _ bind: (Statement) -> Void = { _ in }) throws(SQLiteFailure) {
        try run(sql) { (s: Statement) throws(SQLiteFailure) in
            bind(s)
            while try s.step() {}
        }
    }

    /// Runs `body` with `sql`'s statement, prepared at its first use and kept; its values and
    /// position are cleared after `body`, whatever it did.
    func run<T>(_ sql: String, _ body: (Statement) throws(SQLiteFailure) -> T) throws(SQLiteFailure) -> T {
        let statement = try prepared(sql)
        bindFailure = nil
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        return try body(Statement(raw: statement, handle: self))
    }

    private func prepared(_ sql: String) throws(SQLiteFailure) -> OpaquePointer {
        if let known = statements[sql] { return known }
        guard let db else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw SQLiteFailure(db, code) }
        statements[sql] = statement
        return statement
    }

    /// Finalizes the statements and closes the connection (once).
    func close() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        if let db { sqlite_nio_sqlite3_close_v2(db) }
        db = nil
    }

    deinit { close() }

    /// A prepared statement in use: its values bound by position (from 1), stepped, its row's
    /// columns read by position (from 0).
    struct Statement {
        fileprivate let raw: OpaquePointer
        fileprivate unowned(unsafe) let handle: SQLiteHandle
        private var db: OpaquePointer? { handle.db }

        /// Notes a bind's failure for ``step()``.
        private func check(_ code: Int32) {
            if code != SQLITE_OK, handle.bindFailure == nil { handle.bindFailure = SQLiteFailure(db, code) }
        }

        /// SQLite copies what is bound (`SQLITE_TRANSIENT`).
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        func bind(_ index: Int32, _ text: String) {
            var text = text
            text.withUTF8 { u in
                guard let base = u.baseAddress, u.count > 0 else {
                    // An empty text is a text, not NULL: SQLite needs a non-null pointer for it.
                    check(sqlite_nio_sqlite3_bind_text64(raw, index, "", 0, Self.transient, UInt8(SQLITE_UTF8)))
                    return
                }
                check(sqlite_nio_sqlite3_bind_text64(raw, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                                   UInt64(u.count), Self.transient, UInt8(SQLITE_UTF8)))
            }
        }

        func bind(_ index: Int32, _ value: Int64) { check(sqlite_nio_sqlite3_bind_int64(raw, index, value)) }

        func bind(_ index: Int32, _ value: Int) { bind(index, Int64(value)) }

        /// A blob; nil binds NULL.
        func bind(_ index: Int32, _ bytes: [UInt8]?) {
            guard let bytes else {
                check(sqlite_nio_sqlite3_bind_null(raw, index))
                return
            }
            bytes.withUnsafeBytes { b in
                guard let base = b.baseAddress, b.count > 0 else {
                    check(sqlite_nio_sqlite3_bind_zeroblob(raw, index, 0))  // an empty blob, not NULL
                    return
                }
                check(sqlite_nio_sqlite3_bind_blob64(raw, index, base, UInt64(b.count), Self.transient))
            }
        }

        /// Steps once: true when a row is there to read, false when the statement is done.
        func step() throws(SQLiteFailure) -> Bool {
            if let failure = handle.bindFailure { throw failure }
            switch sqlite_nio_sqlite3_step(raw) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            case let code: throw SQLiteFailure(db, code)
            }
        }

        func isNull(_ column: Int32) -> Bool { sqlite_nio_sqlite3_column_type(raw, column) == SQLITE_NULL }

        func integer(_ column: Int32) -> Int64 { sqlite_nio_sqlite3_column_int64(raw, column) }

        /// A blob column's bytes; nil for NULL.
        func blob(_ column: Int32) -> [UInt8]? {
            guard !isNull(column) else { return nil }
            let count = Int(sqlite_nio_sqlite3_column_bytes(raw, column))
            guard count > 0, let p = sqlite_nio_sqlite3_column_blob(raw, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: count))
        }
    }
}
