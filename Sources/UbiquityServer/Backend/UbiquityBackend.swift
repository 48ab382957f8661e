package import UbiquityProtocol
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
    /// Creates an account with its first token (named `tokenName`); fails (409) when the name is taken.
    func createAccount(name: String, tokenName: String, tokenHash: [UInt8]) async throws -> UbiquityAccountInfo
    /// The account of a token's hash, or nil (never a revoked token's).
    func account(tokenHash: [UInt8]) async throws -> UbiquityAccountInfo?

    // Token lifecycle (proposal 0011, "Tokens"): an account has one named token per machine.
    // Revoking, rotating or deleting moves the token generation, which every server watches.

    /// Adds a named token to account `name` (404 no such account, 409 the name is taken).
    func addToken(account name: String, tokenName: String, tokenHash: [UInt8]) async throws
    /// Replaces the token named `tokenName` (404 when there is none): the old one is refused from now on.
    func replaceToken(account name: String, tokenName: String, tokenHash: [UInt8]) async throws
    /// Revokes the token named `tokenName`, or every token of the account when nil; how many were revoked (404 when none).
    func revokeTokens(account name: String, tokenName: String?) async throws -> Int
    /// The account's tokens: names, when made, when last used (404 no such account).
    func tokens(account name: String) async throws -> [TokenSummary]
    /// Every account with its counts.
    func accounts() async throws -> [AccountSummary]
    /// Deletes the account, its tokens and every store of it (404 no such account).
    func deleteAccount(name: String) async throws
    /// A number that moves whenever a token stops being valid (revoked, rotated, its account deleted).
    func tokenGeneration() async throws -> Int64
    /// Notes that the token was used now (servers call it at most once a minute per token).
    func recordUse(tokenHash: [UInt8]) async throws
    /// How often a server reads ``tokenGeneration()``: often where a read is a local file's
    /// (SQLite), seldom where a token change is also a ``Wakeup/tokens`` notification
    /// (PostgreSQL: then the read is only a safety net for a notification lost).
    var tokenCheckInterval: Duration { get }
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
    package var tokenCheckInterval: Duration { .milliseconds(250) }
}

/// A named token as `ubiquity account tokens` shows it (the token itself is
/// never kept: only its SHA-256).
package struct TokenSummary: Sendable, Hashable {
    package var name: String
    /// Seconds since 1970.
    package var created: Int64
    /// Seconds since 1970 of the last use (recorded at most once a minute), or nil when never used.
    package var lastUsed: Int64?

    package init(name: String, created: Int64, lastUsed: Int64?) {
        self.name = name
        self.created = created
        self.lastUsed = lastUsed
    }
}

/// An account as `ubiquity account list` shows it.
package struct AccountSummary: Sendable, Hashable {
    package var name: String
    package var id: String
    package var tokens: Int
    package var stores: Int
    package var bytes: Int

    package init(name: String, id: String, tokens: Int, stores: Int, bytes: Int) {
        self.name = name
        self.id = id
        self.tokens = tokens
        self.stores = stores
        self.bytes = bytes
    }
}

/// A hint that a store changed elsewhere. Never trusted for data: it only
/// makes watchers read the database again.
package enum Wakeup: Sendable, Hashable {
    /// A store's revision reached (at least) `revision` through another server.
    case store(account: String, store: String, revision: Int64)
    /// Anything may have changed (the hint was unreadable, or notifications were lost).
    case everything
    /// A token was revoked or rotated, or an account deleted: the token generation moved.
    case tokens
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
