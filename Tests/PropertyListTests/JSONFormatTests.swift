import Foundation
import Testing
import TestSupport
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

    @Test("every number reads as Double(_:) or the integer reader reads its text: the reader's fast paths change no bit")
    func numbersAsTheSlowPathReadsThem() throws {
        var random = SeededRandom()
        for round in 0..<40_000 {
            // Up to 20 digits, a fraction somewhere or none, an exponent or none.
            let count = Int.random(in: 1...20, using: &random)
            var digits = (0..<count).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            if digits.count > 1, digits.first == "0", Bool.random(using: &random) { digits.removeFirst() }
            if digits.count > 1, digits.first == "0" { digits = "1" + digits.dropFirst() }
            var text = (Bool.random(using: &random) ? "-" : "") + digits
            if Int.random(in: 0...2, using: &random) > 0 {
                let fraction = (0..<Int.random(in: 1...18, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
                text += "." + fraction
            }
            if Bool.random(using: &random) {
                text += ["e", "E"].randomElement(using: &random)! + ["", "+", "-"].randomElement(using: &random)!
                text += String(Int.random(in: 0...(Bool.random(using: &random) ? 25 : 400), using: &random))
            }
            let read = try decode("[\(text)]", .json)
            let expected: PropertyList
            let isInteger = !text.contains(".") && !text.lowercased().contains("e")
            if isInteger, let n = text.utf8.withContiguousStorageIfAvailable({ NumberParsing.integer(UnsafeRawBufferPointer($0)) }) ?? nil {
                expected = .integer(n)
            } else {
                expected = .real(Double(text)!)
            }
            guard case .array(let elements) = read, elements.count == 1 else { Issue.record("\(text) read as \(read)"); return }
            switch (elements[0], expected) {
            case (.real(let a), .real(let b)):
                #expect(a.bitPattern == b.bitPattern, "seed \(random.seed), round \(round): \(text) read as \(a), Double(_:) reads \(b)")
            default:
                #expect(elements[0] == expected, "seed \(random.seed), round \(round): \(text) read as \(elements[0]), expected \(expected)")
            }
        }
    }

    @Test("strings of any bytes: what is escaped reads back, a raw quote, backslash or control character is found wherever it lies")
    func stringsOfAnyBytes() throws {
        var random = SeededRandom()
        let pieces: [String] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\u{1}", "\u{1F}", "\u{7F}", "é", "名", "😀", "\u{FFFD}"]
        for round in 0..<20_000 {
            let value = (0..<Int.random(in: 0...40, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            var quoted: [UInt8] = []
            JSONEscape.appendQuoted(value, to: &quoted, escapingSlash: Bool.random(using: &random))
            let read = try PropertyList(decoding: quoted, format: .json)
            #expect(read == .string(value), "seed \(random.seed), round \(round): \(value.debugDescription)")
            // The same text with a raw control character put somewhere inside is refused.
            let at = Int.random(in: 1..<quoted.count, using: &random)
            var raw = quoted
            raw.insert(UInt8.random(in: 0..<0x20, using: &random), at: at)
            #expect(throws: PropertyListError.self, "seed \(random.seed), round \(round): a raw control character at \(at)") {
                try PropertyList(decoding: raw, format: .json)
            }
        }
    }

    @Test("a string's bytes are UTF-8 exactly when String(validating:) says so")
    func utf8AsTheStandardLibraryDecides() {
        var random = SeededRandom()
        // Bytes that make ill-formed sequences often: lead bytes, continuations, ASCII, overlongs.
        let bytes: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0, 0x9F, 0xBD]
        for round in 0..<50_000 {
            let b = (0..<Int.random(in: 0...12, using: &random)).map { _ in bytes.randomElement(using: &random)! }
            let ours = b.withUnsafeBytes { UTF8Text.string($0) }
            let theirs = String(validating: b, as: UTF8.self)
            #expect(ours == theirs, "seed \(random.seed), round \(round): \(b)")
            #expect(ours.map { Array($0.utf8) == b } ?? true)
        }
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
