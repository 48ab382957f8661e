import PropertyList
import Synchronization

/// The record format of a domain journal (proposal 0007).
///
/// A journal file is a 32-byte header — the magic `ODJRNL01`, the sequence
/// through which its records are in the domain file (`appliedThrough`,
/// little-endian), the owner's pid, the offset of the first record to read
/// (`start`; 0 means 32) — followed by records, each aligned to 8 bytes:
///
/// | bytes | field |
/// |---|---|
/// | 0..<4 | total length `L` (a multiple of 8, ≥ 24), written last |
/// | 4..<8 | checksum of bytes 8..<L |
/// | 8..<16 | sequence (strictly increasing within a journal) |
/// | 16 | operation: 1 set, 2 remove, 3 replace the whole domain |
/// | 17 | value tag: 0 none, 1 false, 2 true, 3 Int64, 4 Double, 5 UTF-8 string, 6 binary plist |
/// | 18 | 1 when the next record belongs to the same batch (a several-key set), else 0 |
/// | 20..<24 | key length `k` |
/// | 24..<24+k | key (UTF-8) |
/// | then | the value: 8 bytes (tags 3, 4), or a 4-byte length and bytes (5, 6) |
///
/// A record cut short by death, or overwritten garbage, fails its length or
/// checksum and ends the journal there; a sequence that does not increase
/// (an older record left behind a rewind) ends it too. The records of one
/// several-key write form a batch that is replayed whole or not at all.
enum JournalRecord {
    static let magic: [UInt8] = Array("ODJRNL01".utf8)
    static let headerSize = 32
    static let fixedSize = 24

    enum Operation: UInt8 { case set = 1, remove = 2, replaceAll = 3 }

    /// A decoded record.
    struct Decoded {
        var sequence: UInt64
        var operation: Operation
        var key: String
        var value: PropertyList?
        /// For `replaceAll`: the new entries (nil removes the domain).
        var entries: [LiteralString: PropertyList]?
    }

    /// Points the header's `start` at `offset`, after every store before it.
    @inline(__always)
    static func setStart(_ offset: Int, in base: UnsafeMutableRawPointer) {
        atomicMemoryFence(ordering: .releasing)
        base.storeBytes(of: UInt64(offset).littleEndian, toByteOffset: 24, as: UInt64.self)
        atomicMemoryFence(ordering: .releasing)
    }

