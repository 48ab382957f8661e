#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import PlatformIO
import SharedTables
public import PropertyList
import Synchronization

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
