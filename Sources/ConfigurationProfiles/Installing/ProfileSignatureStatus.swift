/// What a profile's signature proved when it was checked.
///
/// A signature that does not match its content is not a status: such a
/// profile is refused and never installed.
///
/// ```swift
/// switch installed.signature {
/// case .verified(let signer): print("Verified: \(signer)")
/// case .unverified(let signer, let why): print("Unverified: \(signer) (\(why))")
/// case .unsigned: print("Unsigned")
/// }
/// ```
public enum ProfileSignatureStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not signed.
    case unsigned
    /// Signed, the signature matches the content, and the signer's
    /// certificate chains to a trusted root.
    case verified(signer: String)
    /// Signed and the signature matches the content, but the signer is not
    /// trusted here (an unknown or expired certificate): `reason` says why.
    case unverified(signer: String, reason: String)

    /// `Verified`, `Unverified` or `Unsigned`.
    public var label: String {
        switch self {
        case .unsigned: "Unsigned"
        case .verified: "Verified"
        case .unverified: "Unverified"
        }
    }

    public var description: String {
        switch self {
        case .unsigned: "Unsigned"
        case .verified(let signer): "Verified (signed by \(signer))"
        case .unverified(let signer, let reason): "Unverified (signed by \(signer): \(reason))"
        }
    }
}
