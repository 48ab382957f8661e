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
        // One side at a time: a switch over the pair `(lhs, rhs)` copies both
        // values into a tuple (an outlined copy and destroy of each), and a
        // durable `set` compares values twice.
        switch lhs {
        case .string(let a): if case .string(let b) = rhs { LiteralString.equal(a, b) } else { false }
        case .integer(let a): if case .integer(let b) = rhs { a == b } else { false }
        case .real(let a): if case .real(let b) = rhs { a == b || (a.isNaN && b.isNaN) } else { false }
        case .boolean(let a): if case .boolean(let b) = rhs { a == b } else { false }
        case .date(let a): if case .date(let b) = rhs { a == b } else { false }
        case .data(let a): if case .data(let b) = rhs { a == b } else { false }
        case .array(let a): if case .array(let b) = rhs { a == b } else { false }
        case .dictionary(let a): if case .dictionary(let b) = rhs { a == b } else { false }
        case .uid(let a): if case .uid(let b) = rhs { a == b } else { false }
        }
    }
}

extension PropertyList {
    /// Whether two optional values are equal, as `==` says, without the
    /// copies of `Optional`'s `==` (it switches over the pair, copying both
    /// into a tuple): the write path compares an old and a new value twice
    /// a `set`.
    @inlinable
    package static func same(_ a: PropertyList?, _ b: PropertyList?) -> Bool {
        guard let a else { return b == nil }
        guard let b else { return false }
        return a == b
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
