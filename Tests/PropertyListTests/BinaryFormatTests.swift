import Foundation
import Testing
import TestSupport
@testable import PropertyList

@Suite("Binary format", .timeLimit(.minutes(10)))
struct BinaryFormatTests {
    /// Builds a bplist00 file from raw object bytes (offsets computed).
    static func file(objects: [[UInt8]], offsetSize: UInt8 = 1, refSize: UInt8 = 1, count: UInt64? = nil, top: UInt64 = 0, tableOffset: UInt64? = nil) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects { offsets.append(out.count); out += o }
        let table = out.count
        for o in offsets {
            for k in stride(from: Int(offsetSize) - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: o >> (8 * k))) }
        }
        out += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
        func be(_ v: UInt64) { for k in stride(from: 7, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) } }
        be(count ?? UInt64(objects.count)); be(top); be(tableOffset ?? UInt64(table))
        return out
    }

    @Test("equal strings and numbers are written once; sizes are the smallest that fit")
    func deduplication() throws {
        let v: PropertyList = ["a": ["x", "x", 5, 5, 1.5, 1.5], "b": "x"]
        let bytes = try v.encoded(as: .binary)
        // objects: dict, "a", "b", array, "x", 5, 1.5  => 7 objects
        let trailer = bytes.suffix(32)
        #expect(trailer[trailer.startIndex + 6] == 1)  // offset size
        #expect(trailer[trailer.startIndex + 7] == 1)  // reference size
        #expect(trailer.suffix(24).prefix(8).last == 7)
        #expect(try PropertyList(decoding: bytes) == v)
    }

    @Test("integers of every width and sign, reals of both widths, dates, data, UIDs")
    func scalars() throws {
        let values: [PropertyList] = [
            0, 255, 256, 65535, 65536, 4_294_967_295, 4_294_967_296, -1, PropertyList(Int64.min), PropertyList(Int64.max),
            PropertyList(UInt64(Int64.max) + 1), PropertyList(UInt64.max), 1.5, .real(.nan), .real(-.infinity),
            .date(Date(timeIntervalSinceReferenceDate: -1e9 + 0.25)), .data(Data(repeating: 7, count: 300)), .uid(0), .uid(70000),
            "ascii", "ünïcode 😀", "", .string(String(repeating: "long", count: 100)),
        ]
        let back = try PropertyList(decoding: PropertyList.array(values).encoded(as: .binary))
        #expect(back == .array(values))
    }

    @Test("a float32 real and a 16-byte integer from other writers are read")
    func foreignEncodings() throws {
        let f = Self.file(objects: [[0x22, 0x3F, 0xC0, 0, 0]])
        #expect(try PropertyList(decoding: f) == .real(1.5))
        let big = Self.file(objects: [[0x14] + [UInt8](repeating: 0, count: 8) + [0x80, 0, 0, 0, 0, 0, 0, 44]])
        #expect(try PropertyList(decoding: big) == PropertyList(UInt64(1) << 63 + 44))
    }

    @Test("a 100-byte file that claims 2^60 objects fails at once")
    func hugeObjectCount() {
        var f = Self.file(objects: [[0x08]], count: 1 << 60)
        while f.count < 100 { f.insert(0, at: 9) }
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: f) }
    }

    @Test("lengths past the end, references past the table and bad offsets are errors")
    func boundsChecks() {
        // data claiming 15+ bytes via an int that says 1_000_000
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: Self.file(objects: [[0x4F, 0x12, 0, 0x0F, 0x42, 0x40]])) }
        // array whose element reference is object 9 of 1
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: Self.file(objects: [[0xA1, 0x09]])) }
        // offset table pointing into the header
        var f = Self.file(objects: [[0x08]])
        f[f.count - 33] = 2
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: f) }
        // top object beyond the count
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: Self.file(objects: [[0x08]], top: 1)) }
        // truncated file
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: Array("bplist00".utf8)) }
    }

    @Test("cycles are rejected; shared objects are fine")
    func cycles() throws {
        // object 0: array containing itself
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: Self.file(objects: [[0xA1, 0x00]])) }
        // object 0: array of [1, 1]; object 1: "x" (shared, not a cycle)
        #expect(try PropertyList(decoding: Self.file(objects: [[0xA2, 0x01, 0x01], [0x51, 0x78]])) == ["x", "x"])
    }

    @Test("a DAG that doubles at each level is refused fast, by its expanded size (a billion laughs)")
    func exponentialDAG() throws {
        // object k is an array [k+1, k+1]; 60 levels would be 2^60 nodes once expanded
        var objects: [[UInt8]] = []
        for k in 0..<60 { objects.append([0xA2, UInt8(k + 1), UInt8(k + 1)]) }
        objects.append([0x08])
        let clock = ContinuousClock()
        var error: PropertyListError?
        let elapsed = clock.measure {
            do { _ = try PropertyList(decoding: Self.file(objects: objects)) } catch let e { error = e as? PropertyListError }
        }
        #expect(elapsed < .seconds(1))
        #expect(error?.reason.contains("expands to more than 1048576 objects") == true, "\(String(describing: error))")
        // The single-key lookup of `defaults read D K` is bounded the same way.
        var top: [[UInt8]] = [[0xD1, 0x01, 0x02], [0x51, 0x61]]
        for k in 0..<60 { top.append([0xA2, UInt8(k + 3), UInt8(k + 3)]) }
        top.append([0x08])
        #expect(throws: PropertyListError.self) { _ = try PropertyList.value(forKey: "a", decoding: Self.file(objects: top)) }
        // Sharing within the limit is fine: 16 levels expand to 131,071 objects.
        var small: [[UInt8]] = []
        for k in 0..<16 { small.append([0xA2, UInt8(k + 1), UInt8(k + 1)]) }
        small.append([0x08])
        #expect(try PropertyList(decoding: Self.file(objects: small)).arrayValue?.count == 2)
    }

    @Test("one big string shared many times is refused by its expanded bytes")
    func sharedBytes() throws {
        // object 0: an array of 255 references to object 1, a 1 MiB string: 255 MiB expanded.
        var objects: [[UInt8]] = [[0xAF, 0x10, 0xFF] + [UInt8](repeating: 1, count: 255)]
        let n = 1 << 20
        objects.append([0x5F, 0x12, UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + [UInt8](repeating: 0x61, count: n))
        let file = Self.file(objects: objects, offsetSize: 4)
        #expect(throws: PropertyListError.self) { _ = try PropertyList(decoding: file) }
    }

    /// A file whose top array (object 0) holds `r` references to object 1, an
    /// array of `k` references to object 2 (`leaf`); objects 3..<`count` are
    /// aliases of object 2 (their offsets point at it), then `padding` bytes of
    /// an unreferenced data object make the file larger. Expanded, it is
    /// 1 + r × (1 + k) objects and r × k × the leaf's bytes.
    static func sharedFile(r: Int, k: Int, count: Int, leaf: [UInt8], padding: Int = 0) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func array(_ n: Int, of ref: Int) -> [UInt8] {
            var a: [UInt8] = [0xAF, 0x12] + be32(n)
            a.reserveCapacity(a.count + 4 * n)
            for _ in 0..<n { a += be32(ref) }
            return a
        }
        var out = Array("bplist00".utf8)
        let top = out.count
        out += array(r, of: 1)
        let middle = out.count
        out += array(k, of: 2)
        let leafOffset = out.count
        out += leaf
        var last = leafOffset
        if padding > 0 {
            last = out.count
            out += [0x4F, 0x12] + be32(padding)
            out += [UInt8](repeating: 0x2A, count: padding)
        }
        let table = out.count
        out += be32(top) + be32(middle) + be32(leafOffset)
        let alias = be32(leafOffset)
        for i in 3..<count { out += (i == count - 1 && padding > 0) ? be32(last) : alias }
        out += [0, 0, 0, 0, 0, 0, 4, 4]
        func be64(_ v: Int) { for b in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> b)) } }
        be64(count); be64(0); be64(table)
        return out
    }

    @Test("a file may expand to 32 times its own objects, above the 2^20 floor; one more reference past that is refused")
    func expansionFactor() throws {
        // 65,536 objects: the bound is 32 × 65,536 = 2,097,152 objects (the floor is 1,048,576).
        let within = Self.sharedFile(r: 1500, k: 999, count: 65_536, leaf: [0x10, 0x07])  // 1,500,001 objects
        #expect(try PropertyList(decoding: within).arrayValue?.count == 1500, "past the floor, within 32×: read")
        let beyond = Self.sharedFile(r: 2100, k: 999, count: 65_536, leaf: [0x10, 0x07])  // 2,100,001 objects
        let error = #expect(throws: PropertyListError.self) { try PropertyList(decoding: beyond) }
        #expect(error?.reason.contains("more than 2097152 objects") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("32× its own 65536 objects") == true, "\(String(describing: error))")
        #expect(error?.exceedsExpansionLimit == true)
    }

    @Test("however large the file, it expands to at most 2^27 objects", .offThePool)
    func expansionObjectCeiling() throws {
        // 5,000,000 objects would allow 160,000,000 (32×): the ceiling, 134,217,728, refuses 140,020,001.
        let file = Self.sharedFile(r: 20_000, k: 7_000, count: 5_000_000, leaf: [0x10, 0x07])
        let error = #expect(throws: PropertyListError.self) { try PropertyList(decoding: file) }
        #expect(error?.reason.contains("more than 134217728 objects") == true, "\(String(describing: error))")
    }

    @Test("however large the file, it expands to at most 2 GiB of strings and data")
    func expansionByteCeiling() throws {
        // An 81 MiB file would allow 32 × 81 MiB = 2,592 MiB of bytes: the 2 GiB ceiling refuses
        // 21 × 100 references to a 1 MiB string (2,100 MiB).
        let mebibyte = 1 << 20
        let leaf: [UInt8] = [0x5F, 0x12, 0x00, 0x10, 0x00, 0x00] + [UInt8](repeating: 0x61, count: mebibyte)
        let file = Self.sharedFile(r: 21, k: 100, count: 4, leaf: leaf, padding: 80 * mebibyte)
        let error = #expect(throws: PropertyListError.self) { try PropertyList(decoding: file) }
        #expect(error?.reason.contains("\(1 << 31) bytes") == true, "\(String(describing: error))")
        // The same sharing in the same file, under the ceiling (20 × 100 MiB = 2,000 MiB), is read.
        let under = Self.sharedFile(r: 20, k: 100, count: 4, leaf: leaf, padding: 80 * mebibyte)
        #expect(try PropertyList(decoding: under).arrayValue?.count == 20)
    }

    @Test("nesting deeper than 512 levels is an error")
    func depth() {
        var objects: [[UInt8]] = (0..<600).map { k in [0xA1, UInt8((k + 1) >> 8), UInt8((k + 1) & 0xFF)] }
        objects.append([0x08])
        let f = Self.file(objects: objects, offsetSize: 2, refSize: 2)
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: f) }
    }

    @Test("errors name the byte offset")
    func errorOffsets() {
        do {
            _ = try PropertyList(decoding: Self.file(objects: [[0x08], [0x7F]], top: 1))
            Issue.record("expected an error")
        } catch {
            #expect(error.format == .binary)
            #expect(error.location == .byteOffset(9))
            #expect(error.description.contains("unknown object marker 0x7f"))
        }
    }

    @Test("binaryEncodedSize is the encoded length, for every kind of value and every size class")
    func encodedSize() throws {
        var values: [PropertyList] = [.boolean(true), .boolean(false), .real(0.5), .date(Date(timeIntervalSince1970: 5)), .uid(7), .uid(70_000)]
        for n: Int64 in [0, 1, 255, 256, 65_535, 65_536, 1 << 32, Int64.max, -1, Int64.min] { values.append(.integer(.init(n))) }
        values.append(.integer(.init(UInt64.max)))
        for count in [0, 1, 14, 15, 16, 255, 256, 65_535, 65_536, 1_048_576 - 60, 1_048_600] {
            values.append(.data(Data(repeating: 1, count: count)))
            values.append(.string(String(repeating: "a", count: count % 70_000)))
        }
        values += [.string("é"), .string(String(repeating: "€", count: 20)), .string("a😀b"), ["a": 1, "b": [1, 2]], [1, "x"]]
        for v in values {
            #expect(v.binaryEncodedSize == (try v.encoded(as: .binary)).count, "\(String(describing: v).prefix(60))")
        }
    }
}

