import Foundation
import Testing
import TestSupport
@testable import PropertyList

/// `plutil -convert binary1` of an XML file writes the binary file from the
/// reader's compact nodes, without building the value (`BinaryFromXML.swift`).
/// It must give what decoding and writing give, byte for byte, error for error.
@Suite("XML to binary without the value", .timeLimit(.minutes(10)))
struct XMLToBinaryTests {
    typealias Outcome = Result<[UInt8], BinaryToXMLTests.Refusal>

    /// Decoding, then writing: the reference.
    static func decodedAndWritten(_ file: [UInt8]) -> Outcome {
        do throws(PropertyListError) {
            return .success(BinaryWriter.write(try PropertyList(decoding: file, format: .xml)).bytes())
        } catch {
            return .failure(.init(description: error.description))
        }
    }

    /// What `plutil` now does.
    static func converted(_ file: [UInt8]) -> Outcome {
        do throws(PropertyListError) { return .success(try PropertyList.binaryOutput(fromXML: file).bytes()) } catch {
            return .failure(.init(description: error.description))
        }
    }

    /// Converts `xml`, expects decoding's bytes, and returns the value they hold.
    @discardableResult
    static func expectSame(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) -> PropertyList? {
        let file = Array(xml.utf8)
        let expected = decodedAndWritten(file)
        #expect(converted(file) == expected, sourceLocation: sourceLocation)
        guard case .success(let bytes) = expected else { return nil }
        return try? PropertyList(decoding: bytes, format: .binary)
    }

