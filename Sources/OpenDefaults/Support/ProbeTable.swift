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

    var slots: [Entry?] = [Entry?](repeating: nil, count: 8)
    private(set) var count = 0
    var mask: Int { slots.count - 1 }

    mutating func reserve(_ n: Int) {
        var capacity = slots.count
        while capacity < 2 * n { capacity <<= 1 }
        if capacity > slots.count { rehash(capacity) }
    }

    // Probing reads a slot's hash through `slots[i]?.hash`, not `while let
    // entry = slots[i]`: binding the entry copies its key and value (a
    // retain, and an outlined copy and destroy of the value) at every probe.
    @inline(__always)
    func get(_ key: String, hash: UInt64) -> Value? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let h = slots[i]?.hash {
            if h == hash, LiteralString.equal(slots[i].unsafelyUnwrapped.key, key) { return slots[i].unsafelyUnwrapped.value }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Every entry, in table order.
    var entries: some Sequence<Entry> { slots.lazy.compactMap { $0 } }

    /// Sets the value of `key`; returns the value it replaced.
    @discardableResult
    mutating func set(_ key: String, hash: UInt64, _ value: consuming Value) -> Value? {
        // The new value moves in and the old one out, without a copy of either (`consuming`:
        // the caller's value is this one, not a copy of it made here).
        var value = consume value
        return modify(key, hash: hash, inserting: { value }) { old in
            swap(&value, &old)
            return value
        }
    }

    /// Changes the value of `key` in place with `body` and returns what it returns; when the key
    /// is absent, inserts `make()` and returns nil. Nothing is copied out of the table: ``set(_:hash:_:)``
    /// and the pending changes' write swap the new value in and the old one out of the entry itself.
    @inline(__always)
    mutating func modify<R>(_ key: String, hash: UInt64, inserting make: () -> Value, _ body: (inout Value) -> R) -> R? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let h = slots[i]?.hash {
            if h == hash, LiteralString.equal(slots[i].unsafelyUnwrapped.key, key) { return body(&slots[i]!.value) }
            i = (i + 1) & mask
        }
        slots[i] = Entry(hash: hash, key: key, value: make())
        count += 1
        if 2 * count > slots.count { rehash(slots.count * 2) }
        _checkInvariantsAfterChange()
        return nil
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func remove(_ key: String, hash: UInt64) -> Value? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let h = slots[i]?.hash {
            if h == hash, LiteralString.equal(slots[i].unsafelyUnwrapped.key, key) { break }
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

extension ProbeTable: Sendable where Value: Sendable {}
extension ProbeTable.Entry: Sendable where Value: Sendable {}
