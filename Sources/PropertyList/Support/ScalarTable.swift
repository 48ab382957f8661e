/// The binary writer's table of numbers written once: a kind and 64 bits
/// to an object number, in open addressing.
///
/// Swift's `Dictionary` seeds a hasher per lookup; for the hundred thousand
/// numbers of a large document that was a tenth of `plutil -convert binary1`
/// (proposal 0019). Here a slot is found by a multiply-fold of the bits with
/// a per-process random seed, so an input cannot choose numbers that share
/// slots without knowing it; and should a probe run long anyway (32 slots),
/// the entry goes to a `Dictionary` (SipHash) instead: time stays linear
/// whatever the input.
struct ScalarTable {
    /// A slot: the bits, and the kind and object number (`id << 8 | kind`),
    /// together so that a probe reads one cache line; `kindAndID` is -1 in
    /// an empty slot.
    private struct Slot {
        var bits: UInt64
        var kindAndID: Int64
    }

    private var slots: [Slot]
    private var count = 0
    private var overflow: [Key: Int] = [:]

    private struct Key: Hashable {
        var kind: UInt8
        var bits: UInt64
    }

    private static let seed = UInt64.random(in: 0...UInt64.max) | 1
    /// The longest probe before an entry goes to `overflow` (32; tests make it short).
    private let maxProbe: Int

    init(capacity: Int = 8, maxProbe: Int = 32) {
        self.maxProbe = maxProbe
        let n = Swift.max(16, (capacity * 2).nextPowerOfTwo)
        slots = Array(repeating: Slot(bits: 0, kindAndID: -1), count: n)
    }

    @inline(__always)
    private static func slot(_ kind: UInt8, _ value: UInt64, mask: Int) -> Int {
        let product = (value ^ seed).multipliedFullWidth(by: (0x9E37_79B9_7F4A_7C15 ^ UInt64(kind) &* 0x100_0000_01B3) | 1)
        return Int(truncatingIfNeeded: product.high ^ product.low) & mask
    }

    /// The object number of `(kind, value)`, or nil.
    @inline(__always)
    func find(_ kind: UInt8, _ value: UInt64) -> Int? {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = Self.slot(kind, value, mask: mask)
            for _ in 0..<maxProbe {
                let slot = slots[i]
                if slot.kindAndID < 0 { return nil }  // (what overflowed lies behind no empty slot: see `grow`)
                if slot.bits == value, UInt8(truncatingIfNeeded: slot.kindAndID) == kind { return Int(slot.kindAndID >> 8) }
                i = (i + 1) & mask
            }
            return overflow[Key(kind: kind, bits: value)]
        }
    }

    /// Records `(kind, value)` (not present) as object `id`.
    mutating func insert(_ kind: UInt8, _ value: UInt64, id: Int) {
        if 2 * (count + 1) > slots.count { grow() }
        count += 1
        place(kind, value, id: id)
    }

    private mutating func place(_ kind: UInt8, _ value: UInt64, id: Int) {
        let mask = slots.count - 1
        var i = Self.slot(kind, value, mask: mask)
        for _ in 0..<maxProbe {
            if slots[i].kindAndID < 0 {
                slots[i] = Slot(bits: value, kindAndID: Int64(id) << 8 | Int64(kind))
                return
            }
            i = (i + 1) & mask
        }
        overflow[Key(kind: kind, bits: value)] = id
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(bits: 0, kindAndID: -1), count: 2 * old.count)
        // Entries that overflowed are placed again too: a lookup that meets an
        // empty slot on its probe stops there, so none may be left behind one.
        let oldOverflow = overflow
        overflow = [:]
        for slot in old where slot.kindAndID >= 0 {
            place(UInt8(truncatingIfNeeded: slot.kindAndID), slot.bits, id: Int(slot.kindAndID >> 8))
        }
        for (key, id) in oldOverflow { place(key.kind, key.bits, id: id) }
    }

    /// Every entry is found where a lookup probes for it, and the count is the slots in use.
    func _checkInvariants() {
        var used = 0
        for (k, slot) in slots.enumerated() where slot.kindAndID >= 0 {
            used += 1
            precondition(
                find(UInt8(truncatingIfNeeded: slot.kindAndID), slot.bits) == Int(slot.kindAndID >> 8),
                "ScalarTable: slot \(k) is not found by a lookup")
        }
        precondition(used + overflow.count == count, "ScalarTable: \(used) slots and \(overflow.count) overflowed, but count \(count)")
        precondition(2 * count <= slots.count, "ScalarTable: more than half full")
    }
}

extension Int {
    fileprivate var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
