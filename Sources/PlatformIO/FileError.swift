#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file operation: the path and the system's reason.
package struct FileError: Error, CustomStringConvertible, Sendable {
    /// The file.
    package let path: String
    /// What went wrong, from `strerror`.
    package let reason: String
    /// The `errno` value, or 0 when the error did not come from the system.
    package let code: Int32

    /// The error for the current `errno`.
    package init(path: String, errno code: Int32 = errno) {
        self.path = path
        self.code = code
        self.reason = String(cString: strerror(code))
    }

    package init(path: String, reason: String) {
        self.path = path
        self.code = 0
        self.reason = reason
    }

    package var description: String { "\(path): \(reason)" }

    /// `EADDRINUSE`: a listening address another socket holds.
    package static let addressInUse: Int32 = EADDRINUSE

    /// The system's text for `errno` value `code`, in lower case ("connection refused").
    package static func text(errno code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
