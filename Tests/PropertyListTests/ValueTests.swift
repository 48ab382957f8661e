import Foundation
import Testing
@testable import PropertyList

@Suite("The PropertyList value", .timeLimit(.minutes(10)))
struct ValueTests {
    @Test("literals build the matching cases")
    func literals() {
        let v: PropertyList = ["s": "x", "i": 3, "r": 1.5, "b": true, "a": [1, "2"]]
        #expect(v["s"] == .string("x"))
        #expect(v["i"] == .integer(3))
        #expect(v["r"] == .real(1.5))
        #expect(v["b"] == .boolean(true))
        #expect(v["a"]?[1] == "2")
        #expect(v["missing"] == nil)
        #expect(v[0] == nil)
    }

    @Test("integers cover Int64 and the UInt64 values above it")
    func integers() {
        let max = PropertyList.Integer(UInt64.max)
        #expect(max.int64Value == nil)
        #expect(max.uint64Value == UInt64.max)
        #expect(max.description == "18446744073709551615")
        let min = PropertyList.Integer(Int64.min)
        #expect(min.int64Value == Int64.min)
        #expect(min.uint64Value == nil)
        #expect(min.isNegative)
        // The same number through either initializer is one value.
        #expect(PropertyList.Integer(UInt64(5)) == PropertyList.Integer(Int64(5)))
        #expect(PropertyList.Integer(UInt64(5)).hashValue == PropertyList.Integer(Int64(5)).hashValue)
        #expect(min < PropertyList.Integer(Int64(0)))
        #expect(PropertyList.Integer(Int64.max) < max)
        #expect(PropertyList.Integer(exactly: Int128(1) << 64) == nil)
    }

    @Test("NaN equals NaN, so a value read back equals the value written")
    func nanEquality() {
        #expect(PropertyList.real(.nan) == .real(.nan))
        #expect(PropertyList.real(.nan).hashValue == PropertyList.real(-.nan).hashValue)
        #expect(PropertyList.real(0) == .real(-0.0))
        #expect(PropertyList.real(0).hashValue == PropertyList.real(-0.0).hashValue)
    }

    @Test("kinds differ: an integer is not a real, a boolean not an integer")
    func kinds() {
        #expect(PropertyList.integer(1) != .real(1))
        #expect(PropertyList.boolean(true) != .integer(1))
        #expect(PropertyList.real(1).kind == .real)
        #expect(PropertyList.uid(1) != .integer(1))
    }

    @Test("equality compares one kind at a time, and `same` agrees with Optional's ==")
    func equalityOfEveryKind() {
        let date = Date(timeIntervalSinceReferenceDate: 1)
        let values: [PropertyList] = [
            .string("caf\u{E9}"), .string("cafe\u{301}"), .integer(1), .integer(2), .real(1), .real(.nan),
            .boolean(true), .boolean(false), .date(date), .date(date.addingTimeInterval(1)),
            .data(Data([1])), .data(Data([2])), .array([1]), .array([2]), .dictionary(["a": 1]),
            .dictionary(["a": 2]), .uid(1), .uid(2),
        ]
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() {
                // Each value equals itself only: the two spellings of "café" are two strings.
                #expect((a == b) == (i == j), "\(a) == \(b)")
                #expect(PropertyList.same(a, b) == (i == j))
            }
            #expect(!PropertyList.same(a, nil))
            #expect(!PropertyList.same(nil, a))
        }
        #expect(PropertyList.same(nil, nil))
    }

    @Test("typed accessors return nil for other kinds")
    func accessors() {
        #expect(PropertyList("7").intValue == nil)
        #expect(PropertyList(7).intValue == 7)
        #expect(PropertyList(7).doubleValue == 7)
        #expect(PropertyList(UInt64.max).intValue == nil)
        #expect(PropertyList(true).boolValue == true)
        #expect(PropertyList(Data([1])).dataValue == Data([1]))
        #expect(PropertyList.uid(4).uidValue == 4)
    }

    @Test("dates as text: XML form, description form, and parsing both")
    func dateText() {
        let d = Date(timeIntervalSinceReferenceDate: 0)
        #expect(PropertyList.iso8601String(for: d) == "2001-01-01T00:00:00Z")
        #expect(PropertyList.descriptionString(for: d) == "2001-01-01 00:00:00 +0000")
        #expect(PropertyList.date(from: "2001-01-01T00:00:00Z") == d)
        #expect(PropertyList.date(from: "2001-01-01 01:00:00 +0100") == d)
        #expect(PropertyList.date(from: "2001-01-01") == d)
        #expect(PropertyList.date(from: "yesterday") == nil)
        // Before 1970 and before year 1 round down to whole seconds correctly.
        let old = Date(timeIntervalSince1970: -1.5)
        #expect(PropertyList.iso8601String(for: old) == "1969-12-31T23:59:58Z")
    }
}

