#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock`) held between processes on a lock file that
/// exists only while it is held: nothing is left beside a domain's file, in a
/// configuration folder, or in a listing once the lock is released.
///
/// Taking it: open (creating, mode 0600, never through a link), lock, then
/// check that the path still names the file locked; a holder before us may
/// have removed it, and then we start again. Releasing it: remove the file,
/// then unlock. So every process that holds a lock file's lock holds the one
/// the path names, and removing it is safe. A holder killed before it removed
/// the file leaves it behind, unlocked; the next holder takes and removes it.
///
/// ```swift
/// let lock = try FileLock(path: "/home/ada/.config/.com.example.app.plist.lock")  // waits for the lock
/// try lock.withLock { /* read, merge, write */ }                                   // then releases it
/// ```
package final class FileLock: @unchecked Sendable {
    private var descriptor: FileDescriptor?
    /// The lock file.
    package let path: String

    /// Waits for the lock on `path`, creating the file (mode 0600) if needed; a
    /// symbolic link there is refused, never followed.
    package init(path: String) throws(FileError) {
        self.path = path
        while true {
            let fd = try FileDescriptor.open(path, [.readWrite, .create, .noFollow])
            fd.lock()
            if let mine = FileStatus.of(fd), let named = try? FileStatus.of(path, followingLinks: false),
               mine.device == named.device, mine.inode == named.inode {
                descriptor = fd
                return
            }
            // Removed (or replaced) by the holder before us: its lock is not the path's.
            fd.close()
        }
    }

    deinit { release() }

    /// Runs `body` holding the lock, then releases it (a lock is taken once).
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        defer { release() }
        return try body()
    }

    /// Removes the lock file, then unlocks it.
    private func release() {
        guard let fd = descriptor else { return }
        descriptor = nil
        _ = unlink(path)
        fd.unlock()
        fd.close()
    }
}
