/// A store's row as a backend reads it under the store's lock.
public struct StoreHead: Sendable, Hashable {
    public var revision: Int64
    package var count: Int
    package var total: Int
    package var tombstones: Int
    /// The newest removal forgotten: a client older than it gets the whole store.
    package var horizon: Int64

    package init(revision: Int64, count: Int, total: Int, tombstones: Int, horizon: Int64) {
        self.revision = revision
        self.count = count
        self.total = total
        self.tombstones = tombstones
        self.horizon = horizon
    }

    /// The head of a store that has no row yet: its first commit that writes makes the row.
    package static let unwritten = StoreHead(revision: 0, count: 0, total: 0, tombstones: 0, horizon: 0)
}
