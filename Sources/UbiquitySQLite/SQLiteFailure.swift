import VaporCSQLite

/// SQLite's refusal: its result code and message (`sqlite3_errmsg`), such as "FOREIGN KEY
/// constraint failed" or "database disk image is malformed".
struct SQLiteFailure: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(_ db: OpaquePointer?, _ code: Int32) {
        self.init(code: code, message: db.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "SQLite error \(code)")
    }

    var description: String { "\(message) (SQLite \(code))" }
}
