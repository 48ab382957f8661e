/// Reads JSON (RFC 8259) into a property list: objects become dictionaries,
/// numbers without a fraction or exponent that fit 64 bits become integers,
/// other numbers reals. `null` has no property-list form and is an error.
struct JSONReader {
    static let maxDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var i = 0
    /// Entries of the objects being read, innermost last: each dictionary is
    /// built once, at its final size, or copied from a recurring shape.
    private var entryStack: [(LiteralString, PropertyList)] = []
    private var recurringKeys = RecurringKeys<UInt64>()

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    static func read(_ raw: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyList {
        try TextDecoding.withUTF8(raw, format: .json) { (text) throws(PropertyListError) in
            var reader = JSONReader(text)
            reader.skipSpace()
            let v = try reader.value(depth: 0)
            reader.skipSpace()
            if reader.i < text.count { throw reader.fail("expected the end of the JSON document") }
            return v
        }
    }

    /// How far the reader got before failing, for format guessing.
    static func progress(of error: PropertyListError) -> Int {
        if case .lineColumn(let l, let c) = error.location { return l * 1_000_000 + c }
        return 0
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> PropertyListError {
        .text(.json, bytes, offset: offset ?? i, reason)
    }

    private mutating func skipSpace() {
        while i < bytes.count {
            let c = bytes[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    private mutating func value(depth: Int) throws(PropertyListError) -> PropertyList {
        guard depth <= Self.maxDepth else { throw fail("nesting is deeper than \(Self.maxDepth) levels") }
        guard i < bytes.count else { throw fail("expected a JSON value, found the end of the document") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .dictionary([:]) }
            let base = entryStack.count
            defer { if entryStack.count > base { entryStack.removeSubrange(base...) } }
            // A fingerprint of the keys (see RecurringKeys): each key's length and end bytes.
            var fingerprint: UInt64 = 0
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
                let keyStart = i
                let key = try string()
                // The key's text between its quotes.
                fingerprint = RecurringKeys.fingerprint(fingerprint, adding: UnsafeRawBufferPointer(rebasing: bytes[(keyStart + 1)..<(i - 1)]))
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                i += 1
                skipSpace()
                let element = try value(depth: depth + 1)
                entryStack.append((LiteralString(key), element))
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or '}', found the end of the document") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .dictionary(recurringKeys.dictionary(taking: &entryStack, from: base, fingerprint: fingerprint))
                }
                throw fail("expected ',' or '}' in the object")
            }
        case UInt8(ascii: "["):
            i += 1
            var elements: [PropertyList] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
            while true {
                skipSpace()
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or ']', found the end of the document") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
                throw fail("expected ',' or ']' in the array")
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .boolean(true)
        case UInt8(ascii: "f"): try literal("false"); return .boolean(false)
        case UInt8(ascii: "n"):
            try literal("null")
            throw fail("null has no property-list form", at: i - 4)
        default: return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(PropertyListError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count, (0..<n).allSatisfy({ bytes[i + $0] == word.utf8Start[$0] }) else {
            throw fail("expected '\(word)'")
        }
        i += n
    }

    /// A number: an integer when it has no fraction or exponent and fits 64
    /// bits, else a real. The digits are accumulated as they are scanned;
    /// an integer of up to 18 digits needs nothing more, nor does a real that
    /// `NumberParsing.exactReal` computes exactly rounded from its digits.
    /// Other numbers are read by `NumberParsing.integer` or `Double(_:)`.
    private mutating func number() throws(PropertyListError) -> PropertyList {
        let start = i
        let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let intStart = i
        var mantissa: UInt64 = 0
        var digits = NumberParsing.accumulateDigits(bytes, at: &i, into: &mantissa)
        guard digits > 0 else { throw fail("expected a JSON value", at: start) }
        if digits > 1, bytes[intStart] == UInt8(ascii: "0") { throw fail("numbers may not have leading zeros", at: start) }
        var isInteger = true
        var fractionDigits = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            fractionDigits = NumberParsing.accumulateDigits(bytes, at: &i, into: &mantissa)
            guard fractionDigits > 0 else { throw fail("expected digits after '.'") }
            digits += fractionDigits
        }
        var exponent = 0
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            guard let e = NumberParsing.exponentValue(bytes, at: &i) else { throw fail("expected digits in the exponent") }
            exponent = e
        }
        if isInteger, digits <= 18 {
            let magnitude = Int64(mantissa)
            return .integer(PropertyList.Integer(negative ? -magnitude : magnitude))
        }
        if !isInteger, let exact = NumberParsing.exactReal(mantissa, digits: digits, power: exponent - fractionDigits, negative: negative) {
            return .real(exact)
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
        if isInteger, let n = NumberParsing.integer(text) { return .integer(n) }
        guard let d = Double(String(decoding: text, as: UTF8.self)) else { throw fail("invalid number", at: start) }
        return .real(d)
    }

    private mutating func string() throws(PropertyListError) -> String {
        let start = i
        i += 1
        let contentStart = i
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 { i += 1 }
        guard i < bytes.count else { throw fail("expected '\"' to end the string", at: start) }
        if bytes[i] == UInt8(ascii: "\"") {
            guard let s = UTF8Text.string(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<i])) else {
                throw fail("expected UTF-8 text, found invalid bytes", at: contentStart)
            }
            i += 1
            return s
        }
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[contentStart..<i]))
        while true {
            guard i < bytes.count else { throw fail("expected '\"' to end the string", at: start) }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control characters must be escaped in JSON strings") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw fail("expected an escape after '\\'") }
            let e = bytes[i]
            i += 1
            if let byte = JSONEscape.byte(for: e) { out.append(byte); continue }
            switch e {
            case UInt8(ascii: "u"):
                var unit = try hex4()
                var scalar: Unicode.Scalar? = Unicode.Scalar(unit)
                if unit & 0xFC00 == 0xD800, i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    i += 2
                    let low = try hex4()
                    if low & 0xFC00 == 0xDC00 {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        scalar = Unicode.Scalar(unit)
                    } else {
                        throw fail("expected a low surrogate after a high surrogate escape")
                    }
                }
                guard let s = scalar else { throw fail("\\u escape names a lone surrogate") }
                UTF8.encode(s) { out.append($0) }
            default: throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("expected UTF-8 text, found invalid bytes", at: contentStart) }
        return s
    }

    private mutating func hex4() throws(PropertyListError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("expected four hexadecimal digits after \\u") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = ASCII.hexValue(bytes[i]) else { throw fail("expected four hexadecimal digits after \\u") }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }
}
