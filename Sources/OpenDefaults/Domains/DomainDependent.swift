import PropertyList

/// Something derived from persistent domains that must hear of their changes
/// synchronously, before the write returns: the search list of a defaults
/// object.
///
/// A domain holds its dependents strongly and calls them outside its lock;
/// a dependent detaches itself when it is no longer needed
/// (``PersistentDomain/detach(_:)``). Holding them strongly, rather than
/// through a weak reference, keeps the write path off the slow side-table
/// reference counting that weak references force on an object.
protocol DomainDependent: AnyObject, Sendable {
    /// One key of `domain` changed in this process. `value` is the key's
    /// value as of `version` of the domain (see ``PersistentDomain/valuesVersion``);
    /// `hash` is the key's ``KeyHash``, computed once for every table the change touches.
    func domainChanged(_ domain: PersistentDomain, key: String, hash: UInt64, value: PropertyList?, version: UInt64)
    /// Several keys changed, or keys changed on disk.
    func domainChanged(_ change: DomainChange)
}
