#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the binary `bplist00` format.
///
/// Equal strings, integers, reals, booleans, dates and UIDs are written
/// once; dictionary keys are written in sorted order so that equal values
/// give equal files; offsets and references use the fewest bytes that can
/// address the file and its objects.
struct BinaryWriter {
    /// One object of the object table, in object-number order.
    private enum Object {
        case string(String)
        case integer(PropertyList.Integer)
        case real(Double)
        case boolean(Bool)
        case date(Double)
        case data(Data)
        case uid(UInt64)
        /// `count` references starting at `refs[start]`.
        case array(start: Int, count: Int)
        /// `count` key references then `count` value references, starting at `refs[start]`.
        case dictionary(start: Int, count: Int)
    }

    /// A number's identity in the table of numbers written once: its kind and bits.
    private struct Scalar {
        var kind: UInt8
        var bits: UInt64
    }

    private var objects: [Object] = []
    /// Object numbers (at most 2³² objects: a table of more would not fit in memory).
    private var refs: [UInt32] = []
    private var strings: [LiteralString: Int] = [:]
    private var scalars = ScalarTable()
    private var booleans: (Int?, Int?) = (nil, nil)
    /// The object numbers of strings and numbers met lately (``RecentObjects``):
    /// most keys and many values recur, and this finds them without hashing.
    private var recentStrings = RecentObjects()
    private var recentScalars = RecentObjects()

    static func write(_ value: PropertyList) -> ByteOutput {
        var w = BinaryWriter()
        _ = w.flatten(value)
        return w.serialize()
    }

    // MARK: Pass 1: number the objects

    private mutating func add(_ o: Object) -> Int {
        objects.append(o)
        return objects.count - 1
    }

    private mutating func scalarID(_ key: Scalar, _ object: @autoclosure () -> Object) -> Int {
        let recent = (UInt64(key.kind), key.bits)
        if let id = recentScalars[recent] { return id }
        let id: Int
        if let known = scalars.find(key.kind, key.bits) {
            id = known
        } else {
            id = add(object())
            scalars.insert(key.kind, key.bits, id: id)
        }
        recentScalars[recent] = id
        return id
    }

    private mutating func flatten(_ v: PropertyList) -> Int {
        switch v {
        case .string(let s): return stringID(s)
        case .integer(let n): return scalarID(Scalar(kind: n.isLarge ? 1 : 0, bits: n.bits), .integer(n))
        case .real(let d): return scalarID(Scalar(kind: 2, bits: d.bitPattern), .real(d))
        case .boolean(let b):
            if b, let id = booleans.1 { return id }
            if !b, let id = booleans.0 { return id }
            let id = add(.boolean(b))
            if b { booleans.1 = id } else { booleans.0 = id }
            return id
        case .date(let d):
            let t = d.timeIntervalSinceReferenceDate
            return scalarID(Scalar(kind: 3, bits: t.bitPattern), .date(t))
        case .data(let d): return add(.data(d))
        case .uid(let u): return scalarID(Scalar(kind: 4, bits: u), .uid(u))
        case .array(let a):
            let start = refs.count
            let id = add(.array(start: start, count: a.count))
            refs.append(contentsOf: repeatElement(0, count: a.count))
            for (k, e) in a.enumerated() { refs[start + k] = UInt32(flatten(e)) }
            return id
        case .dictionary(let d):
            let start = refs.count
            let n = d.count
            let id = add(.dictionary(start: start, count: n))
            refs.append(contentsOf: repeatElement(0, count: 2 * n))
            let order = d.sortedIndices()
            for (k, i) in order.enumerated() { refs[start + k] = UInt32(stringID(d[i].key.string)) }
            for (k, i) in order.enumerated() { refs[start + n + k] = UInt32(flatten(d[i].value)) }
            return id
        }
    }

    private mutating func stringID(_ s: String) -> Int {
        // A string's representation (its bytes when short, else its storage)
        // identifies equal strings without reading them.
        let recent = RecentObjects.representation(of: s)
        if let id = recentStrings[recent] { return id }
        let id: Int
        if let known = strings[LiteralString(s)] {
            id = known
        } else {
            id = add(.string(s))
            strings[LiteralString(s)] = id
        }
        recentStrings[recent] = id
        return id
    }

    // MARK: Pass 2: write

    static func bytesNeeded(_ v: UInt64) -> Int {
        v < 1 << 8 ? 1 : v < 1 << 16 ? 2 : v < 1 << 32 ? 4 : 8
    }

