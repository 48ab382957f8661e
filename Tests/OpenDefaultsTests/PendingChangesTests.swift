import Testing
@testable import OpenDefaults
import PropertyList

/// The log of a domain's unwritten changes: applied in order, forgotten once
/// written, and bounded by the keys it holds however often they change.
@Suite("Pending changes")
struct PendingChangesTests {
    @Test func appliesInOrderLastWriteWinning() {
        var log = PendingChanges()
        log.record("a", 1, sequence: 1)
        log.record("b", 2, sequence: 2)
        log.record("a", nil, sequence: 3)
        log.record("c", "x", sequence: 4)
        log.record("a", 5, sequence: 5)
        var values: [String: PropertyList] = ["a": 0, "d": 9]
        log.apply(to: &values)
        #expect(values == ["a": 5, "b": 2, "c": "x", "d": 9])
        #expect(log.lastSequence == 5)
    }

    @Test func aRepeatedKeyReplacesTheLastChange() {
        var log = PendingChanges()
        log.record("slider", 1, sequence: 1)
        log.record("slider", 2, sequence: 2)
        log.record("other", 3, sequence: 3)
        log.record("other", nil, sequence: 4)
        #expect(log.changes.map(\.key) == ["slider", "other"])
        #expect(log.changes.map(\.sequence) == [2, 4])
        var values: [String: PropertyList] = ["other": 0]
        log.apply(to: &values)
        #expect(values == ["slider": 2])
    }

    @Test func removeThroughKeepsLaterChanges() {
        var log = PendingChanges()
        for i in 1...10 { log.record("k\(i % 3)", PropertyList(i), sequence: UInt64(i)) }
        log.removeThrough(7)
        #expect(log.changes.map(\.sequence) == [8, 9, 10])
        log.removeThrough(10)
        #expect(log.isEmpty)
        #expect(log.lastSequence == 0)
    }

    @Test func manyWritesOfFewKeysStayBoundedAndAgreeWithADictionary() {
        var log = PendingChanges()
        var model: [String: PropertyList?] = [:]
        for i in 1...100_000 {
            let key = "k\(i % 5)"
            let value: PropertyList? = i % 11 == 0 ? nil : PropertyList(i)
            log.record(key, value, sequence: UInt64(i))
            model[key] = .some(value)
            #expect(log.changes.count <= 2 * 5 + 64 + 1)
        }
        var applied: [String: PropertyList] = ["k0": "old", "other": "kept"]
        log.apply(to: &applied)
        var expected: [String: PropertyList] = ["k0": "old", "other": "kept"]
        for (key, value) in model { expected[key] = value }
        #expect(applied == expected)
        #expect(log.changes.map(\.sequence) == log.changes.map(\.sequence).sorted())
    }
}
