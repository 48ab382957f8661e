/// The hash of a string key used by the module's open-addressing tables
/// (``ProbeTable``): seeded FNV-1a over the UTF-8 bytes with a 64-bit final
/// mix. Swift's `Dictionary` hashes with SipHash, which costs as much as the
/// rest of a read of a defaults value; this costs a few nanoseconds for a
/// short key.
enum KeyHash {
    /// Random per process, so that keys in a hostile file cannot be chosen to collide.
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
