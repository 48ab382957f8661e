import Foundation
import Testing
@testable import PropertyList

@Suite("Codable straight to and from the value", .timeLimit(.minutes(10)))
struct CodableTests {
    enum Transport: String, Codable { case http, smtp }

    struct Settings: Codable, Equatable {
        var username: String
        var warpFactor: Int
        var ratio: Double
        var enabled: Bool
        var proto: Transport
        var tags: [String]
        var limits: [String: Int]
        var nickname: String?
        var created: Date
        var avatar: Data
        var homepage: URL
        var nested: [Inner]
        struct Inner: Codable, Equatable { var x: Int8; var y: UInt64 }
    }

    static let sample = Settings(
        username: "ada", warpFactor: 5, ratio: 0.5, enabled: true, proto: .smtp, tags: ["a", "b"],
        limits: ["max": 10], nickname: nil, created: Date(timeIntervalSinceReferenceDate: 100),
        avatar: Data([1, 2]), homepage: URL(string: "https://example.com/a")!, nested: [.init(x: -3, y: .max)])

    @Test("a struct becomes a dictionary that shows in defaults read")
    func encoding() throws {
        let v = try PropertyListValueEncoder().encode(Self.sample)
        #expect(v == [
            "username": "ada", "warpFactor": 5, "ratio": 0.5, "enabled": true, "proto": "smtp", "tags": ["a", "b"],
            "limits": ["max": 10], "created": .date(Date(timeIntervalSinceReferenceDate: 100)), "avatar": .data(Data([1, 2])),
            "homepage": "https://example.com/a", "nested": [["x": -3, "y": PropertyList(UInt64.max)]],
        ])
        #expect(v["nickname"] == nil)
    }

    @Test("decoding gives the struct back")
    func roundTrip() throws {
        let v = try PropertyListValueEncoder().encode(Self.sample)
        #expect(try PropertyListValueDecoder().decode(Settings.self, from: v) == Self.sample)
        // and through bytes
        let again = try PropertyList(decoding: v.encoded(as: .binary))
        #expect(try PropertyListValueDecoder().decode(Settings.self, from: again) == Self.sample)
    }

    @Test("type mismatches and missing keys name the coding path")
    func errors() throws {
        var v = try PropertyListValueEncoder().encode(Self.sample)
        try v.set("five", at: "warpFactor")
        do {
            _ = try PropertyListValueDecoder().decode(Settings.self, from: v)
            Issue.record("expected an error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["warpFactor"])
        }
        try v.remove(at: "username")
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Settings.self, from: v) }
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Int8.self, from: 300) }
    }

    @Test("scalars, arrays and the value itself encode directly")
    func topLevel() throws {
        #expect(try PropertyListValueEncoder().encode(3) == 3)
        #expect(try PropertyListValueEncoder().encode(["a", "b"]) == ["a", "b"])
        #expect(try PropertyListValueEncoder().encode(PropertyList.uid(3)) == .uid(3))
        #expect(try PropertyListValueDecoder().decode(Double.self, from: 2) == 2.0)
        #expect(try PropertyListValueDecoder().decode(Int.self, from: 2.0) == 2)
        #expect(throws: (any Error).self) { try PropertyListValueEncoder().encode(Optional<Int>.none) }
    }

    @Test("PropertyList is Codable with other coders too")
    func jsonCoder() throws {
        let v: PropertyList = ["a": [1, "x", true, 2.5]]
        let data = try JSONEncoder().encode(v)
        #expect(try JSONDecoder().decode(PropertyList.self, from: data) == v)
    }
}
