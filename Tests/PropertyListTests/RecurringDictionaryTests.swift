import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// The XML and binary readers lay out the keys of a dictionary that recurs
/// (the records of an array) once and copy that layout for later ones. These
/// tests pin down that such documents read exactly as any other.
@Suite("Dictionaries that recur in a document", .timeLimit(.minutes(10)))
struct RecurringDictionaryTests {
    /// `count` records with the same keys and different values, some nested.
    static func records(_ count: Int) -> PropertyList {
        .array((0..<count).map { i -> PropertyList in
            let nested: [LiteralString: PropertyList] = ["level": PropertyList(i % 3), "label": .string("n\(i)")]
            var record: [LiteralString: PropertyList] = ["id": PropertyList(i), "name": .string("record \(i)")]
            record["enabled"] = .boolean(i % 2 == 0)
            record["a much longer key than fits in a small string"] = .real(Double(i) / 3)
            record["nested"] = .dictionary(nested)
            return .dictionary(record)
        })
    }

    @Test("records read back equal, from the first to the hundredth", arguments: [PropertyListFormat.xml, .binary, .json, .openStep])
    func records(format: PropertyListFormat) throws {
        for count in [1, 2, 3, 4, 100] {
            let value = Self.records(count)
            #expect(try PropertyList(decoding: value.encoded(as: format), format: format) == value)
        }
    }

    @Test("dictionaries read from one layout are independent values", arguments: [PropertyListFormat.xml, .binary, .json, .openStep])
    func independentCopies(format: PropertyListFormat) throws {
        guard case .array(let expected) = Self.records(5),
            case .array(var records) = try PropertyList(decoding: PropertyList.array(expected).encoded(as: format), format: format),
            case .dictionary(var third) = records[2]
        else { Issue.record("expected an array of dictionaries"); return }
        third["id"] = "changed"
        third["added"] = true
        records[2] = .dictionary(third)
        // The records read from the same layout after the changed one are whole and unchanged.
        #expect(Array(records[3...]) == Array(expected[3...]))
        #expect(records[2] != expected[2])
    }

    /// Key sets that the XML reader's fingerprint (count, and each key's length,
    /// first and last byte) cannot tell apart.
    static let lookalikeKeySets: [[String]] = [["axb", "ayb"], ["ayb", "axb"], ["a1b", "a2b"], ["axb", "axb2"], ["a1b"], ["a2b"]]

    @Test("random records drawn from a few key sets, some that look alike", arguments: [PropertyListFormat.xml, .binary])
    func randomRecords(format: PropertyListFormat) throws {
        let keySets: [[String]] = [["ab", "cd"], ["ef", "gh"], ["x"], ["name", "kind", "size"], ["size", "kind", "name"]] + Self.lookalikeKeySets
        var gen = RandomValues(rng: SeededRandom(seed: 7), leafKinds: [.string, .integer, .real, .boolean, .date, .data])
        for _ in 0..<40 {
            let value = PropertyList.array((0..<Int.random(in: 1...30, using: &gen.rng)).map { _ in
                let keys = keySets.randomElement(using: &gen.rng)!
                return .dictionary(Dictionary(uniqueKeysWithValues: keys.map { (LiteralString($0), gen.value(depth: 3)) }))
            })
            #expect(try PropertyList(decoding: value.encoded(as: format), format: format) == value)
        }
    }

    @Test("nested records of many shapes, so that shapes met inside others share their places", .offThePool, arguments: [PropertyListFormat.xml, .binary, .json, .openStep])
    func nestedShapes(format: PropertyListFormat) throws {
        var gen = RandomValues(rng: SeededRandom(seed: 11), leafKinds: [.string, .integer, .boolean])
        let names = (0..<40).map { "k\($0)" }
        let keySets = (0..<30).map { _ in Array(names.shuffled(using: &gen.rng).prefix(Int.random(in: 1...6, using: &gen.rng))) }
        func record(_ depth: Int) -> PropertyList {
            let keys = keySets.randomElement(using: &gen.rng)!
            return .dictionary(Dictionary(uniqueKeysWithValues: keys.map { key in
                (LiteralString(key), depth < 3 && Bool.random(using: &gen.rng) ? record(depth + 1) : gen.leaf())
            }))
        }
        for _ in 0..<60 {
            let value = PropertyList.array((0..<Int.random(in: 20...80, using: &gen.rng)).map { _ in record(0) })
            #expect(try PropertyList(decoding: value.encoded(as: format), format: format) == value)
        }
    }

