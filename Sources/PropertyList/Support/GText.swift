/// A `%g` text of at most 32 bytes, built on the stack.
struct GText {
    private var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count = 0

    mutating func append(_ b: UInt8) {
        withUnsafeMutableBytes(of: &bytes) { $0[count] = b }
        count += 1
    }

    func append<O: ByteAppending & ~Copyable>(to out: inout O) {
        withUnsafeBytes(of: bytes) { out.append(bytes: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Whether the text parses back to exactly `v` (through the text readers' own
    /// `NumberParsing.real`, which reads most `%.15g` texts without `strtod`).
    func readsBack(as v: Double) -> Bool {
        withUnsafeBytes(of: bytes) { NumberParsing.real(UnsafeRawBufferPointer(rebasing: $0[..<count])) == v }
    }
}
