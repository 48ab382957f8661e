import PlatformIO

/// What the defaults objects over one ``DomainStore`` share, kept by the
/// Defaults layer (the store knows only domains): the registration domain.
///
/// Every ``Defaults`` over ``DomainStore/shared`` — the standard object and
/// every suite of the process — shares one context, so `register(defaults:)`
/// is process-wide there, as `UserDefaults`' is. A store made for another
/// layout (a test's sandbox, a tool acting for another home) has a context
/// of its own: its registrations never leak into the process's defaults.
final class DefaultsContext: Sendable {
    /// `NSRegistrationDomain` for the defaults objects over this store.
    let registration = RegistrationDomain()

    private struct Entry {
        var store: Weak<DomainStore>
        var context: DefaultsContext
    }
    /// The contexts by their store, held as long as the store lives.
    private static let contexts = Lock<[ObjectIdentifier: Entry]>([:])

    /// The context of `store`, made on first use.
    static func of(_ store: DomainStore) -> DefaultsContext {
        contexts.withLock { table in
            let id = ObjectIdentifier(store)
            // An entry whose store is gone belongs to a store that lived at the same address.
            if let entry = table[id], entry.store.object === store { return entry.context }
            if table.count >= 64, table.count.nonzeroBitCount == 1 { table = table.filter { $0.value.store.object != nil } }
            let context = DefaultsContext()
            table[id] = Entry(store: Weak(store), context: context)
            return context
        }
    }
}
