#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif
import PropertyList
import UbiquityProtocol

/// The organisation's signing certificate handed over to a new one: signed under the certificate
/// machines pin now, it names the certificate they pin next (proposal 0018, "Key rotation"). A
/// machine takes it only when it is signed under the pinned certificate, for its organisation,
/// and newer than the last hand-over it took.
///
/// Written as a binary property list: `{Kind, Organization, Sequence, Issued, Certificate}`.
///
/// ```swift
/// let h = Handover(organization: "acme", sequence: 1, issued: Date(), certificate: newCADER)
/// let same = try Handover(bytes: h.content())
/// ```
package struct Handover: Sendable, Hashable {
    package static let kind = "org.opendefaults.fleet.handover"

    package var organization: String
    /// 1 for the first hand-over; each one adds one.
    package var sequence: Int64
    package var issued: Date
    /// The next certificate (DER).
    package var certificate: [UInt8]

    package init(organization: String, sequence: Int64, issued: Date, certificate: [UInt8]) {
        self.organization = organization
        self.sequence = sequence
        self.issued = issued
        self.certificate = certificate
    }

    package func content() -> [UInt8] {
        PropertyList.dictionary([
            "Kind": .string(Self.kind), "Organization": .string(organization), "Sequence": PropertyList(sequence),
            "Issued": .date(issued), "Certificate": .data(Data(certificate)),
        ]).encoded(as: .binary)
    }

    package init(bytes: [UInt8]) throws(FleetError) {
        let fields = try FleetFields(bytes, document: "the hand-over")
        try fields.expectKind(Self.kind)
        self.init(organization: try fields.string("Organization"), sequence: try fields.positiveInteger("Sequence"),
                  issued: try fields.date("Issued"), certificate: try fields.data("Certificate"))
    }
}
