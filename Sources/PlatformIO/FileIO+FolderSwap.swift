#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole folders replaced in one step, and removed without following links.
extension FileIO {
    /// Exchanges the names of two existing folders (or files) in one atomic
    /// step (`renameat2` with `RENAME_EXCHANGE`): a reader of either path
    /// sees the old tree or the new one, never a missing or half-made one.
    ///
    /// ```swift
    /// try FileIO.exchange("/etc/managed-preferences/.profiles.new", "/etc/managed-preferences/profiles")
    /// // the new tree is live; the old one is at the first path, to be removed
    /// ```
    package static func exchange(_ first: String, _ second: String) throws(FileError) {
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else {
            throw FileError(path: second, reason: "this system cannot exchange two folders atomically (no renameat2)")
        }
        let renameAt2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let exchangeFlag: UInt32 = 2  // RENAME_EXCHANGE
        guard renameAt2(AT_FDCWD, first, AT_FDCWD, second, exchangeFlag) == 0 else { throw FileError(path: second) }
    }

    /// Removes `path` and, when it is a folder, everything in it. Links are
    /// removed, never followed; what cannot be removed is left and reported
    /// by the first error.
    package static func removeTree(_ path: String) throws(FileError) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if errno == ENOENT { return }
            throw FileError(path: path)
        }
        if st.st_mode & S_IFMT == S_IFDIR {
            for name in directoryEntries(path) ?? [] { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 else { throw FileError(path: path) }
        } else {
            guard unlink(path) == 0 else { throw FileError(path: path) }
        }
    }
}

extension FileIO {
    /// Creates the file at `path`, which must not exist (a link there is
    /// never followed), with `bytes` and `mode`; not flushed to disk (see
    /// ``syncFileSystem(containing:)``). For building a new tree before it
    /// replaces the old one in one step.
    package static func createNew(_ path: String, bytes: [UInt8], mode: UInt32) throws(FileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else { throw FileError(path: path) }
        var ok = fchmod(fd, mode_t(mode)) == 0 && writeAll(fd: fd, bytes)
        let code = errno
        if close(fd) != 0 { ok = false }
        guard ok else { throw FileError(path: path, errno: code) }
    }

    /// Flushes the written data of the file system holding `path` to disk
    /// (`syncfs`; `sync` where it is missing): after a tree of new files,
    /// one call instead of one `fsync` per file.
    package static func syncFileSystem(containing path: String) {
        typealias SyncFS = @convention(c) (Int32) -> Int32
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") {
            _ = unsafeBitCast(symbol, to: SyncFS.self)(fd)
        } else {
            sync()
        }
    }
}

extension FileIO {
    /// Creates the folder `path` (its parent must exist) with exactly `permissions`, whatever the umask.
    package static func makeDirectoryExactly(_ path: String, permissions: UInt32) throws(FileError) {
        guard mkdir(path, mode_t(permissions)) == 0 else { throw FileError(path: path) }
        guard chmod(path, mode_t(permissions)) == 0 else { throw FileError(path: path) }
    }
}
