import Foundation
import Testing
@testable import PropertyList

@Suite("JSON format", .timeLimit(.minutes(10)))
struct JSONFormatTests {
    @Test("reading: integers stay integers, other numbers are reals")
    func reading() throws {
        let v = try decode(#"{"i": 3, "big": 18446744073709551615, "r": 1.0, "e": 1e3, "s": "a\u00e9\ud83d\ude00\/", "b": [true, false]}"#, .json)
        #expect(v == ["i": 3, "big": PropertyList(UInt64.max), "r": 1.0, "e": 1000.0, "s": "aé😀/", "b": [true, false]])
    }

    @Test("null and malformed documents are errors with a position")
    func errors() {
        #expect(throws: PropertyListError.self) { try decode(#"{"a": null}"#, .json) }
        #expect(throws: PropertyListError.self) { try decode(#"{"a": 01}"#, .json) }
        #expect(throws: PropertyListError.self) { try decode(#"[1, 2"#, .json) }
        #expect(throws: PropertyListError.self) { try decode(#"{"a": "\ud83d"}"#, .json) }
    }

    @Test("writing: compact, or indented as plutil -r; slashes escaped")
    func writing() throws {
        let v: PropertyList = ["b": [1, 2], "a": "x/y"]
        #expect(text(try v.encoded(as: .json)) == #"{"a":"x\/y","b":[1,2]}"#)
        #expect(text(try v.encoded(as: .json, options: .init(prettyJSON: true))) == """
            {
              "a" : "x\\/y",
              "b" : [
                1,
                2
              ]
            }

            """)
    }

    @Test("dates, data and UIDs have no JSON form: the error names the key path")
    func unrepresentable() {
        do {
            let v: PropertyList = ["a": ["b": .data(Data())]]
            _ = try v.encoded(as: .json)
            Issue.record("expected an error")
        } catch {
            #expect(error.location == .keyPath("a.b"))
            #expect(error.reason.contains("data"))
        }
        #expect(throws: PropertyListError.self) { try PropertyList.date(Date()).encoded(as: .json) }
        #expect(throws: PropertyListError.self) { try PropertyList.real(.nan).encoded(as: .json) }
    }

    @Test("a leading brace is read as JSON or as old-style, whichever it is")
    func detection() throws {
        #expect(try decode(#"{"a": 1}"#) == ["a": 1])
        #expect(try decode(#"{ a = 1; }"#) == ["a": "1"])
        #expect(PropertyListFormat.detect(utf8("[1]")) == .json)
        #expect(PropertyListFormat.detect(utf8("<?xml version=\"1.0\"?>")) == .xml)
        #expect(PropertyListFormat.detect(utf8("<dict/>")) == .xml)
        #expect(PropertyListFormat.detect(utf8("<0fbd>")) == .openStep)
        #expect(PropertyListFormat.detect(utf8("bplist00")) == .binary)
    }
}
