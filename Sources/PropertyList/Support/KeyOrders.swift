/// The order in which a dictionary's entries are written, by its keys'
/// numbers in a ``StringTable``: the positions of its entries in
/// ``LiteralString`` order of their keys, each key once, at the position
/// where it was met last (a repeated key keeps the value met last, as a
/// dictionary that the entries are inserted into in order).
///
/// Most documents repeat a few shapes of dictionary many times, so the order
/// of each sequence of keys is kept in one of 64 places, found by a hash of
/// the keys' numbers and used only when the keys are the same numbers.
struct KeyOrders {
    private var keys: [[Int]] = []
    private var orders: [[Int]] = []
    private static var places: Int { 64 }

    /// Sets `order` to the positions, from 0, of `entries`' entries in the order written.
    ///
    /// The entries are read in place (a slice of the reader's stack would
    /// keep the stack shared, and taking the entries off it would copy it).
    mutating func order<Value>(of entries: UnsafeBufferPointer<(Int, Value)>, strings: StringTable, into order: inout [Int]) {
        let n = entries.count
        order.removeAll(keepingCapacity: true)
        if n <= 1 {
            if n == 1 { order.append(0) }
            return
        }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for (key, _) in entries { hash = (hash ^ UInt64(truncatingIfNeeded: key)) &* 0x100_0000_01B3 }
        let place = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 58)
        if keys.isEmpty {
            keys = Array(repeating: [], count: Self.places)
            orders = Array(repeating: [], count: Self.places)
        }
        if keys[place].count == n {
            var same = true
            for k in 0..<n where keys[place][k] != entries[k].0 {
                same = false
                break
            }
            if same {
                order.append(contentsOf: orders[place])
                return
            }
        }
        order.append(contentsOf: 0..<n)
        order.sort { a, b in
            let ka = entries[a].0, kb = entries[b].0
            if ka == kb { return a < b }
            return strings.compare(ka, kb) < 0
        }
        // Of each run of one key, the last position.
        var kept = 0
        for k in 0..<n where k == n - 1 || entries[order[k]].0 != entries[order[k + 1]].0 {
            order[kept] = order[k]
            kept += 1
        }
        order.removeSubrange(kept...)
        keys[place] = entries.map { $0.0 }
        orders[place] = order
    }
}
