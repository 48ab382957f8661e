import PropertyList

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
