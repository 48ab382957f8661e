import Foundation
import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// A defaults object's search list through seeded random changes of every source it reads, its
/// invariants (`SearchList+Invariants.swift`) checked after each: the resolved view is always
/// the union of the sources.
@Suite("SearchList keeps its invariants", .reportsSeeds, .timeLimit(.minutes(10)))
struct SearchListInvariantTests {
    @Test("2,000 random changes to the application, global and suite domains, registration, languages and suites", .offThePool)
    func randomChanges() throws {
        let sandbox = try Sandbox()
        let (d, store) = makeDefaults(sandbox, arguments: ["app", "-FromArguments", "7"])
        let global = store.domain("NSGlobalDomain")
        let suite = store.domain("com.example.suite")
        var random = SeededRandom()
        let keys = ["a", "b", "c", "FromArguments", "AppleLanguages"]
        var inSuite = false
        for step in 0..<2_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            let value: PropertyList? = random.next() % 4 == 0 ? nil : .integer(.init(Int64(step)))
            switch random.next() % 7 {
            case 0: d.setPropertyList(value, forKey: key)
            case 1: global.set(value, forKey: key)
            case 2: suite.set(value, forKey: key)
            case 3: d.register([LiteralString(key): .integer(.init(Int64(step)))])
            case 4: d.setVolatileDomainValues(value.map { [LiteralString(key): $0] } ?? [:], forName: d.searchList.languages.first ?? "en")
            case 5:
                if inSuite { d.removeSuite(named: "com.example.suite") } else { d.addSuite(named: "com.example.suite") }
                inSuite.toggle()
            default:
                // What a reader sees is the view's answer.
                _ = d.propertyList(forKey: key)
            }
            // At rest the view is its sources' union; a reload or merge on another thread may be
            // a moment behind, so the check is given a few seconds to hold (a lost update never does).
            var violations: [String] = []
            let holds = eventually(timeout: .seconds(5)) { violations = d.searchList._invariantViolations(); return violations.isEmpty }
            #expect(holds, "step \(step), seed \(random.seed): \(violations)")
            if !holds { return }
        }
    }
}
