/// Byte classes shared by the text readers and writers.
enum ASCII {
    @inline(__always) static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x0B || c == 0x0C
    }
    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
    @inline(__always) static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 }
    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

extension Array where Element == UInt8 {
    @inline(__always) mutating func append(ascii s: StaticString) {
        s.withUTF8Buffer { append(contentsOf: $0) }
    }
    @inline(__always) mutating func append(string s: String) {
        var s = s
        s.withUTF8 { append(contentsOf: $0) }
    }
    mutating func append(tabs n: Int) {
        for _ in 0..<n { append(0x09) }
    }
    mutating func append(spaces n: Int) {
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
            append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[i...]))
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

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for bodies that throw ``PropertyListError``.
    @inline(__always)
    func withTypedBytes<T>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> T) throws(PropertyListError) -> T {
        let r: Result<T, PropertyListError> = withUnsafeBytes { b in Result { () throws(PropertyListError) in try body(b) } }
        return try r.get()
    }
}
