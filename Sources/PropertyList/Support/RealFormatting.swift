import PlatformIO

/// Decimal text for reals, in the forms Apple's writers use.
enum RealFormatting {
    /// `%.*g` with `precision` significant digits (C's formatting, locale-free digits).
    static func g(_ v: Double, precision: Int32) -> String { CFormatting.g(v, precision: precision) }

    /// The XML `<real>` text: the shortest `%g` form (15, else 17 digits) that
    /// reads back to the same value; `nan`, `+infinity`, `-infinity`.
    static func xml(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "+infinity" : "-infinity" }
        if v == v.rounded(), abs(v) < 1e15 { return v == 0 && v.sign == .minus ? "-0" : String(Int64(v)) }
        let short = g(v, precision: 15)
        if Double(short) == v { return short }
        return g(v, precision: 17)
    }

    /// NSNumber's description of a double: `%0.16g`.
    static func description(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "inf" : "-inf" }
        if v == v.rounded(), abs(v) < 1e15 { return v == 0 && v.sign == .minus ? "-0" : String(Int64(v)) }
        return g(v, precision: 16)
    }
}
