#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PlatformIO
import PropertyList

extension Defaults {
    /// The effective value of `key` as a typed value: the first domain of
    /// the search list that has it.
    ///
    /// ```swift
    /// if case .integer(let n)? = defaults.propertyList(forKey: "Volume") { … }
    /// ```
    @inline(__always)
    public func propertyList(forKey key: String) -> PropertyList? {
        let version = searchList.registration.version.load(ordering: .acquiring)
        let (value, current) = searchList.state.withLock { ($0.resolved[key], $0.registrationVersion == version) }
        if current { return value }
        searchList.updateRegistration(version)
        return searchList.state.withLock { $0.resolved[key] }
    }

    /// ``propertyList(forKey:)`` with the key's hash already computed (typed keys).
    @usableFromInline
    func propertyList(forKey key: String, hash: UInt64) -> PropertyList? {
        let version = searchList.registration.version.load(ordering: .acquiring)
        let (value, current) = searchList.state.withLock { ($0.resolved.value(forKey: key, hash: hash), $0.registrationVersion == version) }
        if current { return value }
        searchList.updateRegistration(version)
        return searchList.state.withLock { $0.resolved[key] }
    }

    /// `UserDefaults.object(forKey:)`: the value as Swift's plain types
    /// (`String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]`, `[String: Any]`).
    ///
    /// A stored `Float` comes back as a `Float`, as from swift-corelibs-
    /// foundation's `UserDefaults`: a real that is exactly a single-precision
    /// number and whose `Float` text is shorter than its `Double` text
    /// (`set(12.34 as Float, …)` stores `12.340000152587891`, read as the
    /// `Float` `12.34`). A `Float` that is also a short double (`0.5`) reads
    /// as a `Double`, as it does in corelibs after a restart.
    ///
    /// ```swift
    /// let name = defaults.object(forKey: "Name") as? String
    /// defaults.set(12.34 as Float, forKey: "Gain")
    /// defaults.object(forKey: "Gain") as? Float   // 12.34
    /// ```
    public func object(forKey key: String) -> Any? {
        guard let value = propertyList(forKey: key) else { return nil }
        if case .real(let d) = value, let single = RealText.storedFloat(d) { return single }
        return value.bridgedValue
    }

    /// `value(forKey:)` as `UserDefaults` answers it (key-value coding):
    /// the same as ``object(forKey:)``.
    ///
    /// ```swift
    /// let volume = defaults.value(forKey: "Volume") as? Int
    /// ```
    public func value(forKey key: String) -> Any? { object(forKey: key) }

    /// The string; a number gives its decimal text and a boolean `"1"` or
    /// `"0"`, as Foundation's `NSNumber.stringValue` does. A real that is
    /// exactly a single-precision number (a `Float` was stored) reads as
    /// the `Float`'s text: `"12.34"`, not `"12.34000015258789"`.
    ///
    /// ```swift
    /// defaults.set(true, forKey: "Flag")
    /// defaults.string(forKey: "Flag")  // "1"
    /// ```
    public func string(forKey key: String) -> String? {
        switch propertyList(forKey: key) {
        case .string(let s)?: s
        case .integer(let n)?: n.description
        case .real(let d)?: RealText.shortest(d)
        case .boolean(let b)?: b ? "1" : "0"
        default: nil
        }
    }

