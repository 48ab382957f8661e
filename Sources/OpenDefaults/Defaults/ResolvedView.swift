package import PropertyList

/// The effective value of every key of a ``Defaults`` object, in an
/// open-addressing table.
///
/// Reads are the hot path of the defaults system, and every write in the
/// search list updates one entry here. Swift's `Dictionary` hashes a key
/// with SipHash, which costs as much as the rest of a read; the table hashes
/// with ``KeyHash`` (seeded FNV-1a), and a typed key brings its hash
/// precomputed. The whole view as a dictionary (`dictionaryRepresentation()`)
/// is built when asked for and kept until the next change.
package struct ResolvedView: @unchecked Sendable {
    private var table = ProbeTable<PropertyList>()
    /// The view as a dictionary, built on demand; nil after a change.
    private var snapshot: [LiteralString: PropertyList]? = nil

    init() {}

    init(_ dictionary: [LiteralString: PropertyList]) {
        table.reserve(dictionary.count)
        for (key, value) in dictionary { table.set(key.string, hash: KeyHash.hash(key.string), value) }
        snapshot = dictionary
    }

    package subscript(key: String) -> PropertyList? {
        get { table.get(key, hash: KeyHash.hash(key)) }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    @inline(__always)
    func value(forKey key: String, hash: UInt64) -> PropertyList? { table.get(key, hash: hash) }

    @discardableResult
    mutating func updateValue(_ value: consuming PropertyList, forKey key: String, hash: UInt64? = nil) -> PropertyList? {
        snapshot = nil
        return table.set(key, hash: hash ?? KeyHash.hash(key), value)
    }

    @discardableResult
    mutating func removeValue(forKey key: String, hash: UInt64? = nil) -> PropertyList? {
        snapshot = nil
        return table.remove(key, hash: hash ?? KeyHash.hash(key))
    }

    /// Every key.
    package var keys: [LiteralString] { table.entries.map { LiteralString($0.key) } }

    /// The view as a dictionary (built once per change).
    package mutating func dictionary() -> [LiteralString: PropertyList] {
        if let snapshot { return snapshot }
        var built: [LiteralString: PropertyList] = [:]
        built.reserveCapacity(table.count)
        for entry in table.entries { built[entry.key] = entry.value }
        snapshot = built
        return built
    }
}
