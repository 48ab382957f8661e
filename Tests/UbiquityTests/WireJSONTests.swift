import Foundation
import OpenDefaultsUbiquity
import Testing
import TestSupport
import UbiquityServer
import PropertyList

/// The commit path's JSON by hand (``WireJSON``) against Foundation's coders:
/// the same answers, and every request either read the same or left to `JSONDecoder`.
@Suite("ubiquity serve: the commit path's JSON, by hand", .exclusive(.servers), .timeLimit(.minutes(10)))
struct WireJSONTests {
    static let awkward = ["plain", "with \"quotes\"", "back\\slash", "line\nbreak\ttab\r", "\u{01}\u{1F}control", "ünïcødé ✓ 🎉", "a/b", ""]

    /// What JSONEncoder writes with sorted keys, its `\/` read as `/` (JSON allows either).
    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }

    @Test("a commit's answer is JSONEncoder's, byte for byte: sorted keys, absent values and refusals left out, strings escaped")
    func commitAnswers() throws {
        for text in Self.awkward {
            let entry = UbiquityWireEntry(key: text, revision: 42, value: "YnBsaXN0MDAQAQgAAAAAAAABAQAAAAAAAAABAAAAAAAAAAAAAAAAAAAACg==")
            let removed = UbiquityWireEntry(key: text + "x", revision: 7, value: nil)
            let answers = [
                UbiquityCommitResponse(revision: 43, refusal: nil, results: [UbiquityWireResult(status: .applied, entry: entry),
                                                                              UbiquityWireResult(status: .conflict, entry: removed)]),
                UbiquityCommitResponse(revision: 0, refusal: "refused: \(text)", results: [UbiquityWireResult(status: .refused, entry: removed)]),
                UbiquityCommitResponse(revision: Int64.max, refusal: nil, results: []),
            ]
            for answer in answers {
                #expect(String(decoding: WireJSON.encode(answer), as: UTF8.self) == (try Self.foundation(answer)))
            }
        }
    }

    @Test("a changes answer is JSONEncoder's, byte for byte")
    func changesAnswers() throws {
        let entries = Self.awkward.enumerated().map { i, text in UbiquityWireEntry(key: text, revision: Int64(i), value: i % 2 == 0 ? text : nil) }
        for answer in [UbiquityChangesResponse(revision: 9, complete: false, entries: entries),
                       UbiquityChangesResponse(revision: 0, complete: true, entries: [])] {
            #expect(String(decoding: WireJSON.encode(answer), as: UTF8.self) == (try Self.foundation(answer)))
        }
    }

    @Test("a client's request, written by hand, decodes (JSONDecoder) to the request, and the server reads it without JSONDecoder")
    func requestsWrittenByHand() throws {
        for text in Self.awkward {
            let request = UbiquityCommitRequest(changes: [
                UbiquityWireChange(key: text, base: 0, value: UbiquityWireValue.encode(.string(text))),
                UbiquityWireChange(key: text + "2", base: -1, value: nil),
                UbiquityWireChange(key: "k/\(text)", base: Int64.max, value: "ab/cd+ef=="),
            ])
            let body = request.jsonBytes
            #expect(try JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(body)) == request, "\(String(decoding: body, as: UTF8.self))")
            // The fast reader leaves `\u` escapes (control characters other than \n, \t, \r) to JSONDecoder.
            if !text.unicodeScalars.contains(where: { $0.value < 0x20 && !"\n\t\r".unicodeScalars.contains($0) }) {
                #expect(WireJSON.commitRequest(body) == request, "\(String(decoding: body, as: UTF8.self))")
            }
        }
        #expect(UbiquityCommitRequest(changes: []).jsonBytes == Array(#"{"changes":[]}"#.utf8))
        #expect(UbiquityCommitRequest(changes: [UbiquityWireChange(key: "a", base: 3, value: nil)]).jsonBytes
                == Array(#"{"changes":[{"key":"a","base":3}]}"#.utf8))
    }

    @Test("the requests clients send (JSONEncoder's, `\\/` included) are read without JSONDecoder, to the same value")
    func usualRequests() throws {
        for text in Self.awkward where !text.unicodeScalars.contains(where: { $0.value < 0x20 && !"\n\t\r".unicodeScalars.contains($0) }) {
            let request = UbiquityCommitRequest(changes: [
                UbiquityWireChange(key: text, base: 0, value: UbiquityWireValue.encode(.string(text))),
                UbiquityWireChange(key: text + "2", base: 123_456_789_012, value: nil),
                UbiquityWireChange(key: "k", base: Int64.max, value: "ab/cd+ef=="),
            ])
            let body = [UInt8](try JSONEncoder().encode(request))
            #expect(WireJSON.commitRequest(body) == request, "\(String(decoding: body, as: UTF8.self))")
        }
        let spaced = Array(" {\n \"changes\" : [ { \"value\" : null , \"base\" : -0 , \"key\" : \"a\" } ] }\r\n".utf8)
        #expect(WireJSON.commitRequest(spaced) == UbiquityCommitRequest(changes: [UbiquityWireChange(key: "a", base: 0, value: nil)]))
    }

    @Test("anything else is left to JSONDecoder: never read differently from it, never accepted where it fails")
    func everythingElse() throws {
        let bodies = [
            #"{"changes":[],"extra":1}"#, #"{"changes":[{"key":"a","base":1,"other":2}]}"#, #"{"changes":[{"key":"a","key":"b","base":1}]}"#,
            #"{"changes":[{"key":"\u0041","base":1}]}"#, #"{"changes":[{"key":"a","base":1.0}]}"#, #"{"changes":[{"key":"a","base":1e2}]}"#,
            #"{"changes":[{"key":"a","base":01}]}"#, #"{"changes":[{"key":"a","base":99999999999999999999}]}"#,
            #"{"changes":[{"key":"a"}]}"#, #"{"changes":[{"base":1}]}"#, #"{"changes":null}"#, #"{"changes":[{"key":null,"base":1}]}"#,
            #"{"changes":[{"key":"a","base":1}]} x"#, #"{"changes":[{"key":"a","base":1},]}"#, "{\"changes\":[{\"key\":\"a\u{01}\",\"base\":1}]}",
            #"[]"#, #""#, #"{"#, #"{"changes":[{"key":"a","base":"1"}]}"#, #"{"changes":[{"key":"a","base":1,"value":5}]}"#,
        ].map { Array($0.utf8) } + [[0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]]
        // Every prefix of a usual request as well: cut anywhere, it is never read as something else.
        let usual = [UInt8](try JSONEncoder().encode(UbiquityCommitRequest(changes: [
            UbiquityWireChange(key: "some key", base: 12, value: "YWJj"), UbiquityWireChange(key: "gone", base: 3, value: nil)])))
        var decodedByFoundation = 0
        for body in bodies + (0..<usual.count).map({ Array(usual[..<$0]) }) {
            let decoded = try? JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(body))
            if decoded != nil { decodedByFoundation += 1 }
            // Each of these leaves the fast path: it gives up, and JSONDecoder answers alone.
            let fast = WireJSON.commitRequest(body)
            #expect(fast == nil, "\(String(decoding: body, as: UTF8.self)): read as \(String(describing: fast)), JSONDecoder: \(String(describing: decoded))")
        }
        // Some of them JSONDecoder reads (an unknown key, `\u0041`, a base of 1.0 or 1e2): the fast
        // path gives up on what it was not made for, not only on what is malformed.
        #expect(decodedByFoundation >= 4, "\(decodedByFoundation)")
    }

    @Test("keys in ASCII, in other UTF-8 and in bytes that are not UTF-8: read exactly, or left to JSONDecoder, which refuses what is not UTF-8")
    func keysByTheirBytes() throws {
        for key in ["volume", "caf\u{E9}", "cafe\u{301}", "\u{1F600}", "\u{7F}x", "k\u{80}"] {
            let body = Array(#"{"changes":[{"key":""#.utf8) + Array(key.utf8) + Array(#"","base":0}]}"#.utf8)
            let read = try #require(WireJSON.commitRequest(body), "\(key)")
            #expect(Array(read.changes[0].key.unicodeScalars) == Array(key.unicodeScalars), "\(key)")
            #expect(read == (try JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(body))))
        }
        // A lone continuation byte, a truncated sequence, an overlong form: not UTF-8.
        for bad: [UInt8] in [[0x80], [0xC3], [0xC3, 0x28], [0xC0, 0xAF], [0x61, 0xFF, 0x62]] {
            let body = Array(#"{"changes":[{"key":""#.utf8) + bad + Array(#"","base":0}]}"#.utf8)
            #expect(WireJSON.commitRequest(body) == nil, "\(bad)")
            #expect((try? JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(body))) == nil, "\(bad)")
        }
    }

    @Test("random damage to a usual request: whatever the fast path reads, JSONDecoder reads the same (never more, never otherwise)")
    func randomDamage() throws {
        let usual = [UInt8](try JSONEncoder().encode(UbiquityCommitRequest(changes: [
            UbiquityWireChange(key: "caf\u{E9} k", base: 12, value: "YWJj"), UbiquityWireChange(key: "gone", base: 3, value: nil)])))
        var generator = SystemRandomNumberGenerator()
        var readFast = 0
        for _ in 0..<20_000 {
            var body = usual
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = Int.random(in: 0..<body.count, using: &generator)
                // Bytes of every kind: structure, quotes and escapes, controls, UTF-8 lead and continuation bytes.
                let byte = [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: ","), UInt8(ascii: "}"), 0x01, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF,
                            UInt8.random(in: 0x20...0x7E, using: &generator)].randomElement(using: &generator)!
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: body[at] = byte
                case 1: body.insert(byte, at: at)
                default: if body.count > 1 { body.remove(at: at) }
                }
            }
            guard let fast = WireJSON.commitRequest(body) else { continue }
            readFast += 1
            let decoded = try? JSONDecoder().decode(UbiquityCommitRequest.self, from: Data(body))
            #expect(decoded == fast, "\(body): fast \(fast), JSONDecoder \(String(describing: decoded))")
            if let decoded, decoded == fast {
                #expect(zip(decoded.changes, fast.changes).allSatisfy { Array($0.key.unicodeScalars) == Array($1.key.unicodeScalars) })
            }
        }
        // Some damage leaves a request still read by the fast path (a changed letter of a key or value).
        #expect(readFast > 100, "\(readFast)")
    }
}
