import PlatformIO
import PropertyList

/// One persistent domain's state in memory, as a value: the file's entries
/// as last read or written, this process's changes on top, their count and
/// sequence, and what the next flush must know. ``PersistentDomain`` keeps
/// it behind its lock and orders the I/O around it; every change to it is
/// followed, in debug builds, by ``_checkInvariantsAfterChange()``.
struct DomainState {
    /// The file's entries as last read or written (or what replaced the
    /// domain). Never changed in place: a flush holds it while writing,
    /// and a write must not have to copy it.
    var base: [LiteralString: PropertyList] = [:]
    /// This process's changes not yet written (nil removes). What reads
    /// see is `base` with these on top.
    var pending = PendingChanges()
    /// The number of entries reads see.
    var count = 0
    /// The whole domain was replaced or removed: the next flush writes `base` and `pending` as they are.
    var replaced: UInt64? = nil
    var sequence: UInt64 = 0
    /// The version of the file `base` holds.
    var signature: FileSignature? = nil
    /// The format to write back (the file's own; binary for new files).
    var format: PropertyListFormat = .binary
    var flushScheduled = false
    var lastError: StorageError? = nil
    /// Told of every change before the write returns (defaults objects' search lists).
    var dependents = DependentList()
    /// This process's journal of the domain, made on the first write
    /// (proposal 0007); nil before, or when journaling failed.
    var journal: DomainJournal? = nil
    /// Why journaling is off for this domain (reported once).
    var journalFailure: StorageError? = nil

    /// The value reads see.
    @inline(__always)
    func value(forKey key: String) -> PropertyList? {
        if let pending = pending.value(forKey: key) { return pending }
        return base[key]
    }

    /// Every entry reads see (a copy of `base` when changes are pending).
    var values: [LiteralString: PropertyList] { pending.applied(to: base) }

    /// Recounts the entries after `base` or `pending` changed wholesale.
    mutating func recount() {
        var n = base.count
        for (key, change) in pending.changes {
            let inBase = base[key] != nil
            if change.value != nil, !inBase { n += 1 }
            if change.value == nil, inBase { n -= 1 }
        }
        count = n
    }

    /// The merge a flush makes when another process wrote the file since
    /// this one last read it: what the file holds now (`file`, with dead
    /// processes' journals replayed), this process's `pending` changes on
    /// top, is what gets written; what the other process changed relative
    /// to what this one had `seen`, less the keys this process is writing,
    /// is what its observers hear of. Pure: tested against a dictionary model.
    static func merge(file: [LiteralString: PropertyList], seen: [LiteralString: PropertyList], pending: PendingChanges)
        -> (written: [LiteralString: PropertyList], diskChanges: [LiteralString: DomainChange.Values])
    {
        let diskChanges = pending.hiding(DomainChange.diff(seen, file))
        var written = file
        pending.apply(to: &written)
        return (written, diskChanges)
    }

    /// What the rest of the engine relies on: the pending changes' own
    /// invariants; no change and no replacement newer than the last
    /// sequence given; and `count` — what `isEmpty` and the lock-free
    /// entry count publish — equal to the entries reads see. O(entries).
    func _checkInvariants() {
        _checkShape()
        pending._checkInvariants()
        // Counted afresh from what reads see, not with `recount()` (the code that keeps `count`).
        precondition(values.count == count, "DomainState: count \(count), but reads see \(values.count) entries")
    }

    /// The O(1) part: no pending change and no replacement after the last
    /// sequence given; the count within what `base` and `pending` allow.
    func _checkShape() {
        precondition(pending.lastSequence <= sequence,
                     "DomainState: a pending change at \(pending.lastSequence), after the last sequence, \(sequence)")
        precondition((replaced ?? 0) <= sequence, "DomainState: replaced at \(replaced ?? 0), after the last sequence, \(sequence)")
        precondition(count >= 0 && count <= base.count + pending.count && (!pending.isEmpty || count == base.count),
                     "DomainState: count \(count) with \(base.count) entries and \(pending.count) pending")
    }

    /// Run after every change in debug builds: the O(1) part of
    /// ``_checkInvariants()`` (``_checkShape()``); the whole
    /// check too, for domains of at most 256 entries and pending changes,
    /// when built with `-Xswiftc -DOPENDEFAULTS_INTERNAL_CHECKS` (a full
    /// check per write would slow every debug run; the model tests call the
    /// whole check themselves).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG
        _checkShape()
        #if OPENDEFAULTS_INTERNAL_CHECKS
        if base.count + pending.count <= 256 { _checkInvariants() }
        #endif
        #endif
    }
}
