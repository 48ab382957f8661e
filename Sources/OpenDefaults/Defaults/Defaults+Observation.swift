import PlatformIO
import SharedTables
public import PropertyList
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
        let id = searchList.state.withLock { $0.keyObservers[key, default: ObserverList()].add(handler) }
        return ObservationToken { [searchList] in
            searchList.state.withLock { s in
                s.keyObservers[key]?.remove(id)
                if s.keyObservers[key]?.isEmpty == true { s.keyObservers[key] = nil }
            }
        }
    }

    /// Calls `handler` after any change to the effective values (what
    /// `didChangeNotification` reports).
    public func observeChanges(_ handler: @escaping @Sendable () -> Void) -> ObservationToken {
        let id = searchList.state.withLock { $0.anyObservers.add(handler) }
        return ObservationToken { [searchList] in
            searchList.state.withLock { s in _ = s.anyObservers.remove(id) }
        }
    }

    /// Calls `handler` with the defaults object after any change to the
    /// effective values of any defaults object over `store`: by default the
    /// process's own (``DomainStore/shared``, which the standard object and every
    /// suite use). The `OpenDefaultsFoundation` module posts `didChangeNotification`
    /// this way. A store made for another layout keeps its observers to itself, as
    /// it keeps its registrations. Observation ends when the token is released.
    ///
    /// ```swift
    /// let token = Defaults.observeAllInstances { defaults in print(defaults.domainName, "changed") }
    /// ```
    public static func observeAllInstances(over store: DomainStore = .shared,
                                           _ handler: @escaping @Sendable (Defaults) -> Void) -> ObservationToken {
        let observers = DefaultsContext.of(store).instanceObservers
        let id = observers.add(handler)
        return ObservationToken { observers.remove(id) }
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
