#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets from their first byte: a private folder to make
/// them in, and placing one under its final name without replacing anything.
extension FileIO {
    /// Makes a new folder beside `path` (in `path`'s parent folder) that only
    /// its owner can enter (0700), under an unpredictable name (`mkdtemp`):
    /// nothing another user planted can be in it or be followed from it, and
    /// no other user can open what is made inside, whatever the process's umask.
    ///
    /// ```swift
    /// let folder = try FileIO.makePrivateDirectory(beside: "/srv/backups/kv.sqlite")
    /// defer { try? FileIO.removeTree(folder) }
    /// ```
    package static func makePrivateDirectory(beside path: String) throws(FileError) -> String {
        let parent = parentDirectory(of: path)
        var template = Array((parent + "/." + lastComponent(of: path) + ".XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw FileError(path: parent) }
        let folder = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkdtemp makes it 0700; the mode is checked, not assumed.
        var st = stat()
        guard lstat(folder, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, st.st_uid == geteuid(), st.st_mode & 0o077 == 0 else {
            throw FileError(path: folder, reason: "the private folder is not private")
        }
        return folder
    }

    /// Gives the file `source` the name `destination` only if nothing has that
    /// name (no file, folder or link: a link is never followed), then removes
    /// the name `source`. Both must be on one file system.
    package static func placeWithoutReplacing(_ source: String, at destination: String) throws(FileError) {
        guard link(source, destination) == 0 else { throw FileError(path: destination) }
        unlink(source)
    }

    /// Gives the file `path` (never a link's target) the owner and group of
    /// `folder` when they differ and this process may (root restoring into a
    /// service user's folder): what the folder's owner runs can open it.
    package static func giveToOwner(of folder: String, _ path: String) throws(FileError) {
        var f = stat(), st = stat()
        guard stat(folder, &f) == 0 else { throw FileError(path: folder) }
        guard lstat(path, &st) == 0 else { throw FileError(path: path) }
        guard st.st_uid != f.st_uid || st.st_gid != f.st_gid else { return }
        guard lchown(path, f.st_uid, f.st_gid) == 0 else { throw FileError(path: path) }
    }
}
