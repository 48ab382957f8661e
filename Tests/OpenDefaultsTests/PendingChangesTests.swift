import Testing
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// A domain's unwritten changes: the newest change of each key, applied on
/// top of the file's entries, forgotten once written unless changed again.
@Suite("Pending changes", .timeLimit(.minutes(10)))
struct PendingChangesTests {
    @Test func theNewestChangeOfAKeyWins() {
        var pending = PendingChanges()
        #expect(pending.record("a", 1, sequence: 1) == nil)
        #expect(pending.record("b", 2, sequence: 2) == nil)
        #expect(pending.record("a", nil, sequence: 3) == .some(1))
        #expect(pending.record("c", "x", sequence: 4) == nil)
        #expect(pending.record("a", 5, sequence: 5) == .some(nil))
        var values: [LiteralString: PropertyList] = ["a": 0, "d": 9]
        pending.apply(to: &values)
        #expect(values == ["a": 5, "b": 2, "c": "x", "d": 9])
        #expect(pending.lastSequence == 5)
        #expect(pending.count == 3)
        #expect(pending.value(forKey: "a") == .some(5))
        #expect(pending.value(forKey: "zz") == nil)
    }

    @Test func aPendingRemovalIsDistinctFromNoChange() {
        var pending = PendingChanges()
        _ = pending.record("gone", nil, sequence: 1)
        #expect(pending.value(forKey: "gone") == .some(nil))
        #expect(pending.value(forKey: "untouched") == nil)
        var values: [LiteralString: PropertyList] = ["gone": 1, "untouched": 2]
        pending.apply(to: &values)
        #expect(values == ["untouched": 2])
    }

    @Test func removeThroughKeepsChangesMadeLater() {
        var pending = PendingChanges()
        for i in 1...10 { _ = pending.record("k\(i % 3)", PropertyList(i), sequence: UInt64(i)) }
        // k0: 9, k1: 10, k2: 8 — a flush that wrote up to 8 leaves k0 and k1.
        pending.removeThrough(8)
        #expect(Set(pending.changes.map(\.key)) == ["k0", "k1"])
        pending.removeThrough(10)
        #expect(pending.isEmpty)
    }

    @Test func changesThatSetWhatTheFileHoldsChangeNothingInIt() {
        var pending = PendingChanges()
        _ = pending.record("same", 1, sequence: 1)
        _ = pending.record("absent", nil, sequence: 2)
        #expect(pending.changesNothing(in: ["same": 1, "other": 3]))
        #expect(!pending.changesNothing(in: ["same": 2]))
        #expect(!pending.changesNothing(in: ["same": 1, "absent": 4]))
        // Exact scalars: a look-alike key is another key.
        _ = pending.record("caf\u{E9}", 5, sequence: 3)
        #expect(!pending.changesNothing(in: ["same": 1, "cafe\u{301}": 5]))
    }
}
