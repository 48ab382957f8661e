import PlatformIO
public import Foundation
public import OpenDefaults
import Synchronization

extension Defaults {
    /// `UserDefaults.didChangeNotification`: posted on
    /// `NotificationCenter.default`, with the defaults object as `object`
    /// (the ``OpenUserDefaults`` over it, if any), after a change to the
    /// effective values — by this process, another process, or the
    /// `defaults` tool. Posting starts the first time this name is used (or
    /// an ``OpenUserDefaults`` is made).
    ///
    /// A burst is coalesced as Apple's class reference describes ("the first
    /// time a persistent domain is changed after synchronize"): the first
    /// change posts at once, on the thread that made it; further changes
    /// within the next 20 ms (the flush interval) post once more when it
    /// ends, so an observer always sees the final state. A post costs
    /// Foundation about a microsecond; a `set` in a burst does not pay it.
    ///
    /// ```swift
    /// import OpenDefaultsFoundation
    /// NotificationCenter.default.addObserver(forName: Defaults.didChangeNotification, object: nil, queue: nil) { _ in
    ///     reloadSettings()
    /// }
    /// ```
    public static let didChangeNotification: Notification.Name = {
        NotificationPosting.start()
        return Notification.Name("NSUserDefaultsDidChangeNotification")
    }()
}

extension Defaults {
    /// `UserDefaults.sizeLimitExceededNotification`, for code that observes
    /// it. Apple posts it when an app on a size-limited platform (tvOS)
    /// stores too much; OpenDefaults sets no size limit on a domain, so it
    /// is never posted.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: Defaults.sizeLimitExceededNotification, object: nil, queue: nil) { _ in }
    /// ```
    public static let sizeLimitExceededNotification = Notification.Name("NSUserDefaultsSizeLimitExceededNotification")
}
