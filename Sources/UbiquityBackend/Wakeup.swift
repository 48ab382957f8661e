
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
