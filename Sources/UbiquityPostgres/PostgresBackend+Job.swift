import UbiquityBackend

extension PostgresBackend {
    struct Job: CommitJob, Sendable {
        var account: String
        var store: String
        var changes: [CheckedChange]
        /// The token that sent it, checked in the transaction that applies it (nil: a tool acting as the account).
        var tokenHash: [UInt8]?
        let ticket: Ticket

        /// Answers the commit's request (once).
        func finish(_ result: Result<CommitOutcome, any Error>) { ticket.answer(result) }
    }
}
