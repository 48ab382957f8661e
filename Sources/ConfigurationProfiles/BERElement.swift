import PropertyList

/// An element of a BER/DER encoding, with its children when it is constructed.
struct BERElement {
    var tag: UInt8
    /// The contents of a primitive element.
    var value: [UInt8]
    var children: [BERElement]
    /// Where a primitive element's contents begin in the bytes parsed.
    var valueOffset = 0

    static let maximumDepth = 64
    static let maximumElements = 1_000_000

    /// Parses one element that must span `bytes`.
    static func parse(_ bytes: [UInt8]) throws(ProfileError) -> BERElement {
        var offset = 0, count = 0
        let e = try parse(bytes, &offset, end: bytes.count, depth: 0, count: &count)
        return e
    }

    private static func fail(_ offset: Int, _ why: String) -> ProfileError {
        ProfileError("signature", "byte \(offset): \(why)")
    }

    private static func parse(_ b: [UInt8], _ offset: inout Int, end: Int, depth: Int, count: inout Int) throws(ProfileError) -> BERElement {
        guard depth < maximumDepth else { throw fail(offset, "nested more than \(maximumDepth) levels") }
        count += 1
        guard count <= maximumElements else { throw fail(offset, "more than \(maximumElements) elements") }
        guard offset + 2 <= end else { throw fail(offset, "the encoding ends inside an element's header") }
        let tag = b[offset]
        guard tag & 0x1F != 0x1F else { throw fail(offset, "a multi-byte tag (not used by CMS)") }
        offset += 1
        let first = b[offset]
        offset += 1
        let constructed = tag & 0x20 != 0
        var length: Int? = nil
        if first < 0x80 {
            length = Int(first)
        } else if first > 0x80 {
            let n = Int(first & 0x7F)
            guard n <= 4, offset + n <= end else { throw fail(offset, "a length of \(n) bytes") }
            var l = 0
            for _ in 0..<n { l = l << 8 | Int(b[offset]); offset += 1 }
            length = l
        } else if !constructed {
            throw fail(offset, "an indefinite length on a primitive element")
        }
        if let length {
            guard length <= end - offset else { throw fail(offset, "an element of \(length) bytes where \(end - offset) remain") }
            let contentEnd = offset + length
            if !constructed {
                defer { offset = contentEnd }
                return BERElement(tag: tag, value: Array(b[offset..<contentEnd]), children: [], valueOffset: offset)
            }
            var children: [BERElement] = []
            while offset < contentEnd { children.append(try parse(b, &offset, end: contentEnd, depth: depth + 1, count: &count)) }
            return BERElement(tag: tag, value: [], children: children)
        }
        // Indefinite: children until the end-of-contents octets (00 00).
        var children: [BERElement] = []
        while true {
            guard offset + 2 <= end else { throw fail(offset, "an indefinite length without its end") }
            if b[offset] == 0, b[offset + 1] == 0 { offset += 2; break }
            children.append(try parse(b, &offset, end: end, depth: depth + 1, count: &count))
        }
        return BERElement(tag: tag, value: [], children: children)
    }

    /// The element in definite-length form: its tag, its length, its contents
    /// (a DER input comes back byte for byte).
    func encoded() -> [UInt8] {
        var content: [UInt8] = value
        if tag & 0x20 != 0 {
            content = []
            for child in children { content += child.encoded() }
        }
        var out: [UInt8] = [tag]
        let n = content.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var bytes: [UInt8] = []
            var rest = n
            while rest > 0 { bytes.insert(UInt8(rest & 0xFF), at: 0); rest >>= 8 }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        return out + content
    }

    /// An OCTET STRING's bytes, joined from its segments when constructed (BER).
    func octetString() throws(ProfileError) -> [UInt8] {
        switch tag {
        case 0x04: return value
        case 0x24:
            var out: [UInt8] = []
            for child in children { out += try child.octetString() }
            return out
        default: throw ProfileError("signature", "the content is not an OCTET STRING (tag 0x\(String(tag, radix: 16)))")
        }
    }
}
