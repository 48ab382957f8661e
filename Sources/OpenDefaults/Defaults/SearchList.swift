import PlatformIO
import SharedTables
import PropertyList
import Synchronization

/// The search list of one ``Defaults`` object and the effective value of
/// every key it resolves to.
///
/// It is apart from `Defaults` so that the persistent domains it reads can
/// hold it strongly as a ``DomainDependent`` and tell it of a change before a
/// write returns, with no weak reference on the way (a weak reference moves
/// every retain and release of its object to a slow path). The defaults
/// object detaches it from its domains when released.
final class SearchList: DomainDependent {
    /// A source of values, in search order. Domains are referenced without
    /// retaining them: a domain with a dependent attached is kept by its
    /// store (proposal 0009), and this list holds its store.
    enum Source: Sendable {
        case forced(Unretained<ManagedDomain>)
        case arguments
        case persistent(Unretained<PersistentDomain>)
        case languages
        case registration
    }

    struct State {
        var volatileDomains: [String: [LiteralString: PropertyList]] = [:]
        var sources: [Source] = []
        /// The persistent domains among the sources (this search list is attached to each).
        var persistentDomains: [PersistentDomain] = []
        /// The managed domains among the sources (this search list is attached to each).
        var managedDomains: [ManagedDomain] = []
        /// The effective value of every key: the union of the search list.
        var resolved = ResolvedView()
        /// The forced values alone (the managed sources' union), for ``Defaults/objectIsForced(forKey:)``.
        var forced = ResolvedView()
        var registrationVersion: UInt64 = .max
        var keyObservers: [LiteralString: ObserverList<@Sendable (PropertyList?, PropertyList?) -> Void>] = [:]
        var anyObservers = ObserverList<@Sendable () -> Void>()
    }

    /// The defaults object's own domain name.
    let domainName: String
    let store: DomainStore
    /// What the defaults objects over ``store`` share (registration, suites).
    let context: DefaultsContext
    /// ``DefaultsContext/instanceObservers`` of ``context``, tested on every
    /// change (kept here: reaching it through the context retains it).
    let instanceObservers: ObserverRegistry<@Sendable (Defaults) -> Void>
    /// `NSRegistrationDomain` of ``context``.
    var registration: RegistrationDomain { context.registration }
    /// `NSArgumentDomain`.
    let arguments: [LiteralString: PropertyList]
    /// The preferred languages, one volatile domain each.
    let languages: [String]
    let state: Lock<State>
    /// The defaults object, for the observers of every defaults object over the store (``Defaults/observeAllInstances(over:_:)``).
    private let owner = Lock<WeakOwner>(WeakOwner())

    private struct WeakOwner {
        weak var defaults: Defaults?
    }

    init(domainName: String, store: DomainStore, arguments: [LiteralString: PropertyList], languages: [String]) {
        self.domainName = domainName
        self.store = store
        self.context = DefaultsContext.of(store)
        self.instanceObservers = context.instanceObservers
        self.arguments = arguments
        self.languages = languages
        self.state = Lock(State())
    }

    func setOwner(_ defaults: Defaults) {
        owner.withLock { $0.defaults = defaults }
    }

    /// Tells process-wide observers that the effective values changed.
    private func notifyAllInstances() {
        guard !instanceObservers.isEmpty else { return }
        let observers = instanceObservers
        guard let defaults = owner.withLock({ $0.defaults }) else { return }
        for h in observers.handlers { h(defaults) }
    }

    // MARK: Building

    /// The application's search order, with its suites as they are now.
    var order: SearchOrder { SearchOrder(application: domainName, suites: context.suiteLists.suites(of: domainName)) }

