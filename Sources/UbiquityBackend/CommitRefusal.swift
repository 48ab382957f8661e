
import UbiquityProtocol

/// Why a whole commit is refused (nothing changes): a typed value, so that
/// counting refusals by kind never parses a message back.
public enum CommitRefusal: Sendable, Equatable {
    /// A key of 0 bytes, or more than ``UbiquityLimits/maximumKeyBytes`` of UTF-8.
    case keyLength(key: String)
    /// A value larger than ``UbiquityLimits/maximumValueBytes`` as a binary property list.
    case valueSize(key: String, bytes: Int)
    /// More than ``UbiquityLimits/maximumKeys`` keys in the store.
    case keyCount(Int)
    /// More than ``UbiquityLimits/maximumTotalBytes`` in the store's values.
    case storeSize(Int)
    /// The account's quota of stores.
    case quotaStores(wouldHold: Int, quota: Int)
    /// The account's quota of bytes.
    case quotaBytes(wouldHold: Int, quota: Int)
    /// The token was revoked (or its account deleted) before the commit's transaction.
    case tokenRevoked

    /// The quota the commit broke (`stores`, `bytes`), if it broke one: the metric's label.
    package var quota: String? {
        switch self {
        case .quotaStores: "stores"
        case .quotaBytes: "bytes"
        default: nil
        }
    }

    /// The words the client gets (`UbiquityCommitResponse.refusal`).
    package var message: String {
        switch self {
        case .keyLength(let key):
            "the key \"\(key)\" is \(key.utf8.count) bytes of UTF-8; keys are 1 to \(UbiquityLimits.maximumKeyBytes)"
        case .valueSize(let key, let bytes):
            "the value for key \"\(key)\" is \(bytes) bytes as a binary property list; at most \(UbiquityLimits.maximumValueBytes) are allowed"
        case .keyCount(let count):
            "the store would hold \(count) keys; at most \(UbiquityLimits.maximumKeys) are allowed"
        case .storeSize(let total):
            "the store's values would be \(total) bytes together; at most \(UbiquityLimits.maximumTotalBytes) are allowed"
        case .quotaStores(let stores, let quota):
            "quota \"stores\": the account would hold \(stores) stores; its quota is \(quota)"
        case .quotaBytes(let bytes, let quota):
            "quota \"bytes\": the account's stores would hold \(bytes) bytes together; its quota is \(quota)"
        case .tokenRevoked:
            "the token is not valid"
        }
    }
}
