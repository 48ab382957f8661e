#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyList {
    /// The string, when this is a string.
    @inlinable public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }

    /// The integer as `Int`, when this is an integer that fits.
    ///
    /// ```swift
    /// PropertyList(7).intValue  // 7
    /// PropertyList("7").intValue  // nil: no coercion here
    /// ```
    @inlinable public var intValue: Int? {
        if case .integer(let v) = self, let i = v.int64Value { return Int(exactly: i) }
        return nil
    }

    /// The integer, when this is an integer.
    @inlinable public var integerValue: Integer? {
        if case .integer(let v) = self { return v }
        return nil
    }

    /// The number as `Double`, when this is a real or an integer.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return v.doubleValue
        default: return nil
        }
    }

    /// The boolean, when this is a boolean.
    @inlinable public var boolValue: Bool? {
        if case .boolean(let v) = self { return v }
        return nil
    }

    /// The date, when this is a date.
    @inlinable public var dateValue: Date? {
        if case .date(let v) = self { return v }
        return nil
    }

    /// The bytes, when this is data.
    @inlinable public var dataValue: Data? {
        if case .data(let v) = self { return v }
        return nil
    }

    /// The elements, when this is an array.
    @inlinable public var arrayValue: [PropertyList]? {
        if case .array(let v) = self { return v }
        return nil
    }

    /// The entries, when this is a dictionary.
    @inlinable public var dictionaryValue: [LiteralString: PropertyList]? {
        if case .dictionary(let v) = self { return v }
        return nil
    }

    /// The object number, when this is a keyed-archive UID.
    @inlinable public var uidValue: UInt64? {
        if case .uid(let v) = self { return v }
        return nil
    }

    /// The value for `key`, when this is a dictionary that has it.
    ///
    /// ```swift
    /// let v: PropertyList = ["a": ["b": 1]]
    /// v["a"]?["b"]  // .integer(1)
    /// ```
    @inlinable public subscript(key: String) -> PropertyList? {
        if case .dictionary(let d) = self { return d[key] }
        return nil
    }

    /// The element at `index`, when this is an array that long.
    @inlinable public subscript(index: Int) -> PropertyList? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

extension PropertyList {
    /// The value's type with its article, for messages ("an integer", "a dictionary", "data").
    package var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .uid: "a UID"
        }
    }
}
