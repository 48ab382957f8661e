#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's XML property-list format, scanning the UTF-8 bytes in place.
///
/// Accepts what CoreFoundation accepts: an optional `<?xml?>` declaration,
/// comments, processing instructions and a `<!DOCTYPE>`; the five predefined
/// entities and character references; CDATA sections; `<integer>` with
/// surrounding whitespace, a sign and `0x` hexadecimal; `<real>` with `nan`
/// and `inf` forms; `<date>` as `YYYY-MM-DDTHH:MM:SSZ`; base64 `<data>` with
/// whitespace; `CF$UID` dictionaries as UIDs. Nesting is limited to 512 levels.
///
/// What it makes of each element is its `Builder`'s (``XMLValueBuilder``):
/// the public tree, or the binary transcoder's nodes.
struct XMLReader<Builder: XMLValueBuilder> {
    static var maxDepth: Int { 512 }

    private let bytes: UnsafeRawBufferPointer
    private var i = 0
    private var depth = 0
    /// Elements and entries of the collections being read, innermost last:
    /// each collection is built once, at its final size.
    private var elementStack: [Builder.Value] = []
    private var entryStack: [(Builder.Key, Builder.Value)] = []
    private(set) var builder: Builder

    private init(_ bytes: UnsafeRawBufferPointer, builder: Builder) {
        self.bytes = bytes
        self.builder = builder
    }

    /// Reads a whole document (any supported encoding) with `builder`, and
    /// hands the top-level value and the builder to `body`.
    static func read<R>(
        _ raw: UnsafeRawBufferPointer, builder: Builder,
        _ body: (Builder.Value, inout Builder) throws(PropertyListError) -> R
    ) throws(PropertyListError) -> R {
        try TextDecoding.withUTF8(raw, format: .xml) { (text) throws(PropertyListError) in
            var reader = XMLReader(text, builder: builder)
            let value = try reader.document()
            return try body(value, &reader.builder)
        }
    }

    // MARK: - Errors

    private func fail(_ reason: String, at offset: Int? = nil) -> PropertyListError {
        .text(.xml, bytes, offset: offset ?? i, reason)
    }

    // MARK: - Document structure

    private mutating func document() throws(PropertyListError) -> Builder.Value {
        try skipMisc(allowDoctype: true)
        guard i < bytes.count else { throw fail("expected a <plist> element, found the end of the document") }
        let start = i
        let (tag, selfClosing) = try openTag()
        let result: Builder.Value
        if tag == .plist {
            if selfClosing { throw fail("expected an object inside <plist>, found an empty <plist/>", at: start) }
            try skipMisc(allowDoctype: false)
            if peekClose() { throw fail("expected an object inside <plist>, found an empty <plist>") }
            result = try object()
            try skipMisc(allowDoctype: false)
            guard peekClose() else {
                throw fail("expected '</plist>' after the top-level object, found more content (a plist holds one object)")
            }
            try closeTag(.plist)
        } else {
            i = start
            result = try object()
        }
        // What follows the top-level element is not read, as CoreFoundation
        // does ("a file that has garbage after the first element will nonetheless
        // successfully parse"): real profiles end in NUL padding.
        return result
    }

