#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a binary property list from an XML one without building the value:
/// ``XMLReader`` reads the document with this builder, which keeps each
/// element as a compact node, and ``encode(_:)`` then writes the same bytes
/// that ``BinaryWriter`` writes for the value the XML spells.
///
/// The tree of ``PropertyList`` values costs a Swift string, array or
/// dictionary per element, and the binary writer then hashes every string of
/// it again to write each once (proposal 0019, item 13). Here:
/// - each string is looked up once, as it is read, in a ``StringTable``: a
///   node names it by number, and equal strings are one number;
/// - the bits of integers, reals, dates and UIDs go to one array; equal
///   numbers are made one object when the objects are numbered, through a
///   ``ScalarTable`` sized once for them;
/// - a collection is a run of nodes in one buffer (`children`), a
///   dictionary's keys in ``LiteralString`` order and each key once (the
///   value met last, as the tree keeps it), that order found once per shape
///   of keys met again;
/// - data is kept in one buffer.
///
/// The object numbers are then given as ``BinaryWriter`` gives them: the
/// tree's pre-order, a dictionary's keys before its values, a string or
/// number at its first meeting. The reader is the same reader, so the
/// errors are its errors.
struct BinaryFromXML: XMLValueBuilder {
    /// A node: its kind in the low three bits, an index above them.
    typealias Value = UInt64
    /// A key: its number in ``strings``.
    typealias Key = Int

    private enum Kind: UInt64 {
        /// The index is a string's number.
        case string = 0
        /// A number (integer, real, date, UID): the index is its bits' in
        /// `scalarBits` times 8 plus its ``ScalarKind``.
        case scalar = 1
        case `false` = 2
        case `true` = 3
        /// The index is the data's in `dataStarts`.
        case data = 4
        /// The index is where the array's count lies in `children`; its elements follow.
        case array = 5
        /// The index is where the dictionary's count lies in `children`; its
        /// key strings' numbers follow, then its values.
        case dictionary = 6
    }

    /// The kinds of ``ScalarTable``, as ``BinaryWriter`` numbers them.
    private enum ScalarKind {
        static let integer: UInt8 = 0
        static let largeInteger: UInt8 = 1
        static let real: UInt8 = 2
        static let date: UInt8 = 3
        static let uid: UInt8 = 4
    }

    private var strings = StringTable()
    /// The bits of each number read (each time it is read: numbers are
    /// kept once each when the objects are numbered, after the document's
    /// bytes have been let go).
    private var scalarBits: [UInt64] = []
    private var dataBytes: [UInt8] = []
    private var dataStarts: [Int] = [0]
    private var children: [UInt64] = []
    private var keyOrders = KeyOrders()
    /// Positions of a dictionary's entries, reused for each dictionary.
    private var order: [Int] = []

    /// A builder for a document of `size` bytes. Its buffers are reserved
    /// at what such a document can need at most (memory that stays unused
    /// is only reserved, never touched), so that they are never copied to
    /// grow: the nodes (a key and a value take 13 bytes at least, `<key/><true/>`),
    /// the numbers, the strings' bytes and the data (3 bytes for 4 of base64).
    ///
    /// Each reservation stops at 256 MiB, past which a buffer grows as it
    /// fills: a very large document must not ask for gigabytes it may never
    /// touch, which a system that does not overcommit would refuse.
    init(documentSize size: Int) {
        let most = 256 << 20
        children = .reservingLargeCapacity(Swift.min(size / 6 + 1, most / 8))
        scalarBits = .reservingLargeCapacity(Swift.min(size / 14 + 1, most / 8))  // `<real>0</real>`
        dataBytes = .reservingLargeCapacity(Swift.min(size / 4 * 3, most))
        strings.reserveCapacity(Swift.min(size, most))
    }

    @inline(__always)
    private static func node(_ kind: Kind, _ index: Int) -> UInt64 { UInt64(index) << 3 | kind.rawValue }
    @inline(__always)
    private static func kind(_ node: UInt64) -> Kind { Kind(rawValue: node & 7)! }
    @inline(__always)
    private static func index(_ node: UInt64) -> Int { Int(truncatingIfNeeded: node >> 3) }
    /// A number node's place in `scalarBits` and its ``ScalarKind``.
    @inline(__always)
    private static func scalar(_ node: UInt64) -> (Int, UInt8) {
        (Int(truncatingIfNeeded: node >> 6), UInt8(truncatingIfNeeded: node >> 3 & 7))
    }

    // MARK: What the reader reads

    mutating func string(_ text: UnsafeRawBufferPointer) -> UInt64? {
        strings.intern(text).map { Self.node(.string, $0) }
    }

    mutating func key(_ text: UnsafeRawBufferPointer) -> Int? { strings.intern(text) }

