public import Foundation
public import OpenDefaults
import Synchronization

extension Defaults {
    /// `UserDefaults.didChangeNotification`: posted on
    /// `NotificationCenter.default`, with the defaults object as `object`
    /// (the ``OpenUserDefaults`` over it, if any), after a change to the
    /// effective values — by this process, another process, or the
    /// `defaults` tool. Posting starts for the process's defaults objects (those over
    /// `DomainStore.shared`: the standard object and every suite) the first time this name is
    /// used or an ``OpenUserDefaults`` is made; a defaults object over a store of its own (a
    /// test's, a tool's) posts once an ``OpenUserDefaults`` wraps one of that store's objects.
    ///
    /// As Foundation's `UserDefaults` posts it: once per change, synchronously,
    /// on the thread that made the change (another process's change: on the
    /// thread that noticed it). A post costs Foundation about a microsecond;
    /// a `set` pays it only once posting has started (an ``OpenUserDefaults``
    /// exists, or this name was used).
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
