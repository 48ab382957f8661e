#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file operation: the path and the system's reason.
public struct FileError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public let path: String
    /// What went wrong, from `strerror`.
    public let reason: String

    /// The error for the current `errno`.
    public init(path: String, errno code: Int32 = errno) {
        self.path = path
        self.reason = String(cString: strerror(code))
    }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// Whole-file reads and writes over POSIX calls (no Foundation, so tools start fast).
public enum FileIO {
    /// The bytes of the file at `path`; `-` reads standard input.
    ///
    /// ```swift
    /// let bytes = try FileIO.read("Info.plist")
    /// ```
    public static func read(_ path: String) throws(FileError) -> [UInt8] {
        if path == "-" { return readAll(fd: 0) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(path: path) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw FileError(path: path, reason: "is a directory")
        }
        return readAll(fd: fd)
    }

    /// Everything readable from `fd` until end of file.
    public static func readAll(fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// Writes `bytes` to `path` atomically: a temporary file in the same
    /// directory, flushed, then renamed over the target. `-` writes to standard output.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(FileError) {
        if path == "-" { StandardStream.output.write(bytes); return }
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(path: path) }
        var ok = writeAll(fd: fd, bytes) && fsync(fd) == 0
        let code = errno
        ok = close(fd) == 0 && ok
        guard ok else { unlink(temporary); throw FileError(path: path, errno: code) }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileError(path: path, errno: code)
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes.
    @discardableResult
    public static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = Glibc.write(fd, b.baseAddress! + done, b.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }
}

/// Standard output and standard error, written without buffering surprises.
public struct StandardStream: Sendable {
    let fd: Int32
    /// Standard output.
    public static let output = StandardStream(fd: 1)
    /// Standard error.
    public static let error = StandardStream(fd: 2)

    /// Writes bytes.
    public func write(_ bytes: [UInt8]) { FileIO.writeAll(fd: fd, bytes) }
    /// Writes a string (no newline added).
    public func write(_ s: String) { FileIO.writeAll(fd: fd, Array(s.utf8)) }
    /// Writes a string and a newline.
    public func print(_ s: String) { write(s + "\n") }
}
