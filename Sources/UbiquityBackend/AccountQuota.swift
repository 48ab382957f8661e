/// How much an account may hold across its stores (`ubiquity serve --quota-stores/--quota-bytes`).
package struct AccountQuota: Sendable, Hashable {
    package var maximumStores: Int
    package var maximumBytes: Int

    package init(maximumStores: Int, maximumBytes: Int) {
        self.maximumStores = maximumStores
        self.maximumBytes = maximumBytes
    }

    /// The default: 1,000 stores and 100 MiB together.
    package static let standard = AccountQuota(maximumStores: 1_000, maximumBytes: 100 << 20)
}
