/// Two or more installed profiles of one target force one key to different
/// values. The most recently installed profile wins (a fixed rule: the
/// value in force never flips between them); the conflict is shown by
/// `profiles list` and `profiles show`.
///
/// ```swift
/// for c in index.conflicts { print("\(c.domain) \(c.key): \(c.winner) over \(c.overridden)") }
/// ```
public struct ProfileConflict: Sendable, Hashable {
    /// Whose managed preferences.
    public var target: ProfileTarget
    /// The preference domain.
    public var domain: String
    /// The key forced differently.
    public var key: String
    /// The identifier of the profile whose value is in force (the latest installed).
    public var winner: String
    /// The identifiers of the earlier profiles whose different values are not in force.
    public var overridden: [String]

    public init(target: ProfileTarget, domain: String, key: String, winner: String, overridden: [String]) {
        self.target = target
        self.domain = domain
        self.key = key
        self.winner = winner
        self.overridden = overridden
    }
}
