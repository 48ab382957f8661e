import PlatformIO
import SharedTables
import Synchronization

extension PostgresBackend {
    /// One writer's group: its commits, its task, and whether it has reached the database.
    final class Run: Sendable {
        enum Phase { case connecting, working, abandoned }
        let jobs: [Job]
        let started: ContinuousClock.Instant
        let phase = Lock(Phase.connecting)
        let task = Lock<Task<Void, Never>?>(nil)
        init(_ jobs: [Job], started: ContinuousClock.Instant) { (self.jobs, self.started) = (jobs, started) }

        /// The group has read the database: from here on its writer answers every
        /// commit it claims. False when the sweeper gave up on it first.
        func begin() -> Bool { phase.withLock { p in guard p == .connecting else { return false }; p = .working; return true } }
        /// Gives up on a group that has not reached the database (its task is cancelled); true when it had not.
        func abandon() -> Bool { phase.withLock { p in guard p == .connecting else { return false }; p = .abandoned; return true } }
    }
}
