#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes `Decodable` values straight from a ``PropertyList`` value.
///
/// Integers decode into any integer type they fit, and into `Double` and
/// `Float`; reals into `Double` and `Float` (and into integer types when
/// they are whole); strings into `URL`.
///
/// ```swift
/// struct Window: Codable { var width: Int; var title: String }
/// let w = try PropertyListValueDecoder().decode(Window.self, from: ["width": 640, "title": "Main"])
/// ```
public struct PropertyListValueDecoder: Sendable {
    /// Contextual information for the values' `init(from:)`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder.
    public init() {}

    /// Decodes a value of `type`.
    ///
    /// - Throws: `DecodingError` naming the coding path and what was expected.
    public func decode<T: Decodable>(_ type: T.Type, from value: PropertyList) throws -> T {
        try ValueDecoder(value: value, codingPath: [], userInfo: userInfo).decode(type)
    }
}
