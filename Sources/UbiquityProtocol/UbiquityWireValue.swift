#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import PropertyList

/// Values on the wire: base64 of a binary property list.
///
/// The sync protocol's messages (proposal 0011, `OpenAPI/ubiquity.yaml`;
/// the `UbiquityWire…`, `UbiquityCommit…`, `UbiquityChanges…` types) carry
/// every value this way: every type (dates, data, integers against reals,
/// booleans) survives, and the size the limits count is the decoded length,
/// the same on both sides.
///
/// ```swift
/// let text = UbiquityWireValue.encode(.string("dark"))     // "YnBsaXN0MDBU…"
/// UbiquityWireValue.decode(text)?.value                   // .string("dark")
/// ```
public enum UbiquityWireValue {
    /// The wire form of `value`.
    public static func encode(_ value: PropertyList) -> String {
        Data(value.encoded(as: .binary)).base64EncodedString()
    }

    /// The value and its size in bytes, or nil when the text is not base64
    /// of a binary property list within the store's limits.
    public static func decode(_ text: String) -> (value: PropertyList, size: Int)? {
        guard let value = try? decodeChecked(text).get() else { return nil }
        return (value, UbiquityLimits.size(of: value))
    }

    /// Why a wire value was refused.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not base64, or not a binary property list.
        case malformed(String)
        /// Larger than a value may be, or expanding through shared
        /// references beyond ``UbiquityLimits/maximumExpansion``.
        case tooLarge(String)

        public var description: String {
            switch self {
            case .malformed(let why), .tooLarge(let why): why
            }
        }
    }

    /// The value, or why it is refused. The expansion bound is applied while
    /// decoding, so a small value that would expand to gigabytes fails in
    /// bounded memory and time. (Its size is left to the caller, which may
    /// encode it anyway: the server stores the encoding.)
    public static func decodeChecked(_ text: String) -> Result<PropertyList, Refusal> {
        // Base64 of at most twice a value's limit (the value's own check comes after).
        guard text.utf8.count <= (2 * UbiquityLimits.maximumValueBytes + 2) / 3 * 4 else {
            return .failure(.tooLarge("the value's text is \(text.utf8.count) bytes, more than a \(UbiquityLimits.maximumValueBytes)-byte value takes"))
        }
        guard let bytes = Data(base64Encoded: text) else { return .failure(.malformed("the value is not base64")) }
        let value: PropertyList
        do {
            value = try PropertyList(decoding: [UInt8](bytes), format: .binary,
                                     options: .init(maximumExpansion: UbiquityLimits.maximumExpansion))
        } catch {
            if error.exceedsExpansionLimit { return .failure(.tooLarge(error.reason)) }
            return .failure(.malformed("the value is not a binary property list: \(error.reason)"))
        }
        return .success(value)
    }
}
