/// Why a key-value store refused a write or could not sync.
///
/// Every case names the key (when there is one) and the limit it broke; the
/// store is unchanged after any of them.
///
/// ```swift
/// do { try store.setOrThrow(.string("x"), forKey: String(repeating: "k", count: 65)) }
/// catch { print(error) }   // the key "kkk…" is 65 bytes of UTF-8; at most 64 are allowed
/// ```
public enum UbiquityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key is empty or longer than 64 bytes of UTF-8.
    case invalidKey(String, reason: String)
    /// One value's binary property list is larger than 1 MB.
    case valueTooLarge(key: String, bytes: Int)
    /// The write would make the store hold more than 1,024 keys.
    case tooManyKeys(key: String, count: Int)
    /// The write would make the store's values larger than 1 MB together.
    case storeTooLarge(key: String, bytes: Int)
    /// The server refused the write for a limit (the store took the server's values back).
    case refusedByServer(keys: [String], reason: String)
    /// The server could not be reached or answered with an error; the writes stay pending.
    case unreachable(String)
    /// The server answered that the write was not applied and never will be (its database did
    /// not take it in time: `503` with the code ``UbiquityWireErrorCode/notApplied``); the writes
    /// stay pending, to be sent again.
    case notApplied(String)
    /// The server did not accept the account's token.
    case unauthorized(String)
    /// A local file could not be read or written.
    case storage(String)
    /// The server's answer broke the protocol or the store's limits (a
    /// malformed value, a value that expands beyond the limits, more keys or
    /// bytes than a store holds); nothing of it was applied.
    case badServerAnswer(String)

    public var description: String {
        switch self {
        case .invalidKey(let key, let reason): "invalid key \"\(key)\": \(reason)"
        case .valueTooLarge(let key, let bytes):
            "the value for key \"\(key)\" is \(bytes) bytes as a binary property list; at most \(UbiquityLimits.maximumValueBytes) are allowed"
        case .tooManyKeys(let key, let count):
            "setting key \"\(key)\" would make \(count) keys; a store holds at most \(UbiquityLimits.maximumKeys)"
        case .storeTooLarge(let key, let bytes):
            "setting key \"\(key)\" would make the store's values \(bytes) bytes together; at most \(UbiquityLimits.maximumTotalBytes) are allowed"
        case .refusedByServer(let keys, let reason):
            "the server refused the write of \(keys.map { "\"\($0)\"" }.joined(separator: ", ")): \(reason)"
        case .unreachable(let why): "the sync server could not be reached: \(why)"
        case .notApplied(let why): "the sync server did not apply the write (it is sent again later): \(why)"
        case .unauthorized(let why): "the sync server refused the account: \(why)"
        case .storage(let why): why
        case .badServerAnswer(let why): "the sync server's answer was refused, nothing of it applied: \(why)"
        }
    }
}
