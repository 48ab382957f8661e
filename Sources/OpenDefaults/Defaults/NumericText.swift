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
