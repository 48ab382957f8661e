package import PropertyList

/// Apple's coercion rules for the typed getters, shared by `Defaults` and
/// `UbiquitousKeyValueStore` (one rule, so the two never disagree): an
/// integer from a real truncates, and a real that is NaN or out of `Int`'s
/// range reads as `Int.min` (the processor's "integer indefinite", which
/// Foundation's NSNumber answers on Linux and Apple's on Intel); a boolean is
/// 0 or 1; a string is read as `NSString` reads it (``NumericText``).
///
/// ```swift
/// Coercion.integer(.real(.nan))      // Int.min
/// Coercion.bool(.string("YES"))      // true
/// ```
package enum Coercion {
    package static func integer(_ v: PropertyList?) -> Int {
        switch v {
        case .integer(let n)?: return n.clampedInt
        case .real(let d)?:
            // Out of range or NaN: Int.min, as Foundation's NSNumber answers
            // on Linux (the processor's "integer indefinite").
            if d.isNaN || d >= 9.223372036854775807e18 || d < -9.223372036854775808e18 { return .min }
            return Int(d)
        case .boolean(let b)?: return b ? 1 : 0
        case .string(let s)?: return NumericText.leadingInteger(s)
        default: return 0
        }
    }

    package static func double(_ v: PropertyList?) -> Double {
        switch v {
        case .real(let d)?: return d
        case .integer(let n)?: return n.doubleValue
        case .boolean(let b)?: return b ? 1 : 0
        case .string(let s)?: return NumericText.leadingDouble(s)
        default: return 0
        }
    }

    package static func bool(_ v: PropertyList?) -> Bool {
        switch v {
        case .boolean(let b)?: return b
        case .integer(let n)?: return n != 0
        case .real(let d)?: return d != 0
        case .string(let s)?: return NumericText.boolValue(s)
        default: return false
        }
    }

}
