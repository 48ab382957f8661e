#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What became of one key of a commit.
public struct UbiquityWireResult: Codable, Sendable, Hashable {
    /// `applied` (the write is the key's value at `revision`), `conflict`
    /// (the base was stale: the server's entry is returned) or `refused`
    /// (the commit broke a limit: the server's entry is returned).
    public var status: Status
    /// The key as the server now holds it.
    public var entry: UbiquityWireEntry

    /// The outcome of a key.
    public enum Status: String, Codable, Sendable, Hashable {
        case applied, conflict, refused
    }

    /// A result.
    public init(status: Status, entry: UbiquityWireEntry) {
        self.status = status
        self.entry = entry
    }
}
