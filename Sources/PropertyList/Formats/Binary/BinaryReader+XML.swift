/// A binary property list written as XML straight from the file, without
/// building the value (`plutil -convert xml1` of a binary file).
///
/// Decoding builds a Swift dictionary per `<dict>`, a heap string per long
/// string and a `Data` per data object, only for the XML writer to walk them
/// once and the process to exit. Here the reader's walk writes each object's
/// element as it meets it: strings and data are escaped or base64-encoded
/// from the file's bytes, a dictionary's keys are read and put in
/// ``LiteralString`` order (usually they already are: a check, no sort).
///
/// **The same bytes and the same errors as decoding and writing.** Every
/// object met is checked as ``object(_:depth:)`` checks it (the same code
/// for scalars, the same tests in the same words for the rest), cycles and
/// depth are refused the same way, and expansion through shared references
/// is counted over the same tree (shared objects are written out each time,
/// as the XML writer writes them). Of keys that repeat in a dictionary the
/// last wins and the values it overrides are decoded (checked, counted) and
/// dropped, as decoding does. This walk refuses more than decoding: a
/// collection referenced twice (sharing that would be written out again
/// and again, as a small file expands to a large one), and so it never
/// writes one collection twice. So the caller
/// (``PropertyList/xmlOutput(fromBinary:)``) decodes the file the usual way
/// when this fails, which gives the reader's own error, or the same XML.
/// Strings and data referenced many times are written each time, their
/// bytes counted against the reader's expansion limit as decoding counts
/// them.
extension BinaryReader {
    /// The XML document of the binary property list in `bytes`.
    static func xml(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> ByteOutput {
        // About three bytes of XML per byte of binary in typical documents.
        var out = ByteOutput(capacity: min(bytes.count * 3, 1 << 30) + 256)
        try walk(bytes, into: &out)
        return out
    }

    /// The XML document of the binary property list in `bytes`, handed to
    /// `piece` in order, in parts of at least `pieceSize` bytes (the last
    /// may be shorter). When this throws, the parts given so far are not a
    /// document.
    static func xmlPieces(_ bytes: UnsafeRawBufferPointer, pieceSize: Int, _ piece: (UnsafeRawBufferPointer) -> Void) throws(PropertyListError) {
        var out = ByteOutput(capacity: pieceSize + pieceSize / 8)
        let walked: Result<Void, PropertyListError> = withoutActuallyEscaping(piece) { piece in
            Result { () throws(PropertyListError) in try walk(bytes, into: &out, piece: piece, pieceSize: pieceSize) }
        }
        try walked.get()
        out.withUnsafeBytes { piece($0) }
    }

    /// The document into `out`, which `piece` (if any) empties whenever it
    /// holds `pieceSize` bytes.
    private static func walk(_ bytes: UnsafeRawBufferPointer, into out: inout ByteOutput,
                             piece: ((UnsafeRawBufferPointer) -> Void)? = nil, pieceSize: Int = .max) throws(PropertyListError) {
        var reader = try BinaryReader(bytes, checkingEveryOffset: true)
        reader.xmlPiece = piece
        reader.xmlPieceSize = pieceSize
        out.append(string: XMLWriter.header)
        try reader.xml(reader.topIndex, depth: 0, indent: 0, into: &out)
        out.append(ascii: "</plist>\n")
    }

    /// Writes object `index` as ``XMLWriter/value(_:indent:into:)`` writes its value.
    private mutating func xml(_ index: Int, depth: Int, indent: Int, into out: inout ByteOutput) throws(PropertyListError) {
        if out.count >= xmlPieceSize, let xmlPiece {
            out.withUnsafeBytes { xmlPiece($0) }
            out.removeAll()
        }
        let state = states.pointer[index]
        // Objects the reader has cached (values a repeated key overrode, and
        // what they share) and scalars are decoded: no heap, same checks.
        if state >> Self.cacheShift == 0 {
            let start = try checkedOffset(index)
            let marker = b[start]
            let kind = marker >> 4
            if state & Self.seen != 0, kind == 0xA || kind == 0xC || kind == 0xD {
                // A collection met again. Writing it out again and again is how a small file
                // expands (nested shared arrays, a "billion laughs"), which the reader's cache
                // bounds and this walk would not: such files are decoded.
                throw Self.fail(start, "object \(index) is a collection met before; the file is decoded instead")
            }
            switch kind {
            case 0x4, 0x5, 0xA, 0xC, 0xD:
                if state & Self.inProgress != 0 { throw Self.fail(start, "object \(index) contains itself (a reference cycle)") }
                guard depth <= Self.maxDepth else { throw Self.fail(start, "nesting is deeper than \(Self.maxDepth) levels") }
                var p = start + 1
                let n = try count(marker, at: &p)
                out.append(tabs: indent)
                switch marker >> 4 {
                case 0x4:
                    guard p + n <= tableOffset else { throw Self.fail(start, "data of \(n) bytes runs past the object area") }
                    try count(Weight(objects: 0, bytes: n), at: start)
                    XMLWriter.data(UnsafeRawBufferPointer(rebasing: b[p..<(p + n)]), indent: indent, into: &out)
                case 0x5:
                    guard p + n <= tableOffset else { throw Self.fail(start, "string of \(n) bytes runs past the object area") }
                    try count(Weight(objects: 0, bytes: n), at: start)
                    out.append(ascii: "<string>")
                    let text = UnsafeRawBufferPointer(rebasing: b[p..<(p + n)])
                    if UTF8Text.isASCII(text) {
                        XMLWriter.escaped(text, into: &out)
                    } else {
                        XMLWriter.escaped(Self.asciiString(text), into: &out)
                    }
                    out.append(ascii: "</string>\n")
                case 0xA, 0xC:
                    guard n <= (tableOffset - p) / refSize else { throw Self.fail(start, "array of \(n) references runs past the object area") }
                    states.pointer[index] |= Self.inProgress
                    if n == 0 {
                        out.append(ascii: "<array/>\n")
                    } else {
                        out.append(ascii: "<array>\n")
                        for k in 0..<n {
                            try xml(try reference(at: p + k * refSize), depth: depth + 1, indent: indent + 1, into: &out)
                        }
                        out.append(tabs: indent)
                        out.append(ascii: "</array>\n")
                    }
                default:
                    guard n <= (tableOffset - p) / refSize / 2 else {
                        throw Self.fail(start, "dictionary of \(n) entries runs past the object area")
                    }
                    states.pointer[index] |= Self.inProgress
                    if n == 0 {
                        out.append(ascii: "<dict/>\n")
                    } else {
                        out.append(ascii: "<dict>\n")
                        try dictionaryXML(n, at: p, depth: depth, indent: indent, into: &out)
                        out.append(tabs: indent)
                        out.append(ascii: "</dict>\n")
                    }
                }
                try count(Weight(objects: 1, bytes: 0), at: start)
                states.pointer[index] = Self.seen
                return
            case 0x1 where marker & 0x0F <= 3:
                // An integer of 1 to 8 bytes, as the reader reads it and the writer writes it.
                guard depth <= Self.maxDepth else { throw Self.fail(start, "nesting is deeper than \(Self.maxDepth) levels") }
                let size = 1 << Int(marker & 0x0F)
                guard start + 1 + size <= tableOffset else { throw Self.fail(start, "integer runs past the object area") }
                let v = Self.bigEndian(b, start + 1, size)
                out.append(tabs: indent)
                out.append(ascii: "<integer>")
                if size == 8 { out.append(decimal: Int64(bitPattern: v)) } else { out.append(decimal: v) }
                out.append(ascii: "</integer>\n")
                try count(Weight(objects: 1, bytes: 0), at: start)
                states.pointer[index] = Self.seen
                return
            default:
                break
            }
        }
        XMLWriter.value(try object(index, depth: depth), indent: indent, into: &out)
    }

    /// Where a key's UTF-8 lies: in the file (an ASCII string object), or,
    /// for any other key, in ``xmlKeyText`` (`start` is then `-1 - offset`).
    struct KeyPlace {
        var start: Int
        var count: Int
    }

    /// Runs `body` over the UTF-8 of a key.
    @inline(__always)
    private func withKey<R>(_ place: KeyPlace, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if place.start >= 0 {
            return body(UnsafeBufferPointer(rebasing: b.assumingMemoryBound(to: UInt8.self)[place.start..<(place.start + place.count)]))
        }
        let s = -1 - place.start
        return xmlKeyText.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[s..<(s + place.count)])) }
    }

    /// Whether key `x` comes before key `y` in ``LiteralString`` order
    /// (UTF-8 compared as CFString compares UTF-16).
    @inline(__always)
    private func keyLess(_ x: KeyPlace, _ y: KeyPlace) -> Bool {
        withKey(x) { p in withKey(y) { q in LiteralString.compareUTF8(p, q) < 0 } }
    }

    /// A dictionary's entries, keys in ``LiteralString`` order, the last of
    /// a repeated key winning.
    private mutating func dictionaryXML(_ n: Int, at p: Int, depth: Int, indent: Int, into out: inout ByteOutput) throws(PropertyListError) {
        // This dictionary's keys go above those of the dictionaries it is in.
        let base = xmlKeys.count, textBase = xmlKeyText.count
        defer {
            xmlKeys.removeSubrange(base...)
            xmlKeyText.removeSubrange(textBase...)
        }
        for k in 0..<n { xmlKeys.append(try key(try reference(at: p + k * refSize), depth: depth + 1)) }
        var ordered = true
        for k in 1..<n where !keyLess(xmlKeys[base + k - 1], xmlKeys[base + k]) {
            ordered = false
            break
        }
        if ordered {
            for k in 0..<n { try entryXML(base + k, valueAt: p + (n + k) * refSize, depth: depth, indent: indent, into: &out) }
            return
        }
        // Sorted by key, then by place, so that equal keys are neighbours and
        // the last of them in the file comes last.
        let order = (0..<n).sorted { a, c in
            if keyLess(xmlKeys[base + a], xmlKeys[base + c]) { return true }
            if keyLess(xmlKeys[base + c], xmlKeys[base + a]) { return false }
            return a < c
        }
        // The values a later equal key overrides are read (checked and
        // counted) and dropped, as decoding does.
        for (i, k) in order.enumerated() where i + 1 < n && !keyLess(xmlKeys[base + k], xmlKeys[base + order[i + 1]]) {
            _ = try object(try reference(at: p + (n + k) * refSize), depth: depth + 1)
        }
        for (i, k) in order.enumerated() where i + 1 == n || keyLess(xmlKeys[base + k], xmlKeys[base + order[i + 1]]) {
            try entryXML(base + k, valueAt: p + (n + k) * refSize, depth: depth, indent: indent, into: &out)
        }
    }

    /// One entry: the key at `xmlKeys[slot]`, then the value whose reference is at `r`.
    private mutating func entryXML(_ slot: Int, valueAt r: Int, depth: Int, indent: Int, into out: inout ByteOutput) throws(PropertyListError) {
        out.append(tabs: indent + 1)
        out.append(ascii: "<key>")
        withKey(xmlKeys[slot]) { XMLWriter.escaped(UnsafeRawBufferPointer($0), into: &out) }
        out.append(ascii: "</key>\n")
        try xml(try reference(at: r), depth: depth + 1, indent: indent + 1, into: &out)
    }

    /// A dictionary key: an ASCII string object is left where it lies, any
    /// other key is decoded, required to be a string, and its UTF-8 kept in
    /// ``xmlKeyText``.
    private mutating func key(_ index: Int, depth: Int) throws(PropertyListError) -> KeyPlace {
        let state = states.pointer[index]
        if state >> Self.cacheShift == 0 {
            let start = try checkedOffset(index)
            let marker = b[start]
            if marker >> 4 == 0x5 {
                guard depth <= Self.maxDepth else { throw Self.fail(start, "nesting is deeper than \(Self.maxDepth) levels") }
                var p = start + 1
                let n = try count(marker, at: &p)
                guard p + n <= tableOffset else { throw Self.fail(start, "string of \(n) bytes runs past the object area") }
                let text = UnsafeRawBufferPointer(rebasing: b[p..<(p + n)])
                if UTF8Text.isASCII(text) {
                    try count(Weight(objects: 0, bytes: n), at: start)
                    try count(Weight(objects: 1, bytes: 0), at: start)
                    states.pointer[index] = Self.seen
                    return KeyPlace(start: p, count: n)
                }
            }
        }
        guard case .string(var s) = try object(index, depth: depth) else {
            throw Self.fail(offset(of: index), "expected a string as dictionary key, found another kind of object")
        }
        let at = xmlKeyText.count
        s.withUTF8 { xmlKeyText.append(contentsOf: $0) }
        return KeyPlace(start: -1 - at, count: xmlKeyText.count - at)
    }
}

