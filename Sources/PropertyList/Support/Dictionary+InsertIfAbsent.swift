extension Dictionary {
    /// Inserts `value` for `key` unless the key is present, hashing the key
    /// once. Readers that build a dictionary from its last entry to its first
    /// use it so that a repeated key keeps the value met last.
    @inline(__always)
    mutating func insertIfAbsent(_ value: Value, forKey key: Key) {
        // The modify accessor of `subscript(_:default:)` inserts the default
        // when the key is absent and leaves a present value as it is.
        func touch(_: inout Value) {}
        touch(&self[key, default: value])
    }
}
