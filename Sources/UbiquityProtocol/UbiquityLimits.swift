public import PropertyList

/// The limits of a key-value store, exact to the byte (Apple's figures for
/// `NSUbiquitousKeyValueStore`).
///
/// Sizes are measured as the value's **binary property list** as
/// ``PropertyList/PropertyList/encoded(as:options:)`` writes it
/// (`bplist00`, header and trailer included): the one size every client and
/// the server compute alike. Keys are measured in bytes of UTF-8 and do not
/// count towards the total.
///
/// ```swift
/// let size = UbiquityLimits.size(of: .string("hello"))   // 48 bytes of bplist
/// size <= UbiquityLimits.maximumValueBytes                // true
/// ```
public enum UbiquityLimits {
    /// At most 1,024 keys in one store.
    public static let maximumKeys = 1_024
    /// At most 1 MB (1,048,576 bytes) for all values of a store together.
    public static let maximumTotalBytes = 1_048_576
    /// At most 1 MB (1,048,576 bytes) for any one value.
    public static let maximumValueBytes = 1_048_576
    /// At most 64 bytes of UTF-8 in a key (and at least one).
    public static let maximumKeyBytes = 64
    /// The most stores one event stream of the server follows (`GET /v1/events`).
    package static let maximumStreamStores = 16
    /// How far a value received (by the server, or by a client from the
    /// server) may expand through shared references before it is refused,
    /// checked while it is decoded, before anything is expanded: a value
    /// whose binary form is within ``maximumValueBytes`` has fewer
    /// references than bytes, so the object bound never refuses one; string
    /// and data bytes are counted once per reference.
    public static let maximumExpansion = PropertyList.ExpansionLimit(objects: maximumValueBytes, bytes: 2 * maximumValueBytes)

    /// The size a value counts for: its binary property list's length.
    ///
    /// ```swift
    /// UbiquityLimits.size(of: .integer(1))   // 43
    /// ```
    public static func size(of value: PropertyList) -> Int {
        value.binaryEncodedSize
    }

    /// Checks a key: 1 to 64 bytes of UTF-8.
    /// - Throws: ``UbiquityError/invalidKey(_:reason:)``.
    public static func check(key: String) throws(UbiquityError) {
        let bytes = key.utf8.count
        if bytes == 0 { throw .invalidKey(key, reason: "a key cannot be empty") }
        if bytes > maximumKeyBytes {
            throw .invalidKey(key, reason: "the key is \(bytes) bytes of UTF-8; at most \(maximumKeyBytes) are allowed")
        }
        if let c = key.unicodeScalars.first(where: { isControl($0) }) {
            throw .invalidKey(key, reason: "the key holds the control character U+\(String(c.value, radix: 16, uppercase: true).leftPadded(4)); keys are text without control characters")
        }
    }

    /// Whether `s` may name a store: 1 to 255 ASCII letters, digits, `.`, `-`
    /// or `_`, not starting with `.` (it names a folder on clients and a row
    /// on the server; both sides check it alike).
    ///
    /// ```swift
    /// UbiquityLimits.isValidStoreIdentifier("com.example.app")   // true
    /// UbiquityLimits.isValidStoreIdentifier("../x")              // false
    /// ```
    public static func isValidStoreIdentifier(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 255 && !s.hasPrefix(".") && s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// C0 controls (NUL among them) and DEL: refused in keys and store
    /// identifiers, which databases, files and terminals do not all keep.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7F }
}

extension PropertyList {
    /// The binary encoding cannot fail (every value has a binary form).
    package func encoded(as format: PropertyListFormat) -> [UInt8] {
        (try? encoded(as: format, options: .init())) ?? []
    }

}

extension String {
    package func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
