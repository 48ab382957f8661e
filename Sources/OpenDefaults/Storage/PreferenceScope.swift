/// Which user's and which host's preferences a persistent domain belongs to,
/// as CFPreferences' `kCFPreferencesCurrentUser`/`AnyUser` and
/// `kCFPreferencesCurrentHost`/`AnyHost`.
///
/// ```swift
/// let byHost = PreferenceScope(user: .current, host: .current)   // `defaults -currentHost`
/// ```
public struct PreferenceScope: Sendable, Hashable, CustomStringConvertible {
    /// Whose preferences.
    public enum User: Sendable, Hashable { case current, any }
    /// Which machine's preferences.
    public enum Host: Sendable, Hashable { case current, any }

    public var user: User
    public var host: Host

    public init(user: User = .current, host: Host = .any) {
        self.user = user
        self.host = host
    }

    /// The current user on any host: where applications' preferences live.
    public static let currentUser = PreferenceScope(user: .current, host: .any)
    /// The current user on this host only ("ByHost").
    public static let currentUserCurrentHost = PreferenceScope(user: .current, host: .current)
    /// Every user, any host.
    public static let anyUser = PreferenceScope(user: .any, host: .any)
    /// Every user, this host only.
    public static let anyUserCurrentHost = PreferenceScope(user: .any, host: .current)

    public var description: String {
        "\(user == .current ? "current user" : "any user"), \(host == .current ? "current host" : "any host")"
    }
}
