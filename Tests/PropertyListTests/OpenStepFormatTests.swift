import Foundation
import Testing
@testable import PropertyList

@Suite("Old-style (OpenStep) format", .timeLimit(.minutes(10)))
struct OpenStepFormatTests {
    @Test("dictionaries, arrays, data, quoted and unquoted strings, comments")
    func reading() throws {
        let v = try decode("""
            // a comment
            {
                name = "Ada Lovelace"; /* another */
                path = /usr/local/bin;
                list = (1, "two", <0fbd 7777>, ());
                'single' = 'quoted';
                nested = { a = b; };
            }
            """)
        #expect(v == [
            "name": "Ada Lovelace", "path": "/usr/local/bin",
            "list": ["1", "two", .data(Data([0x0F, 0xBD, 0x77, 0x77])), []],
            "single": "quoted", "nested": ["a": "b"],
        ])
    }

    @Test("escapes: named, octal through NeXTSTEP, and \\U with surrogate pairs")
    func escapes() throws {
        #expect(try decode(#""a\tb\n\"q\" \\ \101 \341 \U00e9 \UD83D\UDE00""#) == "a\tb\n\"q\" \\ A Æ é 😀")
        #expect(try decode(#""\q""#) == "q")
    }

    @Test("strings files: entries without braces, and the key; shortcut")
    func stringsFiles() throws {
        #expect(try decode(#""greeting" = "Hello"; "bye";"#) == ["greeting": "Hello", "bye": "bye"])
        #expect(try decode("   \n// nothing but a comment\n") == [:])
        #expect(throws: PropertyListError.self) { try decode("") }
    }

    @Test("a strings file stops at junk as CoreFoundation does, or fails when strict")
    func truncatedStrings() throws {
        let doc = utf8(#""a" = "1";= "b" = "2";"#)
        #expect(try PropertyList(decoding: doc) == ["a": "1"])
        #expect(throws: PropertyListError.self) {
            try PropertyList(decoding: doc, options: .init(rejectsTruncatedStringsFiles: true))
        }
    }

    @Test("GNUstep typed forms")
    func typed() throws {
        let v = try decode("{ i = <*I-12>; r = <*R1.5>; y = <*BY>; n = <*BN>; d = <*D2001-01-01 00:00:00 +0000>; }")
        #expect(v == ["i": -12, "r": 1.5, "y": true, "n": false, "d": .date(Date(timeIntervalSinceReferenceDate: 0))])
    }

    @Test("UTF-16 strings files with a byte-order mark")
    func utf16() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for u in #""clé" = "värde";"#.utf16 { bytes += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        #expect(try PropertyList(decoding: bytes) == ["clé": "värde"])
    }

    @Test("errors name the line and column and what was expected")
    func errors() {
        do {
            _ = try decode("{\n  a = b;\n  c = (1, 2\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.format == .openStep)
            #expect(error.location == .lineColumn(line: 4, column: 1))
            #expect(error.reason.contains("expected ',' or ')'"))
        }
        #expect(throws: PropertyListError.self) { try decode("{ a = b }") }
        #expect(throws: PropertyListError.self) { try decode("\"unterminated") }
        #expect(throws: PropertyListError.self) { try decode("<0f1>") }
        #expect(throws: PropertyListError.self) { try decode("(" + String(repeating: "(", count: 100_000)) }
    }

    @Test("the strict writer reads back to the same value")
    func strictRoundTrip() throws {
        let v: PropertyList = ["a b": ["x", 1, 2.5, true, .data(Data([1, 2, 3, 4, 5])), .date(Date(timeIntervalSinceReferenceDate: 86400))], "": "", "q": "\"\\\n\u{1}é"]
        #expect(try PropertyList(decoding: v.encoded(as: .openStep)) == v)
        #expect(throws: PropertyListError.self) { try PropertyList.uid(1).encoded(as: .openStep) }
    }
}

@Suite("The description form that defaults read prints", .timeLimit(.minutes(10)))
struct DescriptionTests {
    @Test("the layout of nested collections, as in the specification's sample")
    func nestedLayout() {
        let v: PropertyList = [
            "Default Color": [255, 0, 0],
            "persistent-apps": [["tile-type": "file-tile"]],
        ]
        #expect(v.description == """
            {
                "Default Color" =     (
                    255,
                    0,
                    0
                );
                "persistent-apps" =     (
                            {
                        "tile-type" = "file-tile";
                    }
                );
            }
            """)
    }

    @Test("leaves: bare or quoted strings, integers, quoted reals and dates, booleans as 1 and 0")
    func leaves() {
        let v: PropertyList = [
            "mod-count": 534, "loc": "en_US:BR", "scale": 1.5, "neg": -3, "on": true, "off": false,
            "cdat": .date(Date(timeIntervalSinceReferenceDate: 719_377_937)), "boot-args": "", "label": "Safari浏览器",
            "q": "say \"hi\"",
        ]
        #expect(v.description == """
            {
                "boot-args" = "";
                cdat = "2023-10-19 03:12:17 +0000";
                label = "Safari\\U6d4f\\U89c8\\U5668";
                loc = "en_US:BR";
                "mod-count" = 534;
                neg = "-3";
                off = 0;
                on = 1;
                q = "say \\"hi\\"";
                scale = "1.5";
            }
            """)
    }

    @Test("top-level values print bare; non-ASCII through the non-lossy ASCII encoding")
    func topLevel() {
        #expect(PropertyList("Mise à jour").description == #"Mise \340 jour"#)
        #expect(PropertyList("ā").description == #"\u0101"#)
        #expect(PropertyList("Mise à jour").description(options: .init(escapeNonASCII: false)) == "Mise à jour")
        #expect(PropertyList(1.5).description == "1.5")
        #expect(PropertyList(Float(0.1)).description == "0.1000000014901161")
        #expect(PropertyList(true).description == "1")
        #expect(PropertyList.date(Date(timeIntervalSinceReferenceDate: 0)).description == "2001-01-01 00:00:00 +0000")
        #expect(PropertyList.array([]).description == "(\n)")
        #expect(PropertyList.dictionary([:]).description == "{\n}")
    }

    @Test("data: whole up to 24 bytes, abbreviated beyond")
    func data() {
        #expect(PropertyList.data(Data([0xDE, 0xAD, 0xBE, 0xEF])).description == "{length = 4, bytes = 0xdeadbeef}")
        let long = Data((0..<920).map { UInt8(truncatingIfNeeded: $0) })
        #expect(PropertyList.data(long).description == "{length = 920, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 90919293 94959697 }")
        #expect(PropertyList.data(long).description(options: .init(fullData: true)).hasSuffix("9697}"))
    }
}
