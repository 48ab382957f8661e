/// Why values changed from elsewhere: the values of
/// `NSUbiquitousKeyValueStoreChangeReasonKey`.
///
/// ```swift
/// for await change in store.externalChanges() where change.reason == .serverChange {
///     reload(change.changedKeys)
/// }
/// ```
public enum UbiquityChangeReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Another machine (or a conflict this machine lost) changed the values.
    case serverChange = 0
    /// The first download of this machine replaced local values.
    case initialSyncChange = 1
    /// A write broke a limit; the keys hold the values they had before.
    case quotaViolationChange = 2
    /// The account changed; every key of both accounts is named.
    case accountChange = 3

    /// Apple's name: `ServerChange`, `InitialSyncChange`, `QuotaViolationChange`, `AccountChange`.
    public var description: String {
        switch self {
        case .serverChange: "ServerChange"
        case .initialSyncChange: "InitialSyncChange"
        case .quotaViolationChange: "QuotaViolationChange"
        case .accountChange: "AccountChange"
        }
    }
}