    /// The checksum of `count` bytes at `p`: a 64-bit multiply-xor mix folded to 32 bits.
    @inline(__always)
    static func checksum(_ p: UnsafeRawPointer, _ count: Int) -> UInt32 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count)
        var i = 0
        while i + 8 <= count {
            h = (h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < count {
            tail |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 29
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }

    /// How a value is stored: its tag, and the bytes that follow the key.
    enum Payload {
        case none(tag: UInt8)
        case word(tag: UInt8, UInt64)
        case bytes(tag: UInt8, [UInt8])
        case string(String)

        var tag: UInt8 {
            switch self {
            case .none(let t), .word(let t, _), .bytes(let t, _): t
            case .string: 5
            }
        }

        var size: Int {
            switch self {
            case .none: 0
            case .word: 8
            case .bytes(_, let b): 4 + b.count
            case .string(let s): 4 + s.utf8.count
            }
        }
    }

    static func payload(_ value: PropertyList?) -> Payload {
        switch value {
        case nil: return .none(tag: 0)
        case .boolean(let b)?: return .none(tag: b ? 2 : 1)
        case .integer(let i)?:
            if let v = i.int64Value { return .word(tag: 3, UInt64(bitPattern: v)) }
        case .real(let d)?: return .word(tag: 4, d.bitPattern)
        case .string(let s)?: return .string(s)
        default: break
        }
        return .bytes(tag: 6, (try? value!.encoded(as: .binary)) ?? [])
    }

    /// The record's total length for a key of `keyBytes` bytes and `payload`.
    @inline(__always)
    static func length(keyBytes: Int, payload: Payload) -> Int {
        (fixedSize + keyBytes + payload.size + 7) & ~7
    }

    /// Writes a record at `p` (room for `length` bytes, zeroed or not); the
    /// length field is stored last, so a record is either whole or absent.
    static func write(at p: UnsafeMutableRawPointer, length: Int, sequence: UInt64, operation: Operation, key: String,
                      payload: Payload, continues: Bool = false) {
        // The last word first: the padding after the value is zero.
        p.storeBytes(of: UInt64(0), toByteOffset: length - 8, as: UInt64.self)
        p.storeBytes(of: UInt64(sequence).littleEndian, toByteOffset: 8, as: UInt64.self)
        let k = key.utf8.withContiguousStorageIfAvailable { u -> Int in
            if u.count > 0 { (p + fixedSize).copyMemory(from: u.baseAddress!, byteCount: u.count) }
            return u.count
        } ?? {
            var key = key
            return key.withUTF8 { u -> Int in
                if u.count > 0 { (p + fixedSize).copyMemory(from: u.baseAddress!, byteCount: u.count) }
                return u.count
            }
        }()
        // Bytes 16..<24 in one store: operation, tag, batch flag, 0, key length.
        let word = UInt64(operation.rawValue) | UInt64(payload.tag) << 8 | (continues ? 1 << 16 : 0) | UInt64(UInt32(k)) << 32
        p.storeBytes(of: word.littleEndian, toByteOffset: 16, as: UInt64.self)
        var o = fixedSize + k
        switch payload {
        case .none: break
        case .word(_, let w):
            p.storeBytes(of: w.littleEndian, toByteOffset: o, as: UInt64.self)
            o += 8
        case .bytes(_, let b):
            p.storeBytes(of: UInt32(b.count).littleEndian, toByteOffset: o, as: UInt32.self)
            o += 4
            b.withUnsafeBytes { if $0.count > 0 { (p + o).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            o += b.count
        case .string(var s):
            let n = s.withUTF8 { u -> Int in
                if u.count > 0 { (p + o + 4).copyMemory(from: u.baseAddress!, byteCount: u.count) }
                return u.count
            }
            p.storeBytes(of: UInt32(n).littleEndian, toByteOffset: o, as: UInt32.self)
            o += 4 + n
        }
        assert(o <= length, "a record's contents overran its length")
        p.storeBytes(of: checksum(p + 8, length - 8).littleEndian, toByteOffset: 4, as: UInt32.self)
        // The length last, after every other store of the record (a compiler barrier on x86).
        atomicMemoryFence(ordering: .releasing)
        p.storeBytes(of: UInt32(length).littleEndian, toByteOffset: 0, as: UInt32.self)
    }

    /// The records of a journal's bytes with sequences above the header's
    /// `appliedThrough`, in order, up to the first that is torn, corrupt or
    /// out of order. A batch (records marked as continued, then one that is
    /// not) is all or nothing: a batch cut short by death is dropped whole.
    /// Throws when the header is not a journal's.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(JournalError) -> [Decoded] {
        guard bytes.count >= headerSize, bytes.prefix(8).elementsEqual(magic) else {
            throw JournalError(reason: "not a journal (expected the header 'ODJRNL01')")
        }
        let applied = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let start = Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        guard start == 0 || (start >= headerSize && start % 8 == 0 && start <= bytes.count) else {
            throw JournalError(reason: "the header's start (\(start)) is not a record's place in a journal of \(bytes.count) bytes")
        }
        var out: [Decoded] = []
        // The records of a batch not yet closed by a record that does not continue it.
        var batch: [Decoded] = []
        var o = start == 0 ? headerSize : start
        var previous: UInt64 = 0
        while o + fixedSize <= bytes.count {
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
            guard length >= fixedSize, length % 8 == 0, o + length <= bytes.count else { break }
            let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self))
            guard checksum(bytes.baseAddress! + o + 8, length - 8) == stored else { break }
            let sequence = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 8, as: UInt64.self))
            guard sequence > previous else { break }
            previous = sequence
            guard bytes[o + 18] <= 1, let record = decodeBody(bytes, at: o, length: length, sequence: sequence) else { break }
            if sequence > applied { batch.append(record) }
            if bytes[o + 18] == 0 {
                out.append(contentsOf: batch)
                batch.removeAll(keepingCapacity: true)
            }
            o += length
        }
        return out
    }

    private static func decodeBody(_ b: UnsafeRawBufferPointer, at o: Int, length: Int, sequence: UInt64) -> Decoded? {
        guard let operation = Operation(rawValue: b[o + 16]) else { return nil }
        let tag = b[o + 17]
        let k = Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: o + 20, as: UInt32.self)))
        var p = o + fixedSize
        guard p + k <= o + length else { return nil }
        let key = String(decoding: UnsafeRawBufferPointer(rebasing: b[p..<(p + k)]), as: UTF8.self)
        p += k
        var value: PropertyList? = nil
        switch tag {
        case 0: value = nil
        case 1: value = .boolean(false)
        case 2: value = .boolean(true)
        case 3, 4:
            guard p + 8 <= o + length else { return nil }
            let w = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: p, as: UInt64.self))
            value = tag == 3 ? .integer(.init(Int64(bitPattern: w))) : .real(Double(bitPattern: w))
        case 5, 6:
            guard p + 4 <= o + length else { return nil }
            let n = Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
            guard p + 4 + n <= o + length else { return nil }
            let bytes = UnsafeRawBufferPointer(rebasing: b[(p + 4)..<(p + 4 + n)])
            if tag == 5 {
                value = .string(String(decoding: bytes, as: UTF8.self))
            } else {
                guard let decoded = try? PropertyList(decoding: Array(bytes)) else { return nil }
                value = decoded
            }
        default: return nil
        }
        switch operation {
        case .set: return Decoded(sequence: sequence, operation: .set, key: key, value: value)
        case .remove: return Decoded(sequence: sequence, operation: .remove, key: key, value: nil)
        case .replaceAll:
            if case .dictionary(let d)? = value { return Decoded(sequence: sequence, operation: .replaceAll, key: "", entries: d) }
            if value == nil { return Decoded(sequence: sequence, operation: .replaceAll, key: "", entries: nil) }
            return nil
        }
    }

    /// Applies records to a domain's entries, in order.
    static func apply(_ records: [Decoded], to entries: inout [LiteralString: PropertyList]) {
        for r in records {
            switch r.operation {
            case .set: entries[r.key] = r.value
            case .remove: entries[r.key] = nil
            case .replaceAll: entries = r.entries ?? [:]
            }
        }
    }
}
