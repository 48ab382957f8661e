public import Foundation
import OpenDefaults
public import OpenDefaultsUbiquity
import PlatformIO
import SharedTables

extension UbiquitousKeyValueStore {
    /// `NSUbiquitousKeyValueStore.didChangeExternallyNotification`: posted on
    /// `NotificationCenter.default`, with the store as `object`, when values
    /// change from elsewhere (another machine, a conflict lost, a refused
    /// write, an account change), never for this process's own writes.
    /// `userInfo` holds ``NSUbiquitousKeyValueStoreChangeReasonKey`` (an
    /// `Int`: ``NSUbiquitousKeyValueStoreServerChange`` …) and
    /// ``NSUbiquitousKeyValueStoreChangedKeysKey`` (`[String]`). Posting
    /// starts the first time this name is used.
    ///
    /// ```swift
    /// import OpenDefaultsFoundation
    /// NotificationCenter.default.addObserver(forName: UbiquitousKeyValueStore.didChangeExternallyNotification,
    ///                                        object: UbiquitousKeyValueStore.default, queue: nil) { note in
    ///     let keys = note.userInfo?[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String] ?? []
    ///     reload(keys)
    /// }
    /// ```
    public static let didChangeExternallyNotification: Notification.Name = {
        // Registered once, for the life of the process.
        _ = UbiquitousKeyValueStore.globalObservers.add { store, change in
            NotificationCenter.default.post(
                name: Notification.Name("NSUbiquitousKeyValueStoreDidChangeExternallyNotification"), object: store,
                userInfo: [NSUbiquitousKeyValueStoreChangeReasonKey: change.reason.rawValue,
                           NSUbiquitousKeyValueStoreChangedKeysKey: change.changedKeys])
        }
        return Notification.Name("NSUbiquitousKeyValueStoreDidChangeExternallyNotification")
    }()
}

/// The `userInfo` key of the change's reason (an `Int`).
public let NSUbiquitousKeyValueStoreChangeReasonKey = "NSUbiquitousKeyValueStoreChangeReasonKey"
/// The `userInfo` key of the changed keys (`[String]`).
public let NSUbiquitousKeyValueStoreChangedKeysKey = "NSUbiquitousKeyValueStoreChangedKeysKey"
/// Another machine changed values, or this machine lost a conflict.
public let NSUbiquitousKeyValueStoreServerChange = UbiquityChangeReason.serverChange.rawValue
/// This machine's first download replaced local values.
public let NSUbiquitousKeyValueStoreInitialSyncChange = UbiquityChangeReason.initialSyncChange.rawValue
/// A write broke a limit; the keys hold their earlier values.
public let NSUbiquitousKeyValueStoreQuotaViolationChange = UbiquityChangeReason.quotaViolationChange.rawValue
/// The account changed.
public let NSUbiquitousKeyValueStoreAccountChange = UbiquityChangeReason.accountChange.rawValue
