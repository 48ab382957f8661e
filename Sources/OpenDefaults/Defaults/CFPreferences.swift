import PlatformIO
import SharedTables
public import PropertyList
import Synchronization

/// The Core Foundation preferences functions, over explicit scopes.
///
/// ```swift
/// CFPreferences.setAppValue("Ada", forKey: "Name", applicationID: "com.example.app")
/// CFPreferences.appSynchronize("com.example.app")
/// CFPreferences.copyAppValue(forKey: "Name", applicationID: "com.example.app")  // "Ada"
/// ```
public enum CFPreferences {
    /// `kCFPreferencesAnyApplication`: the global domain.
    public static let anyApplication = PreferencesLayout.globalDomainName
    /// `kCFPreferencesCurrentApplication`: this application's domain.
    ///
    /// ```swift
    /// CFPreferences.copyAppValue(forKey: "Volume", applicationID: CFPreferences.currentApplication)
    /// ```
    public static var currentApplication: String { Defaults.applicationIdentifier }
    /// `kCFPreferencesCurrentUser`.
    public static let currentUser = PreferenceScope.User.current
    /// `kCFPreferencesAnyUser`.
    public static let anyUser = PreferenceScope.User.any
    /// `kCFPreferencesCurrentHost`.
    public static let currentHost = PreferenceScope.Host.current
    /// `kCFPreferencesAnyHost`.
    public static let anyHost = PreferenceScope.Host.any

    /// The store the functions use: the one given to ``withStore(_:_:)`` in
    /// this task, else the one set with ``useStore(_:)``, else ``DomainStore/shared``.
    public static var store: DomainStore { taskStore ?? storeOverride.withLock { $0 } ?? .shared }
    private static let storeOverride = Lock<DomainStore?>(nil)
    @TaskLocal private static var taskStore: DomainStore?

    /// Points the functions at another store for the whole process (a sandbox).
    ///
    /// ```swift
    /// CFPreferences.useStore(DomainStore(layout: sandboxLayout))
    /// ```
    public static func useStore(_ store: DomainStore?) { storeOverride.withLock { $0 = store } }

    /// Runs `body` with the functions pointed at `store` in this task only
    /// (tests that run side by side).
    ///
    /// ```swift
    /// CFPreferences.withStore(sandboxStore) {
    ///     CFPreferences.setAppValue("Ada", forKey: "Name", applicationID: "com.example.app")
    /// }
    /// ```
    public static func withStore<Result>(_ store: DomainStore, _ body: () throws -> Result) rethrows -> Result {
        try $taskStore.withValue(store) { try body() }
    }

    /// The domain an application identifier names: Apple's constant names
    /// (`"kCFPreferencesCurrentApplication"`, `"kCFPreferencesAnyApplication"`)
    /// are accepted as well as the Swift constants.
    static func name(_ applicationID: String) -> String {
        switch applicationID {
        case "kCFPreferencesCurrentApplication": currentApplication
        case "kCFPreferencesAnyApplication": anyApplication
        default: applicationID
        }
    }

    private static func domain(_ applicationID: String, _ user: PreferenceScope.User, _ host: PreferenceScope.Host) -> PersistentDomain? {
        let n = name(applicationID)
        guard PreferencesLayout.isValidDomainName(n) else { return nil }
        return store.domain(n, scope: PreferenceScope(user: user, host: host))
    }

    /// The suites of each application over ``store``, shared with its ``Defaults`` objects.
    private static var suiteLists: SuiteLists { DefaultsContext.of(store).suiteLists }

    private static func order(_ applicationID: String) -> SearchOrder {
        let app = name(applicationID)
        return SearchOrder(application: app, suites: suiteLists.suites(of: app))
    }

    // MARK: Application values (the search list of an application)

    /// `CFPreferencesCopyAppValue`: the value from the application's search
    /// list — the same order as ``Defaults`` without its argument, language
    /// and registration domains: forced values, then the application, its
    /// suites and the global domain (current user before any user; this
    /// host before any host).
    ///
    /// ```swift
    /// CFPreferences.copyAppValue(forKey: "Name", applicationID: "com.example.app")
    /// ```
    public static func copyAppValue(forKey key: String, applicationID: String) -> PropertyList? {
        order(applicationID).value(forKey: key, in: store)
    }

