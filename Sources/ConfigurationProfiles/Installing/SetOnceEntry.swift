#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import PropertyList

/// Values one installed profile sets once into a user's own domain.
///
/// Applied when never applied before for this user, profile and domain, or
/// when `timestamp` (the payload's `mcx_data_timestamp`) is newer than the
/// one last applied; `often` entries (the older `Often`) at every session start.
///
/// ```swift
/// let entry = SetOnceEntry(profile: "com.example.setup", domain: "com.example.app", timestamp: nil, often: false, values: ["Theme": "dark"])
/// ```
public struct SetOnceEntry: Sendable, Hashable {
    /// The identifier of the profile.
    public var profile: String
    /// The preference domain written.
    public var domain: String
    /// The payload's `mcx_data_timestamp`, when it has one.
    public var timestamp: Date?
    /// Applied at every session start (`Often`).
    public var often: Bool
    /// The values.
    public var values: [LiteralString: PropertyList]

    public init(profile: String, domain: String, timestamp: Date?, often: Bool, values: [LiteralString: PropertyList]) {
        self.profile = profile
        self.domain = domain
        self.timestamp = timestamp
        self.often = often
        self.values = values
    }

    var propertyList: PropertyList {
        var d: [LiteralString: PropertyList] = [
            "Profile": .string(profile), "Domain": .string(domain), "Often": .boolean(often), "Values": .dictionary(values),
        ]
        if let timestamp { d["Timestamp"] = .date(timestamp) }
        return .dictionary(d)
    }

    init(propertyList value: PropertyList, place: String) throws(ProfileError) {
        guard case .dictionary(let d) = value, case .string(let profile)? = d["Profile"], case .string(let domain)? = d["Domain"],
              case .dictionary(let values)? = d["Values"] else {
            throw ProfileError(place, "expected a dictionary with Profile, Domain and Values")
        }
        self.init(profile: profile, domain: domain, timestamp: d["Timestamp"]?.dateValue, often: d["Often"]?.boolValue ?? false, values: values)
    }

    /// The state key this entry's application is remembered under.
    var stateKey: String { profile + "\u{1F}" + domain }
}
