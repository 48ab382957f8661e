#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The server's answer to a commit.
public struct UbiquityCommitResponse: Codable, Sendable, Hashable {
    /// The store's revision after the commit.
    public var revision: Int64
    /// Why the commit was refused as a whole (a limit), or nil.
    public var refusal: String?
    /// One result per key of the request, in its order.
    public var results: [UbiquityWireResult]

    /// A response.
    public init(revision: Int64, refusal: String?, results: [UbiquityWireResult]) {
        self.revision = revision
        self.refusal = refusal
        self.results = results
    }
}
