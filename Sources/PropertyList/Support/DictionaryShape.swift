/// The keys of a dictionary that recurs in a document (the records of an
/// array, say), hashed once and laid out in a template.
///
/// A reader that meets the same keys again copies the template and sets its
/// values through the template's indices: a copy of a dictionary keeps its
/// hash seed and buckets, so no key is hashed again. On documents made of
/// records this removes most of the hashing a decode does. A class, so that
/// a reader takes a shape out of its table with one retain.
final class DictionaryShape {
    /// The shape's keys with a placeholder value each; every slot is
    /// overwritten before a copy is handed out.
    let template: [LiteralString: PropertyList]
    /// Per key, in the document's order, its place in ``template``.
    let slots: [Dictionary<LiteralString, PropertyList>.Index]

    /// A shape for `keys`, or nil when a key repeats (readers then build
    /// such dictionaries key by key, keeping the last value of a key).
    init?(keys: [LiteralString]) {
        var template = [LiteralString: PropertyList](minimumCapacity: keys.count)
        for key in keys { template[key] = .boolean(false) }
        guard template.count == keys.count else { return nil }
        self.slots = keys.map { template.index(forKey: $0)! }
        self.template = template
    }

    /// Whether `keys` are this shape's keys in the same order.
    func matches(_ keys: some Collection<LiteralString>) -> Bool {
        guard keys.count == slots.count else { return false }
        var k = 0
        for key in keys {
            if key != template.keys[slots[k]] { return false }
            k += 1
        }
        return true
    }
}
