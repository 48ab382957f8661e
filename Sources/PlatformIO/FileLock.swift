/// An advisory lock on a lock file (`flock`), held between processes.
///
/// ```swift
/// let lock = try FileLock(path: "/home/ada/.config/.com.example.app.plist.lock")
/// try lock.withLock { /* read, merge, write */ }
/// ```
package final class FileLock: @unchecked Sendable {
    private let descriptor: FileDescriptor
    /// The lock file.
    package let path: String

    /// Opens (creating, mode 0600) the lock file. Does not lock.
    package init(path: String) throws(FileError) {
        self.path = path
        descriptor = try FileDescriptor.open(path, [.readWrite, .create])
    }

    deinit { descriptor.close() }

    /// Runs `body` holding the exclusive lock.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        descriptor.lock()
        defer { descriptor.unlock() }
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
        guard let status = try? FileStatus.of(path) else { return nil }
        self.init(status)
    }

    /// The signature of the file at `path` (following links): nil when no
    /// file is there (`ENOENT`, `ENOTDIR`), an error with the path and the
    /// system's reason when it cannot be examined.
    ///
    /// ```swift
    /// switch FileSignature.lookup(path) { case .success(let s?): … case .success(nil): … case .failure(let e): … }
    /// ```
    package static func lookup(_ path: String) -> Result<FileSignature?, FileError> {
        do { return .success(FileSignature(try FileStatus.of(path))) } catch {
            return error.isNotFound ? .success(nil) : .failure(error)
        }
    }

    private init(_ status: FileStatus) {
        device = status.device
        inode = status.inode
        size = status.size
        modified = status.modified / 1_000_000_000
        modifiedNanoseconds = status.modified % 1_000_000_000
        changed = status.changed / 1_000_000_000
        changedNanoseconds = status.changed % 1_000_000_000
        owner = status.owner
        mode = status.permissions
        isRegularFile = status.kind == .regular
    }
}
