import Foundation
import LookalikeStrings
import Testing
import TestSupport
@testable import PropertyList

/// Strings are Apple's strings: two keys or values that look alike (are
/// canonically equivalent) but differ in their scalars stay two, through
/// every reader, writer and format pair, as in CFString and NSDictionary.
@Suite("Strings keep their exact scalars", .timeLimit(.minutes(10)))
struct LiteralStringTests {
    @Test("two canonically equivalent keys are two keys; `String` calls them one")
    func equivalentKeysAreDistinct() {
        for group in Lookalikes.groups {
            for (i, a) in group.enumerated() {
                for (j, b) in group.enumerated() {
                    #expect(a == b, "String sees \(group) as one")
                    #expect((LiteralString(a) == LiteralString(b)) == (i == j))
                    #expect(LiteralString.equal(a, b) == (i == j))
                    #expect((PropertyList.string(a) == .string(b)) == (i == j))
                }
            }
            let d = Dictionary(uniqueKeysWithValues: group.enumerated().map { (LiteralString($0.element), PropertyList($0.offset)) })
            #expect(d.count == group.count)
            for (i, s) in group.enumerated() { #expect(d[s] == PropertyList(i)) }
            #expect(Set(group.map { PropertyList.string($0) }).count == group.count)
        }
    }

    @Test("literal order is CFString's: by UTF-16 code unit")
    func literalOrder() {
        // U+1F600 is D83D DE00 in UTF-16, before U+FF21; in scalar order it is after.
        #expect(LiteralString("\u{1F600}") < LiteralString("\u{FF21}"))
        #expect(LiteralString("\u{E000}") > LiteralString("\u{10000}"))
        #expect(LiteralString("a") < LiteralString("b"))
        #expect(LiteralString("ab") > LiteralString("a"))
        #expect(LiteralString("cafe\u{301}") < LiteralString("caf\u{E9}"))  // 'e' 0x65 before U+00E9
        #expect(!(LiteralString("x") < LiteralString("x")))
        let strings = ["\u{FFFF}", "\u{10FFFF}", "\u{E9}", "e\u{301}", "z", "\u{D7FF}", "\u{1F600}", ""]
        let sorted = strings.map { LiteralString($0) }.sorted().map(\.string)
        let byUTF16 = strings.sorted { Array($0.utf16).lexicographicallyPrecedes(Array($1.utf16)) }
        #expect(sorted.map { Array($0.unicodeScalars) } == byUTF16.map { Array($0.unicodeScalars) })
    }

    /// The leaf kinds every format holds (lookalike values are strings,
    /// integers and collections).
    static let pairs: [(PropertyListFormat, PropertyListFormat)] = PropertyListFormat.allCases.flatMap { a in
        PropertyListFormat.allCases.map { b in (a, b) }
    }

    @Test("lookalike keys and values survive A → B → A with identical scalars", .offThePool, arguments: pairs)
    func everyFormatPair(from a: PropertyListFormat, to b: PropertyListFormat) throws {
        var gen = Lookalikes()
        for round in 0..<200 {
            var value = PropertyList.dictionary(gen.dictionary())
            // Old-style text has no integers: they read back as strings.
            if a == .openStep || b == .openStep { value = Lookalikes.integersAsStrings(value) }
            let first = try PropertyList(decoding: value.encoded(as: a), format: a)
            let second = try PropertyList(decoding: first.encoded(as: b), format: b)
            let back = try PropertyList(decoding: second.encoded(as: a), format: a)
            #expect(Lookalikes.sameScalars(back, value),
                    "seed \(gen.seed) (OPENDEFAULTS_SEED), round \(round): \(a) → \(b) gave \(Lookalikes.describe(back)) for \(Lookalikes.describe(value))")
        }
    }

    @Test("the binary writer does not unique lookalike strings into one object")
    func binaryUniquing() throws {
        let value: PropertyList = ["\u{340}", "\u{300}", "\u{340}", "caf\u{E9}", "cafe\u{301}"]
        let back = try PropertyList(decoding: value.encoded(as: .binary))
        #expect(Lookalikes.sameScalars(back, value), "\(Lookalikes.describe(back))")
    }

    @Test("a lookup of one key in a binary file finds each lookalike key", arguments: [10, 1_000])
    func singleKeyLookup(count: Int) throws {
        var gen = Lookalikes()
        var entries: [LiteralString: PropertyList] = [:]
        for i in 0..<count { entries[LiteralString("key\(i)")] = PropertyList(i) }
        for _ in 0..<20 { entries.merge(gen.dictionary()) { a, _ in a } }
        let bytes = try PropertyList.dictionary(entries).encoded(as: .binary)
        for (key, value) in entries {
            let found = try PropertyList.value(forKey: key.string, decoding: bytes)
            #expect(found.map { Lookalikes.sameScalars($0, value) } == true, "seed \(gen.seed): \(Lookalikes.describe(.string(key.string)))")
        }
        #expect(try PropertyList.value(forKey: "key\u{301}", decoding: bytes) == nil)
    }