extension PropertyList {
    /// ``xmlOutput(fromBinary:)`` in pieces, while it is made: `piece` gets
    /// the document in order, in parts of at least `pieceSize` bytes. It
    /// throws where the walk refuses the file (see ``BinaryReader/xml(_:)``);
    /// the parts given so far are then to be dropped, and
    /// ``xmlOutput(fromBinary:)`` gives the result, or decoding's error.
    package static func xmlPieces(fromBinary raw: UnsafeRawBufferPointer, pieceSize: Int,
                                  _ piece: (UnsafeRawBufferPointer) -> Void) throws(PropertyListError) {
        try BinaryReader.xmlPieces(raw, pieceSize: pieceSize, piece)
    }

    /// The XML form of a binary property list: the bytes
    /// `XMLWriter.write(BinaryReader.read(raw))` gives, or its error, without
    /// building the value when the file is well formed
    /// (``BinaryReader/xml(_:)``).
    package static func xmlOutput(fromBinary raw: UnsafeRawBufferPointer) throws(PropertyListError) -> ByteOutput {
        do {
            return try BinaryReader.xml(raw)
        } catch {
            // The reader's own error (its first, in its order), or, where
            // only the walk refused (a shared collection), the same document.
            return XMLWriter.write(try BinaryReader.read(raw))
        }
    }
}
