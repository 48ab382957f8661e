#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the system says of one file: its kind, permission bits, owner and
/// modification time (`stat`/`lstat`/`fstat`), in the library's own types.
///
/// ```swift
/// let status = try FileStatus.of("/etc/managed-preferences", followingLinks: false)
/// if status.owner != 0 || status.isWritableByOthers { /* not trusted */ }
/// ```
package struct FileStatus: Sendable, Hashable {
    /// The kind of file.
    package enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other
    }

    /// The kind of file (a link only when links are not followed).
    package var kind: Kind
    /// The permission bits, with set-user-id, set-group-id and sticky (`mode & 0o7777`).
    package var permissions: UInt32
    /// The owner's user id.
    package var owner: UInt32
    /// The size in bytes.
    package var size: Int64
    /// The last modification, in nanoseconds since 1970.
    package var modified: Int64
    /// The last change of contents or attributes (`ctime`), in nanoseconds since 1970.
    package var changed: Int64
    /// The device and inode: which file this is.
    package var device: UInt64
    package var inode: UInt64

    /// Whether the group or others may write it (`0o022`).
    package var isWritableByOthers: Bool { permissions & 0o022 != 0 }
    /// Whether the sticky bit is set (in a folder: only an entry's owner may remove or rename it).
    package var isSticky: Bool { permissions & 0o1000 != 0 }

    /// The status of `path`; `followingLinks: false` examines a link itself.
    /// Throws with the path and the system's reason (``FileError/isNotFound``
    /// tells a missing file from one that cannot be examined).
    package static func of(_ path: String, followingLinks: Bool = true) throws(FileError) -> FileStatus {
        var st = stat()
        let result = followingLinks ? stat(path, &st) : lstat(path, &st)
        guard result == 0 else { throw FileError(path: path) }
        return FileStatus(st)
    }

    /// The status of an open file.
    package static func of(_ descriptor: FileDescriptor) -> FileStatus? {
        var st = stat()
        guard fstat(descriptor.rawValue, &st) == 0 else { return nil }
        return FileStatus(st)
    }

    /// Whether anything is at `path` (links followed).
    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// The only place the system's `stat` record is read.
    private init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        permissions = UInt32(st.st_mode) & 0o7777
        owner = UInt32(st.st_uid)
        size = Int64(st.st_size)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        #if canImport(Darwin)
        modified = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        changed = Int64(st.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(st.st_ctimespec.tv_nsec)
        #else
        modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        #endif
    }
}
