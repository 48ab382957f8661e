import PlatformIO

/// Decimal text for reals, in the forms Apple's writers use.
enum RealFormatting {
    /// `%.*g` with `precision` significant digits (C's formatting, locale-free digits).
    static func g(_ v: Double, precision: Int32) -> String { CFormatting.g(v, precision: precision) }

    /// The XML `<real>` text: the shortest `%g` form (15, else 17 digits) that
    /// reads back to the same value; `nan`, `+infinity`, `-infinity`.
    static func xml(_ v: Double) -> String {
        var out: [UInt8] = []
        appendXML(v, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``xml(_:)``'s text.
    ///
    /// CoreFoundation writes `%.15g` when it reads back to the same value,
    /// else `%.17g`. Both are computed here from the value's exact binary
    /// expansion (``ExactDigits``) without C's formatting, whose variadic call
    /// cost a quarter of `plutil -convert xml1` on the benchmarks' mixed file
    /// (proposal 0019); C's `%g` remains for magnitudes beyond 128-bit
    /// arithmetic. `RealFormattingTests` compares the two on 400,000 values.
    static func appendXML<O: ByteAppending & ~Copyable>(_ v: Double, to out: inout O) {
        if v.isNaN { out.append(ascii: "nan"); return }
        if v.isInfinite { out.append(ascii: v > 0 ? "+infinity" : "-infinity"); return }
        if v == v.rounded(), abs(v) < 1e15 {
            if v == 0 && v.sign == .minus { out.append(ascii: "-0") } else { out.append(decimal: Int64(v)) }
            return
        }
        guard let digits = ExactDigits(v) else {
            let short = g(v, precision: 15)
            out.append(string: Double(short) == v ? short : g(v, precision: 17))
            return
        }
        var text = GText()
        digits.format(significant: 15, into: &text)
        if !text.readsBack(as: v) {
            text = GText()
            digits.format(significant: 17, into: &text)
        }
        text.append(to: &out)
    }

    /// NSNumber's description of a double: `%0.16g`.
    static func description(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "inf" : "-inf" }
        if v == v.rounded(), abs(v) < 1e15 { return v == 0 && v.sign == .minus ? "-0" : String(Int64(v)) }
        return g(v, precision: 16)
    }
}
