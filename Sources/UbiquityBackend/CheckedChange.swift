
/// A change the server has checked: key length, value decoded, size measured.
public struct CheckedChange: Sendable, Hashable {
    public var key: String
    package var base: Int64
    /// The value's binary property list, re-encoded canonically; nil removes.
    public var bytes: [UInt8]?
    public var size: Int { bytes?.count ?? 0 }

    package init(key: String, base: Int64, bytes: [UInt8]?) {
        self.key = key
        self.base = base
        self.bytes = bytes
    }
}
