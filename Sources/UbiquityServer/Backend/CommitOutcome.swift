package import UbiquityProtocol
import PropertyList

/// What a commit did: the response for the client and, when something was
/// applied, the entries to tell watchers.
package struct CommitOutcome: Sendable {
    package var response: UbiquityCommitResponse
    /// The entries written at `response.revision` (empty when nothing was applied).
    package var applied: [UbiquityWireEntry]
}
