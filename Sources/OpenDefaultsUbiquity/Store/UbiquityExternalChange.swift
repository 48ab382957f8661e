/// One external change: its reason and the keys whose values changed.
///
/// ```swift
/// let change = UbiquityExternalChange(reason: .serverChange, changedKeys: ["theme"])
/// print(change)   // ServerChange theme
/// ```
public struct UbiquityExternalChange: Sendable, Hashable, CustomStringConvertible {
    /// Why the values changed.
    public var reason: UbiquityChangeReason
    /// The keys that changed, sorted.
    public var changedKeys: [String]

    /// A change of `changedKeys` for `reason`.
    public init(reason: UbiquityChangeReason, changedKeys: [String]) {
        self.reason = reason
        self.changedKeys = changedKeys
    }

    /// The reason's name then the keys, separated by spaces (the line `ubiquity watch` prints).
    public var description: String { ([reason.description] + changedKeys).joined(separator: " ") }
}