    @Test("JSON and old-style text: a repeated key keeps its last value in a dictionary that looks like a known one",
          arguments: [PropertyListFormat.json, .openStep])
    func textRepeatedKey(format: PropertyListFormat) throws {
        let json = format == .json
        func dict(_ entries: [(String, Int)]) -> String {
            json ? "{" + entries.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
                 : "{" + entries.map { "\($0.0) = \($0.1);" }.joined(separator: " ") + "}"
        }
        // Old-style text has no numbers: its values are strings.
        func v(_ n: Int) -> PropertyList { json ? PropertyList(n) : .string(String(n)) }
        let known = (0..<4).map { dict([("axb", $0), ("ayb", $0)]) }
        let lookalikes = [dict([("axb", 5), ("axb", 6)]), dict([("ayb", 7), ("axb", 8)]), dict([("a1b", 9), ("a2b", 10)])]
        let items = known + lookalikes + [dict([("axb", 11), ("ayb", 12)])]
        let value = try decode((json ? "[" : "(") + items.joined(separator: ", ") + (json ? "]" : ")"), format)
        #expect(value[3] == .dictionary(["axb": v(3), "ayb": v(3)]))
        #expect(value[4] == .dictionary(["axb": v(6)]))
        #expect(value[5] == .dictionary(["ayb": v(7), "axb": v(8)]))
        #expect(value[6] == .dictionary(["a1b": v(9), "a2b": v(10)]))
        #expect(value[7] == .dictionary(["axb": v(11), "ayb": v(12)]))
    }

    @Test("XML: a repeated key keeps its last value in a dictionary that looks like a known one")
    func xmlRepeatedKey() throws {
        func dict(_ entries: [(String, Int)]) -> String {
            "<dict>" + entries.map { "<key>\($0.0)</key><integer>\($0.1)</integer>" }.joined() + "</dict>"
        }
        let known = (0..<4).map { dict([("axb", $0), ("ayb", $0)]) }.joined()
        let lookalikes = dict([("axb", 5), ("axb", 6)]) + dict([("ayb", 7), ("axb", 8)]) + dict([("a1b", 9), ("a2b", 10)])
        let xml = "<plist><array>\(known)\(lookalikes)\(dict([("axb", 11), ("ayb", 12)]))</array></plist>"
        let value = try decode(xml, .xml)
        #expect(value[3] == ["axb": 3, "ayb": 3])
        #expect(value[4] == ["axb": 6])
        #expect(value[5] == ["ayb": 7, "axb": 8])
        #expect(value[6] == ["a1b": 9, "a2b": 10])
        #expect(value[7] == ["axb": 11, "ayb": 12])
    }

    @Test("binary: dictionaries sharing their key references, with a repeated key, keep the last value")
    func binarySharedKeyReferences() throws {
        // 0: array of 6 dictionaries; 1-3: {a, a} = (1, 2), (2, 1), (1, 2);
        // 4-6: {a, b} = (1, 2), (2, 1), (1, 1); 7: "a", 8: 1, 9: 2, 10: "b".
        let objects: [[UInt8]] = [
            [0xA6, 1, 2, 3, 4, 5, 6],
            [0xD2, 7, 7, 8, 9], [0xD2, 7, 7, 9, 8], [0xD2, 7, 7, 8, 9],
            [0xD2, 7, 10, 8, 9], [0xD2, 7, 10, 9, 8], [0xD2, 7, 10, 8, 8],
            [0x51, 0x61], [0x10, 1], [0x10, 2], [0x51, 0x62],
        ]
        let value = try PropertyList(decoding: BinaryFormatTests.file(objects: objects), format: .binary)
        #expect(value == [["a": 2], ["a": 1], ["a": 2], ["a": 1, "b": 2], ["a": 2, "b": 1], ["a": 1, "b": 1]])
    }
}