    @inline(__always) static func bigEndian(_ v: UInt64, _ size: Int, into out: inout ByteOutput) {
        out.write(upTo: 8) { p in
            switch size {
            case 1: p.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
            case 2: p.storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, as: UInt16.self)
            case 4: p.storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, as: UInt32.self)
            default: p.storeBytes(of: v.bigEndian, as: UInt64.self)
            }
            return size
        }
    }
    static func integer(_ n: PropertyList.Integer, into out: inout ByteOutput) {
        if let u = n.uint64Value {
            if u > UInt64(Int64.max) {
                out.append(0x14); bigEndian(0, 8, into: &out); bigEndian(u, 8, into: &out)
            } else {
                let size = Self.bytesNeeded(u)
                out.append(0x10 | UInt8(size.trailingZeroBitCount))
                bigEndian(u, size, into: &out)
            }
        } else {
            out.append(0x13)
            bigEndian(UInt64(bitPattern: n.int64Value!), 8, into: &out)
        }
    }
    static func header(_ marker: UInt8, _ n: Int, into out: inout ByteOutput) {
        if n < 15 {
            out.append(marker | UInt8(n))
        } else {
            out.append(marker | 0x0F)
            integer(.init(Int64(n)), into: &out)
        }
    }

    /// A string of ASCII bytes.
    static func asciiString(_ ascii: UnsafeRawBufferPointer, into out: inout ByteOutput) {
        header(0x50, ascii.count, into: &out)
        out.append(bytes: ascii)
    }

    /// A string of UTF-16 code units, big-endian.
    static func utf16String(_ s: String, into out: inout ByteOutput) {
        let units = s.utf16.count
        header(0x60, units, into: &out)
        out.write(upTo: 2 * units) { p in
            var k = 0
            for unit in s.utf16 {
                p.storeBytes(of: unit.bigEndian, toByteOffset: k, as: UInt16.self)
                k += 2
            }
            return k
        }
    }

    static func uid(_ u: UInt64, into out: inout ByteOutput) {
        let size = bytesNeeded(u)
        out.append(0x80 | UInt8(size - 1))
        bigEndian(u, size, into: &out)
    }

    /// The offset table and the trailer, after the objects (the top object is object 0).
    static func trailer(offsets: [UInt64], objectCount count: Int, refSize: Int, topIsDictionary: Bool, into out: inout ByteOutput) {
        let tableOffset = out.count
        let offsetSize = bytesNeeded(UInt64(tableOffset))
        out.reserve(offsets.count * offsetSize + 32)
        for o in offsets { bigEndian(o, offsetSize, into: &out) }
        // The trailer's five unused bytes carry BinaryReader.sortedKeysMark
        // when the top object is a dictionary (its keys are sorted and each
        // appears once), so that a one-key lookup can search them; other
        // readers ignore these bytes.
        if topIsDictionary {
            BinaryReader.sortedKeysMark.withUnsafeBytes { out.append(bytes: $0) }
            for _ in BinaryReader.sortedKeysMark.count..<6 { out.append(0) }
        } else {
            for _ in 0..<6 { out.append(0) }
        }
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        bigEndian(UInt64(count), 8, into: &out)
        bigEndian(0, 8, into: &out)  // the top object is object 0
        bigEndian(UInt64(tableOffset), 8, into: &out)
    }

    private func serialize() -> ByteOutput {
        let count = objects.count
        let refSize = Self.bytesNeeded(UInt64(count))
        var out = ByteOutput(capacity: count * 12 + refs.count * refSize + 64)
        out.append(ascii: "bplist00")
        var offsets = [UInt64](repeating: 0, count: count)

        refs.withUnsafeBufferPointer { refs in
            for (id, object) in objects.enumerated() {
                offsets[id] = UInt64(out.count)
                switch object {
                case .string(let s):
                    var utf8 = s
                    utf8.withUTF8 { u in
                        if UTF8Text.isASCII(UnsafeRawBufferPointer(u)) {
                            Self.asciiString(UnsafeRawBufferPointer(u), into: &out)
                        } else {
                            Self.utf16String(s, into: &out)
                        }
                    }
                case .integer(let n): Self.integer(n, into: &out)
                case .real(let d): out.append(0x23); Self.bigEndian(d.bitPattern, 8, into: &out)
                case .boolean(let b): out.append(b ? 0x09 : 0x08)
                case .date(let t): out.append(0x33); Self.bigEndian(t.bitPattern, 8, into: &out)
                case .data(let d):
                    Self.header(0x40, d.count, into: &out)
                    d.withUnsafeBytes { out.append(bytes: $0) }
                case .uid(let u): Self.uid(u, into: &out)
                case .array(let start, let n):
                    Self.header(0xA0, n, into: &out)
                    for k in start..<(start + n) { Self.bigEndian(UInt64(refs[k]), refSize, into: &out) }
                case .dictionary(let start, let n):
                    Self.header(0xD0, n, into: &out)
                    for k in start..<(start + 2 * n) { Self.bigEndian(UInt64(refs[k]), refSize, into: &out) }
                }
            }
        }
        var topIsDictionary = false
        if case .dictionary = objects.first { topIsDictionary = true }
        Self.trailer(offsets: offsets, objectCount: count, refSize: refSize, topIsDictionary: topIsDictionary, into: &out)
        return out
    }
}

extension PropertyList {
    /// The length of ``encoded(as:options:)`` in the binary format, computed
    /// without encoding for a single value (string, number, boolean, date,
    /// data, UID); containers are encoded and counted.
    ///
    /// ```swift
    /// PropertyList.integer(1).binaryEncodedSize   // 43
    /// ```
    public var binaryEncodedSize: Int {
        func bytesNeeded(_ v: UInt64) -> Int { v < 1 << 8 ? 1 : v < 1 << 16 ? 2 : v < 1 << 32 ? 4 : 8 }
        func header(_ n: Int) -> Int { n < 15 ? 1 : 1 + 1 + bytesNeeded(UInt64(n)) }
        let object: Int
        switch self {
        case .integer(let n):
            if let u = n.uint64Value { object = u > UInt64(Int64.max) ? 17 : 1 + bytesNeeded(u) } else { object = 9 }
        case .real, .date: object = 9
        case .boolean: object = 1
        case .uid(let u): object = 1 + bytesNeeded(u)
        case .data(let d): object = header(d.count) + d.count
        case .string(let s):
            var ascii = true
            var count = 0
            for b in s.utf8 {
                if b >= 0x80 { ascii = false; break }
                count += 1
            }
            if ascii { object = header(count) + count } else {
                let units = s.utf16.count
                object = header(units) + 2 * units
            }
        case .array, .dictionary:
            return BinaryWriter.write(self).count
        }
        let tableOffset = 8 + object
        return tableOffset + bytesNeeded(UInt64(tableOffset)) + 32
    }
}
