import Testing
import TestSupport
@_spi(Engine) @testable import OpenDefaults
import PropertyList

/// The resolved view's probe table against a `Dictionary`, under random
/// inserts, updates and removals (backward-shift deletion included).
@Suite("Resolved view", .reportsSeeds, .timeLimit(.minutes(10)))
struct ResolvedViewTests {
    @Test func agreesWithADictionaryUnderRandomOperations() async throws {
        // Long synchronous work: off the test run's cooperative pool (TestSupport/OffThePool.swift).
        try await offThePool { () throws in
            var generator = SeededRandom()
            let seed = generator.seed
            for round in 0..<20 {
                var view = ResolvedView()
                var model: [LiteralString: PropertyList] = [:]
                let universe = (0..<(round % 2 == 0 ? 40 : 3000)).map { "key\($0)" } + ["", "ü", "a long key that is not a small string at all"]
                for step in 0..<4000 {
                    let key = universe.randomElement(using: &generator)!
                    // Where a failure happened, and how to replay it.
                    let place = "round \(round), step \(step), key \(key.debugDescription) (OPENDEFAULTS_SEED=\(seed) replays it)"
                    if Bool.random(using: &generator) || model.count < 5 {
                        let value = PropertyList(Int64(step))
                        #expect(view.updateValue(value, forKey: key) == model.updateValue(value, forKey: key), "\(place)")
                    } else {
                        #expect(view.removeValue(forKey: key) == model.removeValue(forKey: key), "\(place)")
                    }
                    // The dictionary is built on demand and kept until the next change.
                    if step % 397 == 0 { #expect(view.dictionary() == model, "\(place)") }
                }
                for key in universe { #expect(view[key] == model[key], "round \(round), key \(key.debugDescription) (OPENDEFAULTS_SEED=\(seed))") }
                #expect(view.dictionary() == model)
                #expect(Set(view.keys) == Set(model.keys))
                let rebuilt = ResolvedView(model)
                for key in universe { #expect(rebuilt[key] == model[key]) }
            }
        }
    }

    @Test func typedKeysBringTheSameHash() {
        let key = Defaults.Key<Int>("Volume", default: 5)
        #expect(key.hash == KeyHash.hash("Volume"))
        #expect(KeyHash.hash("Volume") != KeyHash.hash("volume"))
    }
}
