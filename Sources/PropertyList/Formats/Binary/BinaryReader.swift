#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO

/// Reads the binary `bplist00` format.
///
/// Nothing in the file is trusted before it is checked: the trailer's sizes
/// and counts are checked against the file's length before anything is
/// allocated, every offset and object reference against the object area,
/// every length against the bytes that remain. Cycles are rejected, shared
/// objects are decoded once, and nesting is limited to 512 levels, so any
/// input finishes quickly in memory proportional to its size.
///
/// Sharing is bounded too: a value's *expanded* size — its objects and
/// string/data bytes counted once per reference, as a printer or a writer of
/// another format walks it — may not exceed ``expansionFactor`` times the
/// file's object count and size (with floors for small files and absolute
/// ceilings), so a small file of nested shared arrays (a "billion laughs")
/// is rejected at decode time instead of exploding later.
struct BinaryReader {
    static let maxDepth = 512
    /// How many times the file's object count and byte size a value may expand to.
    static let expansionFactor = 32
    /// Every file may expand to this many objects (small files share legitimately).
    static let minimumExpandedObjects = 1 << 20
    /// No file expands beyond this many objects.
    static let maximumExpandedObjects = 1 << 27
    /// Every file may expand to this many string and data bytes.
    static let minimumExpandedBytes = 64 << 20
    /// No file expands beyond this many string and data bytes.
    static let maximumExpandedBytes = 1 << 31

    /// Objects and string/data bytes, counted once per reference.
    struct Weight {
        var objects = 0
        var bytes = 0
    }
    private var expanded = Weight()
    private var expansionLimit: Weight
    /// Whether ``expansionLimit`` is the caller's (``PropertyList/ExpansionLimit``).
    private var expansionIsCallers = false
    /// The expanded weight of each cached object, beside `cache`.
    private var cacheWeights: [Weight] = []

    let b: UnsafeRawBufferPointer
    private let offsetSize: Int
    let refSize: Int
    private let objectCount: Int
    let tableOffset: Int
    /// Decoded objects met more than once, in the order they were cached.
    private var cache: [PropertyList] = []
    /// Per object: `seen` once it has been decoded, `inProgress` while a
    /// collection is being decoded (cycle detection), and above those bits
    /// the object's place in `cache` plus one (0: not cached). Eight bytes per
    /// object, so that the check made for every object touches little memory.
    let states: ObjectStates
    /// Dictionaries met before, by where their key references lie (see
    /// ``dictionary(_:at:depth:)``).
    private var recurringKeys = RecurringKeys<(references: Int, count: Int)>()
    static let seen: UInt64 = 1
    static let inProgress: UInt64 = 2
    static let cacheShift: UInt64 = 2

    /// The first bytes of the trailer (unused by the format) in files whose
    /// top dictionary has its keys in CFString's literal order
    /// (``LiteralString``), each once: OpenDefaults' own writer. Version 1
    /// sorted by Swift's `String` order (canonical equivalence); such files
    /// are searched by a scan.
    static let sortedKeysMark: [UInt8] = [0x4F, 0x44, 0x02]  // "OD", version 2

    static func read(_ bytes: UnsafeRawBufferPointer, maximumExpansion: PropertyList.ExpansionLimit? = nil) throws(PropertyListError) -> PropertyList {
        var reader = try BinaryReader(bytes, checkingEveryOffset: true)
        if let maximumExpansion {
            reader.expansionLimit = Weight(objects: min(reader.expansionLimit.objects, maximumExpansion.objects),
                                           bytes: min(reader.expansionLimit.bytes, maximumExpansion.bytes))
            reader.expansionIsCallers = true
        }
        return try reader.object(reader.topIndex, depth: 0)
    }

