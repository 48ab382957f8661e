import PropertyList

/// This process's changes to a domain that are not on disk yet: for each
/// key, its newest value (nil removes the key) and that change's place in
/// the domain's order of writes.
///
/// The domain's values are the file's contents with these on top, so a
/// write touches only this table, whatever the size of the domain: the
/// contents themselves are never changed in place, and a flush can hold
/// them while it writes without making the next write copy them. The table
/// hashes with ``KeyHash``, not SipHash: recording a change is the whole
/// cost of a write to the domain.
struct PendingChanges: Sendable {
    /// One key's newest change.
    struct Change: Sendable {
        var value: PropertyList?
        var sequence: UInt64
    }

    /// The changes by key.
    var table = ProbeTable<Change>()
    /// The newest sequence recorded (0 when none ever was).
    private(set) var lastSequence: UInt64 = 0

    init() {}

    /// True when nothing is waiting to be written.
    var isEmpty: Bool { table.count == 0 }

    /// The number of keys changed.
    var count: Int { table.count }

    /// Every change, in no particular order.
    var changes: [(key: String, change: Change)] { table.entries.map { ($0.key, $0.value) } }

    /// Records a change (sequences must increase) and returns the change it
    /// replaced: `.some(nil)` when a removal was pending, nil when the key
    /// had no pending change.
    @inline(__always)
    mutating func record(_ key: String, _ value: PropertyList?, sequence: UInt64) -> PropertyList?? {
        record(key, hash: KeyHash.hash(key), value, sequence: sequence)
    }

    /// ``record(_:_:sequence:)`` with the key's ``KeyHash`` already computed.
    @inline(__always)
    mutating func record(_ key: String, hash: UInt64, _ value: consuming PropertyList?, sequence: UInt64) -> PropertyList?? {
        lastSequence = sequence
        // The new value is swapped into the entry and the old one out of it: no `Change` built
        // and destroyed, one copy of the value fewer (callgrind: 74 instructions of a `set`).
        var value = consume value
        return table.modify(key, hash: hash, inserting: { Change(value: value, sequence: sequence) }) { change in
            swap(&change.value, &value)
            change.sequence = sequence
            return value
        }
    }

    /// The pending value of `key`: `.some(nil)` for a pending removal, nil
    /// when the key has no pending change.
    @inline(__always)
    func value(forKey key: String) -> PropertyList?? {
        if table.count == 0 { return nil }
        return table.get(key, hash: KeyHash.hash(key)).map(\.value)
    }

    /// Applies the changes to `values`.
    func apply(to values: inout [LiteralString: PropertyList]) {
        for entry in table.entries { values[entry.key] = entry.value.value }
    }

    /// Whether applying the changes to `base` leaves it as it is (each sets the value the key
    /// has, or removes a key that is absent).
    func changesNothing(in base: [LiteralString: PropertyList]) -> Bool {
        table.entries.allSatisfy { base[$0.key] == $0.value.value }
    }

    /// `base` with the changes applied (`base` itself when there are none).
    func applied(to base: [LiteralString: PropertyList]) -> [LiteralString: PropertyList] {
        if isEmpty { return base }
        var values = base
        apply(to: &values)
        return values
    }

    /// The changes found on disk that reads see: those of keys without a
    /// pending change (such a key reads as this process set it).
    func hiding(_ diskChanges: [LiteralString: DomainChange.Values]) -> [LiteralString: DomainChange.Values] {
        if isEmpty { return diskChanges }
        return diskChanges.filter { value(forKey: $0.key.string) == nil }
    }

    /// Forgets the changes up to and including `sequence` (they are written);
    /// a key changed again since keeps its newer change.
    mutating func removeThrough(_ sequence: UInt64) {
        guard table.count > 0 else { return }
        var kept = ProbeTable<Change>()
        for entry in table.entries where entry.value.sequence > sequence {
            kept.set(entry.key, hash: entry.hash, entry.value)
        }
        table = kept
    }

    /// Forgets every change.
    mutating func removeAll() {
        table = ProbeTable()
    }
}
