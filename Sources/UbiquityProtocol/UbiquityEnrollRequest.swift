#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/fleet/enroll`, authenticated with the organisation's enrolment secret: a machine
/// asks for a credential of its own.
public struct UbiquityEnrollRequest: Codable, Sendable, Hashable {
    /// The machine's id (`/etc/machine-id`): names its token and its status store.
    public var machine: String
    /// Its host name, for the administrator's lists.
    public var host: String
    /// The groups whose declarations it follows.
    public var groups: [String]

    public init(machine: String, host: String, groups: [String]) {
        self.machine = machine
        self.host = host
        self.groups = groups
    }
}
