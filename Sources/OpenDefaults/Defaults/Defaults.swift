import Dispatch
import PlatformIO
import PropertyList
import Synchronization

/// The user defaults system: Foundation's `UserDefaults`, over persistent
/// domains that never lose a write.
///
/// A value is answered from a search list, first match wins: values an
/// administrator forces; `NSArgumentDomain` (`-Key value` on the command
/// line); the application domain; suites added with ``addSuite(named:)``;
/// `NSGlobalDomain`; one volatile domain per preferred language;
/// `NSRegistrationDomain`. Persistent domains are consulted in
/// CFPreferences' order: every current-user level (application, suites,
/// global; this host before any host) before every any-user level.
///
/// Code written for Apple platforms compiles against it with a typealias:
///
/// ```swift
/// import OpenDefaults
/// typealias UserDefaults = Defaults
///
/// let defaults = UserDefaults.standard
/// defaults.register(defaults: ["Volume": 5])
/// defaults.set(11, forKey: "Volume")
/// defaults.integer(forKey: "Volume")  // 11, on disk within milliseconds
/// ```
///
/// Every method may be called from any thread or task.
public final class Defaults: Sendable {
    /// The domain this instance writes: the application's, or the suite's.
    public let domainName: String
    let store: DomainStore
    /// The persistent domain this object writes (current user, any host).
    let ownDomain: PersistentDomain

    /// A source of values in the search list.
    enum Source {
        case forced(ManagedDomain)
        case arguments
        case persistent(PersistentDomain)
        case volatile(String)
        case languages
        case registration
    }

    struct State {
        var suites: [String] = []
        var volatileDomains: [String: [String: PropertyList]] = [:]
        var sources: [Source] = []
        /// The persistent domains among the sources, to recognise their changes.
        var persistentDomains: Set<ObjectIdentifier> = []
        /// The same, as a list: a handful of identity comparisons beat a hash.
        var persistentDomainList: [PersistentDomain] = []
        /// The effective value of every key: the union of the search list.
        var resolved = ResolvedView()
        var registrationVersion: UInt64 = .max
        var keyObservers: [String: [UInt64: @Sendable (PropertyList?, PropertyList?) -> Void]] = [:]
        var anyObservers: [UInt64: @Sendable () -> Void] = [:]
        var nextObserver: UInt64 = 1
    }

    let state: Lock<State>
    private let storeObservation: Lock<ObservationToken?> = Lock(nil)
    let arguments: [String: PropertyList]
    let languages: [String]

    // MARK: - Creating

    /// Creates a defaults object whose own domain is `domainName`.
    ///
    /// - Parameters:
    ///   - domainName: the application identifier or suite name.
    ///   - store: where persistent domains live (``DomainStore/shared`` by default).
    ///   - arguments: the command line for `NSArgumentDomain`.
    public init(domainName: String, store: DomainStore = .shared, arguments: [String] = CommandLine.arguments) {
        self.domainName = domainName
        self.store = store
        self.ownDomain = store.domain(domainName, scope: .currentUser)
        self.arguments = ArgumentDomain.parse(arguments)
        self.languages = Languages.fromEnvironment()
        self.state = Lock(State())
        rebuild()
        // Synchronous for own writes; one key's change skips building a DomainChange.
        let token = store.listen(DomainStore.Listener(
            one: { [weak self] domain, key, value, version in self?.domainChanged(domain, key: key, value: value, version: version) },
            many: { [weak self] change in self?.domainChanged(change) }))
        storeObservation.withLock { $0 = token }
    }

    /// A defaults object whose own domain is the suite `suiteName`; with nil,
    /// the application's. Nil for `NSGlobalDomain` (and the volatile domain
    /// names), as on Apple platforms.
    ///
    /// ```swift
    /// let shared = Defaults(suiteName: "group.com.example.shared")
    /// ```
    public convenience init?(suiteName: String?) {
        guard let name = suiteName else {
            self.init(domainName: Defaults.applicationIdentifier)
            return
        }
        if name == PreferencesLayout.globalDomainName || name == ArgumentDomain.name || name == RegistrationDomain.name
            || !PreferencesLayout.isValidDomainName(name)
        {
            return nil
        }
        self.init(domainName: name)
    }

