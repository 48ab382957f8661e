/// A commit waiting in a backend's queue, as a group commit sees it: whose, to which store,
/// what it changes, and the token that sent it.
public protocol CommitJob {
    var account: String { get }
    var store: String { get }
    var changes: [CheckedChange] { get }
    /// The token that sent it, checked in the transaction that applies it (nil: a tool acting as the account).
    var tokenHash: [UInt8]? { get }
    /// The store's key in a group's tables: "account/store" (``CommitGroup/storeKey(_:_:)``).
    /// A job may keep it: a writer looks its store up by it several times a group.
    var storeKey: String { get }
}

extension CommitJob {
    /// The store's key in a group's tables: "account/store".
    package var storeKey: String { CommitGroup.storeKey(account, store) }
}
