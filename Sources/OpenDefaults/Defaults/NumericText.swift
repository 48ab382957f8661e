/// The numeric prefix of a string, as Foundation's `intValue`/`longLongValue`
/// and `doubleValue`/`floatValue` read it (the `defaults` tool uses them too).
///
/// ```swift
/// NumericText.leadingInteger("  42abc")  // 42
/// NumericText.leadingDouble("1.5e3 apples")  // 1500
/// ```
package enum NumericText {
    /// Optional whitespace and sign, then digits; clamped to `Int`; 0 when there are none.
    package static func leadingInteger(_ s: String) -> Int {
        var it = Substring(s).drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        var negative = false
        if let f = it.first, f == "-" || f == "+" { negative = f == "-"; it = it.dropFirst() }
        var value = 0
        for ch in it {
            guard let d = ch.wholeNumberValue, ch.isASCII else { break }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return negative ? .min : .max }
            value = a
        }
        return negative ? -value : value
    }

    /// `NSString.boolValue`: after whitespace, one optional sign and any
    /// zeros, true when the next character is `Y`, `y`, `T`, `t` or `1`–`9`.
    package static func boolValue(_ s: String) -> Bool {
        var it = s.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if let f = it.first, f == UInt8(ascii: "+") || f == UInt8(ascii: "-") { it = it.dropFirst() }
        it = it.drop { $0 == UInt8(ascii: "0") }
        guard let c = it.first else { return false }
        return c == UInt8(ascii: "Y") || c == UInt8(ascii: "y") || c == UInt8(ascii: "T") || c == UInt8(ascii: "t")
            || (c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9"))
    }

    /// The longest leading decimal number (sign, digits, point, exponent); 0 when there is none.
    package static func leadingDouble(_ s: String) -> Double {
        let t = s.trimmingSpaces
        if let d = Double(t) { return d }
        var prefix = ""
        for c in t {
            if c.isNumber || c == "." || ((c == "-" || c == "+") && (prefix.isEmpty || prefix.last == "e" || prefix.last == "E"))
                || ((c == "e" || c == "E") && !prefix.isEmpty)
            {
                prefix.append(c)
            } else { break }
        }
        while !prefix.isEmpty, Double(prefix) == nil { prefix.removeLast() }
        return Double(prefix) ?? 0
    }
}

/// Decimal text of a real for `string(forKey:)`: Swift's shortest text of
/// the number, as Foundation's `NSNumber.stringValue` gives on Linux
/// (`3.0`, `12.34`, `1e+20`). A stored `Float` is a double that is exactly a
/// single-precision number: its own text is what was written (`12.34`, not
/// `12.34000015258789`).
enum RealText {
    static func shortest(_ d: Double) -> String {
        let single = Float(d)
        if Double(single) == d, single.isFinite { return "\(single)" }
        return "\(d)"
    }

    /// The `Float` a real was stored from: exactly single precision, and
    /// written shorter as a `Float` than as a `Double` (so not a short double such as `0.5`).
    static func storedFloat(_ d: Double) -> Float? {
        let single = Float(d)
        guard Double(single) == d, single.isFinite else { return nil }
        // Whole numbers below 2^24 are written alike by both ("3.0"): no text
        // is made for them on the read path (every real read passes here).
        if d == d.rounded(.towardZero), d.magnitude < 16_777_216 { return nil }
        let text = "\(single)"
        return text.utf8.count < "\(d)".utf8.count ? single : nil
    }
}