    // MARK: - The shared instance

    private static let standardInstance = Lock<Defaults?>(nil)
    private static let identifierOverride = Lock<String?>(nil)

    /// The shared defaults object of the application's domain.
    public static var standard: Defaults {
        if let d = standardInstance.withLock({ $0 }) { return d }
        let created = Defaults(domainName: applicationIdentifier)
        return standardInstance.withLock { s in
            if let existing = s { return existing }
            s = created
            return created
        }
    }

    /// Flushes the shared instance and drops it; the next ``standard`` is new.
    public static func resetStandardDefaults() {
        let old = standardInstance.withLock { s -> Defaults? in
            defer { s = nil }
            return s
        }
        _ = old?.synchronize()
    }

    /// The application's domain name: set with ``setApplicationIdentifier(_:)``,
    /// else the bundle identifier from an `Info.plist` beside the executable
    /// (or in its bundle's `Contents/`), else the executable's name.
    public static var applicationIdentifier: String {
        if let id = identifierOverride.withLock({ $0 }) { return id }
        return ApplicationIdentity.detect()
    }

    /// Names the application's domain; call it before first using ``standard``.
    public static func setApplicationIdentifier(_ identifier: String) {
        identifierOverride.withLock { $0 = identifier }
    }

    // MARK: - The search list

    /// The persistent domains consulted, in order.
    func persistentSearchList(suites: [String]) -> [(String, PreferenceScope)] {
        let names = [domainName] + suites.filter { $0 != domainName } + [PreferencesLayout.globalDomainName]
        var list: [(String, PreferenceScope)] = []
        for user in [PreferenceScope.User.current, .any] {
            for name in names {
                list.append((name, PreferenceScope(user: user, host: .current)))
                list.append((name, PreferenceScope(user: user, host: .any)))
            }
        }
        return list
    }

    /// Rebuilds the sources and the resolved view from scratch (after the
    /// search list changes).
    func rebuild() {
        let suites = state.withLock { $0.suites }
        var sources: [Source] = []
        for name in [domainName] + suites + [PreferencesLayout.globalDomainName] {
            // Managed domains change only when reloaded (synchronize rebuilds): skip empty ones.
            let managed = store.managedDomain(name)
            if !managed.entries.isEmpty { sources.append(.forced(managed)) }
        }
        if !arguments.isEmpty { sources.append(.arguments) }
        var persistent: Set<ObjectIdentifier> = []
        for (name, scope) in persistentSearchList(suites: suites) {
            let d = store.domain(name, scope: scope)
            sources.append(.persistent(d))
            persistent.insert(ObjectIdentifier(d))
        }
        sources.append(.languages)
        sources.append(.registration)
        let registration = RegistrationDomain.values.withLock { $0 }
        let version = RegistrationDomain.version.load(ordering: .acquiring)
        state.withLock { s in
            s.sources = sources
            s.persistentDomains = persistent
            s.persistentDomainList = sources.compactMap { if case .persistent(let d) = $0 { d } else { nil } }
            s.resolved = ResolvedView(resolveAll(s, registration: registration))
            s.registrationVersion = version
        }
    }

    /// The union of the search list, earlier sources winning.
    private func resolveAll(_ s: State, registration: [String: PropertyList]) -> [String: PropertyList] {
        var merged = registration
        for source in s.sources.reversed() {
            switch source {
            case .registration: continue
            case .languages:
                for lang in languages.reversed() {
                    if let d = s.volatileDomains[lang] { merged.merge(d) { _, new in new } }
                }
                merged["AppleLanguages"] = .array(languages.map { .string($0) })
                merged["AppleLocale"] = .string(Languages.localeFromEnvironment())
            case .volatile(let name):
                if let d = s.volatileDomains[name] { merged.merge(d) { _, new in new } }
            case .arguments: merged.merge(arguments) { _, new in new }
            case .persistent(let d): merged.merge(d.entries) { _, new in new }
            case .forced(let m): merged.merge(m.entries) { _, new in new }
            }
        }
        return merged
    }

