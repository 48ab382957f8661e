#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and writes over POSIX calls (no Foundation, so tools start fast).
package enum FileIO {
    /// The bytes of the file at `path`; `-` reads standard input.
    /// A directory is an error (`EISDIR`), as is a file that cannot be opened
    /// or a read that fails (never taken for the end of the file).
    ///
    /// ```swift
    /// let bytes = try FileIO.read("Info.plist")
    /// ```
    package static func read(_ path: String) throws(FileError) -> [UInt8] {
        if path == "-" { return try readAll(fd: 0, path: "<stdin>") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(path: path) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw FileError(path: path, errno: EISDIR)
        }
        return try readAll(fd: fd, path: path)
    }

    /// The bytes of the file at `path`, refused without reading it whole when it
    /// holds more than `limit` bytes (a huge file, or a device that never ends).
    ///
    /// ```swift
    /// let bytes = try FileIO.read("profile.mobileconfig", limit: 16 << 20)
    /// ```
    package static func read(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(path: path) }
        defer { if fd != 0 { close(fd) } }
        var st = stat()
        if fstat(fd, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { throw FileError(path: path, errno: EISDIR) }
            if (st.st_mode & S_IFMT) == S_IFREG, st.st_size > limit {
                throw FileError(path: path, reason: "\(st.st_size) bytes, more than the \(limit) it may have")
            }
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw FileError(path: path, errno: code)
            }
            if n == 0 { return out }
            out += chunk[0..<n]
            if out.count > limit { throw FileError(path: path, reason: "more than the \(limit) bytes it may have") }
        }
    }

    /// Everything readable from `fd` until end of file. A failed read throws
    /// with `path` and the system's reason (`errno` taken at once).
    package static func readAll(fd: Int32, path: String) throws(FileError) -> [UInt8] {
        // A regular file is read straight into a buffer of its size (one
        // copy); a pipe or a file that grows is read in chunks after that.
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, st.st_size < Int.max / 2 {
            let size = Int(st.st_size)
            var code: Int32 = 0
            var filled = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                LargePages.advise(UnsafeMutableRawPointer(buffer.baseAddress!), byteCount: size)
                while filled < size {
                    let n = systemRead(fd, buffer.baseAddress! + filled, size - filled)
                    if n < 0 {
                        if errno == EINTR { continue }
                        code = errno
                        break
                    }
                    if n == 0 { break }
                    filled += n
                }
                count = filled
            }
            if code != 0 { throw FileError(path: path, errno: code) }
            if filled < size { return bytes }
            let rest = try readChunks(fd: fd, path: path)
            return rest.isEmpty ? bytes : bytes + rest
        }
        return try readChunks(fd: fd, path: path)
    }

    private static func readChunks(fd: Int32, path: String) throws(FileError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var code: Int32 = 0
            let n = chunk.withUnsafeMutableBytes { b -> Int in
                let n = systemRead(fd, b.baseAddress, b.count)
                if n < 0 { code = errno }
                return n
            }
            if n < 0, code == EINTR { continue }
            if n < 0 { throw FileError(path: path, errno: code) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// Writes `bytes` to `path` atomically and durably: a temporary file in
    /// the same directory, written and fsynced, renamed over the target, then
    /// the directory fsynced. A reader sees the old file or the new one,
    /// whole, whatever happens. `-` writes to standard output.
    ///
    /// - A file that is replaced keeps its permission bits and, where the
    ///   system allows, its owner and group; a new file gets `mode` exactly
    ///   (not narrowed by the umask).
    /// - Something that is not a regular file (a FIFO, a device, a folder) is
    ///   never replaced.
    /// - Symbolic links follow ``resolvingLinkForWriting(_:)``: a trusted link
    ///   is written through (the link kept, its target replaced); a link
    ///   planted by another user in a folder others can write, or a dangling
    ///   link, is refused.
    ///
    /// ```swift
    /// try FileIO.write(bytes, to: "/home/ada/.config/com.example.app.plist", mode: 0o600)
    /// ```
    package static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(FileError) {
        let failure: FileError? = bytes.withUnsafeBytes { b in
            do throws(FileError) { try write(bytes: b, to: path, mode: mode); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    /// ``write(_:to:mode:)`` for bytes in any buffer.
    package static func write(bytes: UnsafeRawBufferPointer, to path: String, mode: UInt32 = 0o644) throws(FileError) {
        if path == "-" { writeAll(fd: StandardStream.output.fd, bytes); return }
        let replacement = try Replacement(path: path, mode: mode)
        guard writeAll(fd: replacement.fd, bytes) else {
            let code = errno
            replacement.abandon()
            throw FileError(path: path, errno: code)
        }
        try replacement.finish()
    }

    /// A file being replaced: its new content goes into a temporary file
    /// beside it (same owner and mode as the file it replaces, 0600 until
    /// then), which ``finish()`` syncs and renames over it. The link policy
    /// is ``resolvingLinkForWriting(_:)``'s.
    package struct Replacement: Sendable {
        /// The temporary file, open for writing.
        package let fd: Int32
        let path: String
        let target: String
        let temporary: String

        package init(path: String, mode: UInt32) throws(FileError) {
            self.path = path
            target = try resolvingLinkForWriting(path)
            var newMode = mode_t(mode) & 0o777
            var owner: (uid: uid_t, gid: gid_t)? = nil
            var st = stat()
            if lstat(target, &st) == 0 {
                guard (st.st_mode & S_IFMT) == S_IFREG else {
                    throw FileError(path: path, reason: "not a regular file; it is not replaced")
                }
                newMode = mode_t(st.st_mode) & 0o777
                owner = (st.st_uid, st.st_gid)
            } else {
                let code = errno
                if code != ENOENT { throw FileError(path: path, errno: code) }
            }
            temporary = parentDirectory(of: target) + "/." + lastComponent(of: target) + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw FileError(path: path) }
            if let owner, owner.uid != geteuid() || owner.gid != getegid() {
                // Root (or the owner, for a group it belongs to) can give the file
                // back; anyone else becomes its owner, as any rewrite would make it.
                if fchown(fd, owner.uid, owner.gid) != 0 { _ = fchown(fd, uid_t.max, owner.gid) }
            }
            guard fchmod(fd, newMode) == 0 else {
                let code = errno
                abandon()
                throw FileError(path: path, errno: code)
            }
        }

        /// Syncs the new content and renames it over the file (then syncs the folder).
        package func finish() throws(FileError) {
            var ok = fsync(fd) == 0
            var code = errno
            if close(fd) != 0, ok { ok = false; code = errno }
            guard ok else { unlink(temporary); throw FileError(path: path, errno: code) }
            guard systemRename(temporary, target) == 0 else {
                let code = errno
                unlink(temporary)
                throw FileError(path: path, errno: code)
            }
            syncDirectory(parentDirectory(of: target))
        }

        /// Closes and removes the temporary file; the file is left as it was.
        package func abandon() {
            close(fd)
            unlink(temporary)
        }
    }

    /// The file a write to `path` replaces, after the link policy:
    ///
    /// - not a link (or no file yet): `path` itself;
    /// - a chain of symbolic links, each owned by this user or root, or lying
    ///   in a folder no other user can write: the file the chain ends at;
    /// - a link owned by another user in a folder others can write (a sticky
    ///   `/tmp`, a group-writable share, a folder another user owns, such as
    ///   a user's home when root writes there): refused, whatever the kernel's
    ///   `protected_symlinks` says, because the rename of a temporary file
    ///   onto the target never consults it;
    /// - a link whose chain ends at nothing (dangling): refused — it is not a
    ///   licence to create a file somewhere else.
    ///
    /// ```swift
    /// let target = try FileIO.resolvingLinkForWriting("/tmp/out.plist")
    /// ```
    package static func resolvingLinkForWriting(_ path: String) throws(FileError) -> String {
        var current = path
        for hop in 0..<40 {
            try checkFolders(of: current, writing: path)
            var st = stat()
            if lstat(current, &st) != 0 {
                let code = errno
                if code == ENOENT, hop > 0 {
                    throw FileError(path: path, reason: "a symbolic link to \(current), which does not exist; no file is created there")
                }
                if code == ENOENT { return current }
                throw FileError(path: current, errno: code)
            }
            guard (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            if st.st_uid != geteuid(), st.st_uid != 0 {
                let folder = parentDirectory(of: current)
                if othersCanWrite(folder) {
                    throw FileError(path: path, reason: "a symbolic link owned by uid \(st.st_uid) in \(folder), which other users can write; it is not followed")
                }
            }
            var buffer = [CChar](repeating: 0, count: 4097)
            let n = readlink(current, &buffer, 4096)
            guard n > 0 else { throw FileError(path: current) }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : parentDirectory(of: current) + "/" + target
        }
        throw FileError(path: path, errno: ELOOP)
    }

    /// Whether users other than this one and root can write `folder` (or it cannot be seen):
    /// group or world write, a sticky folder, or a folder another user owns (its owner writes
    /// it: root writing into a user's folder must not follow that user's link to a file of root's).
    private static func othersCanWrite(_ folder: String) -> Bool {
        var st = stat()
        guard stat(folder, &st) == 0 else { return true }
        return (st.st_mode & 0o022) != 0 || (st.st_mode & mode_t(S_ISVTX)) != 0 || (st.st_uid != geteuid() && st.st_uid != 0)
    }

    /// Refuses a write to `path` when one of the folders on its way is a symbolic link another
    /// user planted where others can write (the rule for the file's own link): the kernel would
    /// follow it, and the file would be replaced in a folder of the link's choosing. Folders
    /// that do not exist yet are left to whoever makes them.
    private static func checkFolders(of path: String, writing original: String) throws(FileError) {
        let absolute = path.hasPrefix("/")
        var walked = absolute ? "" : "."
        for component in parentDirectory(of: path).split(separator: "/", omittingEmptySubsequences: true) where component != "." {
            let folder = walked
            walked = walked + "/" + component
            var st = stat()
            guard lstat(walked, &st) == 0 else { return }
            guard (st.st_mode & S_IFMT) == S_IFLNK, st.st_uid != geteuid(), st.st_uid != 0 else { continue }
            if othersCanWrite(folder.isEmpty ? "/" : folder) {
                throw FileError(path: original, reason: "its folder \(walked) is a symbolic link owned by uid \(st.st_uid) in a folder other users can write; it is not followed")
            }
        }
    }

    /// Flushes a directory's entries (a rename in it) to disk.
    package static func syncDirectory(_ directory: String) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return }
        _ = fsync(dfd)
        close(dfd)
    }

    /// The path a chain of symbolic links ends at (the path itself when it is
    /// not a link; a dangling link's target, so writing creates it).
    package static func resolvingSymbolicLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<32 {
            var buffer = [CChar](repeating: 0, count: 4097)
            let n = readlink(current, &buffer, 4096)
            guard n > 0 else { return current }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : parentDirectory(of: current) + "/" + target
        }
        return current
    }

    /// Everything before the last `/` (`.` when there is none).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Everything after the last `/`.
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Creates a directory and its missing parents.
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o700) throws(FileError) {
        var st = stat()
        if stat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { return }
            throw FileError(path: path, reason: "exists and is not a directory")
        }
        let parent = parentDirectory(of: path)
        if parent != path, parent != "/", parent != "." { try makeDirectories(parent, mode: mode) }
        if mkdir(path, mode_t(mode)) != 0, errno != EEXIST { throw FileError(path: path) }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes.
    @discardableResult
    package static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd: fd, $0) }
    }

    /// Writes all of `b` to `fd`, retrying short writes.
    @discardableResult
    package static func writeAll(fd: Int32, _ b: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < b.count {
            let n = systemWrite(fd, b.baseAddress! + done, b.count - done)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}
