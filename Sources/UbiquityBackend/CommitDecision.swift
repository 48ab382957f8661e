import NIOCore
package import UbiquityProtocol
public import PropertyList

/// What a commit does to a store, decided from the store's head and the
/// current entries of its keys — the same rules for every backend: per-key
/// compare-and-set on the base revision, and limits that refuse the whole
/// commit (nothing changes) when one would break.
public struct CommitDecision: Sendable {
    /// The changes whose base matched, in the commit's order.
    public var applied: [CheckedChange]
    /// Per change of the commit: applied or conflict.
    package var statuses: [UbiquityWireResult.Status]
    /// Why the whole commit is refused, if it is.
    package var refusal: CommitRefusal?
    /// The store's head after the commit (`revision` one more) when something is applied.
    public var next: StoreHead
    /// The store's head before the commit.
    package var previous: StoreHead

    /// Decides `changes` on top of `head`, given the current entries of their keys.
    public init(changes: [CheckedChange], head: StoreHead, current: [LiteralString: CurrentEntry]) {
        var count = head.count, total = head.total, tombstones = head.tombstones
        var applied: [CheckedChange] = []
        var statuses: [UbiquityWireResult.Status] = []
        for change in changes {
            let c = current[change.key]
            if (c?.revision ?? 0) == change.base {
                applied.append(change)
                statuses.append(.applied)
                if let c {
                    if c.value != nil { count -= 1; total -= c.size } else { tombstones -= 1 }
                }
                // A removal leaves a tombstone, so that others learn of it by revision.
                if change.bytes != nil { count += 1; total += change.size } else { tombstones += 1 }
            } else {
                statuses.append(.conflict)
            }
        }
        var refusal: CommitRefusal? = nil
        if let long = changes.first(where: { $0.key.utf8.count > UbiquityLimits.maximumKeyBytes || $0.key.isEmpty }) {
            refusal = .keyLength(key: long.key)
        } else if let big = applied.first(where: { $0.size > UbiquityLimits.maximumValueBytes }) {
            refusal = .valueSize(key: big.key, bytes: big.size)
        } else if count > UbiquityLimits.maximumKeys {
            refusal = .keyCount(count)
        } else if total > UbiquityLimits.maximumTotalBytes {
            refusal = .storeSize(total)
        }
        self.applied = applied
        self.statuses = statuses
        self.refusal = refusal
        self.next = StoreHead(revision: head.revision + 1, count: count, total: total, tombstones: tombstones, horizon: head.horizon)
        self.previous = head
    }

    /// Whether the commit makes its account hold more: a store's first commit, or more bytes.
    /// Only such a commit is checked against the account's quota (a commit that shrinks
    /// or keeps a store's size always passes, even over a quota lowered since).
    public var growsAccount: Bool { writes && (previous.revision == 0 || next.total > previous.total) }

    /// Refuses the commit to the store named `store` when it would take the account past
    /// `quota`; `others` is what the account's other stores hold.
    public mutating func enforce(_ quota: AccountQuota, others: AccountUsage, store: String) {
        guard growsAccount else { return }
        if previous.revision == 0, AccountQuota.countsStore(store), others.stores + 1 > quota.maximumStores {
            refusal = .quotaStores(wouldHold: others.stores + 1, quota: quota.maximumStores)
        } else if next.total > previous.total, others.bytes + next.total > quota.maximumBytes {
            refusal = .quotaBytes(wouldHold: others.bytes + next.total, quota: quota.maximumBytes)
        }
    }

    /// Whether the commit writes anything.
    public var writes: Bool { refusal == nil && !applied.isEmpty }

    /// The entries the commit writes, at the next revision.
    package var written: [UbiquityWireEntry] {
        applied.map { UbiquityWireEntry(key: $0.key, revision: next.revision, value: $0.bytes.map { Base64.encode($0) }) }
    }

    /// The answer to the client. `head` is the store's head before the commit;
    /// keys not applied answer with their current entry.
    public func outcome(for changes: [CheckedChange], head: StoreHead, current: [LiteralString: CurrentEntry]) -> CommitOutcome {
        func entry(_ key: String) -> UbiquityWireEntry {
            let c = current[key]
            return UbiquityWireEntry(key: key, revision: c?.revision ?? 0, value: c?.value.map { Base64.encode($0.readableBytesView) })
        }
        if let refusal {
            let results = changes.map { UbiquityWireResult(status: .refused, entry: entry($0.key)) }
            var outcome = CommitOutcome(response: UbiquityCommitResponse(revision: head.revision, refusal: refusal.message, results: results), applied: [])
            outcome.refusal = refusal
            return outcome
        }
        guard writes else {
            let results = changes.map { UbiquityWireResult(status: .conflict, entry: entry($0.key)) }
            return CommitOutcome(response: UbiquityCommitResponse(revision: head.revision, refusal: nil, results: results), applied: [])
        }
        let written = self.written
        var byKey: [LiteralString: UbiquityWireEntry] = [:]
        for w in written { byKey[w.key] = w }
        var results: [UbiquityWireResult] = []
        for (change, status) in zip(changes, statuses) {
            results.append(UbiquityWireResult(status: status, entry: status == .applied ? byKey[change.key]! : entry(change.key)))
        }
        return CommitOutcome(response: UbiquityCommitResponse(revision: next.revision, refusal: nil, results: results), applied: written)
    }

    /// How many rows of a store's commit log are kept at least (the newest; older
    /// ones are deleted, so the log is bounded per store).
    package static let keptCommits = 1_024
    /// How many more a store's log may hold between two prunings (each backend prunes
    /// when a store's revision reaches or passes a multiple of it).
    package static let commitLogSlack = 1_024

    /// Whether a store's commit log of `count` rows from revision `lowest` to `highest` is
    /// what a store at `revision` keeps: the newest commits, without gaps, at least
    /// ``keptCommits`` of them (all when fewer) and at most ``commitLogSlack`` more.
    package static func isKeptLog(count: Int64, lowest: Int64, highest: Int64, revision: Int64) -> Bool {
        guard count > 0 else { return revision == 0 }
        let least = min(revision, Int64(keptCommits)), most = min(revision, Int64(keptCommits + commitLogSlack))
        return (least...most).contains(count) && highest == revision && lowest == revision - count + 1
    }
    /// How many removals a store remembers (older ones push the horizon).
    package static let keptRemovals = 1_024
    /// Removals beyond `keptRemovals` tolerated before pruning (pruning is batched).
    package static let pruneSlack = 64
}