    /// Rebuilds the sources and the resolved view from scratch (after the
    /// search list changes), and attaches to the persistent domains in it.
    func rebuild() {
        let order = self.order
        var sources: [Source] = []
        var managedDomains: [ManagedDomain] = []
        for name in order.names {
            // Every managed domain is a source, empty or not: an administrator
            // may force a value later, and its reload reaches this list.
            let managed = store.managedDomain(name)
            sources.append(.forced(Unretained(managed)))
            managedDomains.append(managed)
        }
        if !arguments.isEmpty { sources.append(.arguments) }
        var persistent: [PersistentDomain] = []
        for (name, scope) in order.persistent {
            let d = store.domain(name, scope: scope)
            sources.append(.persistent(Unretained(d)))
            persistent.append(d)
        }
        sources.append(.languages)
        sources.append(.registration)
        // Attached before resolving: a change from now on reaches this list
        // either through the entries read below or as a delivery after them.
        for d in persistent { d.attach(self) }
        for m in managedDomains { m.attach(self) }
        let registered = self.registration.values.withLock { $0 }
        let version = self.registration.version.load(ordering: .acquiring)
        let (stale, staleManaged): ([PersistentDomain], [ManagedDomain]) = state.withLock { s in
            let old = s.persistentDomains
            let oldManaged = s.managedDomains
            s.sources = sources
            s.persistentDomains = persistent
            s.managedDomains = managedDomains
            s.resolved = ResolvedView(resolveAll(s, registration: registered))
            s.forced = ResolvedView(forcedUnion(s))
            s.registrationVersion = version
            return (old.filter { o in !persistent.contains { $0 === o } },
                    oldManaged.filter { o in !managedDomains.contains { $0 === o } })
        }
        for d in stale { d.detach(self) }
        for m in staleManaged { m.detach(self) }
    }

    /// Stops hearing of the domains' changes (the defaults object is gone).
    func detachFromDomains() {
        context.suiteLists.leave(self)
        let (persistent, managed) = state.withLock { ($0.persistentDomains, $0.managedDomains) }
        for d in persistent { d.detach(self) }
        for m in managed { m.detach(self) }
    }

    // MARK: Resolving

    /// The union of the search list, earlier sources winning.
    func resolveAll(_ s: State, registration: [LiteralString: PropertyList]) -> [LiteralString: PropertyList] {
        var merged = registration
        for source in s.sources.reversed() {
            switch source {
            case .registration: continue
            case .languages:
                // The languages and the locale, unless a language's domain sets them itself (as
                // `resolve(_:_:)` answers one key: a seeded test found the two disagreeing).
                merged["AppleLanguages"] = .array(languages.map { .string($0) })
                merged["AppleLocale"] = .string(Languages.localeFromEnvironment())
                for lang in languages.reversed() {
                    if let d = s.volatileDomains[lang] { merged.merge(d) { _, new in new } }
                }
            case .arguments: merged.merge(arguments) { _, new in new }
            case .persistent(let d): merged.merge(d.withObject(\.entries)) { _, new in new }
            case .forced(let m): merged.merge(m.withObject(\.entries)) { _, new in new }
            }
        }
        return merged
    }

    /// The union of the managed sources, earlier ones winning.
    func forcedUnion(_ s: State) -> [LiteralString: PropertyList] {
        var merged: [LiteralString: PropertyList] = [:]
        for case .forced(let m) in s.sources.reversed() { merged.merge(m.withObject(\.entries)) { _, new in new } }
        return merged
    }

    /// The forced value of one key, if a managed source has it.
    private func resolveForced(_ key: String, _ s: borrowing State) -> PropertyList? {
        for case .forced(let m) in s.sources {
            if let v = m.withObject({ $0.entryCount.load(ordering: .acquiring) == 0 ? nil : $0.value(forKey: key) }) { return v }
        }
        return nil
    }

    /// Whether a managed source forces `key` (one lock, one lookup).
    func isForced(_ key: String) -> Bool {
        state.withLock { $0.forced[key] != nil }
    }

    /// The effective value of one key, walking the search list. `changed`
    /// holds `value` for the key as of `version` (see `domainChanged`).
    func resolve(_ key: String, _ s: borrowing State, changed: PersistentDomain? = nil,
                 value: PropertyList? = nil, version: UInt64 = 0) -> PropertyList? {
        for source in s.sources {
            switch source {
            case .forced(let m):
                if let v = m.withObject({ $0.entryCount.load(ordering: .acquiring) == 0 ? nil : $0.value(forKey: key) }) { return v }
            case .arguments: if let v = arguments[key] { return v }
            case .persistent(let d):
                // `nil` means "not here, go on"; `.some(nil)` means "removed here, go on" too.
                let found: PropertyList? = d.withObject { d in
                    if d === changed, d.valuesVersion.load(ordering: .acquiring) == version { return value }
                    if d.entryCount.load(ordering: .acquiring) == 0 { return nil }
                    return d.value(forKey: key)
                }
                if let found { return found }
            case .languages:
                for lang in languages { if let v = s.volatileDomains[lang]?[key] { return v } }
                if key == "AppleLanguages" { return .array(languages.map { .string($0) }) }
                if key == "AppleLocale" { return .string(Languages.localeFromEnvironment()) }
            case .registration:
                return registration.values.withLock { $0[key] }
            }
        }
        return nil
    }

