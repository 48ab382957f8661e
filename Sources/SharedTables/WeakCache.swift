public import Synchronization
/// Objects made on first use and shared while someone holds them: the one
/// get-or-create table for weakly held objects (a store's domains and
/// managed domains, each store's defaults context, the Foundation edge's
/// per-object state).
///
/// The table never keeps an object alive: once the last holder lets go,
/// the next request makes a new one. Two requests racing for one key get
/// the same object; `make` runs outside the lock, so it may itself use
/// other tables (the loser's object is dropped unused).
///
/// ```swift
/// let domains = WeakCache<String, Domain>()
/// let (domain, made) = domains.object("com.example.app") { Domain(name: "com.example.app") }
/// if made { watcher.watch(domain) }
/// ```
///
/// `public` with `@inlinable` members (as ``ObserverRegistry``) although
/// SharedTables is no product: specialized where it is used, it needs no
/// generic metadata or protocol-conformance lookups at run time (unspecialized,
/// the first of those scanned every conformance record of the binary: ~25
/// page faults and ~0.15 ms of a cold `defaults read`).
public final class WeakCache<Key: Hashable & Sendable, Object: AnyObject & Sendable>: Sendable {
    @usableFromInline let table = Lock<[Key: Weak<Object>]>([:])

    public init() {}

    /// The object of `key`, if one lives.
    @inlinable
    public func existing(_ key: Key) -> Object? {
        table.withLock { $0[key]?.object }
    }

    /// The object of `key`, made by `make` when none lives; `made` is true
    /// when this call's object is the one now kept (its owner then sets it up).
    @inlinable
    public func object(_ key: Key, make: () -> Object) -> (object: Object, made: Bool) {
        if let existing = existing(key) { return (existing, false) }
        let created = make()
        return table.withLock { t -> (Object, Bool) in
            if let existing = t[key]?.object { return (existing, false) }
            Weak.prune(&t)
            t[key] = Weak(created)
            return (created, true)
        }
    }

    /// The objects alive now.
    @inlinable
    public var objects: [Object] {
        table.withLock { $0.values.compactMap(\.object) }
    }
}
