import PropertyList
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
    public static var currentApplication: String { Defaults.applicationIdentifier }

    /// The store the functions use (``DomainStore/shared`` unless set for tests).
    public static var store: DomainStore { storeOverride.withLock { $0 } ?? .shared }
    private static let storeOverride = Lock<DomainStore?>(nil)
    /// Points the functions at another store (tests, sandboxes).
    public static func useStore(_ store: DomainStore?) { storeOverride.withLock { $0 = store } }

    private static let suitesByApplication = Lock<[String: [String]]>([:])

    static func name(_ applicationID: String) -> String {
        applicationID == "kCFPreferencesCurrentApplication" ? currentApplication : applicationID
    }

    // MARK: Application values (the search list of an application)

    /// `CFPreferencesCopyAppValue`: the value from the application's search
    /// list (forced values, the application, its suites, the global domain;
    /// current user before any user; this host before any host).
    public static func copyAppValue(forKey key: String, applicationID: String) -> PropertyList? {
        let app = name(applicationID)
        let suites = suitesByApplication.withLock { $0[app] ?? [] }
        let names = [app] + suites + [anyApplication]
        for n in names { if let v = store.managedDomain(n).value(forKey: key) { return v } }
        for user in [PreferenceScope.User.current, .any] {
            for n in names {
                for host in [PreferenceScope.Host.current, .any] {
                    if let v = store.domain(n, scope: PreferenceScope(user: user, host: host)).value(forKey: key) { return v }
                }
            }
        }
        return nil
    }

    /// `CFPreferencesSetAppValue`: sets (nil removes) in the application's
    /// current-user, any-host domain.
    public static func setAppValue(_ value: PropertyList?, forKey key: String, applicationID: String) {
        store.domain(name(applicationID), scope: .currentUser).set(value, forKey: key)
    }

    /// `CFPreferencesAppSynchronize`: flushes and reloads the application's domains.
    @discardableResult
    public static func appSynchronize(_ applicationID: String) -> Bool {
        synchronize(applicationID: applicationID, user: .current, host: .any)
    }

    /// `CFPreferencesAppValueIsForced`.
    public static func appValueIsForced(forKey key: String, applicationID: String) -> Bool {
        store.managedDomain(name(applicationID)).value(forKey: key) != nil
            || store.managedDomain(anyApplication).value(forKey: key) != nil
    }

    /// `CFPreferencesAddSuitePreferencesToApp`.
    public static func addSuitePreferences(toApp applicationID: String, suite: String) {
        suitesByApplication.withLock { s in
            let app = name(applicationID)
            if !(s[app] ?? []).contains(suite) { s[app, default: []].append(suite) }
        }
    }

    /// `CFPreferencesRemoveSuitePreferencesFromApp`.
    public static func removeSuitePreferences(fromApp applicationID: String, suite: String) {
        suitesByApplication.withLock { $0[name(applicationID)]?.removeAll { $0 == suite } }
    }

    // MARK: One domain in one scope

    /// `CFPreferencesCopyValue`: the value in exactly one domain and scope.
    public static func copyValue(forKey key: String, applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> PropertyList? {
        store.domain(name(applicationID), scope: PreferenceScope(user: user, host: host)).value(forKey: key)
    }

    /// `CFPreferencesSetValue` (nil removes). Writing any-user domains needs
    /// permission; ``synchronize(applicationID:user:host:)`` reports a failure.
    public static func setValue(_ value: PropertyList?, forKey key: String, applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) {
        store.domain(name(applicationID), scope: PreferenceScope(user: user, host: host)).set(value, forKey: key)
    }

    /// `CFPreferencesCopyMultiple`: the given keys (all keys when nil).
    public static func copyMultiple(_ keys: [String]?, applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> [String: PropertyList] {
        let entries = store.domain(name(applicationID), scope: PreferenceScope(user: user, host: host)).entries
        guard let keys else { return entries }
        var out: [String: PropertyList] = [:]
        for k in keys { if let v = entries[k] { out[k] = v } }
        return out
    }

    /// `CFPreferencesSetMultiple`: sets `keysToSet` and removes `keysToRemove` at once.
    public static func setMultiple(_ keysToSet: [String: PropertyList], removing keysToRemove: [String], applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) {
        var changes: [String: PropertyList?] = [:]
        for k in keysToRemove { changes[k] = PropertyList?.none }
        for (k, v) in keysToSet { changes[k] = v }
        store.domain(name(applicationID), scope: PreferenceScope(user: user, host: host)).set(changes)
    }

    /// `CFPreferencesCopyKeyList`: the keys of one domain in one scope.
    public static func copyKeyList(applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> [String] {
        store.domain(name(applicationID), scope: PreferenceScope(user: user, host: host)).entries.keys.sorted()
    }

    /// `CFPreferencesSynchronize`: flushes and reloads one domain in one scope.
    @discardableResult
    public static func synchronize(applicationID: String, user: PreferenceScope.User, host: PreferenceScope.Host) -> Bool {
        do {
            try store.domain(name(applicationID), scope: PreferenceScope(user: user, host: host)).synchronize()
            return true
        } catch {
            return false
        }
    }
}
