#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and standard error, written without buffering surprises.
package struct StandardStream: Sendable {
    let fd: Int32
    /// Standard output.
    package static let output = StandardStream(fd: 1)
    /// Standard error.
    package static let error = StandardStream(fd: 2)

    /// Writes bytes.
    package func write(_ bytes: [UInt8]) { FileIO.writeAll(fd: fd, bytes) }
    /// Writes a string (no newline added).
    package func write(_ s: String) { FileIO.writeAll(fd: fd, Array(s.utf8)) }
    /// Writes a string and a newline.
    package func print(_ s: String) { write(s + "\n") }
}
