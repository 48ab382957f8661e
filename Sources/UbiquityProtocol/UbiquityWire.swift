#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import PropertyList

// The sync protocol's messages (proposal 0011, `OpenAPI/ubiquity.yaml`).
// Values travel as base64 of their binary property list: every type
// (dates, data, integers against reals, booleans) survives, and the size the
// limits count is the decoded length, the same on both sides.

/// One key as a commit sends it: the value (nil removes the key) and the
/// server revision of the key the writer last saw (0: it saw none).
public struct UbiquityWireChange: Codable, Sendable, Hashable {
    /// The key.
    public var key: String
    /// The key's revision this write is based on.
    public var base: Int64
    /// The value as base64 of its binary property list; nil removes the key.
    public var value: String?

    /// A change of `key` from `base`.
    public init(key: String, base: Int64, value: String?) {
        self.key = key
        self.base = base
        self.value = value
    }
}

/// A commit: keys written together, applied or refused per key.
public struct UbiquityCommitRequest: Codable, Sendable, Hashable {
    /// The changes, one per key.
    public var changes: [UbiquityWireChange]
    /// A commit of `changes`.
    public init(changes: [UbiquityWireChange]) { self.changes = changes }
}

/// A key as the server holds it: its revision and value (nil: removed).
public struct UbiquityWireEntry: Codable, Sendable, Hashable {
    /// The key.
    public var key: String
    /// The store revision that last changed the key.
    public var revision: Int64
    /// The value as base64 of its binary property list; nil when removed.
    public var value: String?

    /// An entry.
    public init(key: String, revision: Int64, value: String?) {
        self.key = key
        self.revision = revision
        self.value = value
    }
}

/// What became of one key of a commit.
public struct UbiquityWireResult: Codable, Sendable, Hashable {
    /// `applied` (the write is the key's value at `revision`), `conflict`
    /// (the base was stale: the server's entry is returned) or `refused`
    /// (the commit broke a limit: the server's entry is returned).
    public var status: Status
    /// The key as the server now holds it.
    public var entry: UbiquityWireEntry

    /// The outcome of a key.
    public enum Status: String, Codable, Sendable, Hashable {
        case applied, conflict, refused
    }

    /// A result.
    public init(status: Status, entry: UbiquityWireEntry) {
        self.status = status
        self.entry = entry
    }
}

/// The server's answer to a commit.
public struct UbiquityCommitResponse: Codable, Sendable, Hashable {
    /// The store's revision after the commit.
    public var revision: Int64
    /// Why the commit was refused as a whole (a limit), or nil.
    public var refusal: String?
    /// One result per key of the request, in its order.
    public var results: [UbiquityWireResult]

    /// A response.
    public init(revision: Int64, refusal: String?, results: [UbiquityWireResult]) {
        self.revision = revision
        self.refusal = refusal
        self.results = results
    }
}

/// The server's answer to "what changed after revision N".
public struct UbiquityChangesResponse: Codable, Sendable, Hashable {
    /// The store's revision the answer is complete up to.
    public var revision: Int64
    /// True when `entries` is the whole store (the asked revision was older
    /// than the server keeps removals for): keys not listed are absent.
    public var complete: Bool
    /// The keys changed after the asked revision, with their current values.
    public var entries: [UbiquityWireEntry]

    /// A response.
    public init(revision: Int64, complete: Bool, entries: [UbiquityWireEntry]) {
        self.revision = revision
        self.complete = complete
        self.entries = entries
    }
}

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

/// Values on the wire: base64 of a binary property list.
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
