import Testing
import TestSupport
@testable import PropertyList

/// The XML writer formats reals from their exact binary expansion
/// (`ExactDigits`); C's `%.15g`/`%.17g` is the specification it must match
/// byte for byte, as CoreFoundation writes with C's formatting.
@Suite("Real formatting")
struct RealFormattingTests {
    /// What CoreFoundation writes: `%.15g` when it reads back, else `%.17g` (C's formatting).
    static func reference(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "+infinity" : "-infinity" }
        if v == v.rounded(), abs(v) < 1e15 { return v == 0 && v.sign == .minus ? "-0" : String(Int64(v)) }
        let short = RealFormatting.g(v, precision: 15)
        return Double(short) == v ? short : RealFormatting.g(v, precision: 17)
    }

    @Test("values people write, and the edges of each notation, as C formats them")
    func chosenValues() {
        let values: [Double] = [
            0.1, 0.2, 0.30000000000000004, 1.0 / 3, 2.0 / 3, 1.0 / 7, 100.0 / 7, -1.5, 0.5, 3.14159, 2.718281828459045,
            1e-4, 1e-5, 0.0001234, 0.00001234, 1.5e-300, 2.2250738585072014e-308, .leastNonzeroMagnitude, 1e15, 1e16, 1.5e15,
            123456789012345.6, 1234567890123456.7, 9007199254740992, 1e17, 1e21, 1e22, 1.7976931348623157e308,
            9.999999999999999e14, 9.9999999999999995e14, 0.99999999999999989, 0.9999999999999999, 5e-5, 99999.5,
            1234567890.125, 1e-71, 1e-72, 3e38, 3.5e38, 1.0000000000000002, 12345678901234567890.0,
        ]
        for v in values + values.map(-) {
            #expect(RealFormatting.xml(v) == Self.reference(v), "\(v.bitPattern)")
        }
    }

    @Test("400,000 random doubles of every magnitude format as C formats them", .offThePool)
    func randomValues() {
        var rng = SystemRandomNumberGenerator()
        var seen = 0
        for k in 0..<400_000 {
            let v: Double
            switch k % 4 {
            case 0: v = Double(bitPattern: rng.next())  // any bit pattern: every exponent
            case 1: v = Double.random(in: -1e6...1e6, using: &rng)  // the magnitudes of settings
            case 2: v = Double(Int64.random(in: -1_000_000...1_000_000, using: &rng)) / Double([7, 1000, 3, 1024][k / 4 % 4])
            default:
                // Exact ties at the 15th and 17th digits: integers and halves near 10^15 … 10^19.
                v = Double(UInt64.random(in: 1_000_000_000_000_000...10_000_000_000_000_000_000, using: &rng)) + (k % 8 == 3 ? 0.5 : 0)
            }
            guard v.isFinite else { continue }
            seen += 1
            let ours = RealFormatting.xml(v)
            if ours != Self.reference(v) {
                Issue.record("bit pattern \(v.bitPattern): \(ours), C writes \(Self.reference(v))")
                return
            }
        }
        #expect(seen > 390_000)
    }

    @Test("the text readers' reals read as Double(_:) reads them: the exact fast path changes no bit")
    func readingAsDoubleReads() {
        var random = SeededRandom()
        for round in 0..<60_000 {
            // Signs, leading zeros, fractions without an integer part, exponents near the fast path's edge.
            var text = ["", "+", "-"].randomElement(using: &random)!
            let whole = (0..<Int.random(in: 0...19, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            text += whole
            if whole.isEmpty || Bool.random(using: &random) {
                text += "." + (0..<Int.random(in: whole.isEmpty ? 1...18 : 0...18, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            }
            if Bool.random(using: &random) {
                text += ["e", "E"].randomElement(using: &random)! + ["", "+", "-"].randomElement(using: &random)!
                text += String(Int.random(in: 0...(Bool.random(using: &random) ? 30 : 400), using: &random))
            }
            let ours = Array(text.utf8).withUnsafeBytes { NumberParsing.real($0) }
            let theirs = Double(text)
            #expect(ours?.bitPattern == theirs?.bitPattern, "seed \(random.seed), round \(round): \(text) read as \(String(describing: ours)), Double(_:) reads \(String(describing: theirs))")
        }
    }
}
