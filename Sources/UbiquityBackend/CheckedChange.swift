
/// A change the server has checked: key length, value decoded, size measured.
package struct CheckedChange: Sendable, Hashable {
    package var key: String
    package var base: Int64
    /// The value's binary property list, re-encoded canonically; nil removes.
    package var bytes: [UInt8]?
    package var size: Int { bytes?.count ?? 0 }

    package init(key: String, base: Int64, bytes: [UInt8]?) {
        self.key = key
        self.base = base
        self.bytes = bytes
    }
}
