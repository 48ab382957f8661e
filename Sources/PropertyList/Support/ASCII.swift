/// Byte classes shared by the text readers and writers.
enum ASCII {
    /// Space, tab, newline, carriage return, vertical tab or form feed: one
    /// comparison and one bit of a mask (the readers skip indentation with it).
    @inline(__always) static func isSpace(_ c: UInt8) -> Bool {
        let mask: UInt64 = 1 << 0x20 | 1 << 0x0A | 1 << 0x0D | 1 << 0x09 | 1 << 0x0B | 1 << 0x0C
        return c <= 0x20 && (mask >> UInt64(c)) & 1 != 0
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
    /// `withUnsafeBytes` for bodies that throw ``PropertyListError``.
    @inline(__always)
    func withTypedBytes<T>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> T) throws(PropertyListError) -> T {
        let r: Result<T, PropertyListError> = withUnsafeBytes { b in Result { () throws(PropertyListError) in try body(b) } }
        return try r.get()
    }
}
