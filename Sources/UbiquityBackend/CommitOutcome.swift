package import UbiquityProtocol

/// What a commit did: the response for the client and, when something was
/// applied, the entries to tell watchers.
public struct CommitOutcome: Sendable {
    package var response: UbiquityCommitResponse
    /// The entries written at `response.revision` (empty when nothing was applied).
    package var applied: [UbiquityWireEntry]
    /// Why the whole commit was refused (nothing applied), typed; its words are `response.refusal`.
    package var refusal: CommitRefusal?
    /// The token that sent the commit was revoked (or its account deleted)
    /// before the commit's transaction: nothing was applied.
    package var tokenRevoked: Bool { refusal == .tokenRevoked }

    package init(response: UbiquityCommitResponse, applied: [UbiquityWireEntry]) {
        self.response = response
        self.applied = applied
    }

    /// Every change of the commit applied (no refusal, no conflict).
    package var isWhollyApplied: Bool {
        response.refusal == nil && response.results.allSatisfy { $0.status == .applied }
    }

    /// The outcome of a commit whose token is no longer valid (nothing applied).
    public static func revoked(revision: Int64) -> CommitOutcome {
        var outcome = CommitOutcome(response: UbiquityCommitResponse(revision: revision, refusal: CommitRefusal.tokenRevoked.message, results: []), applied: [])
        outcome.refusal = .tokenRevoked
        return outcome
    }
}
