/// Strings kept once each, by their exact UTF-8 bytes, numbered from 0 in
/// the order they were first met: the XML-to-binary transcoder's strings
/// (``BinaryFromXML``).
///
/// Two strings are the same string when their bytes are the same: for valid
/// UTF-8 that is equality of code points, ``LiteralString``'s equality (no
/// canonical equivalence). The bytes of every string are kept one after
/// another in one buffer.
///
/// A string of 1 to 15 bytes is looked up first in ``RecentObjects`` by its
/// bytes themselves (two words, the count in the last byte), which is exact
/// and hashes nothing: most keys and many values recur. Otherwise the bytes
/// are hashed with the standard library's `Hasher` (seeded per process), so
/// an input cannot choose strings that share slots.
struct StringTable {
    /// The strings' bytes, one after another.
    private(set) var bytes: [UInt8] = []
    /// String `k` is `bytes[starts[k]..<starts[k + 1]]`.
    private var starts: [Int] = [0]
    /// Whether string `k` is all ASCII.
    private var ascii: [Bool] = []
    /// String numbers by hash, open addressing; -1 marks an empty slot.
    private var slots: [Int32] = Array(repeating: -1, count: 64)
    /// The hash of each slot's string (its low 32 bits), compared before the bytes.
    private var slotHashes: [UInt32] = Array(repeating: 0, count: 64)
    private var recent = RecentObjects()

    /// Reserves room for `byteCount` bytes of strings (large pages advised for a new table's).
    mutating func reserveCapacity(_ byteCount: Int) {
        if bytes.isEmpty { bytes = .reservingLargeCapacity(byteCount) } else { bytes.reserveCapacity(byteCount) }
    }

    /// How many strings there are.
    var count: Int { ascii.count }

    /// The bytes of string `k`.
    @inline(__always)
    func withBytes<R>(of k: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { all in body(UnsafeRawBufferPointer(rebasing: all[starts[k]..<starts[k + 1]])) }
    }

    /// Whether string `k` is all ASCII.
    @inline(__always)
    func isASCII(_ k: Int) -> Bool { ascii[k] }

    /// Strings `a` and `b` in ``LiteralString``'s order: negative, zero or positive.
    func compare(_ a: Int, _ b: Int) -> Int {
        bytes.withUnsafeBufferPointer { all in
            LiteralString.compareUTF8(
                UnsafeBufferPointer(rebasing: all[starts[a]..<starts[a + 1]]),
                UnsafeBufferPointer(rebasing: all[starts[b]..<starts[b + 1]]))
        }
    }

    /// The number of the string `text` spells (added when new), or nil when
    /// `text` is not UTF-8.
    mutating func intern(_ text: UnsafeRawBufferPointer) -> Int? {
        let n = text.count
        var short: (UInt64, UInt64) = (0, 0)
        if n > 0, n < 16 {
            withUnsafeMutableBytes(of: &short) { $0.copyMemory(from: text) }
            short.1 |= UInt64(n) << 56
            if let k = recent[short] { return k }
        }
        var hasher = Hasher()
        hasher.combine(bytes: text)
        let hash = hasher.finalize()
        let h32 = UInt32(truncatingIfNeeded: hash)
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: UInt(bitPattern: hash) >> 7) & mask
        while true {
            let k = Int(slots[s])
            if k < 0 { break }
            if slotHashes[s] == h32, same(k, text) {
                if n > 0, n < 16 { recent[short] = k }
                return k
            }
            s = (s + 1) & mask
        }
        let isASCII = UTF8Text.isASCII(text)
        if !isASCII, UTF8Text.string(text) == nil { return nil }
        let k = count
        bytes.append(contentsOf: text)
        starts.append(bytes.count)
        ascii.append(isASCII)
        slots[s] = Int32(truncatingIfNeeded: k)
        slotHashes[s] = h32
        if 2 * count > slots.count { grow() }
        if n > 0, n < 16 { recent[short] = k }
        return k
    }

    @inline(__always)
    private func same(_ k: Int, _ text: UnsafeRawBufferPointer) -> Bool {
        let start = starts[k]
        guard starts[k + 1] - start == text.count else { return false }
        return bytes.withUnsafeBytes { all in
            text.count == 0 || memcmpEqual(all.baseAddress! + start, text.baseAddress!, text.count)
        }
    }

    private mutating func grow() {
        let n = 2 * slots.count
        var newSlots = [Int32](repeating: -1, count: n)
        var newHashes = [UInt32](repeating: 0, count: n)
        let mask = n - 1
        for k in 0..<count {
            var hasher = Hasher()
            withBytes(of: k) { hasher.combine(bytes: $0) }
            let hash = hasher.finalize()
            var s = Int(truncatingIfNeeded: UInt(bitPattern: hash) >> 7) & mask
            while newSlots[s] >= 0 { s = (s + 1) & mask }
            newSlots[s] = Int32(truncatingIfNeeded: k)
            newHashes[s] = UInt32(truncatingIfNeeded: hash)
        }
        slots = newSlots
        slotHashes = newHashes
    }

    /// Every string is found by its own bytes, as itself, and the table is at most half full.
    func _checkInvariants() {
        precondition(starts.count == count + 1 && starts.last == bytes.count, "StringTable: starts do not end at the bytes' end")
        precondition(2 * count <= slots.count, "StringTable: more than half full")
        var copy = self
        for k in 0..<count {
            let found = withBytes(of: k) { text in copy.intern(text) }
            precondition(found == k, "StringTable: string \(k) is found as \(String(describing: found))")
        }
        precondition(copy.count == count, "StringTable: looking strings up added some")
    }
}

/// Whether `n` bytes at `a` and `b` are equal.
@inline(__always)
private func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    var i = 0
    while i + 8 <= n {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i += 8
    }
    while i < n {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
