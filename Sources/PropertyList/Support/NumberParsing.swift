/// Parsing of the numeric text forms, as CoreFoundation accepts them.
enum NumberParsing {
    /// An integer as the XML `<integer>` element holds it: whitespace around,
    /// an optional sign (whitespace may follow it), decimal digits or `0x` and
    /// hexadecimal digits; from -2^63 to 2^64-1.
    static func integer(_ b: UnsafeRawBufferPointer) -> PropertyList.Integer? {
        var i = 0
        var end = b.count
        while i < end, ASCII.isSpace(b[i]) { i += 1 }
        while end > i, ASCII.isSpace(b[end - 1]) { end -= 1 }
        var negative = false
        if i < end, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
            while i < end, ASCII.isSpace(b[i]) { i += 1 }
        }
        guard i < end else { return nil }
        var magnitude: UInt64 = 0
        if end - i > 2, b[i] == UInt8(ascii: "0"), b[i + 1] | 0x20 == UInt8(ascii: "x") {
            i += 2
            while i < end {
                guard let d = ASCII.hexValue(b[i]), magnitude >> 60 == 0 else { return nil }
                magnitude = magnitude << 4 | UInt64(d)
                i += 1
            }
        } else {
            while i < end {
                guard ASCII.isDigit(b[i]) else { return nil }
                let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(UInt64(b[i] - 0x30))
                if o1 || o2 { return nil }
                magnitude = a
                i += 1
            }
        }
        if negative {
            if magnitude > UInt64(Int64.max) + 1 { return nil }
            return PropertyList.Integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return PropertyList.Integer(magnitude)
    }

    /// A real as the XML `<real>` element holds it: optional leading
    /// whitespace, sign, digits with an optional fraction and exponent; or
    /// `nan`, `inf`, `infinity` with an optional sign, in any case.
    static func real(_ b: UnsafeRawBufferPointer) -> Double? {
        var i = 0
        while i < b.count, ASCII.isSpace(b[i]) { i += 1 }
        let text = UnsafeRawBufferPointer(rebasing: b[i...])
        guard !text.isEmpty else { return nil }
        // nan and inf are the only reals with a letter before any digit.
        let lead = text[0] == UInt8(ascii: "+") || text[0] == UInt8(ascii: "-") ? 1 : 0
        if lead < text.count, ASCII.isLetter(text[lead]) { return specialReal(text) }
        var k = 0
        let negative = text[k] == UInt8(ascii: "-")
        if text[k] == UInt8(ascii: "+") || text[k] == UInt8(ascii: "-") { k += 1 }
        var mantissa: UInt64 = 0
        var digits = accumulateDigits(text, at: &k, into: &mantissa)
        var fractionDigits = 0
        if k < text.count, text[k] == UInt8(ascii: ".") {
            k += 1
            fractionDigits = accumulateDigits(text, at: &k, into: &mantissa)
            digits += fractionDigits
        }
        guard digits > 0 else { return nil }
        var exponent = 0
        if k < text.count, text[k] | 0x20 == UInt8(ascii: "e") {
            k += 1
            guard let e = exponentValue(text, at: &k) else { return nil }
            exponent = e
        }
        guard k == text.count else { return nil }
        if let exact = exactReal(mantissa, digits: digits, power: exponent - fractionDigits, negative: negative) { return exact }
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// Reads the decimal digits from `i` on into `mantissa` (× 10 and add, wrapping: a caller
    /// trusts the mantissa only when it read at most 19 digits). Returns how many it read.
    @inline(__always)
    static func accumulateDigits(_ b: UnsafeRawBufferPointer, at i: inout Int, into mantissa: inout UInt64) -> Int {
        let start = i
        while i < b.count, ASCII.isDigit(b[i]) {
            mantissa = mantissa &* 10 &+ UInt64(b[i] &- 0x30)
            i += 1
        }
        return i - start
    }

    /// Reads an exponent's optional sign and digits from `i` on (just after the `e`); nil when
    /// there is no digit. Its magnitude saturates past 100,000: only small powers are computed
    /// here (``exactReal(_:digits:power:negative:)``), the rest are read by `Double(_:)`.
    @inline(__always)
    static func exponentValue(_ b: UnsafeRawBufferPointer, at i: inout Int) -> Int? {
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        let start = i
        var magnitude = 0
        while i < b.count, ASCII.isDigit(b[i]) {
            if magnitude < 100_000 { magnitude = magnitude * 10 + Int(b[i] &- 0x30) }
            i += 1
        }
        guard i > start else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// The double `mantissa` × 10^`power` (negated when `negative`), when
    /// it can be computed exactly rounded without reading the text again:
    /// the mantissa read whole (`digits`, the decimal digits it was read
    /// from, leading zeros included, at most 19, so that 64 bits did not
    /// wrap) and at most 2^53, so exact in a double, and a power of ten up to
    /// 10^22, exact too. One IEEE multiplication or division of exact
    /// operands is correctly rounded, as `strtod` is (Clinger's fast path);
    /// nil otherwise (the caller then reads the text with `Double(_:)`).
    @inline(__always)
    static func exactReal(_ mantissa: UInt64, digits: Int, power: Int, negative: Bool) -> Double? {
        guard digits <= 19, mantissa <= 1 << 53, power >= -22, power <= 22 else { return nil }
        let exact = Double(mantissa)
        let d = power < 0 ? exact / powersOfTen[-power] : exact * powersOfTen[power]
        return negative ? -d : d
    }

    /// 10^0 … 10^22, each exact in a double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    private static func specialReal(_ t: UnsafeRawBufferPointer) -> Double? {
        guard t.count <= 9 else { return nil }
        var s = String(decoding: t, as: UTF8.self).lowercased()
        var sign = 1.0
        if s.hasPrefix("+") { s.removeFirst() } else if s.hasPrefix("-") { sign = -1; s.removeFirst() }
        switch s {
        case "nan": return .nan
        case "inf", "infinity": return sign * .infinity
        default: return nil
        }
    }
}
