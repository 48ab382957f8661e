import OpenDefaultsUbiquity
import PropertyList

/// A change the server has checked: key length, value decoded, size measured.
package struct CheckedChange: Sendable, Hashable {
    package var key: String
    package var base: Int64
    /// The value's binary property list, re-encoded canonically; nil removes.
    package var bytes: [UInt8]?
    package var size: Int { bytes?.count ?? 0 }

    package init(key: String, base: Int64, bytes: [UInt8]?) {
        self.key = key
        self.base = base
        self.bytes = bytes
    }
}

/// What a commit did: the response for the client and, when something was
/// applied, the entries to tell watchers.
package struct CommitOutcome: Sendable {
    package var response: UbiquityCommitResponse
    /// The entries written at `response.revision` (empty when nothing was applied).
    package var applied: [UbiquityWireEntry]
}

/// Where the sync server keeps accounts and stores (SQLite here; PostgreSQL
/// is the same contract). Every commit is one transaction: per-key
/// compare-and-set on the base revision, one store revision per commit with
/// no gaps, limits checked inside the transaction.
package protocol UbiquityBackend: Sendable {
    /// Creates an account with a token's hash; fails when the name is taken.
    func createAccount(name: String, tokenHash: [UInt8]) async throws -> UbiquityAccountInfo
    /// The account of a token's hash, or nil.
    func account(tokenHash: [UInt8]) async throws -> UbiquityAccountInfo?
    /// Applies a commit to `store` of `account`.
    func commit(account: String, store: String, changes: [CheckedChange]) async throws -> CommitOutcome
    /// The entries of `store` changed after `after`.
    func changes(account: String, store: String, after: Int64) async throws -> UbiquityChangesResponse
    /// Problems found by a full check (revisions without gaps, counts and sizes as recorded); empty when sound.
    func check() async throws -> [String]
    /// Closes the database.
    func close() async throws
    /// Starts telling `handler` of commits made through other servers on the
    /// same database (a wake-up only: watchers read the database again).
    /// A backend with one server (SQLite) never calls it.
    func deliverWakeups(to handler: @escaping @Sendable (Wakeup) -> Void)
}

extension UbiquityBackend {
    package func deliverWakeups(to handler: @escaping @Sendable (Wakeup) -> Void) {}
}

/// A hint that a store changed elsewhere. Never trusted for data: it only
/// makes watchers read the database again.
package enum Wakeup: Sendable, Hashable {
    /// A store's revision reached (at least) `revision` through another server.
    case store(account: String, store: String, revision: Int64)
    /// Anything may have changed (the hint was unreadable, or notifications were lost).
    case everything
}

/// An error of the backend, with the HTTP status it maps to.
package struct BackendError: Error, CustomStringConvertible {
    package var status: Int
    package var message: String
    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
    package var description: String { message }
}
