import Foundation
import LookalikeStrings
import Testing
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// Preference keys are Apple's strings: two keys that look alike but differ in
/// their scalars are two keys in a domain, a search list, the journal, and
/// across processes (CFPreferences compares code unit by code unit).
@Suite("Lookalike keys stay two keys", .timeLimit(.minutes(10)), .serialized)
struct LiteralKeyTests {
    @Test("a Defaults object keeps lookalike keys apart in every domain of its search list")
    func searchList() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        var gen = Lookalikes()
        let d = Defaults(domainName: "com.example.lookalike", store: store, arguments: [])
        let values = gen.dictionary()
        for (key, value) in values { d.setPropertyList(value, forKey: key.string) }
        for (key, value) in values {
            let read = d.propertyList(forKey: key.string)
            #expect(read.map { Lookalikes.sameScalars($0, value) } == true, "seed \(gen.seed): \(Lookalikes.describe(.string(key.string)))")
        }
        let shown = d.values().filter { values[$0.key] != nil }
        #expect(Lookalikes.sameScalars(.dictionary(shown), .dictionary(values)), "seed \(gen.seed)")
        // Removing one of two lookalikes leaves the other.
        d.removeObject(forKey: "caf\u{E9}")
        d.setPropertyList("composed", forKey: "caf\u{E9}")
        d.setPropertyList("decomposed", forKey: "cafe\u{301}")
        d.removeObject(forKey: "caf\u{E9}")
        #expect(d.propertyList(forKey: "caf\u{E9}") == nil)
        #expect(d.propertyList(forKey: "cafe\u{301}") == .string("decomposed"))
        // Registration and volatile domains.
        d.setVolatileDomainValues(["\u{340}": "grave tone", "\u{300}": "grave"], forName: "Lookalikes")
        #expect(d.volatileDomainValues(forName: "Lookalikes").count == 2)
        try? FileManager.default.removeItem(atPath: sandbox.path("com.example.lookalike"))
    }

    @Test("domain and suite names that look alike are two domains and two suites in one process, as on disk")
    func lookalikeDomains() throws {
        let sandbox = try Sandbox()
        let store = sandbox.makeStore()
        let composed = "com.example.caf\u{E9}", decomposed = "com.example.cafe\u{301}"
        let a = Defaults(domainName: composed, store: store, arguments: [])
        let b = Defaults(domainName: decomposed, store: store, arguments: [])
        a.set(1, forKey: "Which")
        b.set(2, forKey: "Which")
        #expect(a.integer(forKey: "Which") == 1)
        #expect(b.integer(forKey: "Which") == 2)
        #expect(store.domain(composed) !== store.domain(decomposed))
        #expect(a.synchronize() && b.synchronize())
        // Two files, each with its own value, read back by a fresh store.
        let fresh = sandbox.makeStore()
        #expect(fresh.domain(composed).value(forKey: "Which") == .integer(1))
        #expect(fresh.domain(decomposed).value(forKey: "Which") == .integer(2))
        // Suites: a lookalike of an application's own name may be its suite; removing a
        // lookalike of a suite leaves the suite.
        a.addSuite(named: decomposed)
        #expect(a.suites.map { Array($0.unicodeScalars) } == [Array(decomposed.unicodeScalars)])
        a.addSuite(named: "group.caf\u{E9}")
        a.removeSuite(named: "group.cafe\u{301}")
        #expect(a.suites.count == 2)
        b.set(3, forKey: "OnlyInB")
        #expect(a.integer(forKey: "OnlyInB") == 3)
        a.removeSuite(named: decomposed)
        #expect(a.suites.map { Array($0.unicodeScalars) } == [Array("group.caf\u{E9}".unicodeScalars)])
        #expect(a.propertyList(forKey: "OnlyInB") == nil)
    }

    @Test("a domain written by one process is read by another with every key's scalars")
    func acrossProcesses() throws {
        let sandbox = try Sandbox()
        var gen = Lookalikes()
        for round in 0..<5 {
            let values = gen.dictionary()
            let input = sandbox.root.appendingPathComponent("in-\(round).plist")
            try Data(PropertyList.dictionary(values).encoded(as: .xml)).write(to: input)
            let domain = "com.example.lookalike.\(round)"
            let writer = try run(helperPath, ["set-plist", domain, input.path], environment: sandbox.environment)
            #expect(writer.status == 0, "\(writer.stderr)")
            // Another process reads the domain back; so does a fresh store here.
            let output = sandbox.root.appendingPathComponent("out-\(round).plist")
            let reader = try run(helperPath, ["dump", domain, output.path], environment: sandbox.environment)
            #expect(reader.status == 0, "\(reader.stderr)")
            let dumped = try PropertyList(decoding: Data(contentsOf: output))
            #expect(Lookalikes.sameScalars(dumped, .dictionary(values)), "seed \(gen.seed), round \(round): \(Lookalikes.describe(dumped))")
            let fresh = sandbox.makeStore().domain(domain, scope: .currentUser).entries
            #expect(Lookalikes.sameScalars(.dictionary(fresh), .dictionary(values)), "seed \(gen.seed), round \(round)")
        }
    }

    @Test("the journal of a killed writer replays lookalike keys as two keys")
    func journalReplay() throws {
        let sandbox = try Sandbox()
        var gen = Lookalikes()
        let values = gen.dictionary()
        let input = sandbox.root.appendingPathComponent("in.plist")
        try Data(PropertyList.dictionary(values).encoded(as: .binary)).write(to: input)
        let (process, output) = try startHelper(["set-plist", "com.example.journal", input.path, "9"], in: sandbox)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == 9)
        #expect(String(decoding: output.readDataToEndOfFile(), as: UTF8.self) == "set\n")
        let replayed = sandbox.makeStore().domain("com.example.journal", scope: .currentUser).entries
        #expect(Lookalikes.sameScalars(.dictionary(replayed), .dictionary(values)), "seed \(gen.seed): \(Lookalikes.describe(.dictionary(replayed)))")
    }
}
