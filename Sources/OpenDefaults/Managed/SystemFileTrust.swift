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
        if let why = checkComponents(of: path) { return .untrusted(why) }
        guard let canonical = FileIO.canonicalPath(path) else { return .absent }
        if canonical != path, let why = checkComponents(of: canonical) { return .untrusted(why) }
        return .trusted
    }

    /// Checks `/`, then each prefix of `path`, with `lstat`.
    private static func checkComponents(of path: String) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        var prefix = ""
        for (i, part) in ([""] + parts).enumerated() {
            prefix = i == 0 ? "/" : (prefix == "/" ? "/" : prefix + "/") + part
            let st: FileStatus
            do { st = try FileStatus.of(prefix, followingLinks: false) } catch { return error.description }
            let isLast = i == parts.count
            if st.owner != 0 {
                return "managed preferences must be owned by root all the way from /: \(prefix) is owned by uid \(st.owner)"
            }
            if st.kind == .symbolicLink {
                // A root-owned link in a folder only root can change: followed by the canonical check.
                continue
            }
            if isLast {
                guard st.kind == .regular else { return "\(prefix) is not a regular file" }
                if st.isWritableByOthers { return "\(prefix) is writable by group or others" }
            } else {
                guard st.kind == .directory else { return "\(prefix) is not a folder" }
                if st.isWritableByOthers, !st.isSticky {
                    return "\(prefix) is writable by group or others, so anyone could replace what is in it"
                }
            }
        }
        return nil
    }
}
