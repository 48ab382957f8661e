#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A key as the server holds it: its revision and value (nil: removed).
public struct UbiquityWireEntry: Codable, Sendable, Hashable {
    /// The key.
    public var key: String
    /// The store revision that last changed the key.
    public var revision: Int64
    /// The value as base64 of its binary property list; nil when removed.
    public var value: String?

    /// An entry.
    public init(key: String, revision: Int64, value: String?) {
        self.key = key
        self.revision = revision
        self.value = value
    }
}
