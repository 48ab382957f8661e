import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The service manager's side of systemd's notification protocol: a datagram socket that a child
/// started with ``environment`` (`NOTIFY_SOCKET`) tells `READY=1` and the like. A test waits for
/// a child's own word that it is ready instead of sleeping for it.
///
/// ```swift
/// let notify = try NotifySocket(in: folder)
/// let server = try startProcess(tool, ["serve"], environment: env.merging(notify.environment) { $1 })
/// #expect(notify.wait { $0.hasPrefix("READY=1") })
/// ```
public final class NotifySocket: @unchecked Sendable {
    /// The socket's path: what `NOTIFY_SOCKET` is set to.
    public let path: String
    private let fd: Int32
    private let received = Locked<[String]>([])
    private let closing = Locked(false)

    /// A socket named `notify-<random>.sock` in `folder` (kept short: a socket's path has 107 bytes).
    public init(in folder: String) throws {
        path = folder + "/notify-\(UInt32.random(in: 0 ... .max)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw POSIXError(.ENAMETOOLONG, userInfo: [NSLocalizedDescriptionKey: "socket path too long: \(path)"])
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO, userInfo: [NSLocalizedDescriptionKey: "cannot bind \(path)"])
        }
        // Any user's child may speak (a tool run as another user, a service's own user).
        chmod(path, 0o777)
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [fd, received, closing] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !closing.value {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n > 0 { received.mutate { $0.append(String(decoding: buffer[0..<n], as: UTF8.self)) } }
            }
            close(fd)
        }
        thread.start()
    }

    deinit {
        closing.set(true)
        unlink(path)
    }

    /// `NOTIFY_SOCKET`, for a child's environment.
    public var environment: [String: String] { ["NOTIFY_SOCKET": path] }

    /// The datagrams received so far, in order.
    public var messages: [String] { received.value }

    /// Waits until a datagram `matches` (up to `timeout`); whether one did.
    public func wait(timeout: Duration = .seconds(20), _ matches: (String) -> Bool) -> Bool {
        eventually(timeout: timeout) { received.value.contains(where: matches) }
    }
}
