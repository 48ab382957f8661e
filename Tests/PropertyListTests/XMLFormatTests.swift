import Foundation
import Testing
import TestSupport
@testable import PropertyList

@Suite("XML format", .timeLimit(.minutes(10)))
struct XMLFormatTests {
    @Test("what follows the top-level element is not read, as CoreFoundation does (NUL padding, a second element)")
    func trailingContentIgnored() throws {
        let doc = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>"#
        #expect(try PropertyList(decoding: Array(doc.utf8) + [0, 0, 0, 0]) == ["a": 1])
        #expect(try PropertyList(decoding: Array((doc + "<plist><string>x</string></plist>").utf8)) == ["a": 1])
        // Inside the element, nothing is skipped: a second object in <plist> is still an error.
        #expect(throws: PropertyListError.self) {
            try PropertyList(decoding: Array("<plist><dict/><dict/></plist>".utf8))
        }
    }

    @Test("the writer produces Apple's bytes")
    func applesLayout() throws {
        let v: PropertyList = [
            "b": ["x": true, "y": false], "e": [:], "ea": [], "i": -5, "r": 0.5, "r1": 1.0,
            "s": "<a & b>", "d": .data(Data("<binary gunk>".utf8)), "t": .date(Date(timeIntervalSinceReferenceDate: 120_000_000)),
        ]
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>b</key>
            \t<dict>
            \t\t<key>x</key>
            \t\t<true/>
            \t\t<key>y</key>
            \t\t<false/>
            \t</dict>
            \t<key>d</key>
            \t<data>
            \tPGJpbmFyeSBndW5rPg==
            \t</data>
            \t<key>e</key>
            \t<dict/>
            \t<key>ea</key>
            \t<array/>
            \t<key>i</key>
            \t<integer>-5</integer>
            \t<key>r</key>
            \t<real>0.5</real>
            \t<key>r1</key>
            \t<real>1</real>
            \t<key>s</key>
            \t<string>&lt;a &amp; b&gt;</string>
            \t<key>t</key>
            \t<date>2004-10-20T21:20:00Z</date>
            </dict>
            </plist>

            """
        #expect(text(try v.encoded(as: .xml)) == expected)
    }

    @Test("base64 lines are 76 - 8 x depth characters wide, as Cocoa writes them", .requires(.shared))
    func base64Layout() throws {
        let corpus = try #require(sharedDirectory).appendingPathComponent("corpora/plist/files/cpython/TESTDATA_xml.plist")
        let original = try Data(contentsOf: corpus)
        let value = try PropertyList(decoding: original)
        // Cocoa wrote this file: our writer reproduces it byte for byte.
        #expect(text(try value.encoded(as: .xml)) == String(decoding: original, as: UTF8.self))
    }

    @Test("the reader takes entities, character references, CDATA, comments and processing instructions")
    func readerFeatures() throws {
        let v = try decode("""
            <?xml version="1.0"?>
            <!-- a comment -->
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>e</key><string>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</string>
              <key>c</key><string>a<![CDATA[<b> & c]]>d<!-- skipped --></string>
              <?pi ignored?>
              <key>empty</key><string/>
              <key>ws</key><string>  spaced  </string>
            </dict></plist>
            """)
        #expect(v["e"] == "<>&\"'AB😀")
        #expect(v["c"] == "a<b> & cd")
        #expect(v["empty"] == "")
        #expect(v["ws"] == "  spaced  ")
    }

    @Test("integers: sign, hexadecimal, whitespace, and the full 64-bit ranges", arguments: [
        ("<integer>42</integer>", PropertyList(42)),
        ("<integer> -0x10 </integer>", PropertyList(-16)),
        ("<integer>+ 7</integer>", PropertyList(7)),
        ("<integer>0XfF</integer>", PropertyList(255)),
        ("<integer>-9223372036854775808</integer>", PropertyList(Int64.min)),
        ("<integer>18446744073709551615</integer>", PropertyList(UInt64.max)),
    ])
    func integers(xml: String, expected: PropertyList) throws {
        #expect(try decode("<plist>\(xml)</plist>") == expected)
    }

    @Test("integers out of range or malformed are errors", arguments: [
        "<integer>18446744073709551616</integer>", "<integer>-9223372036854775809</integer>",
        "<integer>12a</integer>", "<integer></integer>", "<integer>0x</integer>", "<integer/>",
    ])
    func badIntegers(xml: String) {
        #expect(throws: PropertyListError.self) { try decode("<plist>\(xml)</plist>") }
    }

    @Test("reals: decimal, exponent, nan and infinities")
    func reals() throws {
        #expect(try decode("<plist><real>-2.5e3</real></plist>") == .real(-2500))
        #expect(try decode("<plist><real>nan</real></plist>") == .real(.nan))
        #expect(try decode("<plist><real>+infinity</real></plist>") == .real(.infinity))
        #expect(try decode("<plist><real>-inf</real></plist>") == .real(-.infinity))
        #expect(throws: PropertyListError.self) { try decode("<plist><real>1.5 </real></plist>") }
        #expect(throws: PropertyListError.self) { try decode("<plist><real>abc</real></plist>") }
        #expect(text(try PropertyList.real(.infinity).encoded(as: .xml)).contains("<real>+infinity</real>"))
        #expect(text(try PropertyList.real(0.1).encoded(as: .xml)).contains("<real>0.1</real>"))
        #expect(text(try PropertyList.real(1e16).encoded(as: .xml)).contains("<real>1e+16</real>"))
    }

    @Test("dates: exact form; out-of-range days carry over as CoreFoundation does")
    func dates() throws {
        #expect(try decode("<plist><date>2024-01-32T00:00:00Z</date></plist>") == decode("<plist><date>2024-02-01T00:00:00Z</date></plist>"))
        #expect(throws: PropertyListError.self) { try decode("<plist><date>2024-01-02</date></plist>") }
        #expect(throws: PropertyListError.self) { try decode("<plist><date>2024-01-02T03:04:05</date></plist>") }
    }

    @Test("data: base64 with whitespace")
    func data() throws {
        #expect(try decode("<plist><data>\n\tAAEC\n\tAw==\n</data></plist>") == .data(Data([0, 1, 2, 3])))
        #expect(try decode("<plist><data/></plist>") == .data(Data()))
    }

    @Test("a CF$UID dictionary is a UID, and a UID is written back as one")
    func uids() throws {
        let v = try decode("<plist><dict><key>CF$UID</key><integer>7</integer></dict></plist>")
        #expect(v == .uid(7))
        #expect(try PropertyList(decoding: v.encoded(as: .xml)) == .uid(7))
    }

    @Test("UTF-16 documents, with either byte order")
    func utf16() throws {
        let doc = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>été 😀</string></plist>"
        var le: [UInt8] = [0xFF, 0xFE]
        for u in doc.utf16 { le.append(UInt8(u & 0xFF)); le.append(UInt8(u >> 8)) }
        var be: [UInt8] = [0xFE, 0xFF]
        for u in doc.utf16 { be.append(UInt8(u >> 8)); be.append(UInt8(u & 0xFF)) }
        #expect(try PropertyList(decoding: le) == "été 😀")
        #expect(try PropertyList(decoding: be) == "été 😀")
    }

    @Test("errors name the line, the column and what was expected")
    func errors() throws {
        do {
            _ = try decode("<plist>\n<dict>\n  <key>a</key>\n  <strin>x</strin>\n</dict></plist>")
            Issue.record("expected an error")
        } catch {
            #expect(error.format == .xml)
            #expect(error.location == .lineColumn(line: 4, column: 3))
            #expect(error.description.contains("unknown element <strin>"))
        }
        #expect(throws: PropertyListError.self) { try decode("<plist><dict><key>a</key></dict></plist>") }
        #expect(throws: PropertyListError.self) { try decode("<plist></plist>") }
        #expect(throws: PropertyListError.self) { try decode("<plist><string>a</string><string>b</string></plist>") }
        #expect(throws: PropertyListError.self) { try decode("<plist><string>a</plist>") }
        #expect(throws: PropertyListError.self) { try decode("<plist><string>&bogus;</string></plist>") }
    }

    @Test("nesting deeper than 512 levels is refused, not a stack overflow")
    func depth() throws {
        let deep = String(repeating: "<array>", count: 100_000)
        #expect(throws: PropertyListError.self) { try decode("<plist>\(deep)</plist>") }
        let ok = String(repeating: "<array>", count: 500) + String(repeating: "</array>", count: 500)
        #expect(try decode("<plist>\(ok)</plist>").kind == .array)
    }
}
