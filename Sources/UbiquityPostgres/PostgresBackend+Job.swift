import UbiquityServer

extension PostgresBackend {
    struct Job: Sendable {
        var account: String
        var store: String
        var changes: [CheckedChange]
        let ticket: Ticket
        var storeKey: String { account + "/" + store }

        /// Answers the commit's request (once).
        func finish(_ result: Result<CommitOutcome, any Error>) { ticket.answer(result) }
    }
}
