package import HTTPMessages
import PlatformIO
import SharedTables
package import UbiquityBackend
import Synchronization

/// Wakes the long polls of a store when a commit lands.
///
/// A watcher subscribes *before* it reads the database, so a commit between
/// the read and the wait is never missed. A commit wakes every subscriber of
/// its store with the commit's entries: a watcher exactly one revision
/// behind answers from them without touching the database (the common case,
/// which keeps 10,000 watchers cheap); the others read.
package final class ChangeHub: Sendable {
    /// A commit as watchers hear of it, with the answer of a watcher one
    /// revision behind encoded once for all of them.
    package struct Commit: Sendable {
        /// The store committed to.
        package var store: String
        package var revision: Int64
        /// The answer as a long poll's JSON body.
        package var encoded: [UInt8]
        /// The answer as one server-sent event (``ServerSentEvent/frame(revision:data:)``).
        package var event: ResponseChunk
        /// The event as a stream of several stores sends it, naming the store
        /// (``ServerSentEvent/frame(store:revision:data:)``).
        package var storeEvent: ResponseChunk
        /// When it was published (the fan-out's latency is measured from here).
        package var published: ContinuousClock.Instant
        package init(store: String, revision: Int64, encoded: [UInt8]) {
            self.store = store
            self.revision = revision
            self.encoded = encoded
            self.published = .now
            self.event = ServerSentEvent.frame(revision: revision, data: encoded)
            self.storeEvent = ServerSentEvent.frame(store: store, revision: revision, data: encoded)
        }
    }

    /// One watcher's wait: fired once, by a commit or by its end.
    final class Subscription: Sendable {
        struct State {
            var fired = false
            var commit: Commit? = nil
            var waiter: CheckedContinuation<Commit?, Never>? = nil
        }
        let state = Lock(State())

        func fire(_ commit: Commit?) {
            let waiter = state.withLock { s -> CheckedContinuation<Commit?, Never>? in
                guard !s.fired else { return nil }
                s.fired = true
                s.commit = commit
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: commit)
        }
    }

    struct Key: Hashable {
        var account: String
        var store: String
    }
    let subscribers = Lock<[Key: [ObjectIdentifier: Subscription]]>([:])
    /// The event streams of each store (registered for their whole life).
    let streams = Lock<[Key: [ObjectIdentifier: StreamSubscription]]>([:])

    /// The event streams open now (a stream of several stores counted once).
    package var openStreamCount: Int {
        streams.withLock { s in Set(s.values.flatMap { $0.keys }).count }
    }

    /// What the hub knows of the stores' revisions, and how many wake-ups from
    /// other servers each has had (a read that began before a wake-up must not
    /// record what it read: the database may have moved on since).
    struct Known {
        /// The newest revision known of each store, so that a watcher asking
        /// after it waits without reading the database.
        var revisions: [Key: Int64] = [:]
        var wakes: [Key: UInt64] = [:]
        /// Commits of this server published per store (a read begun before one is older than it).
        var published: [Key: UInt64] = [:]
        /// Bumped by a wake-up of every store.
        var epoch: UInt64 = 0
    }
    let known = Lock(Known())
    /// Set by ``stop()``: every watcher is answered at once, none waits any more.
    let stopping = Lock(false)

    /// When a read or a commit began, as far as wake-ups are concerned.
    package struct Stamp: Sendable, Hashable {
        let epoch: UInt64
        let wakes: UInt64
        let published: UInt64
    }

    /// The commit a wake-up hands to watchers: not the next revision, so they read.
    static let reread = Commit(store: "", revision: -1, encoded: [])

    package init() {}

    /// The newest revision known of a store, if any.
    package func knownRevision(account: String, store: String) -> Int64? {
        known.withLock { $0.revisions[Key(account: account, store: store)] }
    }

    /// Taken before reading or committing, handed back to ``note(account:store:revision:since:)``.
    package func stamp(account: String, store: String) -> Stamp {
        known.withLock { k in
            let key = Key(account: account, store: store)
            return Stamp(epoch: k.epoch, wakes: k.wakes[key] ?? 0, published: k.published[key] ?? 0)
        }
    }

    /// Records a revision read from the database (never lowers what is known,
    /// and records nothing when a wake-up came since `stamp`).
    package func note(account: String, store: String, revision: Int64, since stamp: Stamp) {
        known.withLock { k in
            let key = Key(account: account, store: store)
            guard k.epoch == stamp.epoch, (k.wakes[key] ?? 0) == stamp.wakes else { return }
            Self.raise(&k, key, to: revision)
        }
    }

    static func raise(_ k: inout Known, _ key: Key, to revision: Int64) {
        if (k.revisions[key] ?? -1) < revision {
            if k.revisions.count >= 1_000_000 { k.revisions.removeAll() }
            k.revisions[key] = revision
        }
    }

    /// A commit made elsewhere (another server on the same database): every
    /// watcher of the store reads again, and what was known of it is forgotten.
    package func wake(_ wakeup: Wakeup) {
        switch wakeup {
        case .tokens:
            return   // the service's (``UbiquityService/checkTokenGeneration()``), not the stores'
        case .everything:
            known.withLock { k in
                k.epoch &+= 1
                k.revisions.removeAll()
                k.wakes.removeAll()
                k.published.removeAll()
            }
            let all = subscribers.withLock { s -> [Subscription] in
                defer { s.removeAll() }
                return s.values.flatMap { $0.values }
            }
            for sub in all { sub.fire(Self.reread) }
            for stream in streams.withLock({ $0.values.flatMap { $0.values } }) { stream.rereadAll() }
        case let .store(account, store, revision):
            let key = Key(account: account, store: store)
            let stale = known.withLock { k -> Bool in
                // Already known here (this server's own commit, or read since): nothing to do.
                if let r = k.revisions[key], r >= revision { return false }
                if k.wakes.count >= 1_000_000 { k.wakes.removeAll(); k.published.removeAll(); k.epoch &+= 1 }
                k.wakes[key, default: 0] &+= 1
                k.revisions[key] = nil
                return true
            }
            guard stale else { return }
            for stream in streams.withLock({ $0[key] })?.values ?? [:].values { stream.reread(store: store) }
            guard let subs = subscribers.withLock({ $0.removeValue(forKey: key) }) else { return }
            for sub in subs.values { sub.fire(Self.reread) }
        }
    }

    /// The number of long polls waiting and event streams open.
    package var waiting: Int {
        subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } } + openStreamCount
    }

    /// Tells every watcher of the store of a commit (each hears of one commit, then reads again).
    /// `stamp` was taken before the commit was sent to the database.
    /// `commit` is made only when someone watches the store (its answer is
    /// encoded for them; a store nobody watches costs its commits no encoding).
    package func published(account: String, store: String, revision: Int64, since stamp: Stamp, _ commit: () -> Commit) {
        known.withLock { k in
            let key = Key(account: account, store: store)
            // A committed revision is known unless another server's commit was announced since.
            if k.epoch == stamp.epoch, (k.wakes[key] ?? 0) == stamp.wakes { Self.raise(&k, key, to: revision) }
            if k.published.count >= 1_000_000 { k.published.removeAll(); k.epoch &+= 1 }
            k.published[key, default: 0] &+= 1
        }
        let key = Key(account: account, store: store)
        // The streams' table is copied, not emptied (a copy of a dictionary is a reference until written).
        let streams = streams.withLock { $0[key] }
        let subs = subscribers.withLock { $0.removeValue(forKey: key) }
        guard streams != nil || subs != nil else { return }
        let made = commit()
        for stream in streams?.values ?? [:].values { stream.deliver(made) }
        for s in subs?.values ?? [:].values { s.fire(made) }
    }

    /// Registers an event stream for every commit of its stores from now on (before its first
    /// read); `stores` are distinct. While the server stops, the stream is ended at once (it
    /// sends its first answers, then ends).
    package func openStream(account: String, stores: [String]) -> StreamSubscription {
        let stream = StreamSubscription(keys: stores.map { Key(account: account, store: $0) })
        let open = stopping.withLock { stopping -> Bool in
            guard !stopping else { return false }
            streams.withLock { s in
                for key in stream.keys { s[key, default: [:]][ObjectIdentifier(stream)] = stream }
            }
            return true
        }
        if !open { stream.end() }
        return stream
    }

    /// The server is stopping: every event stream ends and every long poll is
    /// answered now (the client asks again, of another instance or of this
    /// one restarted); a watcher that comes later is answered without waiting.
    package func stop() {
        stopping.withLock { $0 = true }
        let ended = streams.withLock { s -> [StreamSubscription] in
            defer { s.removeAll() }
            return s.values.flatMap { $0.values }   // (a stream of several stores is ended once for each)
        }
        for stream in ended { stream.end() }
        let waiting = subscribers.withLock { s -> [Subscription] in
            defer { s.removeAll() }
            return s.values.flatMap { $0.values }
        }
        for sub in waiting { sub.fire(nil) }
    }

    /// Removes an event stream (it ended).
    package func closeStream(_ stream: StreamSubscription) {
        stream.end()
        streams.withLock { s in
            for key in stream.keys {
                s[key]?[ObjectIdentifier(stream)] = nil
                if s[key]?.isEmpty == true { s[key] = nil }
            }
        }
    }

    /// A watcher's place in line for the next commit of a store.
    package struct Ticket: Sendable {
        let key: Key
        let subscription: Subscription
    }

    /// Takes a ticket for the next commit of a store (before reading the database).
    package func subscribe(account: String, store: String) -> Ticket {
        let key = Key(account: account, store: store)
        let sub = Subscription()
        let waits = stopping.withLock { stopping -> Bool in
            guard !stopping else { return false }
            subscribers.withLock { $0[key, default: [:]][ObjectIdentifier(sub)] = sub }
            return true
        }
        if !waits { sub.fire(nil) }
        return Ticket(key: key, subscription: sub)
    }

    /// Gives a ticket back (the watcher answered without waiting, or gave up).
    package func cancel(_ ticket: Ticket) {
        subscribers.withLock { s in
            s[ticket.key]?[ObjectIdentifier(ticket.subscription)] = nil
            if s[ticket.key]?.isEmpty == true { s[ticket.key] = nil }
        }
        ticket.subscription.fire(nil)
    }

    /// Waits for the ticket's commit at most `timeout`: the commit, or nil
    /// when the time ran out (or the task was cancelled).
    package func wait(_ ticket: Ticket, timeout: Duration) async -> Commit? {
        let sub = ticket.subscription
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.cancel(ticket)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Commit?, Never>) in
                let ready = sub.state.withLock { s -> Commit?? in
                    if s.fired { return .some(s.commit) }
                    s.waiter = c
                    return .none
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            self.cancel(ticket)
        }
    }
}
