import OpenDefaults
import OpenDefaultsUbiquity

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
        package var revision: Int64
        package var entries: [UbiquityWireEntry]
        package var encoded: [UInt8]
        package init(revision: Int64, entries: [UbiquityWireEntry], encoded: [UInt8]) {
            self.revision = revision
            self.entries = entries
            self.encoded = encoded
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
    /// The newest revision known of each store (from commits and reads), so
    /// that a watcher asking after it waits without reading the database.
    let revisions = Lock<[Key: Int64]>([:])

    package init() {}

    /// The newest revision known of a store, if any.
    package func knownRevision(account: String, store: String) -> Int64? {
        revisions.withLock { $0[Key(account: account, store: store)] }
    }

    /// Records a revision read from the database (never lowers what is known).
    package func note(account: String, store: String, revision: Int64) {
        revisions.withLock { r in
            let key = Key(account: account, store: store)
            if (r[key] ?? -1) < revision {
                if r.count >= 1_000_000 { r.removeAll() }
                r[key] = revision
            }
        }
    }

    /// The number of long polls waiting.
    package var waiting: Int { subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Tells every watcher of the store of a commit (each hears of one commit, then reads again).
    package func published(account: String, store: String, _ commit: Commit) {
        note(account: account, store: store, revision: commit.revision)
        guard let subs = subscribers.withLock({ $0.removeValue(forKey: Key(account: account, store: store)) }) else { return }
        for s in subs.values { s.fire(commit) }
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
        subscribers.withLock { $0[key, default: [:]][ObjectIdentifier(sub)] = sub }
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
