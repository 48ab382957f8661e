#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A commit: keys written together, applied or refused per key.
public struct UbiquityCommitRequest: Codable, Sendable, Hashable {
    /// The changes, one per key.
    public var changes: [UbiquityWireChange]
    /// A commit of `changes`.
    public init(changes: [UbiquityWireChange]) { self.changes = changes }
}
