import PropertyList

/// This process's changes to a domain that are not on disk yet, in the
/// order they were made.
///
/// A log rather than a dictionary: recording a change appends it, without
/// hashing the key with SipHash again (the domain's values have just done
/// so). A change of the key the last change was about replaces it (a slider
/// dragged, a counter counting). When the log grows past twice the number
/// of changes it held after its last folding (plus 64), it is folded to the
/// last change of each key, so its memory is bounded by the keys changed
/// however often each is written between flushes; the folding hashes with
/// ``KeyHash``, a few nanoseconds per change.
struct PendingChanges: Sendable {
    /// One change: the key's new value (nil removes it) and its place in the domain's order of writes.
    struct Change: Sendable {
        let key: String
        let value: PropertyList?
        let sequence: UInt64
    }

    /// The changes, oldest first (sequences increase).
    private(set) var changes: [Change] = []
    /// The length of the log after it was last folded.
    private var foldedCount = 0

    init() {}

    /// True when nothing is waiting to be written.
    var isEmpty: Bool { changes.isEmpty }

    /// The sequence of the newest change, 0 when there is none.
    var lastSequence: UInt64 { changes.last?.sequence ?? 0 }

    /// Records a change (sequences must increase).
    mutating func record(_ key: String, _ value: PropertyList?, sequence: UInt64) {
        let change = Change(key: key, value: value, sequence: sequence)
        if let last = changes.indices.last, changes[last].key == key {
            changes[last] = change
            return
        }
        changes.append(change)
        if changes.count > 2 * foldedCount + 64 { fold() }
    }

    /// Applies the changes, in order, to `values`.
    func apply(to values: inout [String: PropertyList]) {
        for change in changes { values[change.key] = change.value }
    }

    /// Forgets the changes up to and including `sequence` (they are written).
    mutating func removeThrough(_ sequence: UInt64) {
        let written = changes.prefix { $0.sequence <= sequence }.count
        if written > 0 { changes.removeFirst(written) }
        foldedCount = min(foldedCount, changes.count)
    }

    /// Forgets every change.
    mutating func removeAll() {
        changes.removeAll()
        foldedCount = 0
    }

    /// Keeps only the last change of each key, in order.
    private mutating func fold() {
        var last = ProbeTable<Int>()
        last.reserve(changes.count)
        var hashes: [UInt64] = []
        hashes.reserveCapacity(changes.count)
        for (i, change) in changes.enumerated() {
            let hash = KeyHash.hash(change.key)
            hashes.append(hash)
            last.set(change.key, hash: hash, i)
        }
        var folded: [Change] = []
        folded.reserveCapacity(last.count)
        for (i, change) in changes.enumerated() where last.get(change.key, hash: hashes[i]) == i { folded.append(change) }
        changes = folded
        foldedCount = folded.count
    }
}
