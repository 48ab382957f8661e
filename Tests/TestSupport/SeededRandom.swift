import Foundation
public import Testing

/// A replayable random number generator (SplitMix64) for tests.
///
/// Its seed is `OPENDEFAULTS_SEED` when set, else random; a test prints
/// ``seed`` in every failure message, and running it again with
/// `OPENDEFAULTS_SEED=<seed>` replays the same choices.
///
/// ```swift
/// var random = SeededRandom()
/// let pause = UInt32.random(in: 0...3000, using: &random)
/// #expect(outcome, "seed \(random.seed)")
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    /// The seed the numbers come from.
    public let seed: UInt64
    private var state: UInt64

    /// Numbers from `seed`, else from `OPENDEFAULTS_SEED`, else from a random seed.
    public init(seed: UInt64? = nil) {
        let chosen = seed ?? Self.environmentSeed ?? UInt64.random(in: 0...UInt64.max)
        self.seed = chosen
        self.state = chosen
        SeedRecord.current?.add(chosen)
    }

    /// `OPENDEFAULTS_SEED` from the environment, when it is a number.
    public static var environmentSeed: UInt64? {
        ProcessInfo.processInfo.environment["OPENDEFAULTS_SEED"].flatMap { UInt64($0) }
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seeds of the ``SeededRandom``s a test made, for ``Trait/reportsSeeds``.
public final class SeedRecord: Sendable {
    @TaskLocal public static var current: SeedRecord?
    private let seeds = Locked<[UInt64]>([])

    func add(_ seed: UInt64) { seeds.mutate { $0.append(seed) } }
    var all: [UInt64] { seeds.value }
}

/// A test (or every test of a suite) whose ``SeededRandom`` seeds are reported when it
/// throws: a thrown error records no message of the test's own, so without this the seed
/// that would replay the failure is lost.
public struct SeedReporting: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let record = SeedRecord()
        try await SeedRecord.$current.withValue(record) {
            do {
                try await function()
            } catch {
                let seeds = record.all
                if !seeds.isEmpty {
                    Issue.record("seeded with \(seeds.map(String.init).joined(separator: ", ")); replay with OPENDEFAULTS_SEED=\(seeds[0])")
                }
                throw error
            }
        }
    }
}

extension Trait where Self == SeedReporting {
    /// Reports the seeds of the test's ``SeededRandom``s when it throws.
    public static var reportsSeeds: Self { SeedReporting() }
}