    /// `CFPreferencesGetAppBooleanValue`: true for a `true` boolean, a
    /// non-zero number, or the string `true`/`YES` (any case); false for
    /// their opposites (`false`/`NO`). `keyExistsAndHasValidFormat` says
    /// whether the value was one of those.
    ///
    /// ```swift
    /// var valid = false
    /// let on = CFPreferences.getAppBooleanValue(forKey: "Enabled", applicationID: "com.example.app",
    ///                                           keyExistsAndHasValidFormat: &valid)
    /// ```
    public static func getAppBooleanValue(forKey key: String, applicationID: String, keyExistsAndHasValidFormat: UnsafeMutablePointer<Bool>? = nil) -> Bool {
        var valid = false
        var result = false
        switch copyAppValue(forKey: key, applicationID: applicationID) {
        case .boolean(let b)?: (result, valid) = (b, true)
        case .integer(let n)?: (result, valid) = (n.clampedInt != 0, true)
        case .real(let d)?: (result, valid) = (d != 0, true)
        case .string(let s)?:
            switch s.lowercased() {
            case "true", "yes": (result, valid) = (true, true)
            case "false", "no": (result, valid) = (false, true)
            default: break
            }
        default: break
        }
        keyExistsAndHasValidFormat?.pointee = valid
        return result
    }

    /// `CFPreferencesGetAppIntegerValue`: a number (a real truncated), or a
    /// string that is wholly a 32-bit decimal integer (spaces around it
    /// allowed); else 0 with `keyExistsAndHasValidFormat` false. A boolean is
    /// not an integer here, as in Core Foundation.
    ///
    /// ```swift
    /// let volume = CFPreferences.getAppIntegerValue(forKey: "Volume", applicationID: "com.example.app")
    /// ```
    public static func getAppIntegerValue(forKey key: String, applicationID: String, keyExistsAndHasValidFormat: UnsafeMutablePointer<Bool>? = nil) -> Int {
        var valid = false
        var result = 0
        switch copyAppValue(forKey: key, applicationID: applicationID) {
        case .integer(let n)?: (result, valid) = (n.clampedInt, true)
        case .real(let d)?:
            if d.isFinite, let i = Int(exactly: d.rounded(.towardZero)) { (result, valid) = (i, true) }
        case .string(let s)?:
            let t = s.trimmingSpaces
            if let i = Int32(t.hasPrefix("+") ? String(t.dropFirst()) : t) { (result, valid) = (Int(i), true) }
        default: break
        }
        keyExistsAndHasValidFormat?.pointee = valid
        return result
    }

    /// `CFPreferencesSetAppValue`: sets (nil removes) in the application's
    /// current-user, any-host domain.
    ///
    /// ```swift
    /// CFPreferences.setAppValue(5, forKey: "Volume", applicationID: "com.example.app")
    /// ```
    public static func setAppValue(_ value: PropertyList?, forKey key: String, applicationID: String) {
        domain(applicationID, .current, .any)?.set(value, forKey: key)
    }

    /// `CFPreferencesAppSynchronize`: flushes the application's current-user
    /// domains and reloads what other processes wrote.
    ///
    /// ```swift
    /// CFPreferences.appSynchronize("com.example.app")
    /// ```
    @discardableResult
    public static func appSynchronize(_ applicationID: String) -> Bool {
        synchronize(applicationID: applicationID, user: .current, host: .any)
    }

    /// `CFPreferencesAppValueIsForced`: an administrator forces `key`
    /// somewhere in the application's search list (the same check as
    /// ``Defaults/objectIsForced(forKey:)``).
    ///
    /// ```swift
    /// CFPreferences.appValueIsForced(forKey: "UpdateURL", applicationID: "com.example.app")
    /// ```
    public static func appValueIsForced(forKey key: String, applicationID: String) -> Bool {
        order(applicationID).forcedValue(forKey: key, in: store) != nil
    }

    /// `CFPreferencesAddSuitePreferencesToApp`: the suite joins the
    /// application's search list — the same list ``Defaults/addSuite(named:)``
    /// adds to, so every defaults object of the application sees it.
    ///
    /// ```swift
    /// CFPreferences.addSuitePreferences(toApp: "com.example.app", suite: "group.com.example")
    /// ```
    public static func addSuitePreferences(toApp applicationID: String, suite: String) {
        let app = name(applicationID)
        guard PreferencesLayout.isValidDomainName(suite), LiteralString(suite) != LiteralString(app), suite != anyApplication else { return }
        suiteLists.add(suite, to: app)
    }

