/// Turns the bytes of a text property list into UTF-8, whatever the
/// document's encoding: UTF-8 (with or without a byte-order mark), UTF-16 and
/// UTF-32 (with a byte-order mark, or UTF-16 guessed from zero bytes as
/// CoreFoundation does), or ISO-8859-1 declared in an XML declaration.
enum TextDecoding {
    enum Encoding { case utf8, utf16BE, utf16LE, utf32BE, utf32LE, latin1 }

    /// Calls `body` with the document as UTF-8, copying only when it is not UTF-8 already.
    static func withUTF8<T>(
        _ raw: UnsafeRawBufferPointer, limit: Int = .max, format: PropertyListFormat = .xml,
        _ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> T
    ) throws(PropertyListError) -> T {
        let (encoding, skip) = try detect(raw, format: format)
        let content = UnsafeRawBufferPointer(rebasing: raw[min(skip, raw.count)...])
        if encoding == .utf8 { return try body(content) }
        let utf8 = try transcode(content, from: encoding, limit: limit, format: format)
        return try utf8.withTypedBytes { (b) throws(PropertyListError) -> T in try body(b) }
    }

    static func detect(_ b: UnsafeRawBufferPointer, format: PropertyListFormat) throws(PropertyListError) -> (Encoding, Int) {
        let n = b.count
        if n >= 4, b[0] == 0, b[1] == 0, b[2] == 0xFE, b[3] == 0xFF { return (.utf32BE, 4) }
        if n >= 4, b[0] == 0xFF, b[1] == 0xFE, b[2] == 0, b[3] == 0 { return (.utf32LE, 4) }
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { return (.utf8, 3) }
        if n >= 2, b[0] == 0xFF, b[1] == 0xFE { return (.utf16LE, 2) }
        if n >= 2, b[0] == 0xFE, b[1] == 0xFF { return (.utf16BE, 2) }
        if n >= 2, b[0] == 0 || b[1] == 0 { return (b[0] == 0 ? .utf16BE : .utf16LE, 0) }
        if let declared = declaredEncoding(b) {
            switch declared {
            case "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be", "unicode":
                // An ASCII-compatible declaration was readable, so the bytes are 8-bit.
                return (.utf8, 0)
            case "iso-8859-1", "iso_8859-1", "latin1", "iso-latin-1", "l1", "windows-1252", "cp1252":
                return (.latin1, 0)
            default:
                throw PropertyListError(
                    format: format, location: .lineColumn(line: 1, column: 1),
                    reason: "unsupported document encoding '\(declared)' (expected UTF-8, UTF-16, UTF-32 or ISO-8859-1)")
            }
        }
        return (.utf8, 0)
    }

    /// The `encoding` attribute of a leading `<?xml … ?>` declaration, lowercased.
    static func declaredEncoding(_ b: UnsafeRawBufferPointer) -> String? {
        guard b.count > 5, b[0] == UInt8(ascii: "<"), b[1] == UInt8(ascii: "?"),
            b[2] == UInt8(ascii: "x"), b[3] == UInt8(ascii: "m"), b[4] == UInt8(ascii: "l")
        else { return nil }
        let end = min(b.count, 512)
        var i = 5
        let key = Array("encoding".utf8)
        while i + key.count < end {
            if b[i] == UInt8(ascii: ">") { return nil }
            if b[i] == key[0], (0..<key.count).allSatisfy({ b[i + $0] == key[$0] }) {
                i += key.count
                while i < end, ASCII.isSpace(b[i]) || b[i] == UInt8(ascii: "=") { i += 1 }
                guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return nil }
                let q = b[i]
                i += 1
                let start = i
                while i < end, b[i] != q { i += 1 }
                guard i < end else { return nil }
                return String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<i]), as: UTF8.self).lowercased()
            }
            i += 1
        }
        return nil
    }

    static func transcode(
        _ b: UnsafeRawBufferPointer, from encoding: Encoding, limit: Int, format: PropertyListFormat
    ) throws(PropertyListError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(min(b.count, limit) + 16)
        func put(_ scalar: Unicode.Scalar) {
            UTF8.encode(scalar) { out.append($0) }
        }
        switch encoding {
        case .utf8:
            out.append(contentsOf: b.prefix(limit))
        case .latin1:
            for c in b.prefix(limit) { put(Unicode.Scalar(c)) }
        case .utf16BE, .utf16LE:
            let units = b.count / 2
            var i = 0
            var iterator = AnyIterator<UInt16> {
                guard i < units, out.count < limit else { return nil }
                let hi = UInt16(b[2 * i]), lo = UInt16(b[2 * i + 1])
                i += 1
                return encoding == .utf16BE ? (hi << 8 | lo) : (lo << 8 | hi)
            }
            var decoder = UTF16()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): put(s)
                case .emptyInput: break loop
                case .error: put("\u{FFFD}")  // a lone surrogate, as CoreFoundation keeps it
                }
            }
        case .utf32BE, .utf32LE:
            var i = 0
            while i + 3 < b.count, out.count < limit {
                let v: UInt32 =
                    encoding == .utf32BE
                    ? UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
                    : UInt32(b[i + 3]) << 24 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i])
                guard let s = Unicode.Scalar(v) else {
                    throw PropertyListError(
                        format: format, location: .byteOffset(i + 4),
                        reason: "invalid UTF-32 code point 0x\(String(v, radix: 16))")
                }
                put(s)
                i += 4
            }
        }
        return out
    }
}
