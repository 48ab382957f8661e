import PlatformIO

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

    /// Forgets the bytes written, keeping the memory (a writer that hands
    /// its document over in pieces).
    mutating func removeAll() { count = 0 }

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
