
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