    /// `CFPreferencesRemoveSuitePreferencesFromApp`.
    ///
    /// ```swift
    /// CFPreferences.removeSuitePreferences(fromApp: "com.example.app", suite: "group.com.example")
    /// ```
    public static func removeSuitePreferences(fromApp applicationID: String, suite: String) {
        suiteLists.remove(suite, from: name(applicationID))
    }

    // MARK: One domain in one scope

    /// `CFPreferencesCopyValue`: the value in exactly one domain and scope.
    ///
    /// ```swift
    /// CFPreferences.copyValue(forKey: "Volume", applicationID: "com.example.app", user: .current, host: .current)
    /// ```
    public static func copyValue(forKey key: String, applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> PropertyList? {
        domain(applicationID, user, host)?.value(forKey: key)
    }

    /// `CFPreferencesSetValue` (nil removes). Writing any-user domains needs
    /// permission; ``synchronize(applicationID:user:host:)`` reports a failure.
    ///
    /// ```swift
    /// CFPreferences.setValue(true, forKey: "Docked", applicationID: "com.example.app", user: .current, host: .current)
    /// ```
    public static func setValue(_ value: PropertyList?, forKey key: String, applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) {
        domain(applicationID, user, host)?.set(value, forKey: key)
    }

    /// `CFPreferencesCopyMultiple`: the given keys that have values (all
    /// keys when nil).
    ///
    /// ```swift
    /// CFPreferences.copyMultiple(["A", "B"], applicationID: "com.example.app", user: .current, host: .any)
    /// ```
    public static func copyMultiple(_ keys: [String]?, applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> [LiteralString: PropertyList] {
        guard let entries = domain(applicationID, user, host)?.entries else { return [:] }
        guard let keys else { return entries }
        var out: [LiteralString: PropertyList] = [:]
        for k in keys { if let v = entries[k] { out[k] = v } }
        return out
    }

    /// `CFPreferencesSetMultiple`: sets `keysToSet` and removes `keysToRemove`
    /// as one change (a removal wins over a set of the same key, as in Core
    /// Foundation, which applies removals last).
    ///
    /// ```swift
    /// CFPreferences.setMultiple(["A": 1], removing: ["B"], applicationID: "com.example.app", user: .current, host: .any)
    /// ```
    public static func setMultiple(_ keysToSet: [LiteralString: PropertyList], removing keysToRemove: [String], applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) {
        var changes: [LiteralString: PropertyList?] = [:]
        for (k, v) in keysToSet { changes[k] = v }
        for k in keysToRemove { changes[k] = PropertyList?.none }
        domain(applicationID, user, host)?.set(changes)
    }

    /// `CFPreferencesCopyKeyList`: the keys of one domain in one scope,
    /// sorted (empty where Core Foundation returns NULL).
    ///
    /// ```swift
    /// CFPreferences.copyKeyList(applicationID: "com.example.app", user: .current, host: .any)
    /// ```
    public static func copyKeyList(applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> [String] {
        domain(applicationID, user, host)?.entries.keys.sorted().map(\.string) ?? []
    }

    /// `CFPreferencesCopyApplicationList`: the domains that have a file in
    /// one scope, sorted (`NSGlobalDomain` among them when it has one).
    ///
    /// ```swift
    /// CFPreferences.copyApplicationList(user: .current, host: .any)  // ["NSGlobalDomain", "com.example.app"]
    /// ```
    public static func copyApplicationList(user: PreferenceScope.User, host: PreferenceScope.Host) -> [String] {
        store.persistentDomainNames(scope: PreferenceScope(user: user, host: host))
    }

    /// `CFPreferencesSynchronize`: flushes one domain in one scope and
    /// reloads what other processes wrote. False when it could not write.
    ///
    /// ```swift
    /// CFPreferences.synchronize(applicationID: "com.example.app", user: .any, host: .any)
    /// ```
    @discardableResult
    public static func synchronize(applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> Bool {
        guard let d = domain(applicationID, user, host) else { return false }
        do {
            try d.synchronize()
            return true
        } catch {
            store.report(error)
            return false
        }
    }
}
