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
