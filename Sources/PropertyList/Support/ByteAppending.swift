/// Where the writers put bytes: an array, or a ``ByteOutput`` on the paths
/// that write whole documents.
package protocol ByteAppending: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(bytes: UnsafeRawBufferPointer)
    /// Room for `n` more bytes (a hint: appending works without it).
    mutating func reserve(_ n: Int)
}

extension Array: ByteAppending where Element == UInt8 {
    @inline(__always)
    package mutating func append(bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
    /// Nothing: `reserveCapacity` for every piece would copy the array each time.
    @inline(__always)
    package mutating func reserve(_ n: Int) {}
}

extension ByteAppending where Self: ~Copyable {
    @inline(__always) mutating func append(ascii s: StaticString) {
        append(bytes: UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
    @inline(__always) mutating func append(string s: String) {
        var s = s
        s.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
    }
    mutating func append(tabs n: Int) {
        reserve(n)
        for _ in 0..<n { append(0x09) }
    }
    mutating func append(spaces n: Int) {
        reserve(n)
        for _ in 0..<n { append(0x20) }
    }
    /// Appends the decimal digits of `v`.
    mutating func append(decimal v: Int64) {
        if v < 0 {
            append(UInt8(ascii: "-"))
            append(decimal: v.magnitude)
        } else {
            append(decimal: UInt64(v))
        }
    }
    mutating func append(decimal v: UInt64) {
        if v < 10 { append(0x30 + UInt8(v)); return }
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch
        Swift.withUnsafeMutableBytes(of: &tmp) { buf in
            var n = v
            var i = 24
            while n > 0 {
                i -= 1
                buf[i] = 0x30 + UInt8(n % 10)
                n /= 10
            }
            append(bytes: UnsafeRawBufferPointer(rebasing: buf[i...]))
        }
    }
    /// Appends `v` in decimal, at least `width` digits, zero-padded.
    mutating func append(padded v: Int, width: Int) {
        var digits = 1
        var p = 10
        while p <= v { digits += 1; p *= 10 }
        if digits < width { for _ in digits..<width { append(0x30) } }
        append(decimal: UInt64(v))
    }
}