    func description(of key: Int) -> String {
        strings.withBytes(of: key) { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func scalar(_ kind: UInt8, _ bits: UInt64) -> UInt64 {
        scalarBits.append(bits)
        return Self.node(.scalar, (scalarBits.count - 1) << 3 | Int(kind))
    }

    mutating func integer(_ n: PropertyList.Integer) -> UInt64 {
        scalar(n.isLarge ? ScalarKind.largeInteger : ScalarKind.integer, n.bits)
    }
    mutating func real(_ d: Double) -> UInt64 { scalar(ScalarKind.real, d.bitPattern) }
    mutating func boolean(_ b: Bool) -> UInt64 { Self.node(b ? .true : .false, 0) }
    mutating func date(_ t: Double) -> UInt64 { scalar(ScalarKind.date, t.bitPattern) }

    mutating func data(base64 text: UnsafeRawBufferPointer) -> UInt64 {
        Base64.decode(text, appendingTo: &dataBytes)
        dataStarts.append(dataBytes.count)
        return Self.node(.data, dataStarts.count - 2)
    }

    /// None: a dictionary's keys are numbers here, and `KeyOrders` compares them.
    @inline(__always)
    static func fingerprint(_ fingerprint: UInt64, adding keyText: UnsafeRawBufferPointer) -> UInt64 { 0 }

    mutating func array(taking stack: inout [UInt64], from base: Int) -> UInt64 {
        let at = children.count
        children.append(UInt64(stack.count - base))
        children.append(contentsOf: stack[base...])
        stack.removeSubrange(base...)
        return Self.node(.array, at)
    }

    mutating func dictionary(taking stack: inout [(Int, UInt64)], from base: Int, fingerprint: UInt64) -> UInt64 {
        let count = stack.count - base
        if count == 1, case let (key, value) = stack[base], isUIDKey(key), Self.kind(value) == .scalar,
            case let (k, kind) = Self.scalar(value), kind == ScalarKind.integer,
            Int64(bitPattern: scalarBits[k]) >= 0, scalarBits[k] <= UInt64(UInt32.max)
        {
            stack.removeLast()
            return Self.node(.scalar, k << 3 | Int(ScalarKind.uid))  // the integer's bits, as a UID
        }
        stack.withUnsafeBufferPointer { all in
            keyOrders.order(of: UnsafeBufferPointer(rebasing: all[base...]), strings: strings, into: &order)
        }
        let at = children.count
        children.append(UInt64(order.count))
        for p in order { children.append(UInt64(stack[base + p].0)) }
        for p in order { children.append(stack[base + p].1) }
        stack.removeSubrange(base...)
        return Self.node(.dictionary, at)
    }

    private func isUIDKey(_ key: Int) -> Bool {
        strings.withBytes(of: key) { $0.elementsEqual("CF$UID".utf8) }
    }

    // MARK: Writing

    /// The binary file of the document whose top-level node is `top`.
    consuming func encode(_ top: UInt64) -> ByteOutput {
        var numbering = Numbering(stringCount: strings.count)
        // Sized by the distinct bits (kinds aside: rarely two kinds share bits, and too
        // small a table only grows).
        numbering.scalarObjects = ScalarTable(sizedForDistinctOf: scalarBits.count) { [scalarBits] k in (0, scalarBits[k]) }
        numbering.objects.reserveCapacity(nodeCount)
        _ = numbering.number(top, children: &children, scalarBits: scalarBits)
        var objects = numbering.objects
        numbering = Numbering(stringCount: 0)  // its tables, let go before the file is made
        return write(&objects)
    }

    /// How many nodes were made: at most this many objects are written.
    private var nodeCount: Int { children.count + 1 }

    /// Object numbers, given as ``BinaryWriter`` gives them.
    ///
    /// A collection's children in `children` are replaced by their object
    /// numbers as they are numbered (each node is met once: XML shares
    /// nothing), so that writing a collection reads its references there.
    private struct Numbering {
        /// The objects' nodes in object-number order.
        var objects: [UInt64] = []
        var stringObjects: [Int32]
        /// The object numbers of numbers, by kind and bits.
        var scalarObjects = ScalarTable()
        var booleanObjects: (Int32, Int32) = (-1, -1)

        init(stringCount: Int) {
            stringObjects = Array(repeating: -1, count: stringCount)
        }

        @inline(__always)
        private mutating func add(_ node: UInt64) -> UInt32 {
            objects.append(node)
            return UInt32(truncatingIfNeeded: objects.count - 1)
        }

        /// The object number of a string, a number or a boolean, given at its first meeting.
        @inline(__always)
        private static func shared(_ node: UInt64, _ known: inout Int32, _ objects: inout [UInt64]) -> UInt32 {
            if known >= 0 { return UInt32(known) }
            objects.append(node)
            known = Int32(truncatingIfNeeded: objects.count - 1)
            return UInt32(known)
        }

        mutating func number(_ node: UInt64, children: inout [UInt64], scalarBits: [UInt64]) -> UInt32 {
            let index = BinaryFromXML.index(node)
            switch BinaryFromXML.kind(node) {
            case .string: return Self.shared(node, &stringObjects[index], &objects)
            case .scalar:
                let (k, kind) = BinaryFromXML.scalar(node)
                let bits = scalarBits[k]
                if let known = scalarObjects.find(kind, bits) { return UInt32(known) }
                objects.append(node)
                scalarObjects.insert(kind, bits, id: objects.count - 1)
                return UInt32(objects.count - 1)
            case .false: return Self.shared(node, &booleanObjects.0, &objects)
            case .true: return Self.shared(node, &booleanObjects.1, &objects)
            case .data: return add(node)
            case .array:
                let id = add(node)
                let n = Int(children[index])
                for k in (index + 1)..<(index + 1 + n) {
                    children[k] = UInt64(number(children[k], children: &children, scalarBits: scalarBits))
                }
                return id
            case .dictionary:
                let id = add(node)
                let n = Int(children[index])
                for k in (index + 1)..<(index + 1 + n) {
                    let key = Int(children[k])
                    children[k] = UInt64(Self.shared(BinaryFromXML.node(.string, key), &stringObjects[key], &objects))
                }
                for k in (index + 1 + n)..<(index + 1 + 2 * n) {
                    children[k] = UInt64(number(children[k], children: &children, scalarBits: scalarBits))
                }
                return id
            }
        }
    }

    /// Writes the objects in order; each one's node in `objects` is replaced
    /// by its offset in the file as it is written.
    private func write(_ objects: inout [UInt64]) -> ByteOutput {
        let count = objects.count
        let refSize = BinaryWriter.bytesNeeded(UInt64(count))
        var out = ByteOutput(capacity: count * 12 + nodeCount * refSize + strings.bytes.count + dataBytes.count + 64)
        out.append(ascii: "bplist00")
        let topIsDictionary = count > 0 && Self.kind(objects[0]) == .dictionary
        children.withUnsafeBufferPointer { children in
            for id in 0..<count {
                let node = objects[id]
                objects[id] = UInt64(out.count)
                let index = Self.index(node)
                switch Self.kind(node) {
                case .string:
                    strings.withBytes(of: index) { text in
                        if strings.isASCII(index) {
                            BinaryWriter.asciiString(text, into: &out)
                        } else {
                            BinaryWriter.utf16String(String(decoding: text, as: UTF8.self), into: &out)
                        }
                    }
                case .scalar:
                    let (k, kind) = Self.scalar(node)
                    let bits = scalarBits[k]
                    switch kind {
                    case ScalarKind.integer: BinaryWriter.integer(.init(Int64(bitPattern: bits)), into: &out)
                    case ScalarKind.largeInteger: BinaryWriter.integer(.init(bits), into: &out)
                    case ScalarKind.real: out.append(0x23); BinaryWriter.bigEndian(bits, 8, into: &out)
                    case ScalarKind.date: out.append(0x33); BinaryWriter.bigEndian(bits, 8, into: &out)
                    default: BinaryWriter.uid(bits, into: &out)
                    }
                case .false: out.append(0x08)
                case .true: out.append(0x09)
                case .data:
                    dataBytes.withUnsafeBytes { all in
                        let d = UnsafeRawBufferPointer(rebasing: all[dataStarts[index]..<dataStarts[index + 1]])
                        BinaryWriter.header(0x40, d.count, into: &out)
                        out.append(bytes: d)
                    }
                case .array:
                    let n = Int(children[index])
                    BinaryWriter.header(0xA0, n, into: &out)
                    for k in (index + 1)..<(index + 1 + n) { BinaryWriter.bigEndian(children[k], refSize, into: &out) }
                case .dictionary:
                    let n = Int(children[index])
                    BinaryWriter.header(0xD0, n, into: &out)
                    for k in (index + 1)..<(index + 1 + 2 * n) { BinaryWriter.bigEndian(children[k], refSize, into: &out) }
                }
            }
        }
        BinaryWriter.trailer(offsets: objects, objectCount: count, refSize: refSize, topIsDictionary: topIsDictionary, into: &out)
        return out
    }
}

extension PropertyList {
    /// The binary form of an XML property list: the bytes that decoding it
    /// and encoding the value as ``PropertyListFormat/binary`` give, or the
    /// same error, without building the value (``BinaryFromXML``).
    ///
    /// The document's bytes are let go once it has been read, before the
    /// binary file is made.
    package static func binaryOutput(fromXML bytes: consuming [UInt8]) throws(PropertyListError) -> ByteOutput {
        let (top, nodes) = try bytes.withTypedBytes { (raw) throws(PropertyListError) in
            try XMLReader.read(raw, builder: BinaryFromXML(documentSize: raw.count)) { top, builder in (top, builder) }
        }
        _ = consume bytes
        return nodes.encode(top)
    }
}
