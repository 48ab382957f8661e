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
    var journalFailure: StorageError? = nil {
        didSet { journalOff = journalFailure != nil }
    }
    /// ``journalFailure`` is set: a flag the write path tests without
    /// copying the error.
    private(set) var journalOff = false

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

    // MARK: Setting and replacing (the transitions; PersistentDomain journals and notifies around them)

    /// What one set did to the values reads see.
    enum SetOutcome: Equatable {
        /// The key now has another value (or none): `old` is what reads saw before.
        case changed(old: PropertyList?)
        /// Reads already saw the value. The change is recorded all the same (journaled and
        /// flushed as any change): what reads saw is this process's last look at the file, and
        /// another process may have written the key since. A removal or a set issued after that
        /// write must still win over it, as it would had the file watcher been quicker; a flush
        /// that finds the file as this process last read it writes nothing for it.
        case unchanged
    }

    /// Sets (nil removes) one key: a new sequence number, the change recorded as pending, the
    /// count kept. O(1); the file's value is looked up only when the key had no pending change.
    mutating func set(_ value: PropertyList?, forKey key: String, hash: UInt64) -> SetOutcome {
        sequence += 1
        let old: PropertyList? = switch pending.record(key, hash: hash, value, sequence: sequence) {
        case .some(let previous): previous
        case .none: base[key]
        }
        guard !PropertyList.same(old, value) else { return .unchanged }
        // `case .none`, not `== nil`, and `consume`: in this function `== nil` on the optional
        // value cost outlined copies of both, 1,575 against 1,692 instructions a set (callgrind).
        if case .none = old { count += 1 } else if case .none = value { count -= 1 }
        return .changed(old: consume old)
    }

    /// One key of a several-key set: as ``set(_:forKey:hash:)``, except that a change to the
    /// value the key already has stays recorded (the batch is journaled whole). The value reads
    /// saw before.
    mutating func setInBatch(_ value: PropertyList?, forKey key: String) -> PropertyList? {
        sequence += 1
        let old = pending.record(key, value, sequence: sequence) ?? base[LiteralString(key)]
        if old != value {
            if old == nil { count += 1 } else if value == nil { count -= 1 }
        }
        return old
    }

    /// The whole domain replaced (empty: removed): what reads see changes from the current
    /// values to `new`. Takes a sequence number first (the journal records the replacement under
    /// it before ``finishReplace(with:)``); the changes, key by key.
    mutating func beginReplace(with new: [LiteralString: PropertyList]) -> [LiteralString: DomainChange.Values] {
        let changes = DomainChange.diff(values, new)
        sequence += 1
        return changes
    }

    /// The replacement applied: `new` is the base, nothing is pending, and the next flush writes
    /// it whole (``replaced``).
    mutating func finishReplace(with new: [LiteralString: PropertyList]) {
        base = new
        pending.removeAll()
        count = new.count
        replaced = sequence
    }

    // MARK: Flushing and reloading (the transitions; PersistentDomain orders the I/O around them)

    /// A flush starts: what it will write, taken together. A recovery is not
    /// the scheduled flush: that one still comes (and writes what is pending
    /// then), so writes meanwhile must not schedule another.
    mutating func beginFlush(recovering: Bool) -> FlushSnapshot {
        if !recovering { flushScheduled = false }
        return FlushSnapshot(base: base, pending: pending, replaced: replaced, format: format, signature: signature,
                             journalPath: journal?.path, journalMark: journal.map { (end: $0.end, sequence: sequence) })
    }

    /// A flush that started from `snapshot` wrote `written` (in `format`;
    /// the file is now at `signature`). What was written becomes `base`;
    /// changes made while writing stay pending on top; a replacement of the
    /// whole domain made while writing is kept as it is, to be written next
    /// (and then nothing of this flush is reported). Returns what observers
    /// hear of — another process's changes the flush found (`diskChanges`,
    /// nil when the file was not re-read) and `edited` (an `update`'s edit),
    /// each less the keys still pending — and whether reads now see other
    /// values (the caller publishes them).
    mutating func finishFlush(_ snapshot: FlushSnapshot, written: [LiteralString: PropertyList], signature: FileSignature?,
                              format: PropertyListFormat, diskChanges: [LiteralString: DomainChange.Values]?,
                              edited: [LiteralString: DomainChange.Values])
        -> (otherProcess: [LiteralString: DomainChange.Values], edited: [LiteralString: DomainChange.Values], publish: Bool)
    {
        defer { _checkInvariantsAfterChange() }
        let flushedUpTo = snapshot.flushedUpTo
        if let r = replaced, r <= flushedUpTo { replaced = nil }
        if let mark = snapshot.journalMark { journal?.markApplied(through: mark.sequence, keepingFrom: mark.end) }
        var otherProcess: [LiteralString: DomainChange.Values] = [:]
        var edits: [LiteralString: DomainChange.Values] = [:]
        if replaced == nil {
            base = written
            pending.removeThrough(flushedUpTo)
            recount()
            if let diskChanges { otherProcess = pending.hiding(diskChanges) }
            if !edited.isEmpty { edits = pending.hiding(edited) }
        }
        self.signature = signature
        self.format = format
        lastError = nil
        return (otherProcess, edits, !otherProcess.isEmpty || !edits.isEmpty)
    }

    /// A reload read `disk` (empty when the file is absent or could not be
    /// read; `error` says why) at `signature`. The file's entries become
    /// `base`, unless the domain was replaced (what replaced it stays until
    /// it is written). Returns the changes observers hear of (`diskChanges`
    /// less the keys pending) and whether reads see other values: always on
    /// a first load (not `reporting`), so the entry count is published.
    mutating func finishReload(disk: [LiteralString: PropertyList], signature: FileSignature?, format: PropertyListFormat?,
                               error: StorageError?, diskChanges: [LiteralString: DomainChange.Values], reporting: Bool)
        -> (changes: [LiteralString: DomainChange.Values], publish: Bool)
    {
        defer { _checkInvariantsAfterChange() }
        var changes: [LiteralString: DomainChange.Values] = [:]
        var publish = false
        if replaced == nil {
            base = disk
            recount()
            changes = pending.hiding(diskChanges)
            publish = !changes.isEmpty || !reporting
        }
        self.signature = signature
        if let format { self.format = format }
        lastError = error
        return (changes, publish)
    }
}
