import UbiquityProtocol

/// How much an account may hold across its stores (`ubiquity serve --quota-stores/--quota-bytes`).
public struct AccountQuota: Sendable, Hashable {
    package var maximumStores: Int
    package var maximumBytes: Int

    package init(maximumStores: Int, maximumBytes: Int) {
        self.maximumStores = maximumStores
        self.maximumBytes = maximumBytes
    }

    /// The default: 1,000 stores and 100 MiB together.
    package static let standard = AccountQuota(maximumStores: 1_000, maximumBytes: 100 << 20)

    /// Whether the store named `store` counts toward ``maximumStores``. A fleet machine's status
    /// store (`fleet.status.<machine>`) does not: an organisation has one per enrolled machine,
    /// only that machine's credential writes it (the server refuses any other token), and a
    /// credential is made only by enrolment with the organisation's secret. Its bytes count.
    package static func countsStore(_ store: String) -> Bool {
        !UbiquityFleetNames.isStatusStore(store)
    }

    /// The SQL condition (on a column `store`) that ``countsStore(_:)`` is, for the backends'
    /// usage queries; both SQLite and PostgreSQL compare the name's first bytes exactly.
    package static let countedStoreSQL = countedStoreSQL(column: "store")

    /// ``countedStoreSQL`` on another column (`NEW.store` in a trigger): 1 when the store counts, else 0.
    package static func countedStoreSQL(column: String) -> String {
        "substr(\(column), 1, \(UbiquityFleetNames.statusStorePrefix.utf8.count)) <> '\(UbiquityFleetNames.statusStorePrefix)'"
    }
}
