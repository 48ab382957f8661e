package import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What enrolment gave a machine: its server, its own token, and the organisation's signing
/// certificate, pinned (`credential.plist`, 0600, root's).
package struct AgentCredential: Sendable, Hashable {
    package var server: String
    package var token: String
    package var organization: String
    package var machine: String
    package var host: String
    package var groups: [String]
    /// The organisation's certificate (DER) that every declaration must be signed under.
    package var certificate: [UInt8]
    /// A PEM file of certificate authorities for the server's TLS certificate, if not the system's.
    package var certificateAuthorities: String?
    /// The sequence of the last hand-over taken (0: none; the certificate is the one pinned at enrolment).
    package var handoverSequence: Int64 = 0

    package init(server: String, token: String, organization: String, machine: String, host: String, groups: [String],
                 certificate: [UInt8], certificateAuthorities: String?) {
        self.server = server
        self.token = token
        self.organization = organization
        self.machine = machine
        self.host = host
        self.groups = groups
        self.certificate = certificate
        self.certificateAuthorities = certificateAuthorities
    }

    package var propertyList: PropertyList {
        var d: [LiteralString: PropertyList] = [
            "Server": .string(server), "Token": .string(token), "Organization": .string(organization),
            "Machine": .string(machine), "Host": .string(host), "Groups": .array(groups.map { .string($0) }),
            "Certificate": .data(Data(certificate)),
        ]
        if let certificateAuthorities { d["CertificateAuthorities"] = .string(certificateAuthorities) }
        if handoverSequence > 0 { d["HandoverSequence"] = PropertyList(handoverSequence) }
        return .dictionary(d)
    }

    package init(_ d: [LiteralString: PropertyList]) throws(FleetError) {
        let fields = FleetFields(d, document: "the credential")
        server = try fields.string("Server")
        token = try fields.string("Token")
        organization = try fields.string("Organization")
        machine = try fields.string("Machine")
        host = try fields.string("Host")
        groups = try fields.array("Groups").compactMap { if case .string(let s) = $0 { s } else { nil } }
        certificate = try fields.data("Certificate")
        if case .string(let ca)? = d["CertificateAuthorities"] { certificateAuthorities = ca } else { certificateAuthorities = nil }
        if case .integer(let n)? = d["HandoverSequence"], let sequence = n.int64Value { handoverSequence = sequence }
    }

    /// The machine's credential, or nil when it is not enrolled.
    package static func load(from files: AgentFiles) throws(FleetError) -> AgentCredential? {
        try files.read(files.credentialPath).map { d throws(FleetError) in try AgentCredential(d) }
    }

    package func save(to files: AgentFiles) throws(FleetError) {
        try files.write(propertyList, to: files.credentialPath)
    }
}
