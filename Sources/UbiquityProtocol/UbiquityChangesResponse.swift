#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server's answer to "what changed after revision N".
public struct UbiquityChangesResponse: Codable, Sendable, Hashable {
    /// The store's revision the answer is complete up to.
    public var revision: Int64
    /// True when `entries` is the whole store (the asked revision was older
    /// than the server keeps removals for): keys not listed are absent.
    public var complete: Bool
    /// The keys changed after the asked revision, with their current values.
    public var entries: [UbiquityWireEntry]

    /// A response.
    public init(revision: Int64, complete: Bool, entries: [UbiquityWireEntry]) {
        self.revision = revision
        self.complete = complete
        self.entries = entries
    }
}
