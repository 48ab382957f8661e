#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import PropertyList

/// A type that can be stored in defaults: it converts to and from a
/// ``PropertyList`` value.
///
/// Property-list types conform already; a `RawRepresentable` enum conforms
/// by declaring it (its raw value is stored); a `Codable` type conforms
/// through ``DefaultsCodable`` (stored as a structure `defaults read` shows).
///
/// ```swift
/// enum Theme: String, DefaultsValue { case light, dark }
/// struct Window: DefaultsCodable { var width = 640 }
/// ```
public protocol DefaultsValue: Sendable {
    /// The value a stored property list stands for, or nil when it does not fit.
    init?(propertyList: PropertyList)
    /// The property list to store.
    var propertyList: PropertyList { get throws }
    /// True for a value that means "no value" (an optional's nil): storing it removes the key.
    var removesKey: Bool { get }
}

extension DefaultsValue {
    public var removesKey: Bool { false }
}

extension String: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard case .string(let s) = propertyList else { return nil }
        self = s
    }
    public var propertyList: PropertyList { .string(self) }
}

extension Int: DefaultsValue {
    public init?(propertyList: PropertyList) {
        switch propertyList {
        case .integer(let n): self = n.clampedInt
        case .real(let d) where d.isFinite && d == d.rounded(.towardZero) && abs(d) < 9.2e18: self = Int(d)
        default: return nil
        }
    }
    public var propertyList: PropertyList { PropertyList(self) }
}

extension Double: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard let d = propertyList.doubleValue else { return nil }
        self = d
    }
    public var propertyList: PropertyList { .real(self) }
}

extension Float: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard let d = propertyList.doubleValue else { return nil }
        self = Float(d)
    }
    public var propertyList: PropertyList { .real(Double(self)) }
}

extension Bool: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard case .boolean(let b) = propertyList else { return nil }
        self = b
    }
    public var propertyList: PropertyList { .boolean(self) }
}

extension Date: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard case .date(let d) = propertyList else { return nil }
        self = d
    }
    public var propertyList: PropertyList { .date(self) }
}

extension Data: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard case .data(let d) = propertyList else { return nil }
        self = d
    }
    public var propertyList: PropertyList { .data(self) }
}

extension PropertyList: DefaultsValue {
    public init?(propertyList: PropertyList) { self = propertyList }
    public var propertyList: PropertyList { self }
}

extension Optional: DefaultsValue where Wrapped: DefaultsValue {
    public var removesKey: Bool { self == nil }

    public init?(propertyList: PropertyList) {
        guard let w = Wrapped(propertyList: propertyList) else { return nil }
        self = .some(w)
    }
    public var propertyList: PropertyList {
        get throws {
            guard let w = self else { throw StorageError(domain: "", path: "", kind: .invalidValue, reason: "nil has no property-list form") }
            return try w.propertyList
        }
    }
}

extension Array: DefaultsValue where Element: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard case .array(let a) = propertyList else { return nil }
        var out: [Element] = []
        for e in a {
            guard let v = Element(propertyList: e) else { return nil }
            out.append(v)
        }
        self = out
    }
    public var propertyList: PropertyList { get throws { .array(try map { try $0.propertyList }) } }
}

extension Dictionary: DefaultsValue where Key == String, Value: DefaultsValue {
    public init?(propertyList: PropertyList) {
        // A `String`-keyed dictionary cannot hold two canonically equivalent
        // keys: such a value is not of this type (nil), never merged.
        guard case .dictionary(let d) = propertyList, !d.hasEquivalentKeys else { return nil }
        var out: [String: Value] = [:]
        for (k, e) in d {
            guard let v = Value(propertyList: e) else { return nil }
            out[k.string] = v
        }
        self = out
    }
    public var propertyList: PropertyList {
        get throws {
            var out = [LiteralString: PropertyList](minimumCapacity: count)
            for (k, v) in self { out[LiteralString(k)] = try v.propertyList }
            return .dictionary(out)
        }
    }
}

extension DefaultsValue where Self: RawRepresentable, RawValue: DefaultsValue {
    public init?(propertyList: PropertyList) {
        guard let raw = RawValue(propertyList: propertyList) else { return nil }
        self.init(rawValue: raw)
    }
    public var propertyList: PropertyList { get throws { try rawValue.propertyList } }
}

extension DefaultsCodable {
    public init?(propertyList: PropertyList) {
        guard let v = try? PropertyListValueDecoder().decode(Self.self, from: propertyList) else { return nil }
        self = v
    }
    public var propertyList: PropertyList { get throws { try PropertyListValueEncoder().encode(self) } }
}
