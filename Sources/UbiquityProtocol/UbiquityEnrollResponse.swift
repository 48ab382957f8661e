#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer to an enrolment: the machine's own credential (shown once: the server keeps its
/// hash) and the organisation's signing certificate, which the machine pins.
public struct UbiquityEnrollResponse: Codable, Sendable, Hashable {
    /// The organisation (the account's name).
    public var organization: String
    /// The machine's token.
    public var token: String
    /// The organisation's signing certificate, DER as base64.
    public var certificate: String

    public init(organization: String, token: String, certificate: String) {
        self.organization = organization
        self.token = token
        self.certificate = certificate
    }
}
