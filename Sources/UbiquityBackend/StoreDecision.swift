public import PropertyList
public import NIOCore

/// One store's commits of a group decided in order, each on top of the one before: the
/// outcome of each, and what the group writes for the store (its entries, its new head, its
/// commit log). The same for every backend; only the statements that read and write differ.
/// (`public` and its generic initializers `@inlinable` only to be specialized in each backend:
/// see ``CommitGroup``.)
public struct StoreDecision: Sendable {
    public var account: String
    public var store: String
    /// ``CommitGroup/storeKey(_:_:)`` of the store.
    package var storeKey: String { CommitGroup.storeKey(account, store) }
    /// The store's commits: their range in the group's ordered jobs (``CommitGroup/ordered(_:)``).
    public var jobs: Range<Int>
    /// The head read, and the head after the commits.
    public var before: StoreHead
    public var after: StoreHead
    /// Each commit's outcome, in the order of ``jobs``.
    public var outcomes: [CommitOutcome] = []
    /// The keys written, each with its last revision, value and size.
    public var written: [LiteralString: (revision: Int64, bytes: [UInt8]?, size: Int)] = [:]
    /// Each writing commit's revision, number of keys and outcome (its index in ``outcomes``,
    /// whose applied entries are the keys): the commit log.
    public var log: [(revision: Int64, keys: Int32, outcome: Int)] = []
    package var writes: Bool { !log.isEmpty }
    /// Whether the store keeps too many removals (the oldest are forgotten).
    package var prunesRemovals: Bool { after.tombstones > CommitDecision.keptRemovals + CommitDecision.pruneSlack }
    /// Whether the store's revision passed a multiple of ``CommitDecision/commitLogSlack`` (its
    /// commit log is cut to the newest ``CommitDecision/keptCommits``).
    package var prunesLog: Bool {
        let slack = Int64(CommitDecision.commitLogSlack)
        return after.revision > Int64(CommitDecision.keptCommits) && after.revision / slack != before.revision / slack
    }
    /// Whether either is due.
    package var needsPruning: Bool { prunesRemovals || prunesLog }
    /// A commit grows the account while a quota applies and the account's usage was not
    /// read under its lock (decided again in a path that reads it).
    public var needsQuota = false
    /// The tokens of the commits that write.
    public var tokens: [[UInt8]] = []

    /// `others`: what the account's other stores hold, read where no other writer can change
    /// it; nil when it was not read, and then a commit that grows the account sets
    /// ``needsQuota`` instead.
    /// `validTokens`: the tokens found valid (``CommitGroup/tokenKey(_:_:)``); a commit whose
    /// token is not among them is answered as revoked and changes nothing. Nil: every token is
    /// taken as valid here (the statement that writes checks them itself).
    @inlinable
    public init<Job: CommitJob>(_ jobs: [Job], _ range: Range<Int>, account: String, store: String, head: StoreHead,
                                 current: [LiteralString: CurrentEntry], validTokens: Set<[UInt8]>?, quota: AccountQuota?, others: AccountUsage?) {
        (self.account, self.store, self.jobs, self.before, self.after) = (account, store, range, head, head)
        var here = current
        for job in jobs[range] {
            if let hash = job.tokenHash, let validTokens {
                guard validTokens.contains(CommitGroup.tokenKey(job.account, hash)) else {
                    outcomes.append(.revoked(revision: after.revision))
                    continue
                }
            }
            var decision = CommitDecision(changes: job.changes, head: after, current: here)
            if let quota, decision.growsAccount {
                if let others { decision.enforce(quota, others: others, store: store) } else { needsQuota = true }
            }
            outcomes.append(decision.outcome(for: job.changes, head: after, current: here))
            guard decision.writes else { continue }
            after = decision.next
            for change in decision.applied {
                here[change.key] = CurrentEntry(revision: after.revision, size: change.size, value: change.bytes.map { ByteBuffer(bytes: $0) })
                written[change.key] = (after.revision, change.bytes, change.size)
            }
            log.append((after.revision, Int32(decision.applied.count), outcomes.count - 1))
            if let hash = job.tokenHash, !tokens.contains(hash) { tokens.append(hash) }
        }
    }

    /// Each of `stores` (``CommitGroup/stores(of:)``) decided in order, on the head `head` gives
    /// for it (and its ``CommitGroup/storeKey(_:_:)``) and its entries in `current` (by key).
    ///
    /// `usage`: what each account holds, read where no other writer can change it, or nil when
    /// it was not read (a commit that grows an account under a quota then sets
    /// ``needsQuota``). A store is decided against its account's other stores, and the next
    /// store of the same account sees this one's new size.
    @inlinable
    public static func decide<Job: CommitJob>(
        _ jobs: [Job], stores: [(account: String, store: String, jobs: Range<Int>)], head: (_ store: (account: String, store: String, jobs: Range<Int>), _ key: String) throws -> StoreHead,
        current: [String: [LiteralString: CurrentEntry]], validTokens: Set<[UInt8]>?, quota: AccountQuota?,
        usage: [String: AccountUsage]?
    ) rethrows -> [StoreDecision] {
        var usage = usage
        return try stores.map { store in
            let key = CommitGroup.storeKey(store.account, store.store)
            let head = try head(store, key)
            let others = usage.map { ($0[store.account] ?? AccountUsage(stores: 0, bytes: 0)).without(head, named: store.store) }
            let decision = StoreDecision(jobs, store.jobs, account: store.account, store: store.store, head: head,
                                         current: current[key] ?? [:], validTokens: validTokens, quota: quota, others: others)
            if let others { usage?[store.account] = others.with(decision.after, named: store.store) }
            return decision
        }
    }
}
