#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `Codable` type stored in defaults as a property-list structure (a
/// struct becomes a dictionary that `defaults read` shows), not opaque data.
public protocol DefaultsCodable: DefaultsValue, Codable {}
