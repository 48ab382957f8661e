#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import PropertyList
import UbiquityProtocol

/// What an administrator declares for one group of machines: the whole set of profiles its
/// machines carry, at a revision. Signed as a whole (``DeclarationSignature``): the group, the
/// organisation and the revision are inside the signature, so a declaration moved to another
/// group, or sent again after a newer one, is refused by every machine.
///
/// Written as a binary property list:
/// `{Kind, Organization, Group, Revision, Issued, Profiles: [data…]}`.
///
/// ```swift
/// let d = Declaration(organization: "acme", group: "desktops", revision: 3, issued: Date(), profiles: [bytes])
/// let same = try Declaration(bytes: d.content())
/// ```
package struct Declaration: Sendable, Hashable {
    /// The `Kind` every declaration carries.
    package static let kind = "org.opendefaults.fleet.declaration"
    /// The largest declaration (its profiles together): a store's value holds 1 MB.
    package static let maximumSize = 1 << 20

    package var organization: String
    package var group: String
    /// 1 for a group's first declaration; each publication adds one.
    package var revision: Int64
    package var issued: Date
    /// The profiles' files (`.mobileconfig`), as published. None: the group carries no profile.
    package var profiles: [[UInt8]]

    package init(organization: String, group: String, revision: Int64, issued: Date, profiles: [[UInt8]]) {
        self.organization = organization
        self.group = group
        self.revision = revision
        self.issued = issued
        self.profiles = profiles
    }

    /// The binary property list that is signed.
    package func content() -> [UInt8] {
        PropertyList.dictionary([
            "Kind": .string(Self.kind), "Organization": .string(organization), "Group": .string(group),
            "Revision": PropertyList(revision), "Issued": .date(issued),
            "Profiles": .array(profiles.map { .data(Data($0)) }),
        ]).encoded(as: .binary)
    }

    /// Reads a declaration's property list; refused (``FleetError/Kind/malformed``) naming the field.
    package init(bytes: [UInt8]) throws(FleetError) {
        let value: PropertyList
        do { value = try PropertyList(decoding: bytes, format: .binary) } catch {
            throw FleetError(.malformed, "the declaration is not a property list: \(error)")
        }
        guard case .dictionary(let d) = value else { throw FleetError(.malformed, "the declaration is not a dictionary") }
        func string(_ key: LiteralString) throws(FleetError) -> String {
            guard case .string(let s)? = d[key] else { throw FleetError(.malformed, "the declaration's \(key.string) is missing or not a string") }
            return s
        }
        guard try string("Kind") == Self.kind else { throw FleetError(.malformed, "the declaration's Kind is not \(Self.kind)") }
        organization = try string("Organization")
        group = try string("Group")
        guard case .integer(let r)? = d["Revision"], let revision = r.int64Value, revision >= 1 else {
            throw FleetError(.malformed, "the declaration's Revision is missing or not a positive integer")
        }
        self.revision = revision
        guard case .date(let issued)? = d["Issued"] else { throw FleetError(.malformed, "the declaration's Issued is missing or not a date") }
        self.issued = issued
        guard case .array(let list)? = d["Profiles"] else { throw FleetError(.malformed, "the declaration's Profiles is missing or not an array") }
        var profiles: [[UInt8]] = []
        for (i, item) in list.enumerated() {
            guard case .data(let bytes) = item else { throw FleetError(.malformed, "the declaration's profile \(i + 1) is not data") }
            profiles.append(Array(bytes))
        }
        self.profiles = profiles
    }
}
