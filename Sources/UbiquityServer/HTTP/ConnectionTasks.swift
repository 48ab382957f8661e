import PlatformIO
import SharedTables
import Synchronization

/// The server's connection tasks, kept outside Hummingbird's task group.
///
/// Hummingbird runs every connection as a child of one task group, and the
/// Swift runtime removes a finished child by walking the group's list of
/// children: when 10,000 event streams end together on SIGTERM, that walk
/// was a quarter to a half of the shutdown's work, and its cost depends on
/// the order in which the connections happen to finish. Here each
/// connection runs as its own task with no parent (its child task in the
/// group returns at once), registered in a table whose removal costs the
/// same whatever the order; the server waits for the table to empty
/// (``drain(within:)``) before it closes the database, so every request in
/// flight still finishes first.
package final class ConnectionTasks: Sendable {
    struct State {
        var next: UInt64 = 0
        /// The live connections.
        var live: [UInt64: Task<Void, Never>] = [:]
        /// Set by ``cancelAll()``: a connection that starts later is cancelled at once.
        var cancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    let state = Lock(State())

    package init() {}

    /// The connections running now.
    package var count: Int { state.withLock { $0.live.count } }

    /// Runs one connection's work as a task of its own, preferring `executor`.
    package func run(on executor: any TaskExecutor, _ body: @escaping @Sendable () async -> Void) {
        // Made and filed under the lock: the task's own removal waits for the
        // lock, so it always finds its entry.
        state.withLock { s in
            s.next &+= 1
            let id = s.next
            let task = Task(executorPreference: executor) {
                await body()
                self.finished(id)
            }
            s.live[id] = task
            if s.cancelled { task.cancel() }
        }
    }

    func finished(_ id: UInt64) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.live[id] = nil
            guard s.live.isEmpty else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    /// Cancels every connection (what Hummingbird's group did when the
    /// graceful shutdown ran out of time).
    package func cancelAll() {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            s.cancelled = true
            return Array(s.live.values)
        }
        for t in tasks { t.cancel() }
    }

    /// Waits until no connection is left.
    package func waitUntilEmpty() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let empty = state.withLock { s -> Bool in
                if s.live.isEmpty { return true }
                s.waiters.append(c)
                return false
            }
            if empty { c.resume() }
        }
    }

    /// Waits for every connection to end; those left after `limit` are
    /// cancelled, and waited for.
    package func drain(within limit: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { self.cancelAll() }
        }
        await waitUntilEmpty()
        timer.cancel()
    }
}