    /// Skips whitespace, comments and processing instructions (and one DOCTYPE when allowed).
    private mutating func skipMisc(allowDoctype: Bool) throws(PropertyListError) {
        while true {
            while i < bytes.count, ASCII.isSpace(bytes[i]) { i += 1 }
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "<") else { return }
            let c = bytes[i + 1]
            if c == UInt8(ascii: "?") {
                try skip(past: "?>", what: "processing instruction")
            } else if c == UInt8(ascii: "!") {
                if matches("<!--") {
                    try skip(past: "-->", what: "comment")
                } else if allowDoctype, matches("<!DOCTYPE") {
                    try skipDoctype()
                } else {
                    throw fail("expected an element, found an unexpected '<!' declaration")
                }
            } else {
                return
            }
        }
    }

    private mutating func skipDoctype() throws(PropertyListError) {
        let start = i
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "[") {
                throw fail("internal DTD subsets are not supported in property lists", at: i)
            }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i += 1
                while i < bytes.count, bytes[i] != c { i += 1 }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: ">") { i += 1; return }
            i += 1
        }
        throw fail("expected '>' to end the DOCTYPE declaration", at: start)
    }

    private mutating func skip(past terminator: StaticString, what: String) throws(PropertyListError) {
        let start = i
        let n = terminator.utf8CodeUnitCount
        let p = terminator.utf8Start
        i += 2
        while i + n <= bytes.count {
            if bytes[i] == p[0] {
                var match = true
                for k in 1..<n where bytes[i + k] != p[k] { match = false; break }
                if match { i += n; return }
            }
            i += 1
        }
        throw fail("expected '\(terminator)' to end this \(what)", at: start)
    }

    /// True when the next thing is a closing tag `</`.
    @inline(__always)
    private func peekClose() -> Bool {
        i + 1 < bytes.count && bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "/")
    }

    /// Whether the bytes at `i` are exactly `s`.
    @inline(__always)
    private func matches(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        guard n > 0, let base = bytes.baseAddress else { return true }
        let p = UnsafeRawPointer(s.utf8Start)
        let q = base + i
        // Literals of 4 to 16 bytes (all of the markup) are two overlapping loads each side.
        @inline(__always) func same<T: FixedWidthInteger>(_: T.Type) -> Bool {
            p.loadUnaligned(as: T.self) == q.loadUnaligned(as: T.self)
                && p.loadUnaligned(fromByteOffset: n - MemoryLayout<T>.size, as: T.self)
                    == q.loadUnaligned(fromByteOffset: n - MemoryLayout<T>.size, as: T.self)
        }
        switch n {
        case 8...16: return same(UInt64.self)
        case 4..<8: return same(UInt32.self)
        default:
            for k in 0..<n where q.load(fromByteOffset: k, as: UInt8.self) != p.load(fromByteOffset: k, as: UInt8.self) { return false }
            return true
        }
    }

    /// Reads `<name attrs…>` or `<name …/>`.
    private mutating func openTag() throws(PropertyListError) -> (XMLTag, Bool) {
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "<") else {
            throw fail("expected an element such as <dict>, <array> or <string>, found text")
        }
        // Fast path: the plain tags Apple's writer emits, matched whole.
        @inline(__always) func take(_ s: StaticString, _ tag: XMLTag, _ selfClosing: Bool) -> (XMLTag, Bool)? {
            guard matches(s) else { return nil }
            i += s.utf8CodeUnitCount
            return (tag, selfClosing)
        }
        var quick: (XMLTag, Bool)?
        switch bytes[i + 1] {
        case UInt8(ascii: "k"): quick = take("<key>", .key, false)
        case UInt8(ascii: "s"): quick = take("<string>", .string, false)
        case UInt8(ascii: "i"): quick = take("<integer>", .integer, false)
        case UInt8(ascii: "r"): quick = take("<real>", .real, false)
        case UInt8(ascii: "t"): quick = take("<true/>", .true, true)
        case UInt8(ascii: "f"): quick = take("<false/>", .false, true)
        case UInt8(ascii: "d"):
            quick = take("<dict>", .dict, false) ?? take("<date>", .date, false) ?? take("<data>", .data, false)
        case UInt8(ascii: "a"): quick = take("<array>", .array, false)
        default: break
        }
        if let quick { return quick }
        let start = i
        i += 1
        let nameStart = i
        while i < bytes.count {
            let c = bytes[i]
            if ASCII.isSpace(c) || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") { break }
            i += 1
        }
        let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<i])
        guard let tag = XMLTag(name) else {
            let shown = String(decoding: name.prefix(40), as: UTF8.self)
            throw fail("unknown element <\(shown)> (expected one of plist, dict, key, array, string, integer, real, true, false, date, data)", at: start)
        }
        // Attributes are skipped.
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: ">") { i += 1; return (tag, false) }
            if c == UInt8(ascii: "/") {
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ">") else {
                    throw fail("expected '>' after '/' in <\(tag.name)/>")
                }
                i += 2
                return (tag, true)
            }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i += 1
                while i < bytes.count, bytes[i] != c { i += 1 }
            }
            i += 1
        }
        throw fail("expected '>' to end the <\(tag.name)> tag", at: start)
    }

    /// Reads `</name>` for the given tag.
    private mutating func closeTag(_ tag: XMLTag) throws(PropertyListError) {
        // Fast path: the exact closing tag, `</dict>`, compared in place.
        let closing = tag.closingTag
        if matches(closing) { i += closing.utf8CodeUnitCount; return }
        let start = i
        guard peekClose() else { throw fail("expected '</\(tag.name)>'") }
        i += 2
        let nameStart = i
        while i < bytes.count, !ASCII.isSpace(bytes[i]), bytes[i] != UInt8(ascii: ">") { i += 1 }
        let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<i])
        guard XMLTag(name) == tag else {
            let shown = String(decoding: name.prefix(40), as: UTF8.self)
            throw fail("expected '</\(tag.name)>', found '</\(shown)>'", at: start)
        }
        while i < bytes.count, ASCII.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>' to end '</\(tag.name)'") }
        i += 1
    }

    // MARK: - Objects

    private mutating func object() throws(PropertyListError) -> Builder.Value {
        let start = i
        let (tag, selfClosing) = try openTag()
        switch tag {
        case .dict: return try dictionary(selfClosing: selfClosing, start: start)
        case .array: return try array(selfClosing: selfClosing, start: start)
        case .string:
            if selfClosing { return builder.string(UnsafeRawBufferPointer(start: nil, count: 0))! }
            return try text(.string) { builder, b in builder.string(b) }
        case .true, .false:
            if !selfClosing {
                try skipMisc(allowDoctype: false)
                try closeTag(tag)
            }
            return builder.boolean(tag == .true)
        case .integer:
            if selfClosing { throw fail("expected digits in <integer>, found an empty element", at: start) }
            return try integer(start: i)
        case .real:
            if selfClosing { throw fail("expected a number in <real>, found an empty element", at: start) }
            return try real(start: i)
        case .date:
            if selfClosing { throw fail("expected a date in <date>, found an empty element", at: start) }
            return try date(start: i)
        case .data:
            if selfClosing { return builder.data(base64: UnsafeRawBufferPointer(start: nil, count: 0)) }
            return try data()
        case .key: throw fail("expected a value, found <key> outside a <dict>", at: start)
        case .plist: throw fail("expected a value, found a nested <plist>", at: start)
        }
    }

    private mutating func enter(_ start: Int) throws(PropertyListError) {
        depth += 1
        if depth > Self.maxDepth {
            throw fail("nesting is deeper than \(Self.maxDepth) levels", at: start)
        }
    }

    private mutating func array(selfClosing: Bool, start: Int) throws(PropertyListError) -> Builder.Value {
        let base = elementStack.count
        if selfClosing { return builder.array(taking: &elementStack, from: base) }
        try enter(start)
        defer { depth -= 1 }
        defer { if elementStack.count > base { elementStack.removeSubrange(base...) } }
        while true {
            try skipMisc(allowDoctype: false)
            if peekClose() {
                try closeTag(.array)
                return builder.array(taking: &elementStack, from: base)
            }
            if i >= bytes.count { throw fail("expected '</array>' to close the <array>, found the end of the document", at: start) }
            let element = try object()
            elementStack.append(element)
        }
    }

    private mutating func dictionary(selfClosing: Bool, start: Int) throws(PropertyListError) -> Builder.Value {
        let base = entryStack.count
        if selfClosing { return builder.dictionary(taking: &entryStack, from: base, fingerprint: 0) }
        try enter(start)
        defer { depth -= 1 }
        defer { if entryStack.count > base { entryStack.removeSubrange(base...) } }
        // A fingerprint of the keys' text as the builder takes it (`RecurringKeys` for
        // the tree: each key's length in the document, its first and last bytes).
        var fingerprint: UInt64 = 0
        while true {
            try skipMisc(allowDoctype: false)
            if peekClose() { try closeTag(.dict); break }
            if i >= bytes.count { throw fail("expected '</dict>' to close the <dict>, found the end of the document", at: start) }
            let keyStart = i
            let (tag, selfClosing) = try openTag()
            guard tag == .key else {
                throw fail("expected <key> in <dict>, found <\(tag.name)>", at: keyStart)
            }
            let keyText = i
            let key = selfClosing
                ? builder.key(UnsafeRawBufferPointer(start: nil, count: 0))!
                : try text(.key) { builder, b in builder.key(b) }
            // The key's text: up to the closing `</key>` (nothing for `<key/>`).
            fingerprint = Builder.fingerprint(fingerprint, adding: UnsafeRawBufferPointer(rebasing: bytes[keyText..<max(keyText, i - 6)]))
            try skipMisc(allowDoctype: false)
            if peekClose() || i >= bytes.count {
                throw fail("expected a value after <key>\(builder.description(of: key).prefix(40))</key>")
            }
            let value = try object()
            entryStack.append((key, value))
        }
        return builder.dictionary(taking: &entryStack, from: base, fingerprint: fingerprint)
    }

    // MARK: - Text content

    /// Reads character data up to `</tag>`, decoding entities and CDATA, and
    /// gives it to `make`; nil from `make` means the text is not UTF-8.
    @inline(__always)
    private mutating func text<T>(
        _ tag: XMLTag, _ make: (inout Builder, UnsafeRawBufferPointer) -> T?
    ) throws(PropertyListError) -> T {
        let start = i
        // Fast path: no markup or entity before the closing tag.
        var j = i
        while j < bytes.count {
            let c = bytes[j]
            if c == UInt8(ascii: "<") || c == UInt8(ascii: "&") { break }
            j += 1
        }
        if j + 1 < bytes.count, bytes[j] == UInt8(ascii: "<"), bytes[j + 1] == UInt8(ascii: "/") {
            guard let made = make(&builder, UnsafeRawBufferPointer(rebasing: bytes[start..<j])) else { throw notUTF8(at: start) }
            i = j
            try closeTag(tag)
            return made
        }
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<j]))
        i = j
        try appendContent(&out, tag: tag)
        let made = out.withUnsafeBytes { b in make(&builder, b) }
        guard let made else { throw notUTF8(at: start) }
        return made
    }

    private func notUTF8(at offset: Int) -> PropertyListError {
        fail("expected UTF-8 text, found invalid bytes", at: offset)
    }

    /// Appends decoded character data to `out` until `</tag>` (consumed).
    private mutating func appendContent(_ out: inout [UInt8], tag: XMLTag) throws(PropertyListError) {
        let start = i
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "&") {
                try entity(into: &out)
            } else if c == UInt8(ascii: "<") {
                if peekClose() { try closeTag(tag); return }
                if matches("<![CDATA[") {
                    let cstart = i
                    i += 9
                    let begin = i
                    while i + 2 < bytes.count,
                        !(bytes[i] == UInt8(ascii: "]") && bytes[i + 1] == UInt8(ascii: "]") && bytes[i + 2] == UInt8(ascii: ">"))
                    {
                        i += 1
                    }
                    guard i + 2 < bytes.count else { throw fail("expected ']]>' to end the CDATA section", at: cstart) }
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[begin..<i]))
                    i += 3
                } else if matches("<!--") {
                    try skip(past: "-->", what: "comment")
                } else if matches("<?") {
                    try skip(past: "?>", what: "processing instruction")
                } else {
                    throw fail("expected text or '</\(tag.name)>' inside <\(tag.name)>, found a nested element")
                }
            } else {
                out.append(c)
                i += 1
            }
        }
        throw fail("expected '</\(tag.name)>', found the end of the document", at: start)
    }

    private mutating func entity(into out: inout [UInt8]) throws(PropertyListError) {
        let start = i
        i += 1
        let nameStart = i
        while i < bytes.count, bytes[i] != UInt8(ascii: ";"), i - nameStart < 12 { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ";") else {
            throw fail("expected an entity such as '&amp;' or '&#38;' after '&'", at: start)
        }
        let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<i])
        i += 1
        @inline(__always) func eq(_ s: StaticString) -> Bool {
            s.utf8CodeUnitCount == name.count && (0..<name.count).allSatisfy { s.utf8Start[$0] == name[$0] }
        }
        if eq("lt") { out.append(UInt8(ascii: "<")); return }
        if eq("gt") { out.append(UInt8(ascii: ">")); return }
        if eq("amp") { out.append(UInt8(ascii: "&")); return }
        if eq("quot") { out.append(UInt8(ascii: "\"")); return }
        if eq("apos") { out.append(UInt8(ascii: "'")); return }
        if name.count >= 2, name[0] == UInt8(ascii: "#") {
            var v: UInt32 = 0
            var k = 1
            let hex = name[1] == UInt8(ascii: "x") || name[1] == UInt8(ascii: "X")
            if hex { k = 2 }
            guard k < name.count else { throw fail("expected digits in the character reference", at: start) }
            while k < name.count {
                let c = name[k]
                let d: UInt8? = hex ? ASCII.hexValue(c) : (ASCII.isDigit(c) ? c - 0x30 : nil)
                guard let d, v < 0x110000 else { throw fail("invalid character reference", at: start) }
                v = v * (hex ? 16 : 10) + UInt32(d)
                k += 1
            }
            guard let scalar = Unicode.Scalar(v) else {
                throw fail("character reference to U+\(String(v, radix: 16, uppercase: true)) is not a Unicode scalar", at: start)
            }
            UTF8.encode(scalar) { out.append($0) }
            return
        }
        throw fail("unknown entity '&\(String(decoding: name, as: UTF8.self));' (expected &lt; &gt; &amp; &quot; &apos; or a character reference)", at: start)
    }

    @inline(__always)
    private mutating func withScalarContent<T>(
        _ tag: XMLTag, _ body: (inout Builder, UnsafeRawBufferPointer) throws(PropertyListError) -> T
    ) throws(PropertyListError) -> T {
        let start = i
        var end = i
        while end < bytes.count, bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: "&") { end += 1 }
        if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "<"), bytes[end + 1] == UInt8(ascii: "/") {
            let r = try body(&builder, UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            i = end
            try closeTag(tag)
            return r
        }
        i = end
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        try appendContent(&out, tag: tag)
        return try out.withTypedBytes { (b) throws(PropertyListError) in try body(&builder, b) }
    }

    private mutating func integer(start: Int) throws(PropertyListError) -> Builder.Value {
        let bytes = self.bytes
        let v = try withScalarContent(.integer) { (_, b) throws(PropertyListError) in
            guard let v = NumberParsing.integer(b) else {
                throw .text(.xml, bytes, offset: start, "expected an integer in <integer>: optional sign, then decimal digits or 0x and hexadecimal digits, within -2^63...2^64-1")
            }
            return v
        }
        return builder.integer(v)
    }

    private mutating func real(start: Int) throws(PropertyListError) -> Builder.Value {
        let bytes = self.bytes
        let v = try withScalarContent(.real) { (_, b) throws(PropertyListError) in
            guard let v = NumberParsing.real(b) else {
                throw .text(.xml, bytes, offset: start, "expected a real number in <real> (such as 1.5, -2e10, nan or inf)")
            }
            return v
        }
        return builder.real(v)
    }

    private mutating func date(start: Int) throws(PropertyListError) -> Builder.Value {
        let bytes = self.bytes
        let t = try withScalarContent(.date) { (_, b) throws(PropertyListError) in
            guard let d = CalendarDate.parseISO8601(b) else {
                throw .text(.xml, bytes, offset: start, "expected a date in <date> as YYYY-MM-DDTHH:MM:SSZ")
            }
            return d.timeIntervalSinceReferenceDate
        }
        return builder.date(t)
    }

    private mutating func data() throws(PropertyListError) -> Builder.Value {
        try withScalarContent(.data) { builder, b in builder.data(base64: b) }
    }
}

extension XMLReader where Builder == PropertyListBuilder {
    /// Reads a whole document (any supported encoding) into the public tree.
    static func read(_ raw: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyList {
        try read(raw, builder: PropertyListBuilder()) { value, _ in value }
    }
}
