#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A property-list value: the one model every part of OpenDefaults speaks.
///
/// Property lists hold strings, integers, reals, booleans, dates, data,
/// arrays and dictionaries with string keys; keyed archives add UIDs.
///
/// ```swift
/// let settings: PropertyList = [
///     "username": "ada",
///     "warpfactor": 5,
///     "protocols": ["HTTP", "SMTP"],
/// ]
/// let xml = try settings.encoded(as: .xml)
/// let back = try PropertyList(decoding: xml)
/// assert(back == settings)
/// ```
public enum PropertyList: Sendable {
    /// A Unicode string. Two strings are equal only when their scalars are
    /// the same, one for one (``LiteralString``), as in CFString.
    case string(String)
    /// An integer: any signed 64-bit value, or an unsigned one above `Int64.max`.
    case integer(Integer)
    /// A floating-point number.
    case real(Double)
    /// A boolean.
    case boolean(Bool)
    /// An instant in time.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([PropertyList])
    /// A dictionary with string keys, told apart by their exact scalars:
    /// `"caf\u{E9}"` and `"cafe\u{301}"` are two keys (``LiteralString``).
    case dictionary([LiteralString: PropertyList])
    /// A keyed-archive object reference (`CF$UID`).
    case uid(UInt64)
}

extension PropertyList {
    /// The kind of a value, without its contents.
    ///
    /// ```swift
    /// PropertyList.integer(3).kind == .integer  // true
    /// ```
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case string, integer, real, boolean, date, data, array, dictionary, uid
    }

    /// The kind of this value.
    @inlinable
    public var kind: Kind {
        switch self {
        case .string: .string
        case .integer: .integer
        case .real: .real
        case .boolean: .boolean
        case .date: .date
        case .data: .data
        case .array: .array
        case .dictionary: .dictionary
        case .uid: .uid
        }
    }
}

extension PropertyList: Equatable {
    /// Values are equal when they have the same kind and contents; strings
    /// are equal when their scalars are (``LiteralString/equal(_:_:)``).
    ///
    /// Two NaN reals are equal, so that a value read back from a file equals
    /// the one written.
    public static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): LiteralString.equal(a, b)
        case let (.integer(a), .integer(b)): a == b
        case let (.real(a), .real(b)): a == b || (a.isNaN && b.isNaN)
        case let (.boolean(a), .boolean(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        case let (.uid(a), .uid(b)): a == b
        default: false
        }
    }
}

extension PropertyList: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        switch self {
        case .string(let v): LiteralString.hash(v, into: &hasher)
        case .integer(let v): hasher.combine(v)
        case .real(let v): hasher.combine(v.isNaN ? Double.nan.bitPattern : (v == 0 ? 0 : v.bitPattern))
        case .boolean(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .array(let v): hasher.combine(v)
        case .dictionary(let v): hasher.combine(v)
        case .uid(let v): hasher.combine(v)
        }
    }
}
