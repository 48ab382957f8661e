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
        guard case .dictionary(let d)? = try? PropertyList(decoding: bytes, format: .binary) else {
            throw FleetError(.malformed, "the hand-over is not a property list dictionary")
        }
        guard case .string(Self.kind)? = d["Kind"] else { throw FleetError(.malformed, "the hand-over's Kind is not \(Self.kind)") }
        guard case .string(let organization)? = d["Organization"] else { throw FleetError(.malformed, "the hand-over has no Organization") }
        guard case .integer(let n)? = d["Sequence"], let sequence = n.int64Value, sequence >= 1 else {
            throw FleetError(.malformed, "the hand-over's Sequence is missing or not a positive integer")
        }
        guard case .date(let issued)? = d["Issued"] else { throw FleetError(.malformed, "the hand-over has no Issued date") }
        guard case .data(let der)? = d["Certificate"] else { throw FleetError(.malformed, "the hand-over has no Certificate") }
        self.init(organization: organization, sequence: sequence, issued: issued, certificate: Array(der))
    }
}
