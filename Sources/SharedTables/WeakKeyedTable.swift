import Synchronization
/// A value kept for each live object, as long as the object lives: the
/// registration and suites of each store (`DefaultsContext`), the
/// Foundation edge's notification window of each defaults object.
///
/// The object is held weakly; its value strongly, until the object is gone
/// (entries of dead objects are dropped as the table grows, and an entry
/// found for a new object at a dead one's address is replaced). `make`
/// runs under the table's lock: keep it small.
///
/// ```swift
/// let windows = WeakKeyedTable<Defaults, Window>()
/// let window = windows.value(for: defaults) { Window() }
/// ```
package final class WeakKeyedTable<Owner: AnyObject & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var owner: Weak<Owner>
        var value: Value
    }
    private let table = Lock<[ObjectIdentifier: Entry]>([:])

    package init() {}

    /// The value of `owner`, made by `make` on first use.
    package func value(for owner: Owner, make: () -> Value) -> Value {
        table.withLock { t in
            let id = ObjectIdentifier(owner)
            if let entry = t[id], entry.owner.object === owner { return entry.value }
            Weak.prune(&t) { $0.owner }
            let value = make()
            t[id] = Entry(owner: Weak(owner), value: value)
            return value
        }
    }
}
