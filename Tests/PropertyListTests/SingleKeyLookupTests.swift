import Foundation
import Testing
@testable import PropertyList

/// `PropertyList.value(forKey:decoding:)`: one key without decoding the rest.
@Suite("Reading one key", .timeLimit(.minutes(10)))
struct SingleKeyLookupTests {
    @Test func findsEachKeyOfABinaryDictionaryAsAFullDecodeWould() throws {
        var entries: [LiteralString: PropertyList] = [:]
        for i in 0..<500 { entries["key\(i)"] = i % 3 == 0 ? .string("v\(i)") : .array([.integer(.init(Int64(i))), ["nested": true]]) }
        entries["naïve ünïcode"] = "utf16 key"
        entries["shared"] = "v3"  // deduplicated with key3's value by the writer
        let bytes = try PropertyList.dictionary(entries).encoded(as: .binary)
        for (key, value) in entries {
            #expect(try PropertyList.value(forKey: key.string, decoding: bytes) == value, "\(key)")
        }
        #expect(try PropertyList.value(forKey: "absent", decoding: bytes) == nil)
        #expect(try PropertyList.value(forKey: "key1x", decoding: bytes) == nil)
    }

    @Test func otherFormatsAreDecodedWhole() throws {
        let value: PropertyList = ["a": 1, "b": ["c": "d"]]
        for format in [PropertyListFormat.xml, .openStep, .json] {
            let bytes = try value.encoded(as: format)
            #expect(try PropertyList.value(forKey: "b", decoding: bytes) == ["c": "d"], "\(format)")
            #expect(try PropertyList.value(forKey: "z", decoding: bytes) == nil)
        }
    }

    @Test func aTopObjectThatIsNotADictionaryIsAnError() throws {
        for format in [PropertyListFormat.binary, .xml] {
            let bytes = try PropertyList.array([1, 2]).encoded(as: format)
            #expect(throws: PropertyListError.self) { try PropertyList.value(forKey: "a", decoding: bytes) }
        }
        #expect(throws: PropertyListError.self) { try PropertyList.value(forKey: "a", decoding: Array("bplist00junk".utf8)) }
    }

    @Test func theLastOfEqualKeysWins() throws {
        // A hand-made binary dictionary {"k": 1, "k": 2}: objects dict, "k", 1, "k", 2.
        var b = Array("bplist00".utf8)
        var offsets: [Int] = []
        func object(_ bytes: [UInt8]) { offsets.append(b.count); b += bytes }
        object([0xD2, 1, 3, 2, 4])      // dict of 2: keys 1, 3; values 2, 4
        object([0x51, UInt8(ascii: "k")])
        object([0x10, 1])
        object([0x51, UInt8(ascii: "k")])
        object([0x10, 2])
        let table = b.count
        for o in offsets { b.append(UInt8(o)) }
        b += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 5] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        #expect(try PropertyList(decoding: b)["k"] == 2)
        #expect(try PropertyList.value(forKey: "k", decoding: b) == 2)
    }

    @Test func aBrokenValueOrReferenceIsReportedNotTrusted() throws {
        var bytes = try PropertyList.dictionary(["a": "x", "b": "y"]).encoded(as: .binary)
        // Point the trailer's object count far past the file: rejected before any lookup.
        var broken = bytes
        broken[broken.count - 17] = 0xFF
        #expect(throws: PropertyListError.self) { try PropertyList.value(forKey: "a", decoding: broken) }
        // Corrupt one value's marker (the last one-character string, "x" or "y"):
        // that key is refused with an error, the other still reads, the whole file is refused.
        let i = try #require(bytes.lastIndex(of: 0x51))
        bytes[i] = 0x7F  // an unknown marker
        #expect(throws: PropertyListError.self) { try PropertyList(decoding: bytes) }
        var refused: [String] = []
        for (key, expected) in [("a", "x"), ("b", "y")] {
            do {
                #expect(try PropertyList.value(forKey: key, decoding: bytes) == .string(expected), "\(key)")
            } catch {
                refused.append(key)
            }
        }
        #expect(refused.count == 1, "refused: \(refused)")
    }

    @Test func ourFilesMarkTheirSortedKeysAndAreSearchedByHalves() throws {
        var entries: [LiteralString: PropertyList] = [:]
        for i in 0..<5_000 { entries["key\(i)"] = PropertyList(i) }
        entries["ünïcödé"] = "u"
        entries["日本"] = "j"
        entries[""] = "empty"
        let bytes = try PropertyList.dictionary(entries).encoded(as: .binary)
        #expect(Array(bytes[(bytes.count - 32)..<(bytes.count - 29)]) == [0x4F, 0x44, 0x02])
        for (key, value) in entries { #expect(try PropertyList.value(forKey: key.string, decoding: bytes) == value, "\(key)") }
        for absent in ["key5000", "key", "zzz", "ünï", "Key1"] { #expect(try PropertyList.value(forKey: absent, decoding: bytes) == nil) }
        // Other writers' files (no mark) are scanned as before, whatever their key order.
        var foreign = bytes
        foreign.replaceSubrange((bytes.count - 32)..<(bytes.count - 29), with: [0, 0, 0])
        for key in ["key0", "key4999", "日本", ""] { #expect(try PropertyList.value(forKey: key, decoding: foreign) == entries[key]) }
        // Arrays and other top objects carry no mark.
        let array = try PropertyList.array(["a"]).encoded(as: .binary)
        #expect(Array(array[(array.count - 32)..<(array.count - 26)]) == [0, 0, 0, 0, 0, 0])
    }

    @Test func aLookupChecksOnlyTheOffsetsItUses() throws {
        // A bad offset of an object the lookup never touches does not fail it; one it touches does.
        var bytes = try PropertyList.dictionary(["a": "x", "b": "y"]).encoded(as: .binary)
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let table = Int(bytes[(trailer + 24)..<(trailer + 32)].reduce(0) { $0 << 8 | UInt64($1) })
        let count = Int(bytes[(trailer + 8)..<(trailer + 16)].reduce(0) { $0 << 8 | UInt64($1) })
        #expect(offsetSize == 1)
        bytes[table + count - 1] = 0xFF  // the last object's offset points past the object area
        #expect(throws: PropertyListError.self) { _ = try PropertyList(decoding: bytes) }
        var failures = 0
        for key in ["a", "b"] { if (try? PropertyList.value(forKey: key, decoding: bytes)) == nil { failures += 1 } }
        #expect(failures == 1)
    }
}
