/// A binary property list written as XML straight from the file, without
/// building the value (`plutil -convert xml1` of a binary file).
///
/// Decoding builds a Swift dictionary per `<dict>`, a heap string per long
/// string and a `Data` per data object, only for the XML writer to walk them
/// once and the process to exit. Here a ``BinaryReader``'s walk writes each
/// object's element as it meets it: integers, ASCII strings and data from
/// the file's bytes, a dictionary's keys as places in the file put in
/// ``LiteralString`` order (usually they already are: a check, no sort).
/// Everything else goes through the reader's own `object(_:depth:)` and the
/// writer's own `value(_:indent:into:)`.
///
/// **The same bytes and the same errors as decoding and writing.** Every
/// object met is checked by the reader's tests in the reader's words,
/// cycles and depth are refused the same way, and the reader's expansion
/// limit counts the same weights: a shared string or data object is written
/// at each reference and counted at each. Of keys that repeat in a
/// dictionary the last wins and the values it overrides are decoded
/// (checked, counted) and dropped, as decoding does. The walk refuses more
/// than decoding: a collection met twice, which it would write out again at
/// each reference (how a file of a few hundred bytes expands to megabytes).
/// So ``PropertyList/xmlOutput(fromBinary:)`` decodes the file the usual way
/// when the walk refuses it, which gives the reader's own error, or the
/// same XML.
struct BinaryXMLWalk {
    private var reader: BinaryReader
    /// The keys of the dictionaries being written, innermost last.
    private var keys: [KeyPlace] = []
    /// The UTF-8 of keys that are not ASCII strings in the file.
    private var keyText: [UInt8] = []
    /// Takes the document so far once it holds `pieceSize` bytes.
    private let piece: ((UnsafeRawBufferPointer) -> Void)?
    private let pieceSize: Int

    /// Where a key's UTF-8 lies: in the file (an ASCII string object), or,
    /// for any other key, in `keyText` (`start` is then `-1 - offset`).
    private struct KeyPlace {
        var start: Int
        var count: Int
    }

