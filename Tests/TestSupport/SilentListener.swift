import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that another program holds: it listens (connections queue, nothing is
/// ever answered), and a server asked to listen there finds the address in use.
///
/// ```swift
/// let silent = try SilentListener()
/// let r = try runProcess(ubiquity, ["serve", "--port", String(silent.port)])   // the address is in use
/// ```
public final class SilentListener: @unchecked Sendable {
    /// The listening socket (closed when this goes).
    public let fd: Int32
    /// Its port on 127.0.0.1.
    public let port: Int

    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &size) == 0 }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw Failed(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