    /// Finds `key` in a binary plist whose top object is a dictionary and
    /// decodes only its value, comparing keys in place.
    ///
    /// - Returns: nil when the top object is not a dictionary; `.some(nil)`
    ///   when the key is absent. Every offset and reference touched is
    ///   checked as in ``read(_:)``; objects not touched are not checked.
    ///
    /// Offsets are checked as they are used, not all first; in a file with
    /// ``sortedKeysMark`` the top dictionary's keys are binary-searched, so a
    /// lookup costs O(log n) whatever the domain's size.
    static func lookup(_ key: String, in bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyList?? {
        var reader = try BinaryReader(bytes, checkingEveryOffset: false)
        let start = try reader.checkedOffset(reader.topIndex)
        let marker = reader.b[start]
        guard marker >> 4 == 0xD else { return nil }
        var p = start + 1
        let n = try reader.count(marker, at: &p)
        let end = reader.tableOffset
        guard n <= (end - p) / reader.refSize / 2 else {
            throw Self.fail(start, "dictionary of \(n) entries runs past the object area")
        }
        let wanted = Array(key.utf8)
        let wantedIsASCII = wanted.allSatisfy { $0 < 0x80 }
        /// How the key of entry `k` orders against `key` (-1, 0, 1) in
        /// literal order (``LiteralString``, as our writer sorts): ASCII keys
        /// compared in place, others decoded.
        func order(ofEntry k: Int) throws(PropertyListError) -> Int {
            let keyRef = try reader.reference(at: p + k * reader.refSize)
            let o = try reader.checkedOffset(keyRef)
            let km = reader.b[o]
            if km >> 4 == 0x5, wantedIsASCII {
                var q = o + 1
                let len = try reader.count(km, at: &q)
                guard q + len <= end else { throw Self.fail(o, "string of \(len) bytes runs past the object area") }
                for i in 0..<min(len, wanted.count) where reader.b[q + i] != wanted[i] {
                    return reader.b[q + i] < wanted[i] ? -1 : 1
                }
                return len < wanted.count ? -1 : (len > wanted.count ? 1 : 0)
            }
            guard case .string(let s) = try reader.object(keyRef, depth: 1) else {
                throw Self.fail(o, "expected a string as dictionary key, found another kind of object")
            }
            return LiteralString.compare(s, key)
        }
        func value(ofEntry k: Int) throws(PropertyListError) -> PropertyList {
            try reader.object(try reader.reference(at: p + (n + k) * reader.refSize), depth: 1)
        }
        if reader.b.count >= 32, reader.b[reader.b.count - 32..<reader.b.count - 32 + Self.sortedKeysMark.count].elementsEqual(Self.sortedKeysMark) {
            // Keys in literal order, each once: binary search.
            var lo = 0, hi = n - 1
            while lo <= hi {
                let mid = (lo + hi) / 2
                let o = try order(ofEntry: mid)
                if o == 0 { return .some(try value(ofEntry: mid)) }
                if o < 0 { lo = mid + 1 } else { hi = mid - 1 }
            }
            return .some(nil)
        }
        // Other writers' files: a scan; the last of equal keys wins, as when
        // the whole dictionary is decoded.
        var k = n - 1
        while k >= 0 {
            if try order(ofEntry: k) == 0 { return .some(try value(ofEntry: k)) }
            k -= 1
        }
        return .some(nil)
    }

    static func fail(_ offset: Int, _ reason: String) -> PropertyListError {
        PropertyListError(format: .binary, location: .byteOffset(offset), reason: reason)
    }

    let topIndex: Int

    /// Whether every offset was checked when the reader was made (otherwise
    /// each is checked when used, by ``checkedOffset(_:)``).
    private let offsetsChecked: Bool

    init(_ b: UnsafeRawBufferPointer, checkingEveryOffset: Bool) throws(PropertyListError) {
        self.b = b
        let n = b.count
        guard n >= 8 + 1 + 32 else {
            throw Self.fail(0, "expected at least 41 bytes (header, one object, trailer), found \(n)")
        }
        guard b.starts(with: "bplist0".utf8) else {
            throw Self.fail(0, "expected the 'bplist0' header")
        }
        let t = n - 32
        let offsetSize = Int(b[t + 6]), refSize = Int(b[t + 7])
        let count = Self.bigEndian(b, t + 8, 8)
        let top = Self.bigEndian(b, t + 16, 8)
        let table = Self.bigEndian(b, t + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw Self.fail(t + 6, "expected offset and reference sizes of 1 to 8 bytes, found \(offsetSize) and \(refSize)")
        }
        guard count >= 1, count <= UInt64(n) else {
            throw Self.fail(t + 8, "object count \(count) is impossible in a file of \(n) bytes")
        }
        guard top < count else {
            throw Self.fail(t + 16, "top object \(top) is not below the object count \(count)")
        }
        guard table >= 9, table < UInt64(t) else {
            throw Self.fail(t + 24, "offset table offset \(table) lies outside the object area 9..<\(t)")
        }
        let tableSize = Int(count) * offsetSize
        guard Int(table) + tableSize == t else {
            throw Self.fail(t + 24, "expected the offset table (\(count) × \(offsetSize) bytes at \(table)) to end where the trailer starts (\(t))")
        }
        if refSize < 8, UInt64(1) << UInt64(8 * refSize) <= count {
            throw Self.fail(t + 7, "object references of \(refSize) bytes cannot address \(count) objects")
        }
        self.offsetSize = offsetSize
        self.refSize = refSize
        self.objectCount = Int(count)
        self.tableOffset = Int(table)
        self.topIndex = Int(top)
        self.offsetsChecked = checkingEveryOffset
        for k in 0..<(checkingEveryOffset ? objectCount : 0) {
            let o = Self.bigEndian(b, tableOffset + k * offsetSize, offsetSize)
            guard o >= 8, o < table else {
                throw Self.fail(tableOffset + k * offsetSize, "offset \(o) of object \(k) lies outside the object area 8..<\(table)")
            }
        }
        states = ObjectStates(count: objectCount)
        expansionLimit = Weight(
            objects: min(max(Self.expansionFactor * objectCount, Self.minimumExpandedObjects), Self.maximumExpandedObjects),
            bytes: min(max(Self.expansionFactor * n, Self.minimumExpandedBytes), Self.maximumExpandedBytes))
    }

    /// Counts a value met through one more reference; fails once the document expands past its limit.
    @inline(__always)
    mutating func count(_ w: Weight, at offset: Int) throws(PropertyListError) {
        expanded.objects &+= w.objects
        expanded.bytes &+= w.bytes
        if expanded.objects > expansionLimit.objects || expanded.bytes > expansionLimit.bytes {
            var error: PropertyListError
            if expansionIsCallers {
                error = Self.fail(offset, "the value expands to more than \(expansionLimit.objects) objects or \(expansionLimit.bytes) bytes "
                    + "of strings and data through shared references (the caller's limit); it is refused before it is expanded")
            } else {
                error = Self.fail(offset, "the document expands to more than \(expansionLimit.objects) objects or \(expansionLimit.bytes) bytes "
                + "of strings and data through shared references (at most \(Self.expansionFactor)× its own \(objectCount) objects and \(b.count) bytes); "
                + "it is refused as a decompression bomb")
            }
            error.exceedsExpansionLimit = true
            throw error
        }
    }

    /// The big-endian unsigned integer of `size` bytes at `at` (callers
    /// have checked that the bytes lie inside the buffer). The sizes files
    /// use (1, 2, 4, 8) are single loads.
    @inline(__always)
    static func bigEndian(_ b: UnsafeRawBufferPointer, _ at: Int, _ size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(b[at])
        case 2: return UInt64(UInt16(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        case 8: return UInt64(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        default:
            var v: UInt64 = 0
            for k in 0..<size { v = v << 8 | UInt64(b[at + k]) }
            return v
        }
    }

    @inline(__always) func offset(of object: Int) -> Int {
        Int(Self.bigEndian(b, tableOffset + object * offsetSize, offsetSize))
    }

    /// The offset of `object`, checked against the object area unless every
    /// offset was checked already.
    @inline(__always) func checkedOffset(_ object: Int) throws(PropertyListError) -> Int {
        let o = offset(of: object)
        if !offsetsChecked, o < 8 || o >= tableOffset {
            throw Self.fail(tableOffset + object * offsetSize, "offset \(o) of object \(object) lies outside the object area 8..<\(tableOffset)")
        }
        return o
    }

    /// The entries of a dictionary of `n` keys whose references start at `p`.
    ///
    /// A dictionary whose key references are the same bytes as those of one
    /// met before has the same keys: from the second such dictionary on, its
    /// keys are laid out once in a ``DictionaryShape`` and every later one is
    /// a copy of it with its values set, hashing no key.
    private mutating func dictionary(_ n: Int, at p: Int, depth: Int) throws(PropertyListError) -> [LiteralString: PropertyList] {
        guard n > 0 else { return [:] }
        let place = RecurringKeys<(references: Int, count: Int)>.place(UInt64(try reference(at: p)) &+ UInt64(n) << 40)
        var recurring = false
        switch recurringKeys.lookup(place, isSame: { $0.count == n && sameBytes($0.references, p, n * refSize) }) {
        case .shape(let shape):
            var entries = shape.template
            for k in 0..<n {
                let valueRef = try reference(at: p + (n + k) * refSize)
                entries.values[shape.slots[k]] = try object(valueRef, depth: depth + 1)
            }
            return entries
        case .metOnce: recurring = true
        case .new: break
        }
        var entries = [LiteralString: PropertyList](minimumCapacity: n)
        var keys: [LiteralString] = []
        if recurring { keys.reserveCapacity(n) }
        for k in 0..<n {
            let keyRef = try reference(at: p + k * refSize)
            guard case .string(let key) = try object(keyRef, depth: depth + 1) else {
                throw Self.fail(offset(of: keyRef), "expected a string as dictionary key, found another kind of object")
            }
            let literal = LiteralString(key)
            if recurring { keys.append(literal) }
            let valueRef = try reference(at: p + (n + k) * refSize)
            entries[literal] = try object(valueRef, depth: depth + 1)
        }
        recurringKeys.note((p, n), at: place, shape: recurring ? DictionaryShape(keys: keys) : nil)
        return entries
    }

    /// Whether the `count` bytes at `x` and at `y` are equal.
    @inline(__always)
    private func sameBytes(_ x: Int, _ y: Int, _ count: Int) -> Bool {
        if x == y { return true }
        var k = 0
        while k + 8 <= count {
            if b.loadUnaligned(fromByteOffset: x + k, as: UInt64.self) != b.loadUnaligned(fromByteOffset: y + k, as: UInt64.self) { return false }
            k += 8
        }
        while k < count {
            if b[x + k] != b[y + k] { return false }
            k += 1
        }
        return true
    }

    /// Reads the length that follows a marker whose low nibble is 0xF.
    func count(_ marker: UInt8, at p: inout Int) throws(PropertyListError) -> Int {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return low }
        guard p < tableOffset else { throw Self.fail(p, "expected a length, found the end of the object area") }
        let m = b[p]
        guard m & 0xF0 == 0x10, m & 0x0F <= 3 else {
            throw Self.fail(p, "expected an integer length (marker 0x10-0x13), found marker 0x\(String(m, radix: 16))")
        }
        let size = 1 << Int(m & 0x0F)
        guard p + 1 + size <= tableOffset else { throw Self.fail(p, "length runs past the object area") }
        let v = Self.bigEndian(b, p + 1, size)
        guard v <= UInt64(tableOffset) else {
            throw Self.fail(p, "length \(v) is larger than the file")
        }
        p += 1 + size
        return Int(v)
    }

    mutating func object(_ index: Int, depth: Int) throws(PropertyListError) -> PropertyList {
        let state = states.pointer[index]
        if state >> Self.cacheShift != 0 {
            let slot = Int(state >> Self.cacheShift) - 1
            try count(cacheWeights[slot], at: offset(of: index))
            return cache[slot]
        }
        let start = try checkedOffset(index)
        let before = expanded
        if state & Self.inProgress != 0 { throw Self.fail(start, "object \(index) contains itself (a reference cycle)") }
        guard depth <= Self.maxDepth else {
            throw Self.fail(start, "nesting is deeper than \(Self.maxDepth) levels")
        }
        let marker = b[start]
        var p = start + 1
        let end = tableOffset
        let value: PropertyList
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: value = .boolean(false)
            case 0x09: value = .boolean(true)
            case 0x00: throw Self.fail(start, "null objects (marker 0x00) are not property-list values")
            default: throw Self.fail(start, "unknown object marker 0x\(String(marker, radix: 16, uppercase: false))")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 16, p + size <= end else {
                throw Self.fail(start, size > 16 ? "integers of \(size) bytes are not supported" : "integer runs past the object area")
            }
            let v = Self.bigEndian(b, p + (size == 16 ? 8 : 0), min(size, 8))
            switch size {
            case 1, 2, 4: value = .integer(.init(v))
            case 8: value = .integer(.init(Int64(bitPattern: v)))
            default:
                let high = Self.bigEndian(b, p, 8)
                if high == 0 {
                    value = .integer(.init(v))
                } else if high == UInt64.max, v >= 1 << 63 {
                    value = .integer(.init(Int64(bitPattern: v)))
                } else {
                    throw Self.fail(start, "128-bit integer does not fit in 64 bits")
                }
            }
        case 0x2:
            switch marker & 0x0F {
            case 2:
                guard p + 4 <= end else { throw Self.fail(start, "real runs past the object area") }
                value = .real(Double(Float(bitPattern: UInt32(Self.bigEndian(b, p, 4)))))
            case 3:
                guard p + 8 <= end else { throw Self.fail(start, "real runs past the object area") }
                value = .real(Double(bitPattern: Self.bigEndian(b, p, 8)))
            default:
                throw Self.fail(start, "expected a 4- or 8-byte real (marker 0x22 or 0x23), found 0x\(String(marker, radix: 16))")
            }
        case 0x3:
            guard marker == 0x33 else { throw Self.fail(start, "expected date marker 0x33, found 0x\(String(marker, radix: 16))") }
            guard p + 8 <= end else { throw Self.fail(start, "date runs past the object area") }
            let t = Double(bitPattern: Self.bigEndian(b, p, 8))
            guard t.isFinite else { throw Self.fail(start, "date is not a finite number of seconds") }
            value = .date(Date(timeIntervalSinceReferenceDate: t))
        case 0x4:
            let n = try count(marker, at: &p)
            guard p + n <= end else { throw Self.fail(start, "data of \(n) bytes runs past the object area") }
            try count(Weight(objects: 0, bytes: n), at: start)
            value = .data(Data(UnsafeRawBufferPointer(rebasing: b[p..<(p + n)])))
        case 0x5:
            let n = try count(marker, at: &p)
            guard p + n <= end else { throw Self.fail(start, "string of \(n) bytes runs past the object area") }
            try count(Weight(objects: 0, bytes: n), at: start)
            value = .string(Self.asciiString(UnsafeRawBufferPointer(rebasing: b[p..<(p + n)])))
        case 0x6:
            let n = try count(marker, at: &p)
            guard p + 2 * n <= end else { throw Self.fail(start, "string of \(n) UTF-16 units runs past the object area") }
            try count(Weight(objects: 0, bytes: 2 * n), at: start)
            value = .string(Self.utf16String(UnsafeRawBufferPointer(rebasing: b[p..<(p + 2 * n)])))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            guard p + size <= end else { throw Self.fail(start, "UID runs past the object area") }
            guard size <= 8 else { throw Self.fail(start, "UIDs of \(size) bytes are not supported") }
            let v = Self.bigEndian(b, p, size)
            guard v <= UInt64(UInt32.max) else { throw Self.fail(start, "UID \(v) is larger than 2^32-1") }
            value = .uid(v)
        case 0xA, 0xC:
            let n = try count(marker, at: &p)
            guard n <= (end - p) / refSize else { throw Self.fail(start, "array of \(n) references runs past the object area") }
            states.pointer[index] |= Self.inProgress
            var elements: [PropertyList] = []
            elements.reserveCapacity(n)
            for k in 0..<n {
                let ref = try reference(at: p + k * refSize)
                elements.append(try object(ref, depth: depth + 1))
            }
            value = .array(elements)
        case 0xD:
            let n = try count(marker, at: &p)
            guard n <= (end - p) / refSize / 2 else {
                throw Self.fail(start, "dictionary of \(n) entries runs past the object area")
            }
            states.pointer[index] |= Self.inProgress
            value = .dictionary(try dictionary(n, at: p, depth: depth))
        default:
            throw Self.fail(start, "unknown object marker 0x\(String(marker, radix: 16))")
        }
        // A shared string, data or collection is cached the second time it is
        // met (no counting pass first), so no object is decoded more than
        // twice and hostile sharing stays linear. Scalars are cheaper to
        // decode again than to cache.
        try count(Weight(objects: 1, bytes: 0), at: start)
        if state & Self.seen != 0 {
            switch marker >> 4 {
            case 0x4, 0x5, 0x6, 0xA, 0xC, 0xD:
                cache.append(value)
                cacheWeights.append(Weight(objects: expanded.objects - before.objects, bytes: expanded.bytes - before.bytes))
                states.pointer[index] = Self.seen | UInt64(cache.count) << Self.cacheShift
                return value
            default: break
            }
        }
        states.pointer[index] = Self.seen
        return value
    }

    @inline(__always) func reference(at p: Int) throws(PropertyListError) -> Int {
        let r = Self.bigEndian(b, p, refSize)
        guard r < UInt64(objectCount) else {
            throw Self.fail(p, "object reference \(r) is not below the object count \(objectCount)")
        }
        return Int(r)
    }

    /// An ASCII string object; bytes above 0x7F are read as ISO-8859-1.
    static func asciiString(_ s: UnsafeRawBufferPointer) -> String {
        var ascii = true
        for c in s where c >= 0x80 { ascii = false; break }
        if ascii { return String(decoding: s, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count * 2)
        for c in s { UTF8.encode(Unicode.Scalar(c)) { out.append($0) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// A big-endian UTF-16 string object; a lone surrogate becomes U+FFFD.
    static func utf16String(_ s: UnsafeRawBufferPointer) -> String {
        let units = s.count / 2
        return String(unsafeUninitializedCapacity: units * 3) { out in
            var w = 0
            var k = 0
            while k < units {
                var u = UInt32(s[2 * k]) << 8 | UInt32(s[2 * k + 1])
                k += 1
                if u < 0x80 {
                    out[w] = UInt8(u); w += 1; continue
                }
                if u & 0xFC00 == 0xD800, k < units {
                    let lo = UInt32(s[2 * k]) << 8 | UInt32(s[2 * k + 1])
                    if lo & 0xFC00 == 0xDC00 {
                        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                        k += 1
                    } else {
                        u = 0xFFFD
                    }
                } else if u & 0xF800 == 0xD800 {
                    u = 0xFFFD
                }
                UTF8.encode(Unicode.Scalar(u)!) { out[w] = $0; w += 1 }
            }
            return w
        }
    }
}
