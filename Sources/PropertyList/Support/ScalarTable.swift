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
        slots = Array(repeatingInLargePages: Slot(bits: 0, kindAndID: -1), count: n)
    }

    /// A table sized at once for the distinct numbers among `count`
    /// entries (`entry(k)`, a kind and bits), estimated by linear counting:
    /// each entry sets one bit of a bitmap of about eight bits an entry, and
    /// `m · ln(m / empty bits)` estimates how many distinct entries set them.
    /// Growing from 16 slots instead rehashes every entry about twice and
    /// touches twice the memory (issue 42: 92,000 distinct numbers of the
    /// benchmarks' document). An estimate too low only means the table grows.
    init(sizedForDistinctOf count: Int, maxProbe: Int = 32, _ entry: (Int) -> (kind: UInt8, bits: UInt64)) {
        guard count > 64 else {
            self.init(capacity: count, maxProbe: maxProbe)
            return
        }
        let m = (8 * count).nextPowerOfTwo
        var bitmap = [UInt64](repeating: 0, count: m / 64)
        for k in 0..<count {
            let (kind, bits) = entry(k)
            let s = Self.slot(kind, bits, mask: m - 1)
            bitmap[s >> 6] |= 1 << UInt64(s & 63)
        }
        let empty = m - bitmap.reduce(0) { $0 + $1.nonzeroBitCount }
        let estimate = empty == 0 ? Double(count) : Double(m) * Self.naturalLog(Double(m) / Double(empty))
        self.init(capacity: Swift.min(count, Int(estimate * 1.05) + 16), maxProbe: maxProbe)
    }

    /// ln(x) for x ≥ 1, to about 10⁻⁵ (the standard library has no logarithm):
    /// x = 2^e · s with s in [1, 2), and ln s = 2·atanh((s − 1)/(s + 1)) by its series.
    private static func naturalLog(_ x: Double) -> Double {
        let s = x.significand
        let t = (s - 1) / (s + 1), t2 = t * t
        let lnS = 2 * t * (1 + t2 / 3 + t2 * t2 / 5 + t2 * t2 * t2 / 7)
        return Double(x.exponent) * 0.693_147_180_559_945_3 + lnS
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
        slots = Array(repeatingInLargePages: Slot(bits: 0, kindAndID: -1), count: 2 * old.count)
        // Entries that overflowed are placed again too: a lookup that meets an
        // empty slot on its probe stops there, so none may be left behind one.
        let oldOverflow = overflow
        overflow = [:]
        for slot in old where slot.kindAndID >= 0 {
            place(UInt8(truncatingIfNeeded: slot.kindAndID), slot.bits, id: Int(slot.kindAndID >> 8))
        }
        for (key, id) in oldOverflow { place(key.kind, key.bits, id: id) }
    }

    /// The slots (tests check how a table was sized).
    var slotCount: Int { slots.count }

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
