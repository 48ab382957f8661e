#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileIO {
    /// The canonical path of `path`: absolute, every symbolic link, `.` and
    /// `..` resolved (`realpath`). Nil when it does not exist.
    package static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `name` is safe to join to a folder as a relative path: not
    /// empty, no NUL or other control character, not absolute, no `..`
    /// component.
    package static func isPlainRelativePath(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/") else { return false }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return false }
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
    }

    /// The bytes of the regular file `name` inside the folder `root`, only
    /// when it still lies inside `root` after every symbolic link is
    /// resolved. A name with a NUL or control character, an absolute name,
    /// `..`, a link that leads out of `root`, and anything that is not a
    /// regular file (a FIFO, a device, a folder) are refused.
    ///
    /// ```swift
    /// let png = try FileIO.readContainedFile("turtle.png", inside: "/srv/Settings.bundle")
    /// ```
    package static func readContainedFile(_ name: String, inside root: String) throws(FileError) -> [UInt8] {
        guard isPlainRelativePath(name) else {
            throw FileError(path: name, reason: "not a plain relative name (NUL, control characters, absolute paths and '..' are refused)")
        }
        guard let base = canonicalPath(root) else { throw FileError(path: root) }
        guard let resolved = canonicalPath(root + "/" + name) else { throw FileError(path: root + "/" + name) }
        guard resolved.hasPrefix(base == "/" ? "/" : base + "/") else {
            throw FileError(path: root + "/" + name, reason: "leads outside \(root)")
        }
        do { return try readRegularFile(resolved) } catch {
            throw FileError(path: root + "/" + name, reason: error.reason)
        }
    }
}

extension FileIO {
    /// The bytes of `path` when it is a regular file (following links);
    /// anything else — a FIFO, a device, a folder — is refused without
    /// opening it for a blocking read.
    ///
    /// ```swift
    /// let bytes = try FileIO.readRegularFile("/home/ada/.config/com.example.app.plist")
    /// ```
    package static func readRegularFile(_ path: String) throws(FileError) -> [UInt8] {
        let (fd, _) = try openRegularFile(path)
        defer { close(fd) }
        return try readAll(fd: fd, path: path)
    }

    /// Opens `path` for reading when it is a regular file (following links),
    /// without blocking on a FIFO; returns the descriptor (the caller closes
    /// it) and its `stat`.
    static func openRegularFile(_ path: String) throws(FileError) -> (Int32, stat) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FileError(path: path) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let error = FileError(path: path)
            close(fd)
            throw error
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileError(path: path, reason: "not a regular file")
        }
        return (fd, st)
    }
}
