import NIOCore
import PropertyList
import Synchronization
import UbiquityBackend

/// What this server last knew of the stores it commits to, so that a group whose stores and keys
/// are all known is decided without reading the database first (proposal 0019, "A writer keeps
/// what it wrote").
///
/// Knowledge of a store is its head at one revision and, at that revision, the entries of some of
/// its keys and the absence of others. Nothing else changes a store's entries without a new
/// revision (a prune runs with a write, in the locked path), so what was true at a revision stays
/// true while the store is at it. Decisions made on kept knowledge are only ever *written*: the
/// write statement writes a store only if its revision is still the one they started from, and a
/// store that moved (another server committed) goes to the locked path, which reads under locks.
/// Commits the kept knowledge would answer without writing (conflicts, refusals) are never
/// answered from it either: they go to the locked path too (``PostgresBackend/commitUnlocked(_:state:on:logger:quota:kept:)``).
///
/// Bounded: when the values and keys kept pass ``maximumBytes``, everything is forgotten.
/// Another server's write heard as a notification, or a lost listener, forgets what it touches.
final class KeptStores: Sendable {
    /// A store as last known.
    struct Store {
        var head: StoreHead
        /// Entries of keys at `head.revision` (a removal's tombstone has no value).
        var entries: [LiteralString: CurrentEntry] = [:]
        /// Keys known to have no entry at `head.revision`.
        var absent: Set<LiteralString> = []
        /// Bytes of keys and values kept, for the bound.
        var bytes = 0
        /// The revision this server's write in flight will give the store: its own notification
        /// of that revision is not another server's write.
        var writing: Int64? = nil
    }

    struct State {
        var stores: [String: Store] = [:]
        var bytes = 0

        mutating func remove(_ storeKey: String) {
            bytes -= stores.removeValue(forKey: storeKey)?.bytes ?? 0
        }
    }

    static let maximumBytes = 16 << 20

    let state = Mutex(State())

    /// The group state for `jobs`, if every store of theirs and every key they change is known.
    func groupState<Job: CommitJob>(for jobs: [Job]) -> PostgresBackend.GroupState? {
        let stores = CommitGroup.stores(of: jobs)
        return state.withLock { s -> PostgresBackend.GroupState? in
            var group = PostgresBackend.GroupState()
            for store in stores {
                let storeKey = CommitGroup.storeKey(store.account, store.store)
                guard let kept = s.stores[storeKey] else { return nil }
                group.heads[storeKey] = kept.head
                var current: [LiteralString: CurrentEntry] = [:]
                for job in jobs[store.jobs] {
                    for change in job.changes {
                        let key = LiteralString(change.key)
                        if let entry = kept.entries[key] { current[key] = entry } else if !kept.absent.contains(key) { return nil }
                    }
                }
                group.current[storeKey] = current
            }
            group.isKept = true
            return group
        }
    }

    /// What a read for `jobs` found: each store's head and the entries of the keys the jobs change
    /// (a key not found has no entry). Kept with what was known at the same revision, instead of
    /// it otherwise.
    func learn<Job: CommitJob>(_ read: PostgresBackend.GroupState, for jobs: [Job]) {
        let stores = CommitGroup.stores(of: jobs)
        state.withLock { s in
            for store in stores {
                let storeKey = CommitGroup.storeKey(store.account, store.store)
                guard let head = read.heads[storeKey] else { continue }
                var kept = s.stores[storeKey].flatMap { $0.head.revision == head.revision && $0.writing == nil ? $0 : nil } ?? Store(head: head)
                s.remove(storeKey)
                let found = read.current[storeKey] ?? [:]
                for job in jobs[store.jobs] {
                    for change in job.changes {
                        let key = LiteralString(change.key)
                        if let entry = found[key] { Self.set(&kept, key, entry) } else { Self.markAbsent(&kept, key) }
                    }
                }
                s.bytes += kept.bytes
                s.stores[storeKey] = kept
            }
            Self.bound(&s)
        }
    }

    /// The decisions about to be written: their own notifications are expected.
    func willWrite(_ decisions: [StoreDecision]) {
        state.withLock { s in
            for d in decisions where d.writes {
                if s.stores[d.storeKey]?.head.revision == d.before.revision { s.stores[d.storeKey]?.writing = d.after.revision }
            }
        }
    }

    /// A decision this server wrote: the store is now at its head after, with the keys written.
    func wrote(_ decision: StoreDecision) {
        state.withLock { s in
            guard s.stores[decision.storeKey]?.head.revision == decision.before.revision,
                  s.stores[decision.storeKey]?.writing == decision.after.revision,
                  // Taken out of the table, so that its entries are changed in place: a copy
                  // changed while the table still held the original copied every entry.
                  var store = s.stores.removeValue(forKey: decision.storeKey) else {
                s.remove(decision.storeKey)
                return
            }
            s.bytes -= store.bytes
            store.head = decision.after
            store.writing = nil
            for (key, written) in decision.written {
                Self.set(&store, key, CurrentEntry(revision: written.revision, size: written.size, value: written.bytes.map { ByteBuffer(bytes: $0) }))
            }
            s.bytes += store.bytes
            s.stores[decision.storeKey] = store
            Self.bound(&s)
        }
    }

    /// Forgets `storeKey` (another server moved it, or the locked path changes it).
    func forget(_ storeKey: String) {
        state.withLock { $0.remove(storeKey) }
    }

    /// A notification: another server's write forgets the store it touched, when it is newer than
    /// what is kept; anything unreadable, or a listener that was away, forgets everything.
    func heard(_ wakeup: Wakeup) {
        switch wakeup {
        case .store(let account, let store, let revision):
            let storeKey = CommitGroup.storeKey(account, store)
            state.withLock { s in
                guard let kept = s.stores[storeKey], revision > (kept.writing ?? kept.head.revision) else { return }
                s.remove(storeKey)
            }
        case .everything:
            state.withLock { $0 = State() }
        case .tokens:
            break
        }
    }

    private static func set(_ store: inout Store, _ key: LiteralString, _ entry: CurrentEntry) {
        if store.absent.remove(key) != nil { store.bytes -= key.string.utf8.count }
        if let old = store.entries[key] { store.bytes -= key.string.utf8.count + (old.value?.readableBytes ?? 0) }
        store.entries[key] = entry
        store.bytes += key.string.utf8.count + (entry.value?.readableBytes ?? 0)
    }

    /// `key` has no entry (unless one was learned at this revision already).
    private static func markAbsent(_ store: inout Store, _ key: LiteralString) {
        if store.entries[key] == nil, store.absent.insert(key).inserted { store.bytes += key.string.utf8.count }
    }

    private static func bound(_ s: inout State) {
        if s.bytes > maximumBytes { s = State() }
    }

    /// The bytes counted are the bytes kept.
    func _checkInvariants() {
        state.withLock { s in
            var total = 0
            for store in s.stores.values {
                let bytes = store.entries.reduce(0) { $0 + $1.key.string.utf8.count + ($1.value.value?.readableBytes ?? 0) }
                    + store.absent.reduce(0) { $0 + $1.string.utf8.count }
                precondition(bytes == store.bytes, "a kept store counts \(store.bytes) bytes and holds \(bytes)")
                precondition(store.absent.isDisjoint(with: store.entries.keys), "a kept key is both present and absent")
                total += bytes
            }
            precondition(total == s.bytes, "the kept stores count \(s.bytes) bytes and hold \(total)")
        }
    }
}
