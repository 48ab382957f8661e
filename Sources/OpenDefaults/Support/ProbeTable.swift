import PropertyList

/// An open-addressing table of string keys hashed with ``KeyHash``.
///
/// Linear probing with backward-shift deletion; at most half full.
/// ``_checkInvariants()`` states what that means; debug builds check its
/// O(1) part after every change (see ``_checkInvariantsAfterChange()``).
struct ProbeTable<Value> {
    struct Entry {
        let hash: UInt64
        let key: String
        var value: Value
    }

    private var slots: [Entry?] = [Entry?](repeating: nil, count: 8)
    private(set) var count = 0
    private var mask: Int { slots.count - 1 }

    mutating func reserve(_ n: Int) {
        var capacity = slots.count
        while capacity < 2 * n { capacity <<= 1 }
        if capacity > slots.count { rehash(capacity) }
    }

    @inline(__always)
    func get(_ key: String, hash: UInt64) -> Value? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[i] {
            if entry.hash == hash, LiteralString.equal(entry.key, key) { return entry.value }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Every entry, in table order.
    var entries: some Sequence<Entry> { slots.lazy.compactMap { $0 } }

    /// Sets the value of `key`; returns the value it replaced.
    @discardableResult
    mutating func set(_ key: String, hash: UInt64, _ value: Value) -> Value? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[i] {
            if entry.hash == hash, LiteralString.equal(entry.key, key) {
                let old = entry.value
                slots[i]!.value = value
                return old
            }
            i = (i + 1) & mask
        }
        slots[i] = Entry(hash: hash, key: key, value: value)
        count += 1
        if 2 * count > slots.count { rehash(slots.count * 2) }
        _checkInvariantsAfterChange()
        return nil
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func remove(_ key: String, hash: UInt64) -> Value? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[i] {
            if entry.hash == hash, LiteralString.equal(entry.key, key) { break }
            i = (i + 1) & mask
        }
        guard let removed = slots[i] else { return nil }
        slots[i] = nil
        count -= 1
        // Backward shift: move later entries of the run into the hole when
        // their home slot does not lie cyclically in (hole, current].
        var hole = i
        var j = (i + 1) & mask
        while let entry = slots[j] {
            let home = Int(truncatingIfNeeded: entry.hash) & mask
            let inBetween = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !inBetween {
                slots[hole] = entry
                slots[j] = nil
                hole = j
            }
            j = (j + 1) & mask
        }
        _checkInvariantsAfterChange()
        return removed.value
    }

    private mutating func rehash(_ capacity: Int) {
        let old = slots
        slots = [Entry?](repeating: nil, count: capacity)
        count = 0
        for case let entry? in old {
            var i = Int(truncatingIfNeeded: entry.hash) & mask
            while slots[i] != nil { i = (i + 1) & mask }
            slots[i] = entry
            count += 1
        }
    }
}

extension ProbeTable {
    /// What every operation relies on, checked slot by slot (O(capacity)):
    /// the capacity is a power of two at least 8; `count` is the number of
    /// occupied slots, at most half the capacity; each entry's hash is its
    /// key's ``KeyHash``; each entry is reached from its home slot without
    /// crossing an empty slot (what `get` and backward-shift deletion
    /// assume); no key is in two slots.
    func _checkInvariants() {
        _checkShape()
        var occupied = 0
        var seen = Set<LiteralString>()
        for (i, slot) in slots.enumerated() {
            guard let entry = slot else { continue }
            occupied += 1
            precondition(entry.hash == KeyHash.hash(entry.key), "ProbeTable: slot \(i) holds a hash that is not its key's")
            precondition(seen.insert(LiteralString(entry.key)).inserted, "ProbeTable: a key is in two slots (slot \(i))")
            var j = Int(truncatingIfNeeded: entry.hash) & mask
            while j != i {
                precondition(slots[j] != nil, "ProbeTable: slot \(i) is cut off from its home slot by an empty slot \(j)")
                j = (j + 1) & mask
            }
        }
        precondition(occupied == count, "ProbeTable: count \(count) but \(occupied) slots occupied")
    }

    /// The O(1) part: a power-of-two capacity of at least 8, at most half full.
    func _checkShape() {
        precondition(slots.count >= 8 && slots.count.nonzeroBitCount == 1, "ProbeTable: capacity \(slots.count) is not a power of two ≥ 8")
        precondition(count >= 0 && 2 * count <= slots.count, "ProbeTable: \(count) entries in \(slots.count) slots is more than half full")
    }

    /// Run after every change in debug builds: the O(1) part of
    /// ``_checkInvariants()`` (``_checkShape()``); the whole check too, for
    /// tables of at most 256 slots, when built with
    /// `-Xswiftc -DOPENDEFAULTS_INTERNAL_CHECKS` (as swift-collections'
    /// `COLLECTIONS_INTERNAL_CHECKS`: a full check per change would slow
    /// every debug run; the model tests call the whole check themselves).
    @inline(__always)
    func _checkInvariantsAfterChange() {
        #if DEBUG
        _checkShape()
        #if OPENDEFAULTS_INTERNAL_CHECKS
        if slots.count <= 256 { _checkInvariants() }
        #endif
        #endif
    }
}

extension ProbeTable: Sendable where Value: Sendable {}
extension ProbeTable.Entry: Sendable where Value: Sendable {}
