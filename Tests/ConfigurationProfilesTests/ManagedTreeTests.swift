import Foundation
import Testing
@testable import ConfigurationProfiles
import PropertyList

/// What installed profiles add up to, without files: precedence, conflicts, set-once entries.
@Suite("Configuration profiles: what installed profiles add up to", .timeLimit(.minutes(10)))
struct ManagedTreeTests {
    static func record(_ id: String, _ target: ProfileTarget, _ sequence: Int) -> InstalledProfile {
        InstalledProfile(identifier: id, displayName: id, uuid: "", version: 1, target: target, removalDisallowed: false, sequence: sequence,
                         installedAt: Date(timeIntervalSinceReferenceDate: Double(sequence)), signature: .unsigned, file: "\(sequence).mobileconfig",
                         forcedKeys: [:], setOnceKeys: [:], ignoredPayloads: [])
    }

    static func forcing(_ values: [LiteralString: PropertyList], in domain: String = "com.example.app") -> ManagedPreferences {
        var p = ManagedPreferences()
        p.forced[domain] = values
        return p
    }

    @Test("within a target the latest installed wins, whatever the order given; the loser is a named conflict")
    func latestWins() {
        let a = (Self.record("a", .system, 1), Self.forcing(["Level": 1, "Only": "a"]))
        let b = (Self.record("b", .system, 2), Self.forcing(["Level": 2]))
        for order in [[a, b], [b, a]] {
            let tree = ManagedTree.derive(order.map { (record: $0.0, preferences: $0.1) })
            #expect(tree.forced[.system]?["com.example.app"] == ["Level": 2, "Only": "a"])
            #expect(tree.forcedBy[.system]?["com.example.app"] == ["Level": "b", "Only": "a"])
            #expect(tree.conflicts == [ProfileConflict(target: .system, domain: "com.example.app", key: "Level", winner: "b", overridden: ["a"])])
        }
    }

    @Test("the same value from two profiles is no conflict; different targets never conflict")
    func noConflict() {
        let tree = ManagedTree.derive([
            (record: Self.record("a", .system, 1), preferences: Self.forcing(["Level": 1])),
            (record: Self.record("b", .system, 2), preferences: Self.forcing(["Level": 1])),
            (record: Self.record("c", .user("ada"), 3), preferences: Self.forcing(["Level": 9])),
        ])
        #expect(tree.conflicts.isEmpty)
        #expect(tree.forced[.system]?["com.example.app"] == ["Level": 1])
        #expect(tree.forced[.user("ada")]?["com.example.app"] == ["Level": 9])
    }

    @Test("keys that look alike are two keys (NFC and NFD): no conflict between them")
    func literalKeys() {
        let tree = ManagedTree.derive([
            (record: Self.record("a", .system, 1), preferences: Self.forcing([LiteralString("caf\u{E9}"): 1])),
            (record: Self.record("b", .system, 2), preferences: Self.forcing([LiteralString("cafe\u{301}"): 2])),
        ])
        #expect(tree.conflicts.isEmpty)
        #expect(tree.forced[.system]?["com.example.app"]?.count == 2)
    }

    @Test("set-once entries keep install order, their timestamp and Often")
    func setOnce() {
        var p = ManagedPreferences()
        p.setOnce = ["com.example.app": ["Theme": "dark"], "com.example.other": ["X": 1]]
        p.setOnceTimestamps = ["com.example.app": .date(Date(timeIntervalSinceReferenceDate: 5))]
        p.often = ["com.example.other"]
        let tree = ManagedTree.derive([(record: Self.record("a", .system, 1), preferences: p)])
        #expect(tree.setOnce[.system] == [
            SetOnceEntry(profile: "a", domain: "com.example.app", timestamp: Date(timeIntervalSinceReferenceDate: 5), often: false, values: ["Theme": "dark"]),
            SetOnceEntry(profile: "a", domain: "com.example.other", timestamp: nil, often: true, values: ["X": 1]),
        ])
    }
}
