#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` values straight into a ``PropertyList`` value, with no
/// bytes in between: a struct becomes a dictionary, an array an array, a
/// `Date` a date, `Data` data, a `URL` its absolute string.
///
/// ```swift
/// struct Window: Codable { var width: Int; var title: String }
/// let value = try PropertyListValueEncoder().encode(Window(width: 640, title: "Main"))
/// // value == ["width": 640, "title": "Main"]
/// ```
public struct PropertyListValueEncoder: Sendable {
    /// Contextual information for the values' `encode(to:)`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    public init() {}

    /// Encodes a value.
    ///
    /// - Throws: `EncodingError.invalidValue` when a value has no
    ///   property-list form (a `nil` at the top level, or an optional that
    ///   encodes nothing).
    public func encode<T: Encodable>(_ value: T) throws -> PropertyList {
        let encoder = ValueEncoder(codingPath: [], userInfo: userInfo)
        if let direct = try ValueEncoder.direct(value) { return direct }
        try value.encode(to: encoder)
        guard let result = encoder.node.value else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(T.self) encoded no value"))
        }
        return result
    }
}