    /// The XML document of the binary property list in `bytes`.
    static func xml(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> ByteOutput {
        // About three bytes of XML per byte of binary in typical documents.
        var out = ByteOutput(capacity: min(bytes.count * 3, 1 << 30) + 256)
        var walk = try BinaryXMLWalk(bytes, piece: nil, pieceSize: .max)
        try walk.document(into: &out)
        return out
    }

    /// The XML document of the binary property list in `bytes`, handed to
    /// `piece` in order, in parts of at least `pieceSize` bytes (the last
    /// may be shorter). When this throws, the parts given so far are not a
    /// document.
    static func xmlPieces(_ bytes: UnsafeRawBufferPointer, pieceSize: Int, _ piece: (UnsafeRawBufferPointer) -> Void) throws(PropertyListError) {
        var out = ByteOutput(capacity: pieceSize + pieceSize / 8)
        let walked: Result<Void, PropertyListError> = withoutActuallyEscaping(piece) { piece in
            Result { () throws(PropertyListError) in
                var walk = try BinaryXMLWalk(bytes, piece: piece, pieceSize: pieceSize)
                try walk.document(into: &out)
            }
        }
        try walked.get()
        out.withUnsafeBytes { piece($0) }
    }

    private init(_ bytes: UnsafeRawBufferPointer, piece: ((UnsafeRawBufferPointer) -> Void)?, pieceSize: Int) throws(PropertyListError) {
        reader = try BinaryReader(bytes, checkingEveryOffset: true)
        self.piece = piece
        self.pieceSize = pieceSize
    }

    private mutating func document(into out: inout ByteOutput) throws(PropertyListError) {
        out.append(string: XMLWriter.header)
        try xml(reader.topIndex, depth: 0, indent: 0, into: &out)
        out.append(ascii: "</plist>\n")
    }

    /// Writes object `index` as ``XMLWriter/value(_:indent:into:)`` writes its value.
    private mutating func xml(_ index: Int, depth: Int, indent: Int, into out: inout ByteOutput) throws(PropertyListError) {
        if out.count >= pieceSize, let piece {
            out.withUnsafeBytes { piece($0) }
            out.removeAll()
        }
        let state = reader.states.pointer[index]
        let start = try reader.checkedOffset(index)
        let marker = reader.b[start]
        let kind = marker >> 4
        // Objects the reader has cached (values a repeated key overrode, and what they share)
        // and the scalars written below are decoded: no heap, the reader's checks.
        guard state >> BinaryReader.cacheShift == 0, kind == 0x4 || kind == 0x5 || kind == 0xA || kind == 0xC || kind == 0xD
                || (kind == 0x1 && marker & 0x0F <= 3) else {
            return XMLWriter.value(try reader.object(index, depth: depth), indent: indent, into: &out)
        }
        let collection = kind == 0xA || kind == 0xC || kind == 0xD
        if collection, state & BinaryReader.seen != 0 {
            throw BinaryReader.fail(start, "object \(index) is a collection met before; the file is decoded instead")
        }
        if state & BinaryReader.inProgress != 0 { throw BinaryReader.fail(start, "object \(index) contains itself (a reference cycle)") }
        guard depth <= BinaryReader.maxDepth else { throw BinaryReader.fail(start, "nesting is deeper than \(BinaryReader.maxDepth) levels") }
        out.append(tabs: indent)
        switch kind {
        case 0x1:
            // 1 to 8 bytes, read as the reader reads them.
            let size = 1 << Int(marker & 0x0F)
            guard start + 1 + size <= reader.tableOffset else { throw BinaryReader.fail(start, "integer runs past the object area") }
            let v = BinaryReader.bigEndian(reader.b, start + 1, size)
            XMLWriter.integer(size == 8 ? .init(Int64(bitPattern: v)) : .init(v), into: &out)
        case 0x4:
            XMLWriter.data(try bytes(at: start, marker, "data"), indent: indent, into: &out)
        case 0x5:
            let text = try bytes(at: start, marker, "string")
            if UTF8Text.isASCII(text) {
                XMLWriter.string(text, into: &out)
            } else {
                var latin1 = BinaryReader.asciiString(text)
                latin1.withUTF8 { XMLWriter.string(UnsafeRawBufferPointer($0), into: &out) }
            }
        default:
            var p = start + 1
            let n = try reader.count(marker, at: &p)
            let perEntry = kind == 0xD ? 2 : 1
            guard n <= (reader.tableOffset - p) / reader.refSize / perEntry else {
                throw BinaryReader.fail(start, kind == 0xD ? "dictionary of \(n) entries runs past the object area"
                                                           : "array of \(n) references runs past the object area")
            }
            reader.states.pointer[index] |= BinaryReader.inProgress
            if n == 0 {
                out.append(ascii: kind == 0xD ? "<dict/>\n" : "<array/>\n")
            } else {
                out.append(ascii: kind == 0xD ? "<dict>\n" : "<array>\n")
                if kind == 0xD {
                    try dictionary(n, at: p, depth: depth, indent: indent, into: &out)
                } else {
                    for k in 0..<n {
                        try xml(try reader.reference(at: p + k * reader.refSize), depth: depth + 1, indent: indent + 1, into: &out)
                    }
                }
                out.append(tabs: indent)
                out.append(ascii: kind == 0xD ? "</dict>\n" : "</array>\n")
            }
        }
        try reader.count(BinaryReader.Weight(objects: 1, bytes: 0), at: start)
        reader.states.pointer[index] = BinaryReader.seen
    }

    /// The bytes of a string or data object at `start`, checked against the
    /// object area and counted against the expansion limit, as the reader does.
    private mutating func bytes(at start: Int, _ marker: UInt8, _ what: String) throws(PropertyListError) -> UnsafeRawBufferPointer {
        var p = start + 1
        let n = try reader.count(marker, at: &p)
        guard p + n <= reader.tableOffset else { throw BinaryReader.fail(start, "\(what) of \(n) bytes runs past the object area") }
        try reader.count(BinaryReader.Weight(objects: 0, bytes: n), at: start)
        return UnsafeRawBufferPointer(rebasing: reader.b[p..<(p + n)])
    }

    /// Runs `body` over the UTF-8 of a key.
    @inline(__always)
    private func withKey<R>(_ place: KeyPlace, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if place.start >= 0 {
            return body(UnsafeBufferPointer(rebasing: reader.b.assumingMemoryBound(to: UInt8.self)[place.start..<(place.start + place.count)]))
        }
        let s = -1 - place.start
        return keyText.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[s..<(s + place.count)])) }
    }

    /// Whether key `x` comes before key `y` in ``LiteralString`` order
    /// (UTF-8 compared as CFString compares UTF-16).
    @inline(__always)
    private func keyLess(_ x: KeyPlace, _ y: KeyPlace) -> Bool {
        withKey(x) { p in withKey(y) { q in LiteralString.compareUTF8(p, q) < 0 } }
    }

    /// A dictionary's entries, keys in ``LiteralString`` order, the last of
    /// a repeated key winning.
    private mutating func dictionary(_ n: Int, at p: Int, depth: Int, indent: Int, into out: inout ByteOutput) throws(PropertyListError) {
        // This dictionary's keys go above those of the dictionaries it is in.
        let base = keys.count, textBase = keyText.count
        defer {
            keys.removeSubrange(base...)
            keyText.removeSubrange(textBase...)
        }
        for k in 0..<n { keys.append(try key(try reader.reference(at: p + k * reader.refSize), depth: depth + 1)) }
        // Keys already in order (most files'): written as they come, nothing sorted.
        var ordered = true
        for k in 1..<n where !keyLess(keys[base + k - 1], keys[base + k]) {
            ordered = false
            break
        }
        if ordered {
            for k in 0..<n { try entry(n, k, base: base, at: p, depth: depth, indent: indent, into: &out) }
            return
        }
        // Sorted by key, then by place, so that equal keys are neighbours and
        // the last of them in the file comes last.
        let order = (0..<n).sorted { a, c in
            if keyLess(keys[base + a], keys[base + c]) { return true }
            if keyLess(keys[base + c], keys[base + a]) { return false }
            return a < c
        }
        for (i, k) in order.enumerated() {
            if i + 1 < n, !keyLess(keys[base + k], keys[base + order[i + 1]]) {
                // A value a later equal key overrides: read (checked and counted) and dropped,
                // as decoding does.
                _ = try reader.object(try reader.reference(at: p + (n + k) * reader.refSize), depth: depth + 1)
            } else {
                try entry(n, k, base: base, at: p, depth: depth, indent: indent, into: &out)
            }
        }
    }

    /// Entry `k` of the dictionary of `n` entries whose references start at
    /// `p`: its key (`keys[base + k]`), then its value.
    private mutating func entry(_ n: Int, _ k: Int, base: Int, at p: Int, depth: Int, indent: Int, into out: inout ByteOutput) throws(PropertyListError) {
        // Not through `withKey`: a call on the walk with a closure that writes to `out` copied
        // the whole walk each time.
        let place = keys[base + k]
        if place.start >= 0 {
            XMLWriter.key(UnsafeRawBufferPointer(rebasing: reader.b[place.start..<(place.start + place.count)]), indent: indent + 1, into: &out)
        } else {
            let s = -1 - place.start
            keyText.withUnsafeBytes { XMLWriter.key(UnsafeRawBufferPointer(rebasing: $0[s..<(s + place.count)]), indent: indent + 1, into: &out) }
        }
        try xml(try reader.reference(at: p + (n + k) * reader.refSize), depth: depth + 1, indent: indent + 1, into: &out)
    }

    /// A dictionary key: an ASCII string object is left where it lies; any
    /// other key is decoded, required to be a string, and its UTF-8 kept in
    /// `keyText`.
    private mutating func key(_ index: Int, depth: Int) throws(PropertyListError) -> KeyPlace {
        var decoded: String
        let start = try reader.checkedOffset(index)
        let marker = reader.b[start]
        if reader.states.pointer[index] >> BinaryReader.cacheShift == 0, marker >> 4 == 0x5 {
            guard depth <= BinaryReader.maxDepth else { throw BinaryReader.fail(start, "nesting is deeper than \(BinaryReader.maxDepth) levels") }
            let text = try bytes(at: start, marker, "string")
            try reader.count(BinaryReader.Weight(objects: 1, bytes: 0), at: start)
            reader.states.pointer[index] = BinaryReader.seen
            if UTF8Text.isASCII(text) { return KeyPlace(start: text.baseAddress! - reader.b.baseAddress!, count: text.count) }
            decoded = BinaryReader.asciiString(text)
        } else {
            guard case .string(let s) = try reader.object(index, depth: depth) else {
                throw BinaryReader.fail(reader.offset(of: index), "expected a string as dictionary key, found another kind of object")
            }
            decoded = s
        }
        let at = keyText.count
        decoded.withUTF8 { keyText.append(contentsOf: $0) }
        return KeyPlace(start: -1 - at, count: keyText.count - at)
    }
}

