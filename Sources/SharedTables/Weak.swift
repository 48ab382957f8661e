/// A weak reference, for tables that must not keep their objects alive
/// (``WeakCache``, the exit flush's stores, an application's search lists).
///
/// ```swift
/// let entry = Weak(store)
/// entry.object   // nil once the store is gone
/// ```
public struct Weak<Object: AnyObject & Sendable>: @unchecked Sendable {
    public weak var object: Object?
    @inlinable public init(_ object: Object) { self.object = object }

    /// Drops the entries whose object is gone (when the table has doubled since the last prune).
    @inlinable
    public static func prune<Key>(_ table: inout [Key: Weak<Object>]) {
        prune(&table) { $0 }
    }

    /// Drops the entries whose object (`reference` of each) is gone, when the
    /// table has doubled since the last prune: the cost is spread over the inserts.
    @inlinable
    public static func prune<Key, Entry>(_ table: inout [Key: Entry], _ reference: (Entry) -> Weak<Object>) {
        guard table.count >= 64, table.count.nonzeroBitCount == 1 else { return }
        table = table.filter { reference($0.value).object != nil }
    }
}