    @Test("a binary file of the first sorted-keys version (Swift's order) is searched by a scan")
    func firstVersionMarkIsScanned() throws {
        // Keys in an order that is not the literal order, marked as version 1.
        var entries: [LiteralString: PropertyList] = [:]
        for group in Lookalikes.groups { for (i, s) in group.enumerated() { entries[LiteralString(s)] = PropertyList(i) } }
        var bytes = try PropertyList.dictionary(entries).encoded(as: .binary)
        #expect(Array(bytes[(bytes.count - 32)..<(bytes.count - 29)]) == [0x4F, 0x44, 0x02])
        bytes[bytes.count - 30] = 0x01
        for (key, value) in entries { #expect(try PropertyList.value(forKey: key.string, decoding: bytes) == value) }
    }

    @Test("Codable keeps lookalike keys apart")
    func codable() throws {
        let value: [LiteralString: Int] = ["caf\u{E9}": 1, "cafe\u{301}": 2]
        let encoded = try PropertyListValueEncoder().encode(value)
        #expect(encoded.dictionaryValue?.count == 2)
        #expect(try PropertyListValueDecoder().decode([LiteralString: Int].self, from: encoded) == value)
        let plist: PropertyList = .dictionary(["\u{340}": "a", "\u{300}": "b"])
        let viaCodable = try PropertyListValueDecoder().decode(PropertyList.self, from: PropertyListValueEncoder().encode(plist))
        #expect(Lookalikes.sameScalars(viaCodable, plist))
    }

    @Test("Foundation's `[String: Any]` edge keeps one of two lookalike keys, chosen by literal order")
    func stringKeyedEdge() {
        let d: [LiteralString: PropertyList] = ["caf\u{E9}": 1, "cafe\u{301}": 2, "other": 3]
        let edge = d.keyedByString { $0 }
        #expect(edge.count == 2)
        #expect(edge["caf\u{E9}"] == 1)  // U+00E9 sorts after 'e': it is written last and wins
        #expect(d.hasEquivalentKeys)
        #expect(!["a": PropertyList(1)].hasEquivalentKeys)
    }

    // MARK: plutil, against Python's plistlib (which keys by code point)

    static let plutil = productsDirectory.appendingPathComponent("plutil").path

    @Test("plutil keeps both keys of a plistlib file and both strings of a binary array", .requires(.python))
    func plutilAgainstPlistlib() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let nf = dir.appendingPathComponent("nf.plist").path, nf2 = dir.appendingPathComponent("nf2.plist").path
        let made = try run(pythonPath!, ["-c", """
            import plistlib, sys
            plistlib.dump({'caf\\u00e9': 1, 'cafe\\u0301': 2}, open(sys.argv[1], 'wb'))
            plistlib.dump(['\\u0340', '\\u0300'], open(sys.argv[2], 'wb'), fmt=plistlib.FMT_BINARY)
            """, nf, nf2])
        #expect(made.status == 0, "\(made.stderr)")
        let json = try run(Self.plutil, ["-convert", "json", "-o", "-", nf])
        #expect(json.status == 0, "\(json.stderr)")
        // Compared scalar by scalar: `String ==` would accept one key written twice.
        let expected = "{\"cafe\u{301}\":2,\"caf\u{E9}\":1}"
        #expect(Array(json.stdout.trimmingCharacters(in: .newlines).unicodeScalars) == Array(expected.unicodeScalars),
                "\(Lookalikes.describe(.string(json.stdout)))")
        let out = dir.appendingPathComponent("out.plist").path
        let binary = try run(Self.plutil, ["-convert", "binary1", "-o", out, nf2])
        #expect(binary.status == 0, "\(binary.stderr)")
        // plistlib reads our binary back: two different strings, in order.
        let check = try run(pythonPath!, ["-c", "import plistlib, sys; print(ascii(plistlib.load(open(sys.argv[1], 'rb'))))", out])
        #expect(check.stdout == "['\\u0340', '\\u0300']\n", "\(check.stdout) \(check.stderr)")
    }
}

@Suite("The writers' key order")
struct KeyOrderTests {
    @Test("short ASCII keys (compared as words) sort as LiteralString's order: prefixes, NULs, every length to 15 and beyond")
    func wordsAgreeWithLiteralOrder() {
        #expect(KeyOrder.layoutIsKnown, "the standard library's small-string layout changed: every key takes the general path")
        var random = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["\0", "a", "b", "z", "A", "~", "\u{7F}", "é", "😀", "\u{FFFD}"]
        for round in 0..<300 {
            var d: [LiteralString: PropertyList] = [:]
            for _ in 0..<(round % 40 + 1) {
                let length = Int.random(in: 0...18, using: &random)
                let asciiOnly = round % 3 != 0
                let key = String((0..<length).map { _ in alphabet[Int.random(in: 0..<(asciiOnly ? 7 : alphabet.count), using: &random)] })
                d[LiteralString(key)] = .integer(1)
                d[LiteralString(key + "\0")] = .integer(2)  // a prefix and its extension by NUL
            }
            let ours = d.sortedIndices().map { d[$0].key }
            #expect(ours == d.keys.sorted(), "round \(round)")
        }
    }
}