    // MARK: Changes

    /// One key of a persistent domain changed in this process: one lock, no
    /// `DomainChange` built.
    func domainChanged(_ domain: PersistentDomain, key: String, hash: UInt64, value: PropertyList?, version: UInt64) {
        var pending: [(@Sendable (PropertyList?, PropertyList?) -> Void, PropertyList?, PropertyList?)] = []
        let outcome: ChangeOutcome = state.withLock { s in
            // The change's value is used only if nothing was written to the
            // domain after it (with two threads setting the key, the later
            // delivery may carry the older value); otherwise it is looked up.
            let new = resolve(key, s, changed: domain, value: value, version: version)
            let old: PropertyList?
            if let new { old = s.resolved.updateValue(new, forKey: key, hash: hash) } else { old = s.resolved.removeValue(forKey: key, hash: hash) }
            guard !PropertyList.same(old, new) else { return .unchanged }
            if !s.keyObservers.isEmpty, let observers = s.keyObservers[key] {
                for o in observers.handlers { pending.append((o, old, new)) }
            }
            // With nobody observing, no list leaves the lock (its retain and
            // release were a tenth of a set's atomic operations).
            return s.anyObservers.isEmpty ? .changed : .observed(s.anyObservers.handlers)
        }
        if case .unchanged = outcome { return }
        for (o, old, new) in pending { o(old, new) }
        if case .observed(let any) = outcome { for o in any { o() } }
        notifyAllInstances()
    }

    /// What one key's change did to the resolved values, and whom to tell.
    private enum ChangeOutcome {
        case unchanged
        /// The value changed; nobody observes every key.
        case changed
        /// The value changed; these observe every key.
        case observed([@Sendable () -> Void])
    }

    /// Several keys of a persistent domain changed, in this process or on disk.
    func domainChanged(_ change: DomainChange) {
        refresh(change.changes.keys)
    }

    /// Recomputes `keys` and tells observers what changed.
    func refresh(_ keys: some Sequence<LiteralString>) {
        var anyChanged = false
        var pending: [(@Sendable (PropertyList?, PropertyList?) -> Void, PropertyList?, PropertyList?)] = []
        let any: [@Sendable () -> Void] = state.withLock { s in
            for literal in keys {
                let key = literal.string
                s.forced[key] = resolveForced(key, s)
                let old = s.resolved[key]
                let new = resolve(key, s)
                guard old != new else { continue }
                s.resolved[key] = new
                anyChanged = true
                if let observers = s.keyObservers[literal] {
                    for o in observers.handlers { pending.append((o, old, new)) }
                }
            }
            return anyChanged ? s.anyObservers.handlers : []
        }
        for (o, old, new) in pending { o(old, new) }
        for o in any { o() }
        if anyChanged { notifyAllInstances() }
    }

    /// Tells observers about keys whose resolved value already changed.
    func refreshObservers(changedKeys: some Collection<LiteralString>, before: [LiteralString: PropertyList]) {
        guard !changedKeys.isEmpty else { return }
        var calls: [(@Sendable (PropertyList?, PropertyList?) -> Void, PropertyList?, PropertyList?)] = []
        let any: [@Sendable () -> Void] = state.withLock { s in
            for key in changedKeys {
                for o in s.keyObservers[key]?.handlers ?? [] { calls.append((o, before[key], s.resolved[key.string])) }
            }
            return s.anyObservers.handlers
        }
        for (o, old, new) in calls { o(old, new) }
        for o in any { o() }
        notifyAllInstances()
    }

    /// Rebuilds after the search list changed, and tells observers what that changed.
    func rebuildAndNotify() {
        let before = state.withLock { $0.resolved.dictionary() }
        rebuild()
        let after = state.withLock { $0.resolved.dictionary() }
        refreshObservers(changedKeys: DomainChange.diff(before, after).keys, before: before)
    }

    // MARK: The registration domain

    /// Brings the view of the registration domain up to date (the store's defaults objects share it).
    @inline(__always)
    func checkRegistration() {
        let version = registration.version.load(ordering: .acquiring)
        if state.withLock({ $0.registrationVersion }) == version { return }
        updateRegistration(version)
    }

    func updateRegistration(_ version: UInt64) {
        let keys = registration.values.withLock { Array($0.keys) }  // registering only adds
        state.withLock { $0.registrationVersion = version }
        refresh(keys)
    }
}
