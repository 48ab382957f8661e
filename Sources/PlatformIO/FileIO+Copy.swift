#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileIO {
    /// Copies the regular file `source` to `destination`, which must not
    /// exist (a link there is not followed), in 1 MiB pieces, with `mode`, and
    /// flushes it to disk. A copy that fails is removed.
    ///
    /// ```swift
    /// try FileIO.copy("/backups/kv.sqlite", to: "/var/lib/kv/ubiquity.sqlite.restoring", mode: 0o600)
    /// ```
    package static func copy(_ source: String, to destination: String, mode: UInt32) throws(FileError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw FileError(path: source) }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw FileError(path: source, reason: "not a regular file") }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard output >= 0 else { throw FileError(path: destination) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failure: FileError? = nil
        while failure == nil {
            let n = buffer.withUnsafeMutableBytes { systemRead(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = FileError(path: source)
            } else if n == 0 {
                break
            } else if !writeAll(fd: output, Array(buffer[0..<n])) {
                failure = FileError(path: destination)
            }
        }
        if failure == nil, fchmod(output, mode_t(mode)) != 0 || fsync(output) != 0 { failure = FileError(path: destination) }
        close(output)
        if let failure {
            unlink(destination)
            throw failure
        }
    }
}
