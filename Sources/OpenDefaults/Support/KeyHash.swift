/// The hash of a string key used by the module's open-addressing tables
/// (``ProbeTable``): a seeded multiply-xor over the UTF-8 bytes, eight at a
/// time, with a 64-bit final mix. Swift's `Dictionary` hashes with SipHash,
/// which costs as much as the rest of a read of a defaults value; this costs
/// a few nanoseconds for a short key (a byte at a time it was about 3% of a
/// durable `set`, issue 42).
enum KeyHash {
    /// Random per process, so that keys in a hostile file cannot be chosen to collide.
    static let seed: UInt64 = UInt64.random(in: 0...UInt64.max) | 1

    /// Seeded multiply-xor over the UTF-8 bytes eight at a time (the last word zero-padded,
    /// the length mixed in), then a 64-bit finalizer (murmur3's). A key of up to eight bytes is
    /// one step: a multiply by an odd number is a bijection, so two such keys of one length
    /// never share a hash before the finalizer, which is a bijection too.
    @inline(__always)
    static func hash(_ key: String) -> UInt64 {
        if let done = key.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) { return done }
        var key = key
        return key.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        let count = bytes.count
        var i = 0
        while i + 8 <= count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* prime
            h = h ^ (h >> 29)
            i += 8
        }
        if i < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* prime
        }
        h ^= UInt64(count) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }
}
