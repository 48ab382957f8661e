import PostgresNIO

/// A reader's changes (``PostgresBackend/changes(account:store:after:)``): the store's head and
/// the entries last written after revision `after`, in one statement and one snapshot.
///
/// - A reader older than the horizon (or ahead of the store) gets the whole store.
/// - A reader whose commits since name at most ``keysReadByLog`` keys (so at most as many
///   commits behind) gets those keys' entries, found by key through the commit log's `changed`
///   (`covered`: the log has a row naming its keys for every revision since).
/// - Any other reader gets the store's entries written after it, read from all of them.
///
/// Entries have no index by revision (schema 5): rewriting one then changes no indexed column,
/// and PostgreSQL updates it on its page (proposal 0019, "PostgreSQL: entries without an index
/// by revision"). A prepared statement, as ``GroupReadStatement`` is: planned once a connection.
struct ChangesStatement: PostgresPreparedStatement {
    /// The most keys a reader's commits since may name for its changes to be found through the
    /// log; every commit names one at least, so the log's rows are read only for a reader at most
    /// as many commits behind. Each key is one lookup of the primary key, about 6 µs; reading a
    /// store of 1,024 keys and 1,024 removals took 0.64–0.72 ms, and 99 keys by the log as long
    /// (`pgbench`, proposal 0019).
    static let keysReadByLog = 64

    static let name = "ubiquity_changes_v1"
    static let sql = """
        WITH s AS (
            SELECT revision, horizon, ($3::bigint < horizon OR $3::bigint > revision) AS whole
            FROM stores WHERE account = $1 AND store = $2
        ), l AS (
            SELECT count(c.changed) = s.revision - $3::bigint AND coalesce(sum(c.keys), 0) <= \(keysReadByLog) AS covered
            FROM s LEFT JOIN commits c ON c.account = $1 AND c.store = $2 AND c.revision > $3::bigint
                AND NOT s.whole AND s.revision - $3::bigint <= \(keysReadByLog)
            GROUP BY s.revision
        ), k AS (
            SELECT DISTINCT unnest(c.changed) AS key FROM commits c
            WHERE c.account = $1 AND c.store = $2 AND c.revision > $3::bigint AND (SELECT covered FROM l)
        )
        SELECT s.revision, s.horizon, e.key, e.revision, e.value
        FROM s CROSS JOIN l LEFT JOIN LATERAL (
            SELECT key, revision, value FROM entries
            WHERE account = $1 AND store = $2 AND key = ANY (ARRAY(SELECT key FROM k)) AND revision > $3::bigint
              AND NOT s.whole AND l.covered
            UNION ALL
            SELECT key, revision, value FROM entries
            WHERE account = $1 AND store = $2 AND revision > $3::bigint AND NOT s.whole AND NOT l.covered
            UNION ALL
            SELECT key, revision, value FROM entries
            WHERE account = $1 AND store = $2 AND value IS NOT NULL AND s.whole
        ) e ON true
        """
    typealias Row = (Int64, Int64, String?, Int64?, ByteBuffer?)

    var account: String
    var store: String
    var after: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(account)
        bindings.append(store)
        bindings.append(after)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
