public import PropertyList

/// What changed in a persistent domain: each changed key with its old and
/// new value (nil when absent).
///
/// ```swift
/// let token = DomainStore.shared.observe { change in
///     for (key, values) in change.changes { print(change.domain, key, values.old as Any, values.new as Any) }
/// }
/// ```
public struct DomainChange: Sendable {
    /// An old and a new value of one key.
    public struct Values: Sendable, Hashable {
        public var old: PropertyList?
        public var new: PropertyList?
    }

    /// Who made the change.
    public enum Origin: Sendable, Hashable {
        /// This process.
        case thisProcess
        /// Another process (seen on disk).
        case otherProcess
    }

    /// The domain's name.
    public var domain: String
    /// The domain's scope.
    public var scope: PreferenceScope
    /// The changed keys.
    public var changes: [LiteralString: Values]
    /// Who made it.
    public var origin: Origin
    /// The domain object that changed.
    @_spi(Engine) public var source: PersistentDomain?

    package init(domain: String, scope: PreferenceScope, changes: [LiteralString: Values], origin: Origin, source: PersistentDomain? = nil) {
        self.domain = domain
        self.scope = scope
        self.changes = changes
        self.origin = origin
        self.source = source
    }

    /// The differences between two versions of a domain.
    static func diff(_ old: [LiteralString: PropertyList], _ new: [LiteralString: PropertyList]) -> [LiteralString: Values] {
        var out: [LiteralString: Values] = [:]
        for (k, v) in new where old[k] != v { out[k] = Values(old: old[k], new: v) }
        for (k, v) in old where new[k] == nil { out[k] = Values(old: v, new: nil) }
        return out
    }
}
