/// A weak reference: a store's cache of domains, the exit flush's stores, an application's search lists.
struct Weak<Object: AnyObject & Sendable>: @unchecked Sendable {
    weak var object: Object?
    init(_ object: Object) { self.object = object }

    /// Drops the entries whose object is gone (when the table has doubled since the last prune).
    static func prune<Key>(_ table: inout [Key: Weak<Object>]) {
        guard table.count >= 64, table.count.nonzeroBitCount == 1 else { return }
        table = table.filter { $0.value.object != nil }
    }
}