@Suite("The binary writer's table of numbers")
struct ScalarTableTests {
    @Test("every number recorded is found under its kind, absent ones are not, through growth and through the overflow of long probes")
    func findsWhatItHolds() {
        for maxProbe in [1, 2, 32] {
            var table = ScalarTable(capacity: 4, maxProbe: maxProbe)
            var expected: [UInt64: Int] = [:]
            var id = 0
            // Sequential, random, and alike-but-for-the-kind values.
            let values: [UInt64] = Array(0..<3000) + (0..<3000).map { _ in UInt64.random(in: 0...UInt64.max) } + (0..<200).map { $0 << 52 }
            for v in values where expected[v] == nil {
                for kind in UInt8(0)..<3 {
                    table.insert(kind, v, id: id + Int(kind))
                }
                expected[v] = id
                id += 3
            }
            for (v, first) in expected {
                for kind in UInt8(0)..<3 { #expect(table.find(kind, v) == first + Int(kind)) }
                #expect(table.find(4, v) == nil)
            }
            #expect(table.find(0, 1 << 63) == nil)
            table._checkInvariants()
        }
    }

    @Test("sized for the distinct numbers among many (estimated by linear counting), not for all of them; an estimate too low only grows the table")
    func sizedForDistinct() {
        var rng = SeededRandom(seed: 5)
        for distinct in [10, 1_000, 30_000] {
            let pool = (0..<distinct).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
            let entries = (0..<100_000).map { k in k < distinct ? pool[k] : pool[Int.random(in: 0..<distinct, using: &rng)] }
            var table = ScalarTable(sizedForDistinctOf: entries.count) { k in (0, entries[k]) }
            // Half full at most, and not sized for 100,000 (262,144 slots).
            #expect(table.slotCount >= 2 * distinct && table.slotCount <= Swift.max(256, 8 * distinct), "\(distinct) distinct: \(table.slotCount) slots")
            var ids: [UInt64: Int] = [:]
            for (k, v) in entries.enumerated() {
                if let known = ids[v] {
                    #expect(table.find(0, v) == known)
                } else {
                    #expect(table.find(0, v) == nil)
                    table.insert(0, v, id: k)
                    ids[v] = k
                }
            }
            table._checkInvariants()
        }
        // Every entry distinct, told as all alike: the table grows as it fills, and holds them all.
        var table = ScalarTable(sizedForDistinctOf: 5_000) { _ in (0, 7) }
        for k in 0..<5_000 { table.insert(1, UInt64(k), id: k) }
        for k in 0..<5_000 { #expect(table.find(1, UInt64(k)) == k) }
        table._checkInvariants()
    }
}

@Suite("The binary writer's memory of recent objects")
struct RecentObjectsTests {
    @Test("it starts small (a small value zeroes no large table), grows with what it records, and never answers wrongly", .offThePool)
    func growsAndNeverLies() {
        var recent = RecentObjects()
        #expect(recent.slotCount == 1 << RecentObjects.initialBits)
        var recorded: [(UInt64, UInt64)] = []
        for i in 0..<20_000 {
            let key = (UInt64(i) &* 0x9E37_79B9_7F4A_7C15 | 1, UInt64(i))
            recent[key] = i
            recorded.append(key)
            // What it answers, it answers right; what it forgot is nil (a cache).
            if i % 97 == 0 {
                for (j, k) in recorded.enumerated() where j % 31 == 0 {
                    if let id = recent[k] { #expect(id == j) }
                }
            }
        }
        #expect(recent.slotCount == 1 << RecentObjects.maximumBits)
        // The newest identity is always remembered.
        #expect(recent[recorded.last!] == recorded.count - 1)
        #expect(recent[(0, 0)] == nil)
    }
}
