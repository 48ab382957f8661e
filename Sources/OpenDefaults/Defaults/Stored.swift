
/// A stored setting: a property backed by a defaults key.
///
/// ```swift
/// struct Settings {
///     @Stored("Volume", default: 5) var volume: Int
///     @Stored("Theme", default: .light, defaults: Defaults(suiteName: "group.shared")!) var theme: Theme
/// }
/// ```
@propertyWrapper
public struct Stored<Value: DefaultsValue>: Sendable {
    public let key: Defaults.Key<Value>
    public let defaults: Defaults

    public init(_ name: String, default defaultValue: Value, defaults: Defaults = .standard) {
        self.key = Defaults.Key(name, default: defaultValue)
        self.defaults = defaults
    }

    @inlinable
    public var wrappedValue: Value {
        get { defaults[key] }
        nonmutating set { defaults[key] = newValue }
    }
}
