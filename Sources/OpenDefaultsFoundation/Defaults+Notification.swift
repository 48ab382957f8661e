import Foundation
import OpenDefaults
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

enum NotificationPosting {
    private static let token = Lock<ObservationToken?>(nil)

    private struct Wrapper: @unchecked Sendable {
        weak var object: OpenUserDefaults?
    }

    /// The `OpenUserDefaults` objects over each defaults object, posted as
    /// the notification's `object` in place of the `Defaults` they wrap.
    private static let wrappers = Lock<[ObjectIdentifier: Wrapper]>([:])

    static func register(_ wrapper: OpenUserDefaults, for defaults: Defaults) {
        wrappers.withLock { w in
            w = w.filter { $0.value.object != nil }
            w[ObjectIdentifier(defaults)] = Wrapper(object: wrapper)
        }
        start()
    }

    /// Per defaults object: a window is open from a post until 20 ms later;
    /// `dirty` says a change came during it (one more post at its end). The
    /// object is held weakly: a window never keeps a defaults object alive.
    private struct Window: @unchecked Sendable {
        weak var object: Defaults?
        var dirty = false
    }

    private static let windows = Lock<[ObjectIdentifier: Window]>([:])
    static let coalescingInterval: DispatchTimeInterval = .milliseconds(20)

    static func start() {
        token.withLock { t in
            guard t == nil else { return }
            t = Defaults.observeAllInstances { defaults in changed(defaults) }
        }
    }

    private static func changed(_ defaults: Defaults) {
        let id = ObjectIdentifier(defaults)
        let opened = windows.withLock { w -> Bool in
            // An entry left by a released object at the same address is not this one's.
            if w[id]?.object === defaults {
                w[id]!.dirty = true
                return false
            }
            w[id] = Window(object: defaults)
            return true
        }
        guard opened else { return }
        post(defaults)
        close(id, of: defaults)
    }

    /// Ends the window 20 ms from now: one more post if changes came during it
    /// (and a new window for that post), else nothing.
    private static func close(_ id: ObjectIdentifier, of defaults: Defaults) {
        DispatchQueue.global().asyncAfter(deadline: .now() + coalescingInterval) { [weak defaults] in
            let again = windows.withLock { w -> Defaults? in
                guard let defaults, w[id]?.object === defaults else {
                    if w[id]?.object == nil { w[id] = nil }
                    return nil
                }
                guard w[id]!.dirty else {
                    w[id] = nil
                    return nil
                }
                w[id]!.dirty = false
                return defaults
            }
            guard let again else { return }
            post(again)
            close(id, of: again)
        }
    }

    private static func post(_ defaults: Defaults) {
        let wrapper = wrappers.withLock { $0[ObjectIdentifier(defaults)]?.object }
        if let wrapper, wrapper.defaults === defaults {
            NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: wrapper)
        } else {
            NotificationCenter.default.post(name: Notification.Name("NSUserDefaultsDidChangeNotification"), object: defaults)
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
