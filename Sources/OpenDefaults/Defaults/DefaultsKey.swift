
extension Defaults {
    /// A typed key with its default value.
    ///
    /// ```swift
    /// extension Defaults.Keys {
    ///     static let volume = Defaults.Key<Int>("Volume", default: 5)
    /// }
    /// defaults[.volume] += 1
    /// ```
    public struct Key<Value: DefaultsValue>: Sendable {
        /// The key's name in the domain.
        public let name: String
        /// The value when the key is absent or holds something of another type.
        public let defaultValue: Value

        /// The name's hash in the resolved view, computed once.
        @usableFromInline let hash: UInt64

        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
            self.hash = KeyHash.hash(name)
        }
    }

    /// Reads or writes a typed key; reading a missing or mistyped value gives the key's default.
    ///
    /// Inlinable, so that a read specializes for the key's type in the caller.
    @inlinable
    public subscript<Value>(key: Key<Value>) -> Value {
        get {
            guard let stored = propertyList(forKey: key.name, hash: key.hash), let v = Value(propertyList: stored) else { return key.defaultValue }
            return v
        }
        set { setTyped(newValue, forKey: key.name) }
    }

    @usableFromInline
    func setTyped<Value: DefaultsValue>(_ newValue: Value, forKey name: String) {
        if newValue.removesKey { removeObject(forKey: name); return }
        do { setPropertyList(try newValue.propertyList, forKey: name) } catch {
            store.report(StorageError(domain: domainName, path: ownDomain.path, kind: .invalidValue,
                reason: "cannot store the value for key '\(name)': \(error)"))
        }
    }
}
