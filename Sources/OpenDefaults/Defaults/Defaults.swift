import Dispatch
import PlatformIO
package import SharedTables
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
    package let store: DomainStore
    /// The persistent domain this object writes (current user, any host).
    let ownDomain: PersistentDomain
    /// The search list and the effective values; the domains in it hold it
    /// (not this object) to tell it of their changes.
    let searchList: SearchList
    /// Room for one object of a layer above the core (the Foundation edge
    /// keeps its notification window here); the core never reads it.
    package let attachment = AttachmentSlot()

    /// `NSArgumentDomain`: the `-Key value` pairs of the command line.
    var arguments: [LiteralString: PropertyList] { searchList.arguments }

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
        self.searchList = SearchList(domainName: domainName, store: store,
            arguments: ArgumentDomain.parse(arguments), languages: Languages.fromEnvironment())
        searchList.setOwner(self)
        searchList.context.suiteLists.join(searchList)
        // Attaches the search list to its persistent domains: their changes
        // reach it synchronously, this process's before `set` returns.
        searchList.rebuild()
    }

    deinit { searchList.detachFromDomains() }

    /// A new defaults object for the application's domain, as
    /// `UserDefaults()` makes one; ``standard`` is the shared one.
    ///
    /// ```swift
    /// let defaults = Defaults()
    /// ```
    public convenience init() {
        self.init(domainName: Defaults.applicationIdentifier)
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

    // MARK: - Domain names

    /// `NSGlobalDomain`: the domain every application reads after its own.
    ///
    /// ```swift
    /// defaults.persistentDomain(forName: Defaults.globalDomain)
    /// ```
    public static let globalDomain = "NSGlobalDomain"
    /// `NSArgumentDomain`: the volatile domain of `-Key value` command-line pairs.
    ///
    /// ```swift
    /// defaults.volatileDomain(forName: Defaults.argumentDomain)
    /// ```
    public static let argumentDomain = "NSArgumentDomain"
    /// `NSRegistrationDomain`: the volatile domain of ``register(defaults:)``.
    ///
    /// ```swift
    /// defaults.volatileDomain(forName: Defaults.registrationDomain)
    /// ```
    public static let registrationDomain = "NSRegistrationDomain"

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

    /// `UserDefaults.resetStandardUserDefaults()`: flushes the shared
    /// instance and drops it; the next ``standard`` is a new object (and
    /// ``DefaultsController/shared`` follows it).
    ///
    /// ```swift
    /// Defaults.resetStandardUserDefaults()
    /// ```
    public static func resetStandardUserDefaults() {
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
}
