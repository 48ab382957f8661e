import PlatformIO

/// Whether a system file (managed preferences) can be trusted: only root can
/// have written it, or anything on the way to it.
///
/// Trusted means, for the path as given and for the path its links lead to:
/// - every component is owned by root;
/// - no component is writable by group or others, except a folder with the
///   sticky bit (such as `/tmp`), whose root-owned entries others can neither
///   rename nor replace;
/// - every symbolic link met is owned by root (and, by the rule above, lies
///   in a folder only root can change);
/// - the file itself is a regular file, never writable by group or others.
///
/// ```swift
/// if case .trusted = SystemFileTrust.check("/etc/managed-preferences/com.example.app.plist") { … }
/// ```
enum SystemFileTrust: Equatable {
    case trusted
    /// No such file (nothing to trust or distrust).
    case absent
    /// Why it is not trusted.
    case untrusted(String)

    static func check(_ path: String) -> SystemFileTrust {
        guard path.hasPrefix("/") else { return .untrusted("\(path) is not an absolute path") }
        do { _ = try FileStatus.of(path) } catch {
            return error.isNotFound ? .absent : .untrusted(error.description)
        }
        guard let why = PathTrust.problem(with: path, owners: [0], subject: "managed preferences") else { return .trusted }
        return .untrusted(why)
    }
}
