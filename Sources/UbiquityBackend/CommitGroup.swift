public import PropertyList

/// What the backends' group commits share: commits put in the order they are applied in,
/// the stores they write, the keys and tokens they read. A group is decided in memory
/// (``StoreDecision``), so a backend reads and writes a whole group in a few statements, not a
/// few per commit.
///
/// `public` and `@inlinable` (as ``StoreDecision``; of the types their bodies use, only the
/// members those bodies touch are `public`, the rest stays `package`), though UbiquityBackend
/// is no product, only so that each backend specializes them for its own job type: Swift 6.3
/// does not specialize an `@inlinable` `package` member across modules, and unspecialized, a
/// group's ordering and decisions looked up generic metadata and copied values through
/// witnesses: 2.8 µs of the PostgreSQL writer's ~21 µs a commit (issue 42, proposal 0019; the
/// same reason as SharedTables' public pieces, proposal 0015).
public enum CommitGroup: Sendable {
    /// A store's key in a group's tables: "account/store" (a store's name has no slash).
    @inlinable @inline(__always)
    public static func storeKey(_ account: String, _ store: String) -> String { account + "/" + store }

    /// `jobs` ordered by store, and in the order they came within a store: a fixed order of
    /// stores (two servers' groups lock rows in the same order), each store's commits applied as
    /// they were queued. Commits of one group were all in flight together, so any order among
    /// them is one they could have had.
    @inlinable
    public static func ordered<Job: CommitJob>(_ jobs: [Job]) -> [Job] {
        // Grouped by store in one pass, then only the distinct stores sorted (a group is
        // mostly a few stores' commits: sorting every commit by its names cost a few percent of
        // a loaded server).
        var groups: [String: [Job]] = [:]
        var names: [(account: String, store: String, key: String)] = []
        for job in jobs {
            let key = job.storeKey
            if groups[key]?.append(job) == nil {
                groups[key] = [job]
                names.append((job.account, job.store, key))
            }
        }
        guard names.count > 1 else { return jobs }
        names.sort { ($0.account, $0.store) < ($1.account, $1.store) }
        return names.flatMap { groups[$0.key]! }
    }

    /// The stores of `jobs` (``ordered(_:)``), each with the range of its jobs.
    @inlinable
    public static func stores<Job: CommitJob>(of jobs: [Job]) -> [(account: String, store: String, jobs: Range<Int>)] {
        var stores: [(account: String, store: String, jobs: Range<Int>)] = []
        var start = 0
        while start < jobs.count {
            var end = start + 1
            while end < jobs.count, jobs[end].account == jobs[start].account, jobs[end].store == jobs[start].store { end += 1 }
            stores.append((jobs[start].account, jobs[start].store, start..<end))
            start = end
        }
        return stores
    }

    /// The keys the jobs of each store change, each once: as three parallel arrays.
    /// Keys are told apart by their code points (two keys that look alike are two keys, as
    /// the database's own comparison has them).
    @inlinable
    public static func keys<Job: CommitJob>(of jobs: [Job], _ stores: [(account: String, store: String, jobs: Range<Int>)])
        -> (a: [String], s: [String], k: [String])
    {
        var keys = (a: [String](), s: [String](), k: [String]())
        for store in stores {
            var seen: Set<LiteralString> = []
            for job in jobs[store.jobs] {
                for change in job.changes where seen.insert(LiteralString(change.key)).inserted {
                    keys.a.append(store.account)
                    keys.s.append(store.store)
                    keys.k.append(change.key)
                }
            }
        }
        return keys
    }

    /// A token's key in a set of valid tokens: the account and the hash, so a token counts
    /// only for its own account.
    @inlinable
    public static func tokenKey(_ account: String, _ hash: [UInt8]) -> [UInt8] { Array(account.utf8) + [0] + hash }

    /// The jobs' tokens, each once, as parallel arrays of accounts and hashes.
    @inlinable
    public static func tokens<Job: CommitJob>(of jobs: some Sequence<Job>) -> (a: [String], h: [[UInt8]]) {
        var seen: Set<[UInt8]> = []
        var out = (a: [String](), h: [[UInt8]]())
        for job in jobs {
            guard let hash = job.tokenHash, seen.insert(tokenKey(job.account, hash)).inserted else { continue }
            out.a.append(job.account)
            out.h.append(hash)
        }
        return out
    }
}
