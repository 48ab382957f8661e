import PropertyList

/// The effective value of every key of a ``Defaults`` object: a dictionary
/// for iteration and `dictionaryRepresentation()`, mirrored in an
/// open-addressing table for reads.
///
/// Reads are the hot path of the defaults system. Swift's `Dictionary`
/// hashes a key with SipHash, which costs as much as the rest of a read;
/// the table hashes with seeded FNV-1a and a final mix, and a typed key
/// brings its hash precomputed. The seed is random per process, so keys in a
/// hostile file cannot be chosen to collide.
struct ResolvedView {
    private(set) var dictionary: [String: PropertyList] = [:]
    private var table = ProbeTable()

    init() {}

    init(_ dictionary: [String: PropertyList]) {
        self.dictionary = dictionary
        table.reserve(dictionary.count)
        for (key, value) in dictionary { table.set(key, hash: Self.hash(key), value) }
    }

    subscript(key: String) -> PropertyList? {
        get { table.get(key, hash: Self.hash(key)) }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    @inline(__always)
    func value(forKey key: String, hash: UInt64) -> PropertyList? { table.get(key, hash: hash) }

    @discardableResult
    mutating func updateValue(_ value: PropertyList, forKey key: String) -> PropertyList? {
        table.set(key, hash: Self.hash(key), value)
        return dictionary.updateValue(value, forKey: key)
    }

    @discardableResult
    mutating func removeValue(forKey key: String) -> PropertyList? {
        table.remove(key, hash: Self.hash(key))
        return dictionary.removeValue(forKey: key)
    }

    var keys: Dictionary<String, PropertyList>.Keys { dictionary.keys }

    // MARK: Hashing

    static let seed: UInt64 = UInt64.random(in: 0...UInt64.max) | 1

    /// Seeded FNV-1a over the UTF-8 bytes, then a 64-bit finalizer (murmur3's).
    @inline(__always)
    static func hash(_ key: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        if let done = key.utf8.withContiguousStorageIfAvailable({ bytes -> UInt64 in
            var h = h
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            return h
        }) {
            h = done
        } else {
            for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        }
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }
}

/// Linear probing with backward-shift deletion; at most half full.
struct ProbeTable {
    struct Entry {
        let hash: UInt64
        let key: String
        var value: PropertyList
    }

    private var slots: [Entry?] = [Entry?](repeating: nil, count: 8)
    private var count = 0
    private var mask: Int { slots.count - 1 }

    mutating func reserve(_ n: Int) {
        var capacity = slots.count
        while capacity < 2 * n { capacity <<= 1 }
        if capacity > slots.count { rehash(capacity) }
    }

    @inline(__always)
    func get(_ key: String, hash: UInt64) -> PropertyList? {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[i] {
            if entry.hash == hash, entry.key == key { return entry.value }
            i = (i + 1) & mask
        }
        return nil
    }

    mutating func set(_ key: String, hash: UInt64, _ value: PropertyList) {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[i] {
            if entry.hash == hash, entry.key == key {
                slots[i]!.value = value
                return
            }
            i = (i + 1) & mask
        }
        slots[i] = Entry(hash: hash, key: key, value: value)
        count += 1
        if 2 * count > slots.count { rehash(slots.count * 2) }
    }

    mutating func remove(_ key: String, hash: UInt64) {
        var i = Int(truncatingIfNeeded: hash) & mask
        while let entry = slots[i] {
            if entry.hash == hash, entry.key == key { break }
            i = (i + 1) & mask
        }
        guard slots[i] != nil else { return }
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
