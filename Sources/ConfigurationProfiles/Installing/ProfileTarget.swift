/// Whose managed preferences a profile sets: every user's (a `System`
/// profile) or one user's (a `User` profile installed for that user).
///
/// ```swift
/// let target = ProfileTarget.user("ada")
/// print(target)   // "user ada"
/// ```
public enum ProfileTarget: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Every user of this system.
    case system
    /// The user with this login name.
    case user(String)

    public var description: String {
        switch self {
        case .system: "system"
        case .user(let name): "user \(name)"
        }
    }

    /// The form kept in the index: `System`, or `User:<name>`.
    var stored: String {
        switch self {
        case .system: "System"
        case .user(let name): "User:" + name
        }
    }

    init?(stored: String) {
        if stored == "System" { self = .system; return }
        guard stored.hasPrefix("User:"), stored.count > 5 else { return nil }
        self = .user(String(stored.dropFirst(5)))
    }
}
