#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a lock file (`flock`), held between processes.
///
/// ```swift
/// let lock = try FileLock(path: "/home/ada/.config/.com.example.app.plist.lock")
/// try lock.withLock { /* read, merge, write */ }
/// ```
package final class FileLock: @unchecked Sendable {
    private let fd: Int32
    /// The lock file.
    package let path: String

    /// Opens (creating, mode 0600) the lock file. Does not lock.
    package init(path: String) throws(FileError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError(path: path) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Runs `body` holding the exclusive lock.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}

/// What identifies one version of a file: device, inode, size, change and
/// modification times. A rename over the file or a write to it changes it.
package struct FileSignature: Sendable, Hashable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let modified: Int64
    package let modifiedNanoseconds: Int64
    package let changed: Int64
    package let changedNanoseconds: Int64
    /// Owner's user id.
    package let owner: UInt32
    /// Permission bits.
    package let mode: UInt32
    /// True for a regular file.
    package let isRegularFile: Bool

    /// The signature of the file at `path` (following links), or nil when
    /// there is none or it cannot be examined (see ``lookup(_:)`` for why).
    package init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.init(st)
    }

    /// The signature of the file at `path` (following links): nil when no
    /// file is there (`ENOENT`, `ENOTDIR`), an error with the path and the
    /// system's reason when it cannot be examined.
    ///
    /// ```swift
    /// switch FileSignature.lookup(path) { case .success(let s?): … case .success(nil): … case .failure(let e): … }
    /// ```
    package static func lookup(_ path: String) -> Result<FileSignature?, FileError> {
        var st = stat()
        if stat(path, &st) == 0 { return .success(FileSignature(st)) }
        let code = errno
        if code == ENOENT || code == ENOTDIR { return .success(nil) }
        return .failure(FileError(path: path, errno: code))
    }

    private init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(st.st_mtim.tv_nsec)
        changed = Int64(st.st_ctim.tv_sec)
        changedNanoseconds = Int64(st.st_ctim.tv_nsec)
        owner = UInt32(st.st_uid)
        mode = UInt32(st.st_mode)
        isRegularFile = (st.st_mode & S_IFMT) == S_IFREG
    }
}
