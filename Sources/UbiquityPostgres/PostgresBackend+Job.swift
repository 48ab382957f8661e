import UbiquityBackend

extension PostgresBackend {
    /// A commit waiting for, or in, a group. A class: a group's commits are copied into
    /// several arrays on their way (ordered by store, claimed, left for the locked path), and
    /// a copy is then one reference, where a struct's was one per field (its names, changes
    /// and token).
    final class Job: CommitJob, Sendable {
        let account: String
        let store: String
        let changes: [CheckedChange]
        /// The token that sent it, checked in the transaction that applies it (nil: a tool acting as the account).
        let tokenHash: [UInt8]?
        let ticket: Ticket
        /// "account/store", made once: the writer's tables and the queue look the store up by it
        /// several times a group (each spelling of it was a new string, hashed).
        let storeKey: String

        init(account: String, store: String, changes: [CheckedChange], tokenHash: [UInt8]?, ticket: Ticket) {
            self.account = account
            self.store = store
            self.storeKey = CommitGroup.storeKey(account, store)
            self.changes = changes
            self.tokenHash = tokenHash
            self.ticket = ticket
        }

        /// Answers the commit's request (once).
        func finish(_ result: Result<CommitOutcome, any Error>) { ticket.answer(result) }
    }
}
