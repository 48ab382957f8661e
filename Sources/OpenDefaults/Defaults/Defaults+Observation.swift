import PlatformIO
import PropertyList
import Synchronization

extension Defaults {
    /// Calls `handler` with the old and new value each time the effective
    /// value of `key` changes — by this process, another process, or the
    /// `defaults` tool. Observation ends when the token is released.
    /// Handlers never run while a lock is held.
    ///
    /// ```swift
    /// let token = defaults.observe("Volume") { old, new in print(old as Any, "→", new as Any) }
    /// ```
    public func observe(_ key: String, _ handler: @escaping @Sendable (_ old: PropertyList?, _ new: PropertyList?) -> Void) -> ObservationToken {
        let id = searchList.state.withLock { s -> UInt64 in
            let id = s.nextObserver
            s.nextObserver += 1
            s.keyObservers[key, default: [:]][id] = handler
            return id
        }
        return ObservationToken { [searchList] in
            searchList.state.withLock { s in
                s.keyObservers[key]?[id] = nil
                if s.keyObservers[key]?.isEmpty == true { s.keyObservers[key] = nil }
            }
        }
    }

    /// Calls `handler` after any change to the effective values (what
    /// `didChangeNotification` reports).
    public func observeChanges(_ handler: @escaping @Sendable () -> Void) -> ObservationToken {
        let id = searchList.state.withLock { s -> UInt64 in
            let id = s.nextObserver
            s.nextObserver += 1
            s.anyObservers[id] = handler
            return id
        }
        return ObservationToken { [searchList] in
            searchList.state.withLock { s in s.anyObservers[id] = nil }
        }
    }

    /// Calls `handler` with the defaults object after any change to the
    /// effective values of any defaults object in the process (the
    /// `OpenDefaultsFoundation` module posts `didChangeNotification` this way).
    /// Observation ends when the token is released.
    public static func observeAllInstances(_ handler: @escaping @Sendable (Defaults) -> Void) -> ObservationToken {
        let id = GlobalObservers.next.add(1, ordering: .relaxed).oldValue
        GlobalObservers.handlers.withLock { $0.append((id, handler)) }
        GlobalObservers.count.add(1, ordering: .relaxed)
        return ObservationToken {
            let removed = GlobalObservers.handlers.withLock { h -> Bool in
                guard let i = h.firstIndex(where: { $0.id == id }) else { return false }
                h.remove(at: i)
                return true
            }
            if removed { GlobalObservers.count.subtract(1, ordering: .relaxed) }
        }
    }

    /// The values of `key` as they change, starting with the current one.
    ///
    /// ```swift
    /// for await volume in defaults.updates(forKey: "Volume") { print(volume as Any) }
    /// ```
    public func updates(forKey key: String) -> AsyncStream<PropertyList?> {
        AsyncStream { continuation in
            continuation.yield(propertyList(forKey: key))
            let token = observe(key) { _, new in continuation.yield(new) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }
}

enum GlobalObservers {
    /// The handlers, as an array that notifying copies by reference (no allocation per change).
    static let handlers = Lock<[(id: UInt64, handler: @Sendable (Defaults) -> Void)]>([])
    static let next = Atomic<UInt64>(1)
    /// How many handlers there are, so that notifying none costs nothing.
    static let count = Atomic<Int>(0)

    static func notify(_ defaults: Defaults) {
        let all = handlers.withLock { $0 }
        for h in all { h.handler(defaults) }
    }
}
