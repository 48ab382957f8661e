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
        /// The writer's task: shared by the groups one writer takes in turn (``PostgresBackend/next(after:)``).
        let task: TaskSlot
        init(_ jobs: [Job], started: ContinuousClock.Instant, task: TaskSlot = TaskSlot()) {
            (self.jobs, self.started, self.task) = (jobs, started, task)
        }

        /// The group has read the database: from here on its writer answers every
        /// commit it claims. False when the sweeper gave up on it first.
        func begin() -> Bool { phase.withLock { p in guard p == .connecting else { return false }; p = .working; return true } }
        /// Gives up on a group that has not reached the database (its task is cancelled); true when it had not.
        func abandon() -> Bool { phase.withLock { p in guard p == .connecting else { return false }; p = .abandoned; return true } }
    }

    /// A writer's task, set once it is made; shared by the groups the writer takes in turn.
    final class TaskSlot: Sendable {
        private let slot = Lock<Task<Void, Never>?>(nil)
        func withLock<R>(_ body: (inout Task<Void, Never>?) -> R) -> R { slot.withLock { body(&$0) } }
    }
}
