import PlatformIO
import SharedTables
import UbiquityBackend
import Synchronization

extension PostgresBackend {
    /// A commit's fate: a writer claims it inside its transaction, or its
    /// deadline abandons it first (then it is never applied: the client was
    /// told 503, and a write it believes failed must not appear later).
    final class Ticket: Sendable {
        enum Phase { case waiting, claimed, answered }
        let phase = Lock(Phase.waiting)
        /// Unchecked: ``phase`` lets exactly one of the answers resume it (a checked one cost an
        /// object and an atomic exchange a commit).
        let continuation: UnsafeContinuation<Result<CommitOutcome, any Error>, Never>
        /// How long the commit may wait for a writer, and until when.
        let limit: Duration
        let deadline: ContinuousClock.Instant
        init(_ continuation: UnsafeContinuation<Result<CommitOutcome, any Error>, Never>, limit: Duration) {
            self.continuation = continuation
            self.limit = limit
            self.deadline = .now + limit
        }
        /// True when the commit was still waiting: the writer may apply it.
        func claim() -> Bool { phase.withLock { p in guard p == .waiting else { return false }; p = .claimed; return true } }
        /// Answers a commit still waiting (it will not be applied); false when a writer had claimed it or it was answered.
        @discardableResult
        func abandon(_ result: Result<CommitOutcome, any Error>) -> Bool {
            let mine = phase.withLock { p -> Bool in guard p == .waiting else { return false }; p = .answered; return true }
            if mine { continuation.resume(returning: result) }
            return mine
        }
        /// Answers the commit unless it was answered already.
        func answer(_ result: Result<CommitOutcome, any Error>) {
            let mine = phase.withLock { p -> Bool in guard p != .answered else { return false }; p = .answered; return true }
            if mine { continuation.resume(returning: result) }
        }
    }
}
