#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One key as a commit sends it: the value (nil removes the key) and the
/// server revision of the key the writer last saw (0: it saw none).
public struct UbiquityWireChange: Codable, Sendable, Hashable {
    /// The key.
    public var key: String
    /// The key's revision this write is based on.
    public var base: Int64
    /// The value as base64 of its binary property list; nil removes the key.
    public var value: String?

    /// A change of `key` from `base`.
    public init(key: String, base: Int64, value: String?) {
        self.key = key
        self.base = base
        self.value = value
    }
}
