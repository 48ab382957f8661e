#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PropertyList: ExpressibleByStringLiteral {
    /// `let v: PropertyList = "hello"`
    @inlinable public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyList: ExpressibleByIntegerLiteral {
    /// `let v: PropertyList = 42`
    @inlinable public init(integerLiteral value: Int64) { self = .integer(Integer(value)) }
}

extension PropertyList: ExpressibleByFloatLiteral {
    /// `let v: PropertyList = 1.5`
    @inlinable public init(floatLiteral value: Double) { self = .real(value) }
}

extension PropertyList: ExpressibleByBooleanLiteral {
    /// `let v: PropertyList = true`
    @inlinable public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension PropertyList: ExpressibleByArrayLiteral {
    /// `let v: PropertyList = [1, "two", 3.0]`
    @inlinable public init(arrayLiteral elements: PropertyList...) { self = .array(elements) }
}

extension PropertyList: ExpressibleByDictionaryLiteral {
    /// `let v: PropertyList = ["name": "Ada", "age": 36]`
    ///
    /// A key given twice keeps its last value.
    @inlinable public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self = .dictionary(Dictionary(elements.lazy.map { (LiteralString($0.0), $0.1) }, uniquingKeysWith: { _, last in last }))
    }
}

extension PropertyList {
    /// An integer value from any Swift integer.
    ///
    /// ```swift
    /// PropertyList(Int.max) == .integer(PropertyList.Integer(Int64.max))
    /// ```
    @inlinable public init(_ value: Int) { self = .integer(Integer(Int64(value))) }
    /// An integer value from `Int64`.
    @inlinable public init(_ value: Int64) { self = .integer(Integer(value)) }
    /// An integer value from `UInt64`.
    @inlinable public init(_ value: UInt64) { self = .integer(Integer(value)) }
    /// A real value.
    @inlinable public init(_ value: Double) { self = .real(value) }
    /// A real value from `Float` (widened to `Double`).
    @inlinable public init(_ value: Float) { self = .real(Double(value)) }
    /// A string value.
    @inlinable public init(_ value: String) { self = .string(value) }
    /// A boolean value.
    @inlinable public init(_ value: Bool) { self = .boolean(value) }
    /// A date value.
    @inlinable public init(_ value: Date) { self = .date(value) }
    /// A data value.
    @inlinable public init(_ value: Data) { self = .data(value) }
}
