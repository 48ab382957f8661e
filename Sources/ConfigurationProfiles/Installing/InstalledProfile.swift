#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import PropertyList

/// One installed profile as the index records it: who it is, whom it
/// applies to, when it was installed, what its signature proved, and which
/// keys it sets (the values themselves are in the managed files).
///
/// ```swift
/// for p in try ProfileStore().index().profiles { print(p.identifier, p.target, p.signature.label) }
/// ```
public struct InstalledProfile: Sendable, Hashable {
    /// `PayloadIdentifier`.
    public var identifier: String
    /// `PayloadDisplayName`.
    public var displayName: String
    /// `PayloadUUID`.
    public var uuid: String
    /// `PayloadVersion`.
    public var version: Int64
    /// Every user (`System`) or one user (`User`).
    public var target: ProfileTarget
    /// `PayloadRemovalDisallowed`: removal needs `--force`.
    public var removalDisallowed: Bool
    /// Install order: higher was installed later (and wins a conflict).
    public var sequence: Int
    /// When it was installed.
    public var installedAt: Date
    /// What its signature proved at install.
    public var signature: ProfileSignatureStatus
    /// The file, inside the store's `installed/` folder, with the profile's original bytes.
    public var file: String
    /// The forced keys, by domain (sorted).
    public var forcedKeys: [String: [String]]
    /// The set-once keys, by domain (sorted).
    public var setOnceKeys: [String: [String]]
    /// The payloads that do not apply on this system.
    public var ignoredPayloads: [String]

    public init(
        identifier: String, displayName: String, uuid: String, version: Int64, target: ProfileTarget, removalDisallowed: Bool,
        sequence: Int, installedAt: Date, signature: ProfileSignatureStatus, file: String,
        forcedKeys: [String: [String]], setOnceKeys: [String: [String]], ignoredPayloads: [String]
    ) {
        self.identifier = identifier
        self.displayName = displayName
        self.uuid = uuid
        self.version = version
        self.target = target
        self.removalDisallowed = removalDisallowed
        self.sequence = sequence
        self.installedAt = installedAt
        self.signature = signature
        self.file = file
        self.forcedKeys = forcedKeys
        self.setOnceKeys = setOnceKeys
        self.ignoredPayloads = ignoredPayloads
    }

    /// The record of `profile`, installed now for `target`.
    init(_ profile: ConfigurationProfile, target: ProfileTarget, sequence: Int, installedAt: Date, signature: ProfileSignatureStatus) {
        func keys(_ table: [String: [LiteralString: PropertyList]]) -> [String: [String]] {
            table.mapValues { $0.keys.map(\.string).sorted(by: LiteralOrder.precedes) }
        }
        self.init(
            identifier: profile.identifier, displayName: profile.displayName, uuid: profile.uuid, version: profile.version,
            target: target, removalDisallowed: profile.removalDisallowed, sequence: sequence, installedAt: installedAt,
            signature: signature, file: "\(sequence).mobileconfig",
            forcedKeys: keys(profile.preferences.forced), setOnceKeys: keys(profile.preferences.setOnce),
            ignoredPayloads: profile.preferences.ignoredPayloads)
    }

    // MARK: The index's form

    var propertyList: PropertyList {
        var signatureEntry: [LiteralString: PropertyList] = ["Status": .string(signature.label)]
        switch signature {
        case .unsigned: break
        case .verified(let signer): signatureEntry["Signer"] = .string(signer)
        case .unverified(let signer, let reason):
            signatureEntry["Signer"] = .string(signer)
            signatureEntry["Reason"] = .string(reason)
        }
        func table(_ t: [String: [String]]) -> PropertyList {
            .dictionary(Dictionary(uniqueKeysWithValues: t.map { (LiteralString($0.key), PropertyList.array($0.value.map(PropertyList.string))) }))
        }
        return .dictionary([
            "Identifier": .string(identifier), "DisplayName": .string(displayName), "UUID": .string(uuid),
            "Version": .integer(.init(version)), "Target": .string(target.stored), "RemovalDisallowed": .boolean(removalDisallowed),
            "Sequence": .integer(.init(Int64(sequence))), "InstalledAt": .date(installedAt), "Signature": .dictionary(signatureEntry),
            "File": .string(file), "Forced": table(forcedKeys), "SetOnce": table(setOnceKeys),
            "IgnoredPayloads": .array(ignoredPayloads.map(PropertyList.string)),
        ])
    }

    init(propertyList value: PropertyList, place: String) throws(ProfileError) {
        guard case .dictionary(let d) = value else { throw ProfileError(place, "expected a dictionary") }
        func string(_ key: LiteralString) throws(ProfileError) -> String {
            guard case .string(let s)? = d[key] else { throw ProfileError(place + " › " + key.string, "expected a string") }
            return s
        }
        func table(_ key: LiteralString) throws(ProfileError) -> [String: [String]] {
            guard case .dictionary(let t)? = d[key] else { throw ProfileError(place + " › " + key.string, "expected a dictionary") }
            var out: [String: [String]] = [:]
            for (domain, keys) in t {
                guard case .array(let list) = keys else { throw ProfileError(place + " › " + key.string, "expected arrays of keys") }
                out[domain.string] = list.compactMap(\.stringValue)
            }
            return out
        }
        guard let target = ProfileTarget(stored: try string("Target")) else { throw ProfileError(place + " › Target", "expected System or User:<name>") }
        guard case .integer(let sequence)? = d["Sequence"], let seq = sequence.int64Value.map(Int.init) else { throw ProfileError(place + " › Sequence", "expected an integer") }
        guard case .date(let installedAt)? = d["InstalledAt"] else { throw ProfileError(place + " › InstalledAt", "expected a date") }
        guard case .dictionary(let sig)? = d["Signature"], case .string(let status)? = sig["Status"] else {
            throw ProfileError(place + " › Signature", "expected a dictionary with a Status")
        }
        let signer = sig["Signer"]?.stringValue ?? "", reason = sig["Reason"]?.stringValue ?? ""
        let signature: ProfileSignatureStatus
        switch status {
        case "Unsigned": signature = .unsigned
        case "Verified": signature = .verified(signer: signer)
        case "Unverified": signature = .unverified(signer: signer, reason: reason)
        default: throw ProfileError(place + " › Signature › Status", "expected Verified, Unverified or Unsigned")
        }
        self.init(
            identifier: try string("Identifier"), displayName: try string("DisplayName"), uuid: try string("UUID"),
            version: d["Version"]?.intValue.map(Int64.init) ?? 1, target: target,
            removalDisallowed: d["RemovalDisallowed"]?.boolValue ?? false, sequence: seq, installedAt: installedAt,
            signature: signature, file: try string("File"), forcedKeys: try table("Forced"), setOnceKeys: try table("SetOnce"),
            ignoredPayloads: d["IgnoredPayloads"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }
}
