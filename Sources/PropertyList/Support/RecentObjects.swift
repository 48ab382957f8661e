/// A direct-mapped table from a 16-byte identity to an object number: the
/// binary writer's memory of the strings and numbers it met lately.
///
/// A slot holds the last identity that mapped to it; a lookup compares the
/// whole identity, so it never answers wrongly, and a miss (a collision, even
/// one an input arranges) only sends the writer to its hashed tables.
///
/// It starts small and grows with the document (to 4,096 slots): a small
/// value (a sync server validates every one it is sent) must not pay for
/// zeroing a large table, which also costs page faults when the block is
/// mapped fresh. Growing forgets what the slots held: they are only a cache.
/// 32 slots to start: their 512 bytes of identities stay in glibc's
/// per-thread cache (blocks up to 1,032 bytes), where 64 slots' 1,024 bytes
/// and the array's header did not, and each such allocation first merged the
/// arena's free fast blocks (`malloc_consolidate`: about 1 µs of a sync
/// server's commit, proposal 0019).
struct RecentObjects {
    private var keys: [(UInt64, UInt64)]
    private var ids: [Int]
    private var bits = Self.initialBits
    /// Identities recorded since the table last grew.
    private var recorded = 0
    static let initialBits = 5
    static let maximumBits = 12

    init() {
        keys = Array(repeating: (0, 0), count: 1 << Self.initialBits)
        ids = Array(repeating: -1, count: 1 << Self.initialBits)
    }

    /// The number of slots (tests).
    var slotCount: Int { ids.count }

    /// A string's two words: its UTF-8 bytes and count when short (held
    /// inline), else its count and storage; equal words are equal strings.
    static func representation(of s: String) -> (UInt64, UInt64) {
        MemoryLayout<String>.size == 16 ? unsafeBitCast(s, to: (UInt64, UInt64).self) : (0, 0)
    }

    @inline(__always)
    private func slot(_ key: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: (((key.0 &* 0x9E37_79B9_7F4A_7C15) ^ key.1) &* 0xBF58_476D_1CE4_E5B9) >> (64 - UInt64(bits)))
    }

    /// Four times the slots, emptied, once as many identities were recorded as there are slots.
    private mutating func grow() {
        bits = Swift.min(bits + 2, Self.maximumBits)
        recorded = 0
        keys = Array(repeating: (0, 0), count: 1 << bits)
        ids = Array(repeating: -1, count: 1 << bits)
    }

    subscript(key: (UInt64, UInt64)) -> Int? {
        get {
            guard key != (0, 0) else { return nil }
            let i = slot(key)
            return keys[i] == key && ids[i] >= 0 ? ids[i] : nil
        }
        set {
            guard key != (0, 0), let newValue else { return }
            if bits < Self.maximumBits {
                recorded += 1
                if recorded > ids.count { grow() }
            }
            let i = slot(key)
            keys[i] = key
            ids[i] = newValue
        }
    }
}