@Suite("Key paths", .timeLimit(.minutes(10)))
struct KeyPathTests {
    @Test("dots separate components and a backslash escapes")
    func parsing() {
        #expect(PropertyList.KeyPath("a.b.2").components == ["a", "b", "2"])
        #expect(PropertyList.KeyPath(#"com\.apple\.dock.tiles"#).components == ["com.apple.dock", "tiles"])
        #expect(PropertyList.KeyPath(components: ["a.b", "c"]).description == #"a\.b.c"#)
        #expect(PropertyList.KeyPath("").components == [""])
    }

    @Test("reading through dictionaries and arrays")
    func reading() {
        let v: PropertyList = ["a": ["b": [10, 20, ["c": true]]], "1": "one"]
        #expect(v[keyPath: "a.b.1"] == 20)
        #expect(v[keyPath: "a.b.2.c"] == true)
        #expect(v[keyPath: "1"] == "one")
        #expect(v[keyPath: "a.b.9"] == nil)
        #expect(v[keyPath: "a.b.x"] == nil)
    }

    @Test("insert, replace, append and remove")
    func editing() throws {
        var v: PropertyList = ["list": [1, 2], "d": ["k": "v"]]
        try v.set(0, at: "list.0", mode: .insert)
        #expect(v["list"] == [0, 1, 2])
        try v.set(3, at: "list", mode: .append)
        #expect(v["list"] == [0, 1, 2, 3])
        try v.set("w", at: "d.k", mode: .replace)
        #expect(v[keyPath: "d.k"] == "w")
        #expect(throws: PropertyList.KeyPathError.self) { try v.set("again", at: "d.k", mode: .insert) }
        #expect(throws: PropertyList.KeyPathError.self) { try v.set(1, at: "nothing.here", mode: .replace) }
        #expect(throws: PropertyList.KeyPathError.self) { try v.set(1, at: "d.k.deeper") }
        try v.remove(at: "list.1")
        #expect(v["list"] == [0, 2, 3])
        try v.remove(at: "d.k")
        #expect(v["d"] == [:])
        #expect(throws: PropertyList.KeyPathError.self) { try v.remove(at: "d.k") }
    }

    @Test("a failed edit leaves the value unchanged")
    func failedEditKeepsValue() {
        var v: PropertyList = ["a": ["b": 1]]
        let before = v
        #expect(throws: PropertyList.KeyPathError.self) { try v.set(2, at: "a.b.c") }
        #expect(throws: PropertyList.KeyPathError.self) { try v.remove(at: "a.x.y") }
        #expect(v == before)
    }
}

@Suite("Bridging from and to Any", .timeLimit(.minutes(10)))
struct BridgingTests {
    @Test("Swift values in Any become typed values, and back")
    func roundTrip() throws {
        let any: [String: Any] = ["s": "x", "i": 3, "u": UInt64.max, "d": 1.5, "b": true, "a": [1, "two"], "n": ["k": Int8(-1)], "data": Data([1])]
        let v = try PropertyList(bridging: any)
        #expect(v == ["s": "x", "i": 3, "u": PropertyList(UInt64.max), "d": 1.5, "b": true, "a": [1, "two"], "n": ["k": -1], "data": .data(Data([1]))])
        let back = try #require(v.bridgedValue as? [String: Any])
        #expect(back["b"] as? Bool == true)
        #expect(back["i"] as? Int == 3)
        #expect(try PropertyList(bridging: back) == v)
    }

    @Test("a value that is not a property list names its key path and type")
    func rejects() {
        struct NotAPlist {}
        do {
            _ = try PropertyList(bridging: ["a": ["b": NotAPlist()]] as [String: Any])
            Issue.record("expected an error")
        } catch {
            #expect(error.location == .keyPath("a.b"))
            #expect(error.reason.contains("NotAPlist"))
        }
    }
}
