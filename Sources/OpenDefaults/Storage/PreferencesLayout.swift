import PlatformIO
import SharedTables
import Synchronization

/// Where persistent domains live on disk, on the paths Foundation on Linux
/// uses, so both see the same data.
///
/// | scope | file |
/// |---|---|
/// | current user, any host | `$XDG_CONFIG_HOME/<domain>.plist` (`~/.config` when unset or relative) |
/// | current user, current host | `$XDG_CONFIG_HOME/ByHost/<domain>.<host id>.plist` |
/// | any user, any host | `/usr/local/etc/<domain>.plist` |
/// | any user, current host | `/usr/local/etc/ByHost/<domain>.<host id>.plist` |
/// | managed, everyone | `/etc/managed-preferences/<domain>.plist` |
/// | managed, one user | `/etc/managed-preferences/users/<name>/<domain>.plist` |
/// | managed by profiles | `/etc/managed-preferences/profiles/forced/<domain>.plist`, `…/profiles/users/<name>/forced/<domain>.plist` |
///
/// The global domain's file is `.GlobalPreferences.plist`. The host id is
/// the first line of `/etc/machine-id` (else `/var/lib/dbus/machine-id`,
/// else the host name). `OPENDEFAULTS_SYSTEM_ROOT` relocates every
/// system-wide path (`/usr/local/etc`, `/etc/managed-preferences`, the
/// machine id) under another root, for tests and containers.
///
/// ```swift
/// let layout = PreferencesLayout.current
/// layout.path(for: "com.example.app", scope: .currentUser)  // "/home/ada/.config/com.example.app.plist"
/// ```
public struct PreferencesLayout: Sendable, Hashable {
    /// The current user's preferences folder.
    public var userDirectory: String
    /// The folder for every user's preferences.
    public var systemDirectory: String
    /// The folder of managed (forced) preferences.
    public var managedDirectory: String
    /// This machine's identifier, for by-host files.
    ///
    /// In ``current`` it is read from `/etc/machine-id` when first needed
    /// (a process that never touches a by-host domain never reads it).
    public var hostIdentifier: String {
        get { storedHostIdentifier ?? Self.machineIdentifier(root: hostRoot) }
        set { storedHostIdentifier = newValue }
    }
    /// The current user's login name (for per-user managed preferences).
    ///
    /// In ``current`` it is looked up (`getpwuid`) when first needed.
    public var userName: String {
        get { storedUserName ?? Self.loginName }
        set { storedUserName = newValue }
    }

    /// Set explicitly, or nil: looked up on use.
    private var storedHostIdentifier: String?
    private var storedUserName: String?
    /// The root under which the machine id is looked up.
    private var hostRoot = ""

    /// The global domain's name in the API.
    public static let globalDomainName = "NSGlobalDomain"
    /// The global domain's file name stem.
    public static let globalDomainFileStem = ".GlobalPreferences"

    public init(userDirectory: String, systemDirectory: String, managedDirectory: String, hostIdentifier: String, userName: String) {
        self.userDirectory = userDirectory
        self.systemDirectory = systemDirectory
        self.managedDirectory = managedDirectory
        self.storedHostIdentifier = hostIdentifier
        self.storedUserName = userName
    }

    /// A layout whose machine id (under `hostRoot`) and login name are looked up on use.
    private init(userDirectory: String, systemDirectory: String, managedDirectory: String, hostRoot: String) {
        self.userDirectory = userDirectory
        self.systemDirectory = systemDirectory
        self.managedDirectory = managedDirectory
        self.hostRoot = hostRoot
    }

    /// This process's user's login name, looked up once.
    private static let loginName: String = Environment.passwdName() ?? "\(Environment.userID)"

    /// The machine id under each root, read once per root.
    private static let machineIdentifiers = Lock<[String: String]>([:])

    private static func machineIdentifier(root: String) -> String {
        if let known = machineIdentifiers.withLock({ $0[root] }) { return known }
        let id = hostID(root: root)
        machineIdentifiers.withLock { $0[root] = id }
        return id
    }

