#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The account a token belongs to (`GET /v1/account`).
public struct UbiquityAccountInfo: Codable, Sendable, Hashable {
    /// The account's name.
    public var name: String
    /// The account's stable identifier (names its local folder).
    public var id: String
    /// The name of the token that asked (a machine's token is `machine.<id>`), when the server says it.
    public var token: String?

    /// An account description.
    public init(name: String, id: String, token: String? = nil) {
        self.name = name
        self.id = id
        self.token = token
    }
}
