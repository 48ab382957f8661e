extension Dictionary where Key == LiteralString {
    /// The positions of the entries in key order (``LiteralString``'s
    /// literal order), as the writers emit them: sorting positions moves no
    /// keys or values, and reading an entry at a position hashes nothing.
    func sortedIndices() -> [Index] {
        // Keys that are all short ASCII (most documents' keys) sort as pairs
        // of words (``KeyOrder/words(_:)``), read once per key.
        if KeyOrder.layoutIsKnown {
            let sorted: [Index]? = withUnsafeTemporaryAllocation(of: (UInt64, UInt64, Index).self, capacity: count) { buffer in
                var n = 0
                for i in indices {
                    guard let w = KeyOrder.words(keys[i].string) else { return nil }
                    buffer.initializeElement(at: n, to: (w.0, w.1, i))
                    n += 1
                }
                var entries = UnsafeMutableBufferPointer(rebasing: buffer[..<n])
                defer { entries.deinitialize() }
                entries.sort { ($0.0, $0.1) < ($1.0, $1.1) }
                return entries.map { $0.2 }
            }
            if let sorted { return sorted }
        }
        return indices.sorted { KeyOrder.less(keys[$0].string, keys[$1].string) }
    }
}

/// ``LiteralString``'s order with a fast path for the keys most documents
/// have: two short ASCII strings, held inline in their 16 bytes, compare as
/// two big-endian words without reading them through `utf8`.
///
/// The inline layout (UTF-8 bytes 0…14, a discriminator byte whose top
/// nibble is `0xE` for ASCII and whose low nibble is the count) is the
/// standard library's on 64-bit platforms; ``layoutIsKnown`` checks it on a
/// known string once, and without it every comparison takes the general path.
enum KeyOrder {
    static let layoutIsKnown: Bool = {
        guard MemoryLayout<String>.size == 16 else { return false }
        var s = "a"
        s += "b"  // made at run time, not a literal
        let raw = unsafeBitCast(s, to: (UInt64, UInt64).self)
        return raw == (0x6261, 0xE200_0000_0000_0000)
    }()

    /// Two words that order a short ASCII string as ``LiteralString`` does:
    /// its bytes big-endian, the count in the last byte (after the NULs
    /// that pad a shorter string); nil for any other string.
    @inline(__always)
    static func words(_ s: String) -> (UInt64, UInt64)? {
        let x = unsafeBitCast(s, to: (UInt64, UInt64).self)
        guard x.1 >> 60 == 0xE else { return nil }
        return (x.0.byteSwapped, (x.1 & 0x00FF_FFFF_FFFF_FFFF).byteSwapped | (x.1 >> 56) & 0xF)
    }

    @inline(__always)
    static func less(_ a: String, _ b: String) -> Bool {
        if layoutIsKnown, let x = words(a), let y = words(b) { return x < y }
        return LiteralString.compare(a, b) < 0
    }
}