    static func plist(_ body: String) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + body + "</plist>"
    }

    @Test("random documents of every kind of value: the same binary file as decoding and writing")
    func randomDocuments() throws {
        var values = RandomValues(rng: SeededRandom(seed: 2424), leafKinds: PropertyList.Kind.allCases)
        for _ in 0..<600 {
            let value = Bool.random(using: &values.rng) ? values.document() : values.value()
            let xml = try value.encoded(as: .xml)
            let expected = Self.decodedAndWritten(xml)
            guard case .success(let binary) = expected else {
                Issue.record("the XML writer's output did not read: \(value)")
                continue
            }
            #expect(Self.converted(xml) == expected)
            #expect(try PropertyList(decoding: binary, format: .binary) == value)
        }
    }

    @Test("keys are written in literal order, each once, the value met last kept; keys that look alike are two keys")
    func keys() throws {
        let v = Self.expectSame(Self.plist("""
            <dict><key>b</key><integer>1</integer><key>a</key><string>x</string><key>b</key><integer>2</integer>
            <key>\u{E9}</key><true/><key>e\u{301}</key><false/><key>\u{E000}</key><string>p</string>
            <key>\u{1F600}</key><string>q</string><key/><string>empty</string></dict>
            """))
        #expect(v?["b"] == 2)
        #expect(v?["\u{E9}"] == true)
        #expect(v?["e\u{301}"] == false)
        #expect(v.map { if case .dictionary(let d) = $0 { d.count } else { 0 } } == 7)
        // The same keys again, in other orders and with other repeats: the
        // order remembered for a shape is only used for the same keys.
        let row = "<dict><key>k</key><integer>1</integer><key>j</key><integer>2</integer></dict>"
        let repeated = "<dict><key>k</key><integer>1</integer><key>k</key><integer>3</integer></dict>"
        let reversed = "<dict><key>j</key><integer>2</integer><key>k</key><integer>1</integer></dict>"
        let rows = Array(repeating: row, count: 4) + [repeated, reversed, row, repeated]
        let w = Self.expectSame(Self.plist("<array>" + rows.joined() + "</array>"))
        #expect(w?[4]?["k"] == 3)
        #expect(w?[5]?["j"] == 2)
    }

    @Test("CF$UID dictionaries are UIDs only when they hold one integer up to 2^32-1")
    func uids() throws {
        let cases = [
            "<dict><key>CF$UID</key><integer>7</integer></dict>",
            "<dict><key>CF$UID</key><integer>4294967295</integer></dict>",
            "<dict><key>CF$UID</key><integer>4294967296</integer></dict>",
            "<dict><key>CF$UID</key><integer>-1</integer></dict>",
            "<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>",
            "<dict><key>CF$UID</key><string>7</string></dict>",
            "<dict><key>CF$UID</key><integer>7</integer><key>x</key><integer>7</integer></dict>",
            "<dict><key>CF$UI&#x44;</key><integer>7</integer></dict>",
        ]
        var uids = 0
        for c in cases {
            let v = Self.expectSame(Self.plist("<array>\(c)<integer>7</integer>\(c)</array>"))
            if case .uid = v?[0] { uids += 1 }
        }
        #expect(uids == 3)
    }

    @Test("numbers are written once per kind and bits; texts with entities, CDATA and comments; empty elements; other encodings")
    func valuesAndText() throws {
        Self.expectSame(Self.plist("""
            <array><integer>1</integer><real>1</real><integer> 0x1 </integer><real>1.0</real><date>2001-01-01T00:00:01Z</date>
            <real>0</real><real>-0</real><real>nan</real><real>-inf</real><integer>18446744073709551615</integer>
            <integer>-9223372036854775808</integer><true/><false/><true></true><true/>
            <string>a&amp;b&#x1F600;<![CDATA[<x>]]><!-- c -->d</string><string>a&amp;b&#x1F600;&lt;x>d</string>
            <string/><data/><data>AAEC
              Aw==</data><data>AAECAw==</data><dict/><array/><dict></dict>
            <string>\u{E9}t\u{E9}</string><string>\u{E9}t\u{E9}</string></array>
            """))
        for top in ["<string>alone</string>", "<integer>5</integer>", "<array/>", "<dict/>", "<data>AA==</data>"] {
            Self.expectSame(Self.plist(top))
            Self.expectSame(top)
        }
        // UTF-16 with a byte-order mark.
        let utf16 = [UInt8]([0xFF, 0xFE]) + Self.plist("<dict><key>\u{E9}</key><string>x</string></dict>").utf16.flatMap {
            [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)]
        }
        #expect(Self.converted(utf16) == Self.decodedAndWritten(utf16))
        #expect((try? Self.converted(utf16).get()) != nil)
    }

    @Test("a large document, whose buffers and number table are advised for large pages: the same bytes as decoding and writing")
    func largeDocument() throws {
        // 150,000 distinct numbers: the number table is 262,144 slots (4 MiB, advised); the
        // document's 6 MB make the builder's reserved buffers larger than 4 MiB too.
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array>"#
        xml.reserveCapacity(7_000_000)
        for k in 0..<150_000 {
            xml += "<dict><key>n</key><integer>\(k &* 7_919 &- 500_000)</integer><key>r</key><real>\(Double(k) / 8)</real>"
            xml += "<key>s</key><string>s\(k % 1_000)</string><key>d</key><data>AAEC</data></dict>"
        }
        xml += "</array></plist>"
        let file = Array(xml.utf8)
        #expect(file.count > 6_000_000)
        let expected = Self.decodedAndWritten(file)
        guard case .success(let bytes) = expected else {
            Issue.record("the document did not decode: \(expected)")
            return
        }
        #expect(Self.converted(file) == expected)
        guard case .array(let items) = try PropertyList(decoding: bytes, format: .binary) else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == 150_000)
        let last: Int64 = 149_999 * 7_919 - 500_000
        #expect(items.last == .dictionary(["n": .integer(.init(last)), "r": .real(149_999.0 / 8),
                                           "s": .string("s999"), "d": .data(Data([0, 1, 2]))]))
    }

    @Test("nesting to 512 levels is read, past it refused with decoding's error")
    func depth() throws {
        for levels in [511, 512, 513] {
            let xml = Self.plist(String(repeating: "<array>", count: levels) + String(repeating: "</array>", count: levels))
            let expected = Self.decodedAndWritten(Array(xml.utf8))
            #expect(Self.converted(Array(xml.utf8)) == expected)
            if case .failure = expected { #expect(levels == 513) } else { #expect(levels <= 512) }
        }
    }

    @Test("ten thousand damaged documents: the same bytes or the same error as decoding and writing")
    func damagedDocuments() throws {
        var values = RandomValues(rng: SeededRandom(seed: 78), leafKinds: PropertyList.Kind.allCases)
        var seeds: [[UInt8]] = []
        for _ in 0..<20 { seeds.append(try values.document().encoded(as: .xml)) }
        seeds.append(Array(Self.plist("<dict><key>CF$UID</key><integer>1</integer><key>a&amp;</key><![CDATA[x]]></dict>").utf8))
        var read = 0
        let pieces = Array("<>/&;![]CDATA#x-key dict array string integer real date data true false".utf8)
        for n in 0..<10_000 {
            var f = seeds[n % seeds.count]
            for _ in 0..<Int.random(in: 1...3, using: &values.rng) {
                let at = Int.random(in: 0..<f.count, using: &values.rng)
                switch Int.random(in: 0..<3, using: &values.rng) {
                case 0: f[at] = pieces.randomElement(using: &values.rng)!
                case 1: f.remove(at: at)
                default: f[at] = UInt8.random(in: 0...255, using: &values.rng)
                }
            }
            let expected = Self.decodedAndWritten(f)
            if case .success = expected { read += 1 }
            #expect(Self.converted(f) == expected)
        }
        #expect(read > 500 && read < 9_500, "\(read) of 10,000 damaged documents read")
    }

    @Test("the string table keeps each string once, by its exact bytes, and finds every one again")
    func stringTable() throws {
        var table = StringTable()
        var rng = SeededRandom(seed: 9)
        var made: [[UInt8]: Int] = [:]
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...40, using: &rng)
            let s = Array(String((0..<n).map { _ in "ab\u{E9}e\u{301}😀".randomElement(using: &rng)! }).utf8)
            let k = try #require(s.withUnsafeBytes { table.intern($0) })
            if let before = made[s] { #expect(before == k) } else { made[s] = k }
        }
        #expect(table.count == made.count)
        table._checkInvariants()
        // Strings of 1 to 15 bytes are found by their bytes as two words (the count
        // in the last byte): one byte changed anywhere is another string.
        for n in 1...16 {
            var base = (0..<n).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            let first = try #require(base.withUnsafeBytes { table.intern($0) })
            for at in 0..<n {
                let kept = base[at]
                base[at] = kept == 0x7E ? 0x20 : kept + 1
                let other = try #require(base.withUnsafeBytes { table.intern($0) })
                #expect(other != first, "\(n) bytes, byte \(at) changed")
                base[at] = kept
            }
            #expect(base.withUnsafeBytes { table.intern($0) } == first)
        }
        table._checkInvariants()
        // Not UTF-8: refused, and nothing is added.
        let count = table.count
        #expect([UInt8]([0x61, 0xC3]).withUnsafeBytes { table.intern($0) } == nil)
        #expect(table.count == count)
    }

    @Test("the corpus: every XML file, and every readable file written as XML", .requires(.shared))
    func corpus() async throws {
        try await offThePool { () throws in
            var xml = 0, rewritten = 0
            for (name, bytes) in plistCorpusFiles() {
                if PropertyListFormat.detect(bytes) == .xml {
                    xml += 1
                    #expect(Self.converted(bytes) == Self.decodedAndWritten(bytes), "\(name)")
                } else if let v = try? PropertyList(decoding: bytes), let again = try? v.encoded(as: .xml) {
                    rewritten += 1
                    #expect(Self.converted(again) == Self.decodedAndWritten(again), "\(name)")
                }
            }
            #expect(xml > 100 && rewritten > 100, "\(xml) XML files, \(rewritten) rewritten")
        }
    }
}
