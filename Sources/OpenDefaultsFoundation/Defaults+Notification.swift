import Foundation
import OpenDefaults
import Synchronization

extension Defaults {
    /// `UserDefaults.didChangeNotification`: posted on
    /// `NotificationCenter.default`, with the defaults object as `object`,
    /// after a change to the effective values — by this process, another
    /// process, or the `defaults` tool. Posting starts the first time this
    /// name is used.
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

enum NotificationPosting {
    private static let token = Mutex<ObservationToken?>(nil)

    private struct Wrapper: @unchecked Sendable {
        weak var object: OpenUserDefaults?
    }

    /// The `OpenUserDefaults` objects over each defaults object, posted as
    /// the notification's `object` in place of the `Defaults` they wrap.
    private static let wrappers = Mutex<[ObjectIdentifier: Wrapper]>([:])

    static func register(_ wrapper: OpenUserDefaults, for defaults: Defaults) {
        wrappers.withLock { w in
            w = w.filter { $0.value.object != nil }
            w[ObjectIdentifier(defaults)] = Wrapper(object: wrapper)
        }
        start()
    }

    static func start() {
        token.withLock { t in
            guard t == nil else { return }
            t = Defaults.observeAllInstances { defaults in
                let wrapper = wrappers.withLock { $0[ObjectIdentifier(defaults)]?.object }
                if let wrapper, wrapper.defaults === defaults {
                    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: wrapper)
                } else {
                    NotificationCenter.default.post(name: Notification.Name("NSUserDefaultsDidChangeNotification"), object: defaults)
                }
            }
        }
    }
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
