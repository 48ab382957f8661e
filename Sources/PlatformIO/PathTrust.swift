#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a file that decides what a program does (managed preferences, a
/// server's settings file, a trusted certificate) can have been written only
/// by the owners it trusts — root, and for some files the user running the
/// program — and by no one else, anywhere on the way to it.
///
/// For the path as given and for the path its links lead to:
/// - every component is owned by a trusted owner;
/// - no component is writable by group or others, except a folder with the
///   sticky bit (such as `/tmp`), whose entries others can neither rename nor
///   replace;
/// - every symbolic link met is owned by a trusted owner (and, by the rule
///   above, lies in a folder only they can change);
/// - the file itself is a regular file, never writable by group or others.
///
/// ```swift
/// if let why = PathTrust.problem(with: "/etc/opendefaults/ubiquity.plist", owners: PathTrust.rootOrMe) { refuse(why) }
/// ```
package enum PathTrust {
    /// Why `path` (relative to the current folder unless absolute) is not
    /// trusted, or nil when it is; `subject` starts the message about an owner
    /// ("managed preferences must be owned by root …"). A path that cannot be
    /// examined (missing, no permission) is not trusted: the system's reason.
    /// With `folder`, `path` names a folder (checked as the folders on the way are).
    package static func problem(with path: String, owners: Set<UInt32>, subject: String = "it", folder: Bool = false) -> String? {
        let absolute = path.hasPrefix("/") ? path : (Environment.currentDirectory ?? "") + "/" + path
        guard absolute.hasPrefix("/") else { return "\(path) is not an absolute path" }
        if let why = checkComponents(of: absolute, owners: owners, subject: subject, folder: folder) { return why }
        guard let canonical = FileIO.canonicalPath(absolute) else { return "\(path) cannot be resolved" }
        if canonical != absolute, let why = checkComponents(of: canonical, owners: owners, subject: subject, folder: folder) { return why }
        return nil
    }

    /// The owners a file read by this process may have: root and this user.
    package static var rootOrMe: Set<UInt32> { [0, Environment.effectiveUserID] }

    /// Checks `/`, then each prefix of `path`, with `lstat`.
    private static func checkComponents(of path: String, owners: Set<UInt32>, subject: String, folder: Bool) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        var prefix = ""
        for (i, part) in ([""] + parts).enumerated() {
            prefix = i == 0 ? "/" : (prefix == "/" ? "/" : prefix + "/") + part
            let st: FileStatus
            do { st = try FileStatus.of(prefix, followingLinks: false) } catch { return error.description }
            if !owners.contains(st.owner) {
                let who = owners == [0] ? "root" : "root or uid " + owners.filter { $0 != 0 }.map(String.init).joined(separator: ", ")
                return "\(subject) must be owned by \(who) all the way from /: \(prefix) is owned by uid \(st.owner)"
            }
            if st.kind == .symbolicLink {
                // A trusted owner's link in a folder only they can change: followed by the canonical check.
                continue
            }
            if i == parts.count, !folder {
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
