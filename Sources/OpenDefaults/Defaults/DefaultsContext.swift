import SharedTables

/// What the defaults objects over one ``DomainStore`` share, kept by the
/// Defaults layer (the store knows only domains): the registration domain,
/// each application's suites, and the observers of every defaults object over the store.
///
/// Every ``Defaults`` over ``DomainStore/shared`` — the standard object and
/// every suite of the process — shares one context, so `register(defaults:)`
/// is process-wide there, as `UserDefaults`' is. A store made for another
/// layout (a test's sandbox, a tool acting for another home) has a context
/// of its own: its registrations never leak into the process's defaults.
final class DefaultsContext: Sendable {
    /// `NSRegistrationDomain` for the defaults objects over this store.
    let registration = RegistrationDomain()
    /// The suites of each application, shared by its defaults objects and ``CFPreferences``.
    let suiteLists = SuiteLists()
    /// The handlers of ``Defaults/observeAllInstances(over:_:)``: told of a change to the
    /// effective values of any defaults object over this store.
    let instanceObservers = ObserverRegistry<@Sendable (Defaults) -> Void>()

    /// The contexts by their store, each kept as long as its store lives.
    private static let contexts = WeakKeyedTable<DomainStore, DefaultsContext>()

    /// The context of `store`, made on first use.
    static func of(_ store: DomainStore) -> DefaultsContext {
        contexts.value(for: store) { DefaultsContext() }
    }
}
