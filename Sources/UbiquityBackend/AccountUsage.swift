/// What an account's stores hold (those with at least one commit).
public struct AccountUsage: Sendable, Hashable {
    package var stores: Int
    package var bytes: Int

    public init(stores: Int, bytes: Int) {
        self.stores = stores
        self.bytes = bytes
    }

    /// This usage without the part of `store`, named `name` (a store counts once it has a
    /// commit, and when ``AccountQuota/countsStore(_:)``; its bytes always).
    public func without(_ store: StoreHead, named name: String) -> AccountUsage {
        AccountUsage(stores: stores - (store.revision > 0 && AccountQuota.countsStore(name) ? 1 : 0), bytes: bytes - store.total)
    }

    /// This usage with the part of `store`, named `name`.
    public func with(_ store: StoreHead, named name: String) -> AccountUsage {
        AccountUsage(stores: stores + (store.revision > 0 && AccountQuota.countsStore(name) ? 1 : 0), bytes: bytes + store.total)
    }
}
