package import UbiquityProtocol
import PropertyList

/// What a commit did: the response for the client and, when something was
/// applied, the entries to tell watchers.
package struct CommitOutcome: Sendable {
    package var response: UbiquityCommitResponse
    /// The entries written at `response.revision` (empty when nothing was applied).
    package var applied: [UbiquityWireEntry]
    /// The token that sent the commit was revoked (or its account deleted)
    /// before the commit's transaction: nothing was applied.
    package var tokenRevoked = false

    package init(response: UbiquityCommitResponse, applied: [UbiquityWireEntry]) {
        self.response = response
        self.applied = applied
    }

    /// The outcome of a commit whose token is no longer valid (nothing applied).
    package static func revoked(revision: Int64) -> CommitOutcome {
        var outcome = CommitOutcome(response: UbiquityCommitResponse(revision: revision, refusal: "the token is not valid", results: []), applied: [])
        outcome.tokenRevoked = true
        return outcome
    }
}
