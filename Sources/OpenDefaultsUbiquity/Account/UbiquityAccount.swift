@_spi(Engine) public import OpenDefaults
import PlatformIO
import PropertyList

/// The account this machine syncs with: a sync server's address and a token
/// for one of its accounts (`ubiquity login <server-URL> <token>`).
///
/// Kept in the preferences domain `org.opendefaults.ubiquity.account` of the
/// current user (`$XDG_CONFIG_HOME/org.opendefaults.ubiquity.account.plist`,
/// mode 0600: it holds the token). Stores follow it: logging in to another
/// account swaps every store's local copy and posts
/// ``UbiquityChangeReason/accountChange``.
///
/// ```swift
/// if let account = UbiquityAccount.current() { print(account.server, account.name) }
/// ```
public struct UbiquityAccount: Sendable, Hashable {
    /// The server's base URL, e.g. `http://127.0.0.1:8443`.
    public var server: String
    /// The bearer token.
    public var token: String
    /// The account's name on the server.
    public var name: String
    /// The account's stable identifier on the server (names the local folder).
    public var identifier: String
    /// A PEM file of certificate authorities to trust for the server (self-signed servers), or nil for the system's.
    public var certificateAuthorities: String?

    /// An account.
    public init(server: String, token: String, name: String, identifier: String, certificateAuthorities: String? = nil) {
        self.server = server
        self.token = token
        self.name = name
        self.identifier = identifier
        self.certificateAuthorities = certificateAuthorities
    }

    /// The preferences domain that holds the login.
    public static let domainName = "org.opendefaults.ubiquity.account"

    static func domain(in store: DomainStore) -> PersistentDomain { store.domain(domainName, scope: .currentUser) }

    /// The account logged in for the current user, or nil.
    public static func current(in store: DomainStore = .shared) -> UbiquityAccount? {
        let d = domain(in: store)
        guard case .string(let server)? = d.value(forKey: "server"), case .string(let token)? = d.value(forKey: "token"),
            case .string(let name)? = d.value(forKey: "name"), case .string(let id)? = d.value(forKey: "identifier"),
            isSafeIdentifier(id)
        else { return nil }
        var ca: String? = nil
        if case .string(let path)? = d.value(forKey: "certificateAuthorities") { ca = path }
        return UbiquityAccount(server: server, token: token, name: name, identifier: id, certificateAuthorities: ca)
    }

    /// Logs in: writes the account durably (mode 0600).
    /// - Throws: ``UbiquityError/storage(_:)`` when the file cannot be written.
    public func save(in store: DomainStore = .shared) throws(UbiquityError) {
        guard Self.isSafeIdentifier(identifier) else { throw .storage("the server's account identifier \"\(identifier)\" is not a safe folder name") }
        var entries: [LiteralString: PropertyList] = [
            "server": .string(server), "token": .string(token), "name": .string(name), "identifier": .string(identifier),
        ]
        if let certificateAuthorities { entries["certificateAuthorities"] = .string(certificateAuthorities) }
        let d = Self.domain(in: store)
        d.replaceAll(with: entries)
        do { try d.synchronize() } catch { throw .storage("\(error)") }
        // It holds the token: 0600 even when an earlier file had another mode
        // (a rewritten file otherwise keeps its mode).
        do { try FileIO.restrictToOwner(d.path, creating: false) } catch { throw .storage("\(error)") }
    }

    /// Logs out: removes the login (local copies stay, per account).
    public static func remove(in store: DomainStore = .shared) throws(UbiquityError) {
        let d = domain(in: store)
        d.replaceAll(with: nil)
        do { try d.synchronize() } catch { throw .storage("\(error)") }
    }

    /// Letters, digits, `-` and `_`, 1 to 64 of them: safe as a folder name.
    static func isSafeIdentifier(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }
}