    /// The effective value of one key, walking the search list. `changed`
    /// holds `value` for the key as of `version` (see `domainChanged`).
    func resolve(_ key: String, _ s: State, registration: [String: PropertyList]? = nil,
                 changed: PersistentDomain? = nil, value: PropertyList? = nil, version: UInt64 = 0) -> PropertyList? {
        for source in s.sources {
            switch source {
            case .forced(let m): if let v = m.value(forKey: key) { return v }
            case .arguments: if let v = arguments[key] { return v }
            case .persistent(let d):
                if d === changed, d.valuesVersion.load(ordering: .acquiring) == version {
                    if let value { return value }
                    continue
                }
                if d.entryCount.load(ordering: .acquiring) == 0 { continue }
                if let v = d.value(forKey: key) { return v }
            case .volatile(let name): if let v = s.volatileDomains[name]?[key] { return v }
            case .languages:
                for lang in languages { if let v = s.volatileDomains[lang]?[key] { return v } }
                if key == "AppleLanguages" { return .array(languages.map { .string($0) }) }
                if key == "AppleLocale" { return .string(Languages.localeFromEnvironment()) }
            case .registration:
                if let registration { return registration[key] }
                return RegistrationDomain.values.withLock { $0[key] }
            }
        }
        return nil
    }

    /// One key of a persistent domain changed in this process: one lock, no
    /// `DomainChange` built.
    private func domainChanged(_ domain: PersistentDomain, key: String, value: PropertyList?, version: UInt64) {
        var pending: [(@Sendable (PropertyList?, PropertyList?) -> Void, PropertyList?, PropertyList?)] = []
        let any: [@Sendable () -> Void]? = state.withLock { s in
            guard s.persistentDomainList.contains(where: { $0 === domain }) else { return nil }
            // The change's value is used only if nothing was written to the
            // domain after it (with two threads setting the key, the later
            // delivery may carry the older value); otherwise it is looked up.
            let new = resolve(key, s, changed: domain, value: value, version: version)
            let old = new.map { s.resolved.updateValue($0, forKey: key) } ?? s.resolved.removeValue(forKey: key)
            guard old != new else { return nil }
            if !s.keyObservers.isEmpty, let observers = s.keyObservers[key] {
                for o in observers.values { pending.append((o, old, new)) }
            }
            return s.anyObservers.isEmpty ? [] : Array(s.anyObservers.values)
        }
        guard let any else { return }
        for (o, old, new) in pending { o(old, new) }
        for o in any { o() }
        if GlobalObservers.count.load(ordering: .relaxed) > 0 { GlobalObservers.notify(self) }
    }

    /// Recomputes `keys` and tells observers what changed.
    func refresh(_ keys: some Sequence<String>) {
        let notifications: [(@Sendable (PropertyList?, PropertyList?) -> Void, PropertyList?, PropertyList?)]
        var anyChanged = false
        var pending: [(@Sendable (PropertyList?, PropertyList?) -> Void, PropertyList?, PropertyList?)] = []
        let any: [@Sendable () -> Void] = state.withLock { s in
            for key in keys {
                let old = s.resolved[key]
                let new = resolve(key, s)
                guard old != new else { continue }
                s.resolved[key] = new
                anyChanged = true
                if let observers = s.keyObservers[key] {
                    for o in observers.values { pending.append((o, old, new)) }
                }
            }
            return anyChanged ? Array(s.anyObservers.values) : []
        }
        notifications = pending
        for (o, old, new) in notifications { o(old, new) }
        for o in any { o() }
        if anyChanged, GlobalObservers.count.load(ordering: .relaxed) > 0 { GlobalObservers.notify(self) }
    }

    /// A change to a persistent domain, from this process or another.
    private func domainChanged(_ change: DomainChange) {
        guard let source = change.source else { return }
        let relevant = state.withLock { $0.persistentDomains.contains(ObjectIdentifier(source)) }
        if relevant { refresh(change.changes.keys) }
    }

    /// Brings the view of the registration domain up to date (it is shared by the process).
    @inline(__always)
    func checkRegistration() {
        let version = RegistrationDomain.version.load(ordering: .acquiring)
        if state.withLock({ $0.registrationVersion }) == version { return }
        updateRegistration(version)
    }

    func updateRegistration(_ version: UInt64) {
        let keys = RegistrationDomain.values.withLock { Array($0.keys) }  // registering only adds
        state.withLock { $0.registrationVersion = version }
        refresh(keys)
    }
}
