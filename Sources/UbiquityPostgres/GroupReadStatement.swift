import PostgresNIO

/// A group commit's read (``PostgresBackend/read(_:on:logger:)``): the heads of the group's
/// stores and the current entries of its keys, without locks, in one statement and one snapshot.
///
/// A prepared statement: its text never changes (the group's stores and keys are arrays), so
/// each connection parses and plans it once, and a group sends only its values (issue 42;
/// proposal 0019, "Commits on PostgreSQL").
struct GroupReadStatement: PostgresPreparedStatement {
    static let name = "ubiquity_group_read_v1"
    static let sql = """
        SELECT 'h', account, store, revision, key_count, total_bytes, tombstones, horizon, NULL::text, NULL::int, NULL::bytea
        FROM stores WHERE (account, store) IN (SELECT a, s FROM unnest($1::text[], $2::text[]) AS q(a, s))
        UNION ALL
        SELECT 'e', e.account, e.store, e.revision, 0, 0, 0, 0::bigint, e.key, e.size, e.value
        FROM unnest($3::text[], $4::text[], $5::text[]) AS q(a, s, k)
        JOIN entries e ON e.account = q.a AND e.store = q.s AND e.key = q.k
        """
    typealias Row = (String, String, String, Int64, Int32, Int32, Int32, Int64, String?, Int32?, ByteBuffer?)

    /// The stores' accounts and names, in pairs.
    var storeAccounts: [String], storeNames: [String]
    /// The keys' accounts, stores and names, in triples.
    var keyAccounts: [String], keyStores: [String], keys: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(storeAccounts)
        bindings.append(storeNames)
        bindings.append(keyAccounts)
        bindings.append(keyStores)
        bindings.append(keys)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
