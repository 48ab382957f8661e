#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file, closed on exec, with the few operations the journal and
/// its recovery need: advisory locks, space reserved on disk, truncation.
/// The owner closes it (``close()``); it is a plain value, not closed on release.
///
/// ```swift
/// let fd = try FileDescriptor.open(path, [.readWrite, .create, .exclusive, .noFollow])
/// defer { fd.close() }
/// guard fd.tryLock(exclusive: true) else { /* another process holds it */ }
/// ```
package struct FileDescriptor: Sendable, Hashable {
    /// The system's descriptor.
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// How a file is opened (always close-on-exec).
    package struct Options: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        /// Read and write (otherwise read only).
        package static let readWrite = Options(rawValue: 1 << 0)
        /// Create the file when missing.
        package static let create = Options(rawValue: 1 << 1)
        /// With `create`: fail when it exists.
        package static let exclusive = Options(rawValue: 1 << 2)
        /// Fail when the last component is a symbolic link.
        package static let noFollow = Options(rawValue: 1 << 3)
        /// Never block on opening (a FIFO).
        package static let nonBlocking = Options(rawValue: 1 << 4)
    }

    /// Opens `path`; a new file gets `permissions` (narrowed by the umask).
    package static func open(_ path: String, _ options: Options, permissions: UInt32 = 0o600) throws(FileError) -> FileDescriptor {
        var flags = O_CLOEXEC | (options.contains(.readWrite) ? O_RDWR : O_RDONLY)
        if options.contains(.create) { flags |= O_CREAT }
        if options.contains(.exclusive) { flags |= O_EXCL }
        if options.contains(.noFollow) { flags |= O_NOFOLLOW }
        if options.contains(.nonBlocking) { flags |= O_NONBLOCK }
        let fd = systemOpen(path, flags, mode_t(permissions))
        guard fd >= 0 else { throw FileError(path: path) }
        return FileDescriptor(rawValue: fd)
    }

    /// Takes the advisory lock without waiting (`flock` … `LOCK_NB`); false
    /// when another open file holds it.
    package func tryLock(exclusive: Bool) -> Bool {
        flock(rawValue, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0
    }

    /// Waits for the exclusive advisory lock (interrupted waits are retried).
    package func lock() {
        while flock(rawValue, LOCK_EX) != 0 && errno == EINTR {}
    }

    /// Releases the advisory lock.
    package func unlock() { _ = flock(rawValue, LOCK_UN) }

    /// Reserves `bytes` on disk from the start (`posix_fallocate`), so a
    /// full disk is reported here, never as a fault on a mapped store.
    package func reserve(_ bytes: Int, path: String) throws(FileError) {
        let code = posix_fallocate(rawValue, 0, off_t(bytes))
        if code != 0 { throw FileError(path: path, errno: code) }
    }

    /// Cuts (or extends) the file to `bytes`.
    package func truncate(to bytes: Int) { _ = ftruncate(rawValue, off_t(bytes)) }

    /// Everything readable from here to the end (see ``FileIO/readAll(fd:path:)``).
    package func readAll(path: String) throws(FileError) -> [UInt8] { try FileIO.readAll(fd: rawValue, path: path) }

    /// Closes it.
    package func close() { _ = systemClose(rawValue) }
}

// The C library's calls under names a member called `open` or `close` does not hide.
@inline(__always) func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
@inline(__always) func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
@inline(__always) func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
@inline(__always) func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
