/// Handlers in the order they were added, each with the id that removes it:
/// the one observer table (a store's change observers, a defaults object's
/// key and change observers, a controller's, the process-wide ones).
///
/// A value, kept inside its owner's lock; delivery copies ``handlers``
/// (an array: a reference until written) and calls them outside the lock.
///
/// ```swift
/// var observers = ObserverList<@Sendable (Int) -> Void>()
/// let id = observers.add { print($0) }
/// for h in observers.handlers { h(1) }
/// observers.remove(id)
/// ```
///
/// `public` only so that ``ObserverRegistry``'s delivery can be inlined and
/// specialized in the modules that notify (Swift 6.3 does not specialize an
/// `@inlinable` `package` member across modules); SharedTables is no product,
/// so nothing outside this package sees it.
public struct ObserverList<Handler: Sendable>: Sendable {
    /// Increasing, one per handler (parallel to ``handlers``).
    var ids: [UInt64] = []
    /// The handlers, oldest first.
    public private(set) var handlers: [Handler] = []
    var next: UInt64 = 1

    package init() {}

    /// Inlinable (public, as ``handlers`` is): the write path asks it of
    /// every change, and an unspecialized call looks up the list's generic
    /// metadata each time (it cost a fifth of a `set`).
    @inlinable public var isEmpty: Bool { handlers.isEmpty }
    @inlinable public var count: Int { handlers.count }

    /// Adds `handler`; the id removes it.
    package mutating func add(_ handler: Handler) -> UInt64 {
        let id = next
        next += 1
        ids.append(id)
        handlers.append(handler)
        _checkInvariantsAfterChange()
        return id
    }

    /// Removes the handler `id`; false when it was removed already.
    @discardableResult
    package mutating func remove(_ id: UInt64) -> Bool {
        // The ids are increasing: a binary search finds it.
        var low = 0, high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        guard low < ids.count, ids[low] == id else { return false }
        ids.remove(at: low)
        handlers.remove(at: low)
        _checkInvariantsAfterChange()
        return true
    }
}
