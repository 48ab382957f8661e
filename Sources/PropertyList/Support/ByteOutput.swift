import PlatformIO

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

/// An append-only byte buffer for writing a whole document.
///
/// The writers append a few bytes at a time (a tag, the tabs of a line, the
/// digits of a number). `[UInt8].append(contentsOf:)` pays a uniqueness and
/// capacity check and a generic copy per piece: a tenth of `plutil -convert
/// xml1` on the benchmarks' mixed file (proposal 0019). This buffer checks
/// its capacity once per piece and copies with `memcpy`, and grows with
/// `realloc` (``GrowableMemory``); it owns its memory
/// (not copyable) and hands the bytes over as an array at the end.
package struct ByteOutput: ~Copyable, ByteAppending {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    package private(set) var count = 0

    init(capacity: Int = 4096) {
        self.capacity = Swift.max(capacity, 64)
        base = GrowableMemory.allocate(byteCount: self.capacity)
    }

    deinit { GrowableMemory.free(base) }

    @inline(__always)
    package mutating func reserve(_ n: Int) {
        if _slowPath(capacity &- count < n) { grow(n) }
    }

    @inline(never)
    private mutating func grow(_ n: Int) {
        // Doubling with realloc: a large block's pages are remapped, not copied.
        let newCapacity = Swift.max(capacity * 2, count + n)
        base = GrowableMemory.reallocate(base, byteCount: newCapacity)
        capacity = newCapacity
    }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    @inline(__always)
    package mutating func append(bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0 else { return }
        reserve(n)
        (base + count).copyMemory(from: bytes.baseAddress!, byteCount: n)
        count &+= n
    }

    /// Writes up to `maximum` bytes in place: `body` returns how many it wrote.
    @inline(__always)
    mutating func write(upTo maximum: Int, _ body: (UnsafeMutableRawPointer) -> Int) {
        reserve(maximum)
        let n = body(base + count)
        precondition(n >= 0 && n <= maximum, "wrote more than reserved")
        count &+= n
    }

    /// `n` tabs, stored in place (the XML writer's indentation).
    mutating func append(tabs n: Int) {
        guard n > 0 else { return }
        write(upTo: n) { p in
            p.initializeMemory(as: UInt8.self, repeating: 0x09, count: n)
            return n
        }
    }

    /// Runs `body` over the bytes written.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes written, as an array (the buffer is consumed).
    consuming func bytes() -> [UInt8] {
        let n = count
        let source = base
        return [UInt8](unsafeUninitializedCapacity: n) { buffer, initialized in
            if n > 0 { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source, byteCount: n) }
            initialized = n
        }
    }
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
