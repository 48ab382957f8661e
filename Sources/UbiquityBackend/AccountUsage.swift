/// What an account's stores hold (those with at least one commit).
package struct AccountUsage: Sendable, Hashable {
    package var stores: Int
    package var bytes: Int

    package init(stores: Int, bytes: Int) {
        self.stores = stores
        self.bytes = bytes
    }

    /// This usage without `store`'s part (a store counts once it has a commit).
    package func without(_ store: StoreHead) -> AccountUsage {
        AccountUsage(stores: stores - (store.revision > 0 ? 1 : 0), bytes: bytes - store.total)
    }

    /// This usage with `store`'s part.
    package func with(_ store: StoreHead) -> AccountUsage {
        AccountUsage(stores: stores + (store.revision > 0 ? 1 : 0), bytes: bytes + store.total)
    }
}
