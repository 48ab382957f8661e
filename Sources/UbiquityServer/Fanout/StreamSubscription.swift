import PlatformIO
import SharedTables
import Synchronization

/// An event stream's standing subscription to the commits of one store.
///
/// A long poll takes a one-shot ticket per wait; a stream registers once for
/// its whole life (``ChangeHub/openStream(account:store:)``) and the hub
/// queues each commit in it, so a commit costs a stream one append and one
/// resumption, not a ticket made, filed and removed under the hub's lock.
/// Registered before the stream's first read, it misses no commit after it.
package final class StreamSubscription: Sendable {
    struct State {
        /// Commits not yet taken, oldest first.
        var pending: [ChangeHub.Commit] = []
        /// The stream must read the database (a wake-up from another server,
        /// or more commits came than ``StreamSubscription/maximumPending``).
        var reread = false
        var ended = false
        var waiter: UnsafeContinuation<Void, Never>? = nil
    }
    let state = Lock(State())
    let key: ChangeHub.Key
    /// The most commits kept for a stream that has not taken them; beyond, it reads.
    static let maximumPending = 64

    init(key: ChangeHub.Key) {
        self.key = key
    }

    /// Queues a commit of the store.
    func deliver(_ commit: ChangeHub.Commit) {
        wake { s in
            if s.pending.count >= Self.maximumPending {
                s.pending.removeAll()
                s.reread = true
            } else {
                s.pending.append(commit)
            }
        }
    }

    /// Tells the stream to read the database (what it knows may be stale).
    func reread() {
        wake { $0.reread = true }
    }

    /// Ends the stream: its time is up, or it was cancelled.
    package func end() {
        wake { $0.ended = true }
    }

    func wake(_ change: (inout State) -> Void) {
        let waiter = state.withLock { s -> UnsafeContinuation<Void, Never>? in
            guard !s.ended else { return nil }
            change(&s)
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Waits for commits or a reason to read, and takes them; nil once the stream has ended.
    /// (The caller ends the stream when its task is cancelled: a handler per
    /// wait would cost every watcher two more atomic updates per commit.)
    package func next() async -> (commits: [ChangeHub.Commit], reread: Bool)? {
        await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.ended || s.reread || !s.pending.isEmpty { return true }
                s.waiter = c
                return false
            }
            if ready { c.resume() }
        }
        return state.withLock { s in
            if s.ended { return nil }
            defer { s.pending = []; s.reread = false }
            return (s.pending, s.reread)
        }
    }
}
