import PropertyList

/// The one way a value handed over as `Any` becomes a property-list value,
/// used by `set(_:forKey:)`, `register(defaults:)`, `setVolatileDomain(_:forName:)`
/// and `setPersistentDomain(_:forName:)` alike: everything converts or
/// nothing is changed, and the error names the domain, the key path and the
/// type that is not a property-list value.
enum DefaultsConversion {
    /// One value, for `key` of `domain` (whose file is `path`, empty for volatile domains).
    static func propertyList(_ value: Any, key: String, domain: String, path: String) throws(StorageError) -> PropertyList {
        do {
            return try PropertyList(bridging: value)
        } catch {
            throw failure(error, key: key, domain: domain, path: path)
        }
    }

    /// A whole domain: every value converts, or the first that does not is thrown.
    static func domain(_ values: [String: Any], name: String, path: String) throws(StorageError) -> [LiteralString: PropertyList] {
        var typed: [LiteralString: PropertyList] = [:]
        typed.reserveCapacity(values.count)
        for (key, value) in values {
            typed[key] = try propertyList(value, key: key, domain: name, path: path)
        }
        return typed
    }

    private static func failure(_ error: PropertyListError, key: String, domain: String, path: String) -> StorageError {
        var at = key
        if case .keyPath(let inner) = error.location, !inner.isEmpty { at += "." + inner }
        return StorageError(domain: domain, path: path, kind: .invalidValue,
            reason: "nothing was changed: the value for key '\(at)' \(error.reason.hasPrefix("a value of type") ? "is " + error.reason.dropFirst(2) : "cannot be stored: " + error.reason)")
    }
}