    /// The array, or nil when the value is not an array.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let a)? = propertyList(forKey: key) else { return nil }
        return a.map(\.bridgedValue)
    }

    /// The dictionary, or nil when the value is not a dictionary.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary(let d)? = propertyList(forKey: key) else { return nil }
        return d.keyedByString(\.bridgedValue)
    }

    /// The data, or nil when the value is not data.
    public func data(forKey key: String) -> Data? {
        guard case .data(let d)? = propertyList(forKey: key) else { return nil }
        return d
    }

    /// The array of strings, or nil unless every element is a string.
    public func stringArray(forKey key: String) -> [String]? {
        guard case .array(let a)? = propertyList(forKey: key) else { return nil }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for e in a {
            guard case .string(let s) = e else { return nil }
            out.append(s)
        }
        return out
    }

    /// The integer: integers (clamped to `Int`), reals truncated (`Int.min`
    /// when out of range or NaN, as Foundation), strings parsed (leading
    /// whitespace, sign, digits), booleans as 1 or 0; else 0.
    public func integer(forKey key: String) -> Int {
        Coercion.integer(propertyList(forKey: key))
    }

    /// The number as `Float`; 0 when absent or not numeric.
    public func float(forKey key: String) -> Float { Float(Coercion.double(propertyList(forKey: key))) }

    /// The number as `Double`: reals, integers, numeric strings, booleans; else 0.
    public func double(forKey key: String) -> Double { Coercion.double(propertyList(forKey: key)) }

    /// The boolean: `true`, a non-zero number, or a string read as
    /// Foundation's `NSString.boolValue` reads it (after spaces, a sign and
    /// zeros, a first character of `Y`, `y`, `T`, `t` or `1`–`9`); else false.
    public func bool(forKey key: String) -> Bool { Coercion.bool(propertyList(forKey: key)) }

    /// The URL: a path string (`~` expanded with `$HOME`) as a file URL, or
    /// the keyed-archive bytes macOS stores for a URL.
    public func url(forKey key: String) -> URL? {
        switch propertyList(forKey: key) {
        case .string(let s)?:
            let path = s.hasPrefix("~") ? (Environment["HOME"] ?? "") + s.dropFirst() : s
            return URL(fileURLWithPath: path)
        case .data(let d)?:
            return URLArchive.decode(d)
        default:
            return nil
        }
    }

    /// `dictionaryRepresentation()`: the union of the whole search list,
    /// earlier domains winning, as Swift's plain types.
    public func dictionaryRepresentation() -> [String: Any] {
        values().keyedByString(\.bridgedValue)
    }

    /// The effective values as they are now, frozen: a copy-on-write copy of
    /// the resolved view (no entry is copied until the next change).
    package func resolvedView() -> ResolvedView {
        searchList.checkRegistration()
        return searchList.state.withLock { $0.resolved }
    }

    /// The union of the whole search list as typed values (no conversion cost).
    public func values() -> [LiteralString: PropertyList] {
        searchList.checkRegistration()
        return searchList.state.withLock { $0.resolved.dictionary() }
    }

    /// True when an administrator forces `key` in this object's search list
    /// (its domain, its suites or the global domain): writes still go to the
    /// user's domain, but the forced value keeps winning.
    ///
    /// ```swift
    /// if defaults.objectIsForced(forKey: "UpdateURL") { disableEditing() }
    /// ```
    public func objectIsForced(forKey key: String) -> Bool {
        searchList.isForced(key)
    }

    /// True when an administrator forces `key` in `domain`.
    ///
    /// ```swift
    /// defaults.objectIsForced(forKey: "Proxy", inDomain: Defaults.globalDomain)
    /// ```
    public func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        store.managedDomain(domain).value(forKey: key) != nil
    }
}

/// Apple's coercion rules for the typed getters.
enum Coercion {
    static func integer(_ v: PropertyList?) -> Int {
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

    static func double(_ v: PropertyList?) -> Double {
        switch v {
        case .real(let d)?: return d
        case .integer(let n)?: return n.doubleValue
        case .boolean(let b)?: return b ? 1 : 0
        case .string(let s)?: return NumericText.leadingDouble(s)
        default: return 0
        }
    }

    static func bool(_ v: PropertyList?) -> Bool {
        switch v {
        case .boolean(let b)?: return b
        case .integer(let n)?: return n != 0
        case .real(let d)?: return d != 0
        case .string(let s)?: return NumericText.boolValue(s)
        default: return false
        }
    }

}

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
