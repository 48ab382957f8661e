/// The leading decimal digits of a finite, nonzero double's exact value, and
/// whether any nonzero digit follows them: enough to round to 15 or 17
/// significant digits exactly as C's `%g` does (to nearest, ties to even).
///
/// Exact in 128-bit arithmetic for magnitudes from about 2⁻⁷¹ to 2¹²⁷, where
/// the value is an integer of at most 127 bits, or a 53-bit significand over
/// at most 2¹²⁴; nil elsewhere (and for subnormals).
struct ExactDigits {
    /// 18 digits, most significant first (0…9), zero-padded.
    private var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private var sticky = false
    /// The power of ten of the first digit.
    private(set) var exponent = 0
    let negative: Bool

    static let count = 18

    private subscript(i: Int) -> UInt8 {
        get { withUnsafeBytes(of: digits) { $0[i] } }
        set { withUnsafeMutableBytes(of: &digits) { $0[i] = newValue } }
    }

    init?(_ v: Double) {
        guard v.isNormal else { return nil }
        negative = v.sign == .minus
        let m = UInt128(v.significandBitPattern | 1 << 52)
        let e = Int(v.exponent) - 52
        var n = 0
        func push(_ d: UInt8) {
            if n < Self.count { self[n] = d } else if d != 0 { sticky = true }
            n += 1
        }
        // The integer part's digits, then the fraction's.
        let integer: UInt128
        var fraction: UInt128 = 0
        let s = Swift.max(0, -e)
        if e >= 0 {
            guard e <= 74 else { return nil }
            integer = m << e
        } else {
            guard s <= 124 else { return nil }
            integer = m >> s
            fraction = m & ((1 << UInt128(s)) - 1)
        }
        if integer > 0 {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { scratch in
                var i = 40
                if integer <= UInt64.max {
                    var rest = UInt64(integer)
                    while rest > 0 { i -= 1; scratch[i] = UInt8(rest % 10); rest /= 10 }
                } else {
                    var rest = integer
                    while rest > 0 {
                        let (q, r) = rest.quotientAndRemainder(dividingBy: 10)
                        i -= 1; scratch[i] = UInt8(r); rest = q
                    }
                }
                exponent = 39 - i
                for k in i..<40 { push(scratch[k]) }
            }
        } else {
            exponent = -1
            // Leading zeros of the fraction move the exponent.
            while true {
                fraction *= 10
                let d = UInt8(fraction >> s)
                fraction &= (1 << UInt128(s)) - 1
                if d != 0 { push(d); break }
                exponent -= 1
            }
        }
        if s <= 60 {
            // The common magnitudes: ten times the fraction fits in 64 bits.
            var small = UInt64(fraction)
            let mask: UInt64 = (1 << UInt64(s)) &- 1
            while n < Self.count, small != 0 {
                small &*= 10
                push(UInt8(small >> UInt64(s)))
                small &= mask
            }
            if small != 0 { sticky = true }
            return
        }
        while n < Self.count, fraction != 0 {
            fraction *= 10
            push(UInt8(fraction >> s))
            fraction &= (1 << UInt128(s)) - 1
        }
        if fraction != 0 { sticky = true }
    }

    /// Writes `%.{significant}g` (significant ≤ 17).
    func format(significant p: Int, into text: inout GText) {
        var rounded = self
        var x = exponent
        // Round at digit p: up when the rest is above half, or exactly half and the last kept digit is odd.
        let next = self[p]
        var rest = sticky
        if !rest { for k in (p + 1)..<Self.count where self[k] != 0 { rest = true; break } }
        if next > 5 || (next == 5 && (rest || self[p - 1] & 1 == 1)) {
            var k = p - 1
            while k >= 0 {
                if rounded[k] == 9 { rounded[k] = 0; k -= 1 } else { rounded[k] += 1; break }
            }
            if k < 0 {
                rounded[0] = 1
                x += 1
            }
        }
        var kept = p
        while kept > 1, rounded[kept - 1] == 0 { kept -= 1 }
        if negative { text.append(UInt8(ascii: "-")) }
        if x < -4 || x >= p {
            text.append(0x30 + rounded[0])
            if kept > 1 {
                text.append(UInt8(ascii: "."))
                for k in 1..<kept { text.append(0x30 + rounded[k]) }
            }
            text.append(UInt8(ascii: "e"))
            text.append(x < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let magnitude = abs(x)
            if magnitude < 10 { text.append(0x30) }
            if magnitude >= 100 { text.append(0x30 + UInt8(magnitude / 100)) }
            if magnitude >= 10 { text.append(0x30 + UInt8(magnitude / 10 % 10)) }
            text.append(0x30 + UInt8(magnitude % 10))
        } else if x >= 0 {
            for k in 0...x { text.append(k < kept ? 0x30 + rounded[k] : 0x30) }
            if kept > x + 1 {
                text.append(UInt8(ascii: "."))
                for k in (x + 1)..<kept { text.append(0x30 + rounded[k]) }
            }
        } else {
            text.append(0x30)
            text.append(UInt8(ascii: "."))
            for _ in 0..<(-x - 1) { text.append(0x30) }
            for k in 0..<kept { text.append(0x30 + rounded[k]) }
        }
    }
}
