import Foundation

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
