import PlatformIO
import SharedTables
import Synchronization

/// An event stream's standing subscription to the commits of its stores (one, or
/// several for `GET /v1/events`).
///
/// A long poll takes a one-shot ticket per wait; a stream registers once for
/// its whole life (``ChangeHub/openStream(account:stores:)``) and the hub
/// queues each commit in it, so a commit costs a stream one append and one
/// resumption, not a ticket made, filed and removed under the hub's lock.
/// Registered before the stream's first read, it misses no commit after it.
package final class StreamSubscription: Sendable {
    struct State {
        /// Commits not yet taken, oldest first.
        var pending: [ChangeHub.Commit] = []
        /// The stores the stream must read from the database (a wake-up from another
        /// server, or more commits came than ``StreamSubscription/maximumPending``).
        var rereads: [String] = []
        var ended = false
        var waiter: UnsafeContinuation<Void, Never>? = nil
    }
    let state = Lock(State())
    /// The stores followed, each once (at most `UbiquityLimits.maximumStreamStores`).
    let keys: [ChangeHub.Key]
    /// The most commits kept for a stream that has not taken them; beyond, it reads.
    static let maximumPending = 64

    init(keys: [ChangeHub.Key]) {
        self.keys = keys
    }

    /// Queues a commit of one of its stores.
    func deliver(_ commit: ChangeHub.Commit) {
        wake { s in
            if s.pending.count >= Self.maximumPending {
                s.pending.removeAll()
                s.rereads = keys.map(\.store)
            } else {
                s.pending.append(commit)
            }
        }
    }

    /// Tells the stream to read `store` from the database (what it knows of it may be stale).
    func reread(store: String) {
        wake { s in if !s.rereads.contains(store) { s.rereads.append(store) } }
    }

    /// Tells the stream to read every store it follows.
    func rereadAll() {
        wake { $0.rereads = keys.map(\.store) }
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

    /// Waits for commits or stores to read, and takes them (commits oldest first); nil once
    /// the stream has ended.
    /// (The caller ends the stream when its task is cancelled: a handler per
    /// wait would cost every watcher two more atomic updates per commit.)
    package func next() async -> (commits: [ChangeHub.Commit], rereads: [String])? {
        await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.ended || !s.rereads.isEmpty || !s.pending.isEmpty { return true }
                s.waiter = c
                return false
            }
            if ready { c.resume() }
        }
        return state.withLock { s in
            if s.ended { return nil }
            defer { s.pending = []; s.rereads = [] }
            return (s.pending, s.rereads)
        }
    }
}
