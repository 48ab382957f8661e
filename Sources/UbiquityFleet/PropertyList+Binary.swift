import PropertyList

extension PropertyList {
    /// The value as a binary property list (every value a fleet writes encodes: no reals that
    /// are not finite, no dates out of range).
    var encodedBinary: [UInt8] {
        do { return try encoded(as: .binary) } catch { preconditionFailure("a fleet value did not encode: \(error)") }
    }
}
