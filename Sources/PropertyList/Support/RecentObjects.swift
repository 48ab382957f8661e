/// A direct-mapped table from a 16-byte identity to an object number: the
/// binary writer's memory of the strings and numbers it met lately.
///
/// A slot holds the last identity that mapped to it; a lookup compares the
/// whole identity, so it never answers wrongly, and a miss (a collision, even
/// one an input arranges) only sends the writer to its hashed tables.
struct RecentObjects {
    private var keys: [(UInt64, UInt64)]
    private var ids: [Int]
    private static let bits = 12

    init() {
        keys = Array(repeating: (0, 0), count: 1 << Self.bits)
        ids = Array(repeating: -1, count: 1 << Self.bits)
    }

    /// A string's two words: its UTF-8 bytes and count when short (held
    /// inline), else its count and storage; equal words are equal strings.
    static func representation(of s: String) -> (UInt64, UInt64) {
        MemoryLayout<String>.size == 16 ? unsafeBitCast(s, to: (UInt64, UInt64).self) : (0, 0)
    }

    @inline(__always)
    private static func slot(_ key: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: (((key.0 &* 0x9E37_79B9_7F4A_7C15) ^ key.1) &* 0xBF58_476D_1CE4_E5B9) >> (64 - UInt64(bits)))
    }

    subscript(key: (UInt64, UInt64)) -> Int? {
        get {
            guard key != (0, 0) else { return nil }
            let i = Self.slot(key)
            return keys[i] == key && ids[i] >= 0 ? ids[i] : nil
        }
        set {
            guard key != (0, 0), let newValue else { return }
            let i = Self.slot(key)
            keys[i] = key
            ids[i] = newValue
        }
    }
}