    /// The root every system-wide path is under: `OPENDEFAULTS_SYSTEM_ROOT` (without a
    /// trailing `/`), or "" for `/`. Also where `/etc/opendefaults` is looked up.
    package static var systemRoot: String {
        Environment["OPENDEFAULTS_SYSTEM_ROOT"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
    }

    /// Where the managed-preferences folder is under a system root (`<root>/etc/managed-preferences`).
    package static let managedFolder = "/etc/managed-preferences"

    /// The layout for this process's environment.
    public static var current: PreferencesLayout {
        let config = UserDirectories.config
        let root = systemRoot
        // The machine id and the login name are looked up when first used:
        // most processes (`defaults read D K`) need neither.
        return PreferencesLayout(
            userDirectory: config,
            systemDirectory: root + "/usr/local/etc",
            managedDirectory: root + managedFolder,
            hostRoot: root)
    }

    static func hostID(root: String) -> String {
        for path in [root + "/etc/machine-id", root + "/var/lib/dbus/machine-id"] {
            if let bytes = try? FileIO.read(path) { let text = String(decoding: bytes, as: UTF8.self)
                let line = text.split(separator: "\n").first.map(String.init)?.trimmingSpaces ?? ""
                if !line.isEmpty, line.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { return line }
            }
        }
        return Environment.hostName() ?? "localhost"
    }

    /// The file stem for a domain name: the global domain is `.GlobalPreferences`.
    public static func fileStem(for domain: String) -> String {
        domain == globalDomainName || domain == "Apple Global Domain" || domain == "kCFPreferencesAnyApplication"
            ? globalDomainFileStem : domain
    }

    /// The domain name a file stem stands for.
    public static func domainName(forFileStem stem: String) -> String {
        stem == globalDomainFileStem ? globalDomainName : stem
    }

    /// The directory of a scope's files.
    public func directory(for scope: PreferenceScope) -> String {
        let base = scope.user == .current ? userDirectory : systemDirectory
        return scope.host == .current ? base + "/ByHost" : base
    }

    /// The file of `domain` in `scope`.
    public func path(for domain: String, scope: PreferenceScope) -> String {
        let stem = Self.fileStem(for: domain)
        let name = scope.host == .current ? "\(stem).\(hostIdentifier).plist" : "\(stem).plist"
        return directory(for: scope) + "/" + name
    }

    /// The managed-preference files for `domain`, in increasing precedence:
    /// everyone's (written by hand, then derived from installed `System`
    /// configuration profiles), then this user's (by hand, then from `User`
    /// profiles). A user's forced value wins over everyone's.
    public func managedPaths(for domain: String) -> [String] {
        managedPaths(for: domain, byHand: true, fromProfiles: true)
    }

    /// ``managedPaths(for:)`` for a one-time read: the same files, less a
    /// user's file whose folder (`users`, `profiles/users`) does not exist,
    /// so that a read where no per-user preferences are managed does not
    /// look up the login name (the password database, through NSS: a tenth
    /// of a cold `defaults read`). A watcher uses ``managedPaths(for:)``,
    /// which names the files that may appear later.
    package func managedPathsToRead(for domain: String) -> [String] {
        if storedUserName != nil { return managedPaths(for: domain) }
        return managedPaths(for: domain, byHand: FileStatus.exists(managedDirectory + "/users"),
                            fromProfiles: FileStatus.exists(managedDirectory + "/profiles/users"))
    }

    /// Everyone's two files, then the user's by hand and from profiles when
    /// asked for (the login name is looked up only then).
    private func managedPaths(for domain: String, byHand: Bool, fromProfiles: Bool) -> [String] {
        let stem = Self.fileStem(for: domain)
        var paths = [managedDirectory + "/\(stem).plist", managedDirectory + "/profiles/forced/\(stem).plist"]
        guard byHand || fromProfiles else { return paths }
        let user = "/users/\(userName)"
        if byHand { paths.append(managedDirectory + user + "/\(stem).plist") }
        if fromProfiles { paths.append(managedDirectory + "/profiles" + user + "/forced/\(stem).plist") }
        return paths
    }

    /// The longest domain name accepted, in UTF-8 bytes (a file name holds
    /// 255, and by-host files add the host identifier).
    public static let maximumDomainNameLength = 192

    /// Checks that `name` can name a domain: the one gate every domain name
    /// from data (bundles, forms, URLs, the environment) passes before it
    /// becomes part of a file name. Refused: the empty name, `/`, `..`, NUL
    /// and other control characters, and names longer than
    /// ``maximumDomainNameLength`` bytes. (A domain kept in an arbitrary file
    /// is only ever the `defaults` tool's explicit path form,
    /// ``DomainStore/domain(atPath:)``.)
    ///
    /// ```swift
    /// try PreferencesLayout.validateDomainName("com.example.app")   // fine
    /// try PreferencesLayout.validateDomainName("../../tmp/x")       // throws StorageError
    /// ```
    public static func validateDomainName(_ name: String) throws(StorageError) {
        func refuse(_ why: String) -> StorageError {
            var shown = ""
            for scalar in name.unicodeScalars.prefix(80) {
                shown += scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
            return StorageError(domain: shown, path: "", kind: .invalidValue,
                reason: "not a valid domain name: \(why) (expected something like com.example.app)")
        }
        // Byte by byte (control characters are single bytes in UTF-8), with
        // nothing generic: this runs first in every cold `defaults` process.
        let bytes = name.utf8
        if bytes.isEmpty { throw refuse("it is empty") }
        if bytes.count > maximumDomainNameLength { throw refuse("longer than \(maximumDomainNameLength) bytes") }
        if bytes.contains(UInt8(ascii: "/")) { throw refuse("it contains '/'") }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "."), previous == byte { throw refuse("it contains '..'") }
            previous = byte
        }
        if name == "." { throw refuse("it contains '..'") }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw refuse("it contains NUL or another control character")
        }
    }

    /// Whether ``validateDomainName(_:)`` accepts `name`.
    public static func isValidDomainName(_ name: String) -> Bool {
        (try? validateDomainName(name)) != nil
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
        return String(s)
    }
}
