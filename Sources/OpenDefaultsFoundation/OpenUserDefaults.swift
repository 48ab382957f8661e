import PlatformIO
import SharedTables
public import Foundation
@_exported public import OpenDefaults
import PropertyList
import Synchronization

/// A `Foundation.UserDefaults` that is OpenDefaults underneath: the one line
/// an app typed `UserDefaults` changes to get OpenDefaults' storage.
///
/// ```swift
/// import OpenDefaultsFoundation
/// typealias UserDefaults = OpenUserDefaults  // the module's `UserDefaults` code now runs on OpenDefaults
///
/// let defaults = UserDefaults.standard
/// defaults.set(11, forKey: "Volume")       // journaled: survives a crash once it returns
/// defaults.integer(forKey: "Volume")       // 11, about 20 ns
/// ```
///
/// Every method of `UserDefaults` is overridden and answered by a
/// ``Defaults`` object (``defaults``): the same files as swift-corelibs-
/// foundation's `UserDefaults` (`$XDG_CONFIG_HOME/<domain>.plist`), no lost
/// update between processes, other processes' changes seen at once and
/// posted as `UserDefaults.didChangeNotification`, forced (managed) values,
/// and the typed getters' conversions of Foundation. Like `UserDefaults` it
/// is not `Sendable` (Foundation marks its superclass so); the ``defaults``
/// object it wraps is.
open class OpenUserDefaults: UserDefaults {
    /// The OpenDefaults object that answers: the typed, `Sendable` API.
    public let defaults: Defaults

    /// Wraps `defaults`.
    ///
    /// ```swift
    /// let legacy: UserDefaults = OpenUserDefaults(defaults: Defaults(domainName: "com.example.app"))
    /// ```
    public init(defaults: Defaults) {
        self.defaults = defaults
        // Foundation's initializer sets the argument domain through
        // `setVolatileDomain`, which lands in `defaults` (which has it already).
        super.init(suiteName: defaults.domainName)!
        NotificationPosting.register(self, for: defaults)
    }

    /// The suite `suiteName` (nil: the application's domain); nil for
    /// `NSGlobalDomain` and the volatile domains' names, as `UserDefaults`.
    /// (`OpenUserDefaults()` is the application's domain too.)
    ///
    /// ```swift
    /// let group = OpenUserDefaults(suiteName: "group.com.example")
    /// ```
    public override init?(suiteName: String?) {
        guard let d = Defaults(suiteName: suiteName) else { return nil }
        self.defaults = d
        super.init(suiteName: d.domainName)
        NotificationPosting.register(self, for: d)
    }

    private static let sharedInstance = Lock<OpenUserDefaults?>(nil)

    /// The shared object over ``Defaults/standard``.
    ///
    /// ```swift
    /// let defaults: UserDefaults = OpenUserDefaults.standard
    /// ```
    open override class var standard: OpenUserDefaults {
        let standard = Defaults.standard
        return sharedInstance.withLock { shared in
            if let existing = shared, existing.defaults === standard { return existing }
            let created = OpenUserDefaults(defaults: standard)
            shared = created
            return created
        }
    }

    /// Flushes the shared object and drops it; the next ``standard`` is new.
    open override class func resetStandardUserDefaults() {
        Defaults.resetStandardUserDefaults()
    }

    // MARK: Reading

    open override func object(forKey defaultName: String) -> Any? { defaults.object(forKey: defaultName) }
    open override func string(forKey defaultName: String) -> String? { defaults.string(forKey: defaultName) }
    open override func array(forKey defaultName: String) -> [Any]? { defaults.array(forKey: defaultName) }
    open override func dictionary(forKey defaultName: String) -> [String: Any]? { defaults.dictionary(forKey: defaultName) }
    open override func data(forKey defaultName: String) -> Data? { defaults.data(forKey: defaultName) }
    open override func stringArray(forKey defaultName: String) -> [String]? { defaults.stringArray(forKey: defaultName) }
    open override func integer(forKey defaultName: String) -> Int { defaults.integer(forKey: defaultName) }
    open override func float(forKey defaultName: String) -> Float { defaults.float(forKey: defaultName) }
    open override func double(forKey defaultName: String) -> Double { defaults.double(forKey: defaultName) }
    open override func bool(forKey defaultName: String) -> Bool { defaults.bool(forKey: defaultName) }
    open override func url(forKey defaultName: String) -> URL? { defaults.url(forKey: defaultName) }
    open override func dictionaryRepresentation() -> [String: Any] { defaults.dictionaryRepresentation() }
    open override func objectIsForced(forKey key: String) -> Bool { defaults.objectIsForced(forKey: key) }
    open override func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        defaults.objectIsForced(forKey: key, inDomain: domain)
    }

    // MARK: Writing

    /// Stores a property-list value (Swift's or Foundation's); nil removes.
    /// A value that is not a property list changes nothing and is reported
    /// to the store's error handler (Foundation stops the process instead).
    open override func set(_ value: Any?, forKey defaultName: String) { defaults.set(value, forKey: defaultName) }
    open override func set(_ value: Int, forKey defaultName: String) { defaults.set(value, forKey: defaultName) }
    open override func set(_ value: Float, forKey defaultName: String) { defaults.set(value, forKey: defaultName) }
    open override func set(_ value: Double, forKey defaultName: String) { defaults.set(value, forKey: defaultName) }
    open override func set(_ value: Bool, forKey defaultName: String) { defaults.set(value, forKey: defaultName) }
    open override func set(_ url: URL?, forKey defaultName: String) { defaults.set(url, forKey: defaultName) }
    open override func removeObject(forKey defaultName: String) { defaults.removeObject(forKey: defaultName) }
    open override func register(defaults registrationDictionary: [String: Any]) {
        defaults.register(defaults: registrationDictionary)
    }
    @discardableResult
    open override func synchronize() -> Bool { defaults.synchronize() }

    // MARK: Domains

    open override func addSuite(named suiteName: String) { defaults.addSuite(named: suiteName) }
    open override func removeSuite(named suiteName: String) { defaults.removeSuite(named: suiteName) }
    open override var volatileDomainNames: [String] { defaults.volatileDomainNames }
    open override func volatileDomain(forName domainName: String) -> [String: Any] { defaults.volatileDomain(forName: domainName) }
    open override func setVolatileDomain(_ domain: [String: Any], forName domainName: String) {
        defaults.setVolatileDomain(domain, forName: domainName)
    }
    open override func removeVolatileDomain(forName domainName: String) { defaults.removeVolatileDomain(forName: domainName) }
    open override func persistentDomain(forName domainName: String) -> [String: Any]? { defaults.persistentDomain(forName: domainName) }
    /// Replaces the persistent domain `domainName` and posts
    /// `didChangeNotification` once, with this object, whatever the domain
    /// (as swift-corelibs-foundation does).
    open override func setPersistentDomain(_ domain: [String: Any], forName domainName: String) {
        NotificationPosting.postingOnce(for: defaults, as: self) { defaults.setPersistentDomain(domain, forName: domainName) }
    }
    /// Removes the persistent domain `domainName` and posts
    /// `didChangeNotification` once, with this object, whatever the domain.
    open override func removePersistentDomain(forName domainName: String) {
        NotificationPosting.postingOnce(for: defaults, as: self) { defaults.removePersistentDomain(forName: domainName) }
    }
}
