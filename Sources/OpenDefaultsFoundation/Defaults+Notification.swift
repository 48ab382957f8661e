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

    static func start() {
        token.withLock { t in
            guard t == nil else { return }
            t = Defaults.observeAllInstances { defaults in
                NotificationCenter.default.post(name: Notification.Name("NSUserDefaultsDidChangeNotification"), object: defaults)
            }
        }
    }
}
