#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileError {
    /// Nothing is there (`ENOENT`, or a path through something that is not a folder).
    package var isNotFound: Bool { code == ENOENT || code == ENOTDIR }
    /// Something is there already (`EEXIST`).
    package var isAlreadyThere: Bool { code == EEXIST }
}

/// Names in folders: renaming, removing, creating, listing.
extension FileIO {
    /// Renames `source` to `destination` (replacing it, atomically).
    package static func rename(_ source: String, to destination: String) throws(FileError) {
        guard systemRename(source, destination) == 0 else { throw FileError(path: source) }
    }

    /// Removes the file at `path` (a link itself, not its target).
    package static func remove(_ path: String) throws(FileError) {
        guard unlink(path) == 0 else { throw FileError(path: path) }
    }

    /// Removes the folder at `path` if it is empty; false otherwise.
    @discardableResult
    package static func removeEmptyDirectory(_ path: String) -> Bool { rmdir(path) == 0 }

    /// Makes the regular file at `path` readable and writable by its owner
    /// alone (0600), creating it empty when absent; a link or anything but
    /// a regular file is refused (never followed). For files that hold
    /// secrets (a database of tokens, a login) whatever the folder's mode.
    package static func restrictToOwner(_ path: String, creating: Bool) throws(FileError) {
        let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (creating ? O_CREAT : 0)
        let fd = open(path, flags, mode_t(0o600))
        guard fd >= 0 else {
            if !creating, errno == ENOENT { return }
            throw FileError(path: path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError(path: path) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw FileError(path: path, reason: "not a regular file") }
        guard st.st_mode & 0o7777 == 0o600 || fchmod(fd, 0o600) == 0 else { throw FileError(path: path) }
    }

    /// Creates one folder (its parent must exist) with `permissions`.
    package static func makeDirectory(_ path: String, permissions: UInt32 = 0o700) throws(FileError) {
        guard mkdir(path, mode_t(permissions)) == 0 else { throw FileError(path: path) }
    }

    /// The names in the folder at `path` (without `.` and `..`); nil when it cannot be listed.
    package static func directoryEntries(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The relative paths of everything under the folder at `path` (files,
    /// folders, links; `a`, `a/b.plist`, …), in no particular order. Links
    /// are listed, never followed; a folder nested deeper than `maximumDepth`
    /// is not entered. Empty when `path` cannot be listed.
    ///
    /// ```swift
    /// FileIO.subpaths(of: "Settings.bundle").filter { $0.hasSuffix(".plist") }
    /// ```
    package static func subpaths(of path: String, maximumDepth: Int = 64) -> [String] {
        var found: [String] = []
        func walk(_ relative: String, depth: Int) {
            let folder = relative.isEmpty ? path : path + "/" + relative
            guard depth <= maximumDepth, let names = directoryEntries(folder) else { return }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                found.append(child)
                if (try? FileStatus.of(path + "/" + child, followingLinks: false))?.kind == .directory {
                    walk(child, depth: depth + 1)
                }
            }
        }
        walk("", depth: 0)
        return found
    }
}
