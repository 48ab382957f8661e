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
