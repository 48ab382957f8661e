
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
