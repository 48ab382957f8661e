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
        let fields = try FleetFields(bytes, document: "the declaration")
        try fields.expectKind(Self.kind)
        organization = try fields.string("Organization")
        group = try fields.string("Group")
        revision = try fields.positiveInteger("Revision")
        issued = try fields.date("Issued")
        var profiles: [[UInt8]] = []
        for (i, item) in try fields.array("Profiles").enumerated() {
            guard case .data(let bytes) = item else { throw FleetError(.malformed, "the declaration's profile \(i + 1) is not data") }
            profiles.append(Array(bytes))
        }
        self.profiles = profiles
    }
}