extension PropertyList {
    /// ``xmlOutput(fromBinary:)`` in pieces, while it is made: `piece` gets
    /// the document in order, in parts of at least `pieceSize` bytes. It
    /// throws where the walk refuses the file (``BinaryXMLWalk``); the parts
    /// given so far are then to be dropped, and ``xmlOutput(fromBinary:)``
    /// gives the result, or decoding's error.
    package static func xmlPieces(fromBinary raw: UnsafeRawBufferPointer, pieceSize: Int,
                                  _ piece: (UnsafeRawBufferPointer) -> Void) throws(PropertyListError) {
        try BinaryXMLWalk.xmlPieces(raw, pieceSize: pieceSize, piece)
    }

    /// The XML form of a binary property list: the bytes
    /// `XMLWriter.write(BinaryReader.read(raw))` gives, or its error, without
    /// building the value when the walk takes the file (``BinaryXMLWalk``).
    package static func xmlOutput(fromBinary raw: UnsafeRawBufferPointer) throws(PropertyListError) -> ByteOutput {
        do {
            return try BinaryXMLWalk.xml(raw)
        } catch {
            // The reader's own error (its first, in its order), or, where
            // only the walk refused (a shared collection), the same document.
            return XMLWriter.write(try BinaryReader.read(raw))
        }
    }
}
