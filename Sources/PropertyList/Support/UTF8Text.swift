/// Strings from UTF-8 bytes, fast for the common all-ASCII case.
enum UTF8Text {
    /// True when every byte is below 0x80 (checked eight bytes at a time).
    @inline(__always)
    static func isASCII(_ b: UnsafeRawBufferPointer) -> Bool {
        guard let base = b.baseAddress else { return true }
        var i = 0
        let n = b.count
        while i + 8 <= n {
            if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if b[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The string the bytes spell, or nil when they are not valid UTF-8.
    ///
    /// Text that is not ASCII is decoded with repair (the standard library's
    /// fast, specialized path) and then compared with the bytes: a repair
    /// writes U+FFFD where an ill-formed sequence was, so the two differ
    /// exactly when the bytes are not UTF-8. `String(validating:as:)` takes
    /// a generic path with run-time metadata lookups (about 1% of a JSON
    /// read's samples in a profile; proposal 0019).
    @inline(__always)
    static func string(_ b: UnsafeRawBufferPointer) -> String? {
        var s = String(decoding: b, as: UTF8.self)
        if isASCII(b) { return s }
        let same = s.withUTF8 { decoded in
            decoded.count == b.count && UnsafeRawBufferPointer(decoded).elementsEqual(b)
        }
        return same ? s : nil
    }
}
