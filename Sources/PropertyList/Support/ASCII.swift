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
    /// `withUnsafeBytes` for bodies that throw ``PropertyListError``.
    @inline(__always)
    func withTypedBytes<T>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> T) throws(PropertyListError) -> T {
        let r: Result<T, PropertyListError> = withUnsafeBytes { b in Result { () throws(PropertyListError) in try body(b) } }
        return try r.get()
    }
}
