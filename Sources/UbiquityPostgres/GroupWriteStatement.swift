import PostgresNIO
import PropertyList
import UbiquityBackend
import UbiquityProtocol

/// A group commit's write (``PostgresBackend/write(_:on:logger:)``): entries, heads, the commit
/// log and a `NOTIFY` per store, for the stores whose revision is still the one their decisions
/// started from, in one statement (its own transaction: one WAL flush, nothing half-written).
/// Each log row names the keys its commit changed (schema 5), for ``ChangesStatement``.
///
/// A prepared statement, as ``GroupReadStatement`` is: the text is fixed, the values are arrays
/// (``BinaryArray``s, built as the decisions are read).
struct GroupWriteStatement: PostgresPreparedStatement {
    static let name = "ubiquity_group_write_v2"
    static let sql = """
        WITH h AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::int[], $6::int[], $7::int[])
                WITH ORDINALITY AS h(a, s, x, r, c, t, tb, o)
        ), claimed AS (
            SELECT stores.account, stores.store FROM stores JOIN h ON stores.account = h.a AND stores.store = h.s AND stores.revision = h.x
            ORDER BY h.o FOR UPDATE OF stores
        ), tk AS (
            SELECT * FROM unnest($8::text[], $9::text[], $10::bytea[]) AS tk(a, s, hash)
        ), locked AS (
            -- A store is written only if every token of its commits is still valid in this
            -- statement's snapshot (a revocation committed while it runs is ordered after it;
            -- not locked: every writer of an account shares its token's row).
            SELECT c.account, c.store FROM claimed c
            WHERE NOT EXISTS (SELECT 1 FROM tk WHERE tk.a = c.account AND tk.s = c.store
                              AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.hash = tk.hash AND t.account = tk.a))
        ), head AS (
            UPDATE stores SET revision = h.r, key_count = h.c, total_bytes = h.t, tombstones = h.tb
            FROM h JOIN locked l ON l.account = h.a AND l.store = h.s
            WHERE stores.account = h.a AND stores.store = h.s
            RETURNING stores.account, stores.store, stores.revision
        ), written AS (
            INSERT INTO entries(account, store, key, revision, value, size)
            SELECT t.a, t.s, t.k, t.r, CASE WHEN t.d THEN NULL ELSE t.v END, t.z
            FROM unnest($11::text[], $12::text[], $13::text[], $14::bigint[], $15::bytea[], $16::bool[], $17::int[]) AS t(a, s, k, r, v, d, z)
            JOIN locked l ON l.account = t.a AND l.store = t.s
            ON CONFLICT (account, store, key) DO UPDATE SET revision = excluded.revision, value = excluded.value, size = excluded.size
            RETURNING 1
        ), logged AS (
            INSERT INTO commits(account, store, revision, keys, changed)
            SELECT g.a, g.s, g.r, g.n, CASE WHEN g.ks > 0 THEN ($24::text[])[g.ks:g.ks + g.n - 1] END
            FROM unnest($18::text[], $19::text[], $20::bigint[], $21::int[], $23::int[]) AS g(a, s, r, n, ks)
            JOIN locked l ON l.account = g.a AND l.store = g.s
            RETURNING 1
        )
        SELECT account, store, pg_notify($22, account || ' ' || store || ' ' || revision)::text FROM head
        """
    typealias Row = (String, String, String)

    /// The heads: account, store, the revision the decision started from, the new revision, key count, bytes, removals.
    private(set) var heads = (a: BinaryArray<String>(), s: BinaryArray<String>(), x: BinaryArray<Int64>(), r: BinaryArray<Int64>(),
                              c: BinaryArray<Int32>(), t: BinaryArray<Int32>(), tb: BinaryArray<Int32>())
    /// The tokens of the commits that write, by store (checked in the statement's snapshot).
    private(set) var tokens = (a: BinaryArray<String>(), s: BinaryArray<String>(), h: BinaryArray<ByteaElement>())
    /// The entries written: account, store, key, revision, value, whether it is a removal, size.
    private(set) var entries = (a: BinaryArray<String>(), s: BinaryArray<String>(), k: BinaryArray<String>(), r: BinaryArray<Int64>(),
                                v: BinaryArray<ByteaElement>(), d: BinaryArray<Bool>(), z: BinaryArray<Int32>())
    /// The commit log: account, store, revision, number of keys changed, and where its keys start in `changed` (from 1).
    private(set) var logs = (a: BinaryArray<String>(), s: BinaryArray<String>(), r: BinaryArray<Int64>(), n: BinaryArray<Int32>(),
                             ks: BinaryArray<Int32>())
    /// The keys each commit of the log changed, one after another (its outcome's applied entries).
    private(set) var changed = BinaryArray<String>()
    /// The channel of the wake-ups.
    let channel: String

    /// The statement that writes the decisions that write (none: ``isEmpty``).
    init(_ decisions: [StoreDecision], channel: String) {
        self.channel = channel
        for d in decisions where d.writes {
            for hash in d.tokens { tokens.a.append(d.account); tokens.s.append(d.store); tokens.h.append(ByteaElement(bytes: hash)) }
            heads.a.append(d.account); heads.s.append(d.store); heads.x.append(d.before.revision); heads.r.append(d.after.revision)
            heads.c.append(Int32(d.after.count)); heads.t.append(Int32(d.after.total)); heads.tb.append(Int32(d.after.tombstones))
            for (key, w) in d.written {
                entries.a.append(d.account); entries.s.append(d.store); entries.k.append(key.string); entries.r.append(w.revision)
                entries.v.append(ByteaElement(bytes: w.bytes ?? [])); entries.d.append(w.bytes == nil); entries.z.append(Int32(w.size))
            }
            // A log row's keys are its commit's outcome's applied entries. They follow the rows'
            // before it in `changed` (PostgreSQL's arrays count from 1); a row whose keys are
            // longer than `maximumLoggedKeyBytes` names none (0).
            for l in d.log {
                logs.a.append(d.account); logs.s.append(d.store); logs.r.append(l.revision); logs.n.append(l.keys)
                let applied = d.outcomes[l.outcome].applied
                if applied.reduce(0, { $0 + $1.key.utf8.count }) <= Self.maximumLoggedKeyBytes {
                    logs.ks.append(Int32(changed.count + 1))
                    for entry in applied { changed.append(entry.key) }
                } else {
                    logs.ks.append(0)
                }
            }
        }
    }

    /// The most bytes of keys a commit's log row names (UTF-8): what an account can make the
    /// server keep stays bounded (a row of a commit with longer keys names none, and a reader
    /// across it reads its store's entries: ``ChangesStatement``).
    static let maximumLoggedKeyBytes = 256

    /// Whether no store is written.
    var isEmpty: Bool { heads.a.isEmpty }

    func makeBindings() throws -> PostgresBindings {
        var b = PostgresBindings(capacity: 25)
        b.append(heads.a); b.append(heads.s); b.append(heads.x); b.append(heads.r); b.append(heads.c); b.append(heads.t); b.append(heads.tb)
        b.append(tokens.a); b.append(tokens.s); b.append(tokens.h)
        b.append(entries.a); b.append(entries.s); b.append(entries.k); b.append(entries.r); b.append(entries.v); b.append(entries.d); b.append(entries.z)
        b.append(logs.a); b.append(logs.s); b.append(logs.r); b.append(logs.n)
        b.append(channel)
        b.append(logs.ks); b.append(changed)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
