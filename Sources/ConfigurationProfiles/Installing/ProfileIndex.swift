public import PropertyList

/// The installed profiles, which of them forces each key, and their
/// conflicts: the store's `index.plist`, readable by every user.
///
/// ```swift
/// let index = try ProfileStore().index()
/// if let p = index.forcingProfile(domain: "com.example.app", key: "UpdateURL", user: "ada") {
///     print("managed by \(p.displayName)")
/// }
/// ```
public struct ProfileIndex: Sendable, Hashable {
    /// The installed profiles, in install order.
    public var profiles: [InstalledProfile] = []
    /// target → domain → key → the identifier of the profile whose value is in force. Keys
    /// are told apart by their exact scalars (two keys that look alike are two keys).
    public var forcedBy: [ProfileTarget: [String: [LiteralString: String]]] = [:]
    /// Keys two profiles of one target force differently.
    public var conflicts: [ProfileConflict] = []
    /// The sequence number the next install gets.
    var nextSequence = 1

    public init() {}

    /// The installed profile with `identifier` (the same identifier may be installed for several users).
    public func profiles(identifier: String) -> [InstalledProfile] {
        profiles.filter { $0.identifier == identifier }
    }

    /// The identifiers of the System profiles installed, but for `owned`: those someone else
    /// installed (for the fleet agent, which owns what it installed, the ones installed by hand).
    package func systemIdentifiers(except owned: Set<String>) -> Set<String> {
        Set(profiles.lazy.filter { $0.target == .system && !owned.contains($0.identifier) }.map(\.identifier))
    }

    /// The profile whose value for `key` of `domain` is in force for `user`
    /// (a user profile's over a system profile's), if a profile forces it.
    public func forcingProfile(domain: String, key: String, user: String) -> InstalledProfile? {
        forcingProfile(domain: domain, key: key, target: .user(user)) ?? forcingProfile(domain: domain, key: key, target: .system)
    }

    /// The profile of `target` whose value for `key` of `domain` is in force there, if any.
    public func forcingProfile(domain: String, key: String, target: ProfileTarget) -> InstalledProfile? {
        guard let id = forcedBy[target]?[domain]?[LiteralString(key)] else { return nil }
        return profiles.last { $0.identifier == id && $0.target == target }
    }

    /// The index's file form.
    var propertyList: PropertyList {
        var by: [LiteralString: PropertyList] = [:]
        for (target, domains) in forcedBy {
            by[LiteralString(target.stored)] = .dictionary(Dictionary(uniqueKeysWithValues: domains.map { domain, keys in
                (LiteralString(domain), PropertyList.dictionary(keys.mapValues(PropertyList.string)))
            }))
        }
        let conflicts = self.conflicts.map { c -> PropertyList in
            .dictionary([
                "Target": .string(c.target.stored), "Domain": .string(c.domain), "Key": .string(c.key),
                "Winner": .string(c.winner), "Overridden": .array(c.overridden.map(PropertyList.string)),
            ])
        }
        return .dictionary([
            "Format": 1, "NextSequence": .integer(.init(Int64(nextSequence))),
            "Profiles": .array(profiles.map(\.propertyList)), "ForcedBy": .dictionary(by), "Conflicts": .array(conflicts),
        ])
    }

    init(propertyList value: PropertyList, path: String) throws(ProfileError) {
        guard case .dictionary(let d) = value, case .integer(let format)? = d["Format"], format.int64Value == 1 else {
            throw ProfileError(path, "not a profile index of format 1")
        }
        nextSequence = d["NextSequence"]?.intValue ?? 1
        for (i, p) in (d["Profiles"]?.arrayValue ?? []).enumerated() {
            profiles.append(try InstalledProfile(propertyList: p, place: "\(path) › Profiles[\(i)]"))
        }
        profiles.sort { $0.sequence < $1.sequence }
        for (target, domains) in d["ForcedBy"]?.dictionaryValue ?? [:] {
            guard let t = ProfileTarget(stored: target.string) else { throw ProfileError(path + " › ForcedBy", "unknown target \(target.string)") }
            for (domain, keys) in domains.dictionaryValue ?? [:] {
                for (key, id) in keys.dictionaryValue ?? [:] {
                    forcedBy[t, default: [:]][domain.string, default: [:]][key] = id.stringValue
                }
            }
        }
        for c in d["Conflicts"]?.arrayValue ?? [] {
            guard let c = c.dictionaryValue, let t = c["Target"]?.stringValue.flatMap(ProfileTarget.init(stored:)),
                  let domain = c["Domain"]?.stringValue, let key = c["Key"]?.stringValue, let winner = c["Winner"]?.stringValue else {
                throw ProfileError(path + " › Conflicts", "expected Target, Domain, Key and Winner")
            }
            conflicts.append(ProfileConflict(target: t, domain: domain, key: key, winner: winner,
                                             overridden: c["Overridden"]?.arrayValue?.compactMap(\.stringValue) ?? []))
        }
    }
}
