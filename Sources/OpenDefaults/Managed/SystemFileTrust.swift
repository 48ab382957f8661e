#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
        var st = stat()
        if stat(path, &st) != 0 {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .absent : .untrusted("\(path): \(String(cString: strerror(code)))")
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
            var st = stat()
            guard lstat(prefix, &st) == 0 else { return "\(prefix): \(String(cString: strerror(errno)))" }
            let kind = st.st_mode & S_IFMT
            let isLast = i == parts.count
            if st.st_uid != 0 {
                return "managed preferences must be owned by root all the way from /: \(prefix) is owned by uid \(st.st_uid)"
            }
            if kind == S_IFLNK {
                // A root-owned link in a folder only root can change: followed by the canonical check.
                continue
            }
            if isLast {
                guard kind == S_IFREG else { return "\(prefix) is not a regular file" }
                if st.st_mode & 0o022 != 0 { return "\(prefix) is writable by group or others" }
            } else {
                guard kind == S_IFDIR else { return "\(prefix) is not a folder" }
                let sticky = st.st_mode & mode_t(S_ISVTX) != 0
                if st.st_mode & 0o022 != 0, !sticky {
                    return "\(prefix) is writable by group or others, so anyone could replace what is in it"
                }
            }
        }
        return nil
    }
}
