extension Dictionary where Key == LiteralString {
    /// The positions of the entries in key order (``LiteralString``'s
    /// literal order), as the writers emit them: sorting positions moves no
    /// keys or values, and reading an entry at a position hashes nothing.
    func sortedIndices() -> [Index] {
        indices.sorted { KeyOrder.less(self[$0].key.string, self[$1].key.string) }
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

    @inline(__always)
    static func less(_ a: String, _ b: String) -> Bool {
        if layoutIsKnown {
            let x = unsafeBitCast(a, to: (UInt64, UInt64).self)
            let y = unsafeBitCast(b, to: (UInt64, UInt64).self)
            if x.1 >> 60 == 0xE, y.1 >> 60 == 0xE {
                let x0 = x.0.byteSwapped, y0 = y.0.byteSwapped
                if x0 != y0 { return x0 < y0 }
                let x1 = (x.1 & 0x00FF_FFFF_FFFF_FFFF).byteSwapped, y1 = (y.1 & 0x00FF_FFFF_FFFF_FFFF).byteSwapped
                if x1 != y1 { return x1 < y1 }
                // Equal bytes up to the shorter one's end (NULs pad the rest).
                return (x.1 >> 56) & 0xF < (y.1 >> 56) & 0xF
            }
        }
        return LiteralString.compare(a, b) < 0
    }
}
