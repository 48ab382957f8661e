package import UbiquityProtocol

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
    /// Whether commits made through other servers on the same database are
    /// heard of now (``deliverWakeups(to:)`` is listening). Until then a
    /// server is not ready: its watchers would learn of such commits only
    /// when the listening starts, by reading again. Always true with one server.
    var hearsOtherServers: Bool { get }
    /// Applies a commit to `store` of `account`. With `tokenHash`, the commit
    /// applies only while that token is still the account's, checked in the
    /// transaction that applies the commit (an outcome with
    /// ``CommitOutcome/tokenRevoked`` otherwise).
    func commit(account: String, store: String, changes: [CheckedChange], tokenHash: [UInt8]?) async throws -> CommitOutcome
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
    /// A commit made without a token (tools and tests acting as the account).
    package func commit(account: String, store: String, changes: [CheckedChange]) async throws -> CommitOutcome {
        try await commit(account: account, store: store, changes: changes, tokenHash: nil)
    }
    package func deliverWakeups(to handler: @escaping @Sendable (Wakeup) -> Void) {}
    package var tokenCheckInterval: Duration { .milliseconds(250) }
    package var hearsOtherServers: Bool { true }
}
