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

    /// An account description.
    public init(name: String, id: String) {
        self.name = name
        self.id = id
    }
}
