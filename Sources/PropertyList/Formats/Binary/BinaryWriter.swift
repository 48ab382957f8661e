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

    private var objects: [Object] = []
    private var refs: [Int] = []
    private var strings: [LiteralString: Int] = [:]
    private var integers: [PropertyList.Integer: Int] = [:]
    private var reals: [UInt64: Int] = [:]
    private var dates: [UInt64: Int] = [:]
    private var uids: [UInt64: Int] = [:]
    private var booleans: (Int?, Int?) = (nil, nil)

    static func write(_ value: PropertyList) -> [UInt8] {
        var w = BinaryWriter()
        _ = w.flatten(value)
        return w.serialize()
    }

    // MARK: Pass 1: number the objects

    private mutating func add(_ o: Object) -> Int {
        objects.append(o)
        return objects.count - 1
    }

    private mutating func flatten(_ v: PropertyList) -> Int {
        switch v {
        case .string(let s): return stringID(s)
        case .integer(let n):
            if let id = integers[n] { return id }
            let id = add(.integer(n)); integers[n] = id; return id
        case .real(let d):
            if let id = reals[d.bitPattern] { return id }
            let id = add(.real(d)); reals[d.bitPattern] = id; return id
        case .boolean(let b):
            if b, let id = booleans.1 { return id }
            if !b, let id = booleans.0 { return id }
            let id = add(.boolean(b))
            if b { booleans.1 = id } else { booleans.0 = id }
            return id
        case .date(let d):
            let t = d.timeIntervalSinceReferenceDate
            if let id = dates[t.bitPattern] { return id }
            let id = add(.date(t)); dates[t.bitPattern] = id; return id
        case .data(let d): return add(.data(d))
        case .uid(let u):
            if let id = uids[u] { return id }
            let id = add(.uid(u)); uids[u] = id; return id
        case .array(let a):
            let start = refs.count
            let id = add(.array(start: start, count: a.count))
            refs.append(contentsOf: repeatElement(0, count: a.count))
            for (k, e) in a.enumerated() { refs[start + k] = flatten(e) }
            return id
        case .dictionary(let d):
            let start = refs.count
            let n = d.count
            let id = add(.dictionary(start: start, count: n))
            refs.append(contentsOf: repeatElement(0, count: 2 * n))
            let keys = d.keys.sorted()
            for (k, key) in keys.enumerated() { refs[start + k] = stringID(key.string) }
            for (k, key) in keys.enumerated() { refs[start + n + k] = flatten(d[key]!) }
            return id
        }
    }

    private mutating func stringID(_ s: String) -> Int {
        if let id = strings[LiteralString(s)] { return id }
        let id = add(.string(s))
        strings[LiteralString(s)] = id
        return id
    }

    // MARK: Pass 2: write

    private static func bytesNeeded(_ v: UInt64) -> Int {
        v < 1 << 8 ? 1 : v < 1 << 16 ? 2 : v < 1 << 32 ? 4 : 8
    }

    private func serialize() -> [UInt8] {
        let count = objects.count
        let refSize = Self.bytesNeeded(UInt64(count))
        var out: [UInt8] = []
        out.reserveCapacity(count * 12 + refs.count * refSize + 64)
        out.append(ascii: "bplist00")
        var offsets = [Int](repeating: 0, count: count)

        func bigEndian(_ v: UInt64, _ size: Int) {
            var k = size - 1
            while k >= 0 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * k))); k -= 1 }
        }
        func integer(_ n: PropertyList.Integer) {
            if let u = n.uint64Value {
                if u > UInt64(Int64.max) {
                    out.append(0x14); bigEndian(0, 8); bigEndian(u, 8)
                } else {
                    let size = Self.bytesNeeded(u)
                    out.append(0x10 | UInt8(size.trailingZeroBitCount))
                    bigEndian(u, size)
                }
            } else {
                out.append(0x13)
                bigEndian(UInt64(bitPattern: n.int64Value!), 8)
            }
        }
        func header(_ marker: UInt8, _ n: Int) {
            if n < 15 {
                out.append(marker | UInt8(n))
            } else {
                out.append(marker | 0x0F)
                integer(.init(Int64(n)))
            }
        }
        func references(_ start: Int, _ n: Int) {
            for k in start..<(start + n) { bigEndian(UInt64(refs[k]), refSize) }
        }

        for (id, object) in objects.enumerated() {
            offsets[id] = out.count
            switch object {
            case .string(let s):
                var utf8 = s
                utf8.withUTF8 { u in
                    if !u.contains(where: { $0 >= 0x80 }) {
                        header(0x50, u.count)
                        out.append(contentsOf: u)
                    } else {
                        header(0x60, s.utf16.count)
                        for unit in s.utf16 { out.append(UInt8(unit >> 8)); out.append(UInt8(unit & 0xFF)) }
                    }
                }
            case .integer(let n): integer(n)
            case .real(let d): out.append(0x23); bigEndian(d.bitPattern, 8)
            case .boolean(let b): out.append(b ? 0x09 : 0x08)
            case .date(let t): out.append(0x33); bigEndian(t.bitPattern, 8)
            case .data(let d):
                header(0x40, d.count)
                out.append(contentsOf: d)
            case .uid(let u):
                let size = Self.bytesNeeded(u)
                out.append(0x80 | UInt8(size - 1))
                bigEndian(u, size)
            case .array(let start, let n):
                header(0xA0, n)
                references(start, n)
            case .dictionary(let start, let n):
                header(0xD0, n)
                references(start, 2 * n)
            }
        }
        let tableOffset = out.count
        let offsetSize = Self.bytesNeeded(UInt64(tableOffset))
        for o in offsets { bigEndian(UInt64(o), offsetSize) }
        // The trailer's five unused bytes carry BinaryReader.sortedKeysMark
        // when the top object is a dictionary (its keys are sorted and each
        // appears once), so that a one-key lookup can search them; other
        // readers ignore these bytes.
        if case .dictionary = objects.first {
            out.append(contentsOf: BinaryReader.sortedKeysMark)
            out.append(contentsOf: repeatElement(0, count: 6 - BinaryReader.sortedKeysMark.count))
        } else {
            out.append(contentsOf: repeatElement(0, count: 6))
        }
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        bigEndian(UInt64(count), 8)
        bigEndian(0, 8)  // the top object is object 0
        bigEndian(UInt64(tableOffset), 8)
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
