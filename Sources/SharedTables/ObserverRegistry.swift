public import Synchronization

/// An ``ObserverList`` behind its own lock, for observers not tied to other
/// state: a store's change observers, the process-wide ones. Asking whether
/// anyone observes costs one atomic load, so a change nobody observes takes
/// no lock.
///
/// ```swift
/// let observers = ObserverRegistry<@Sendable (String) -> Void>()
/// let id = observers.add { print($0) }
/// for h in observers.handlers { h("changed") }
/// observers.remove(id)
/// ```
///
/// `public` (as ``ObserverList``) only so that ``isEmpty`` and ``handlers``
/// are inlined and specialized where a change is delivered: unspecialized,
/// each delivery looked up the generic lock's metadata at run time (~100 ns
/// of every `set` through `OpenUserDefaults`).
public final class ObserverRegistry<Handler: Sendable>: Sendable {
    @usableFromInline let list = Lock(ObserverList<Handler>())
    @usableFromInline let count = Atomic<Int>(0)

    package init() {}

    /// True when no handler is registered (one atomic load).
    @inlinable
    public var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    /// Adds `handler`; the id removes it.
    package func add(_ handler: Handler) -> UInt64 {
        list.withLock { l in
            let id = l.add(handler)
            count.store(l.count, ordering: .releasing)
            return id
        }
    }

    /// Removes the handler `id` (again: nothing).
    package func remove(_ id: UInt64) {
        list.withLock { l in
            l.remove(id)
            count.store(l.count, ordering: .releasing)
        }
    }

    /// The handlers now, oldest first (none without taking the lock when there are none).
    /// (Inlinable, so that a change's delivery is specialized for its
    /// handler type in the caller's module: unspecialized, each call looked
    /// up the generic lock's metadata at run time, ~100 ns.)
    @inlinable
    public var handlers: [Handler] {
        isEmpty ? [] : list.withLock { $0.handlers }
    }
}
